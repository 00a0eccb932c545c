// SPDX-License-Identifier: Apache-2.0
#include "zkctl/line_interpreter.h"

#include "libzk/version/version.h"
#include "zkctl/command_parser.h"
#include "zkctl/help_layout.h"
#include "zkctl/script_lexer.h"
#include "zkctl/verb_words.h"

namespace zkctl {

namespace {

constexpr size_t kHistoryShown = 10;

CommandFailure usage_failure(std::string message) {
  CommandFailure f;
  f.exit_code = ExitCode::kUsage;
  f.name = "USAGE";
  f.message = std::move(message);
  return f;
}

// The shell's own commands (run_builtin, run_line): their names as completion
// offers them, and their help entry.
struct Builtin {
  std::vector<const char*> names;
  const char* syntax;
  const char* summary;
};

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> list{
      {{"connect"}, "connect HOSTS", "end the session, open one to HOSTS"},
      {{"close"}, "close", "end the session (its ephemerals go)"},
      {{"history"}, "history", "the last 10 lines, numbered"},
      {{"redo"}, "redo N", "run line N again"},
      {{"printwatches"}, "printwatches on|off", "print fired watches (default on)"},
      {{"version"}, "version", "zkctl's version"},
      {{"help"}, "help", "this text"},
      {{"quit", "exit"}, "quit, exit", "leave"},
  };
  return list;
}

}  // namespace

std::string shell_help_text() {
  std::string text = command_help_text() + "Shell (scripts and the interactive shell):\n";
  for (const Builtin& builtin : builtins()) text += help_entry(builtin.syntax, builtin.summary);
  return text + exit_code_help_text();
}

std::vector<CommandWords> shell_command_words() {
  std::vector<CommandWords> words = command_words();
  for (const Builtin& builtin : builtins()) {
    for (const char* name : builtin.names) words.push_back({name, {}, false});
  }
  return words;
}

LineOutcome LineInterpreter::run_line(std::string_view line, const std::string& context) {
  LexResult lexed = split_command_line(line);
  if (const auto* error = std::get_if<LexError>(&lexed)) {
    printer_.print(usage_failure(error->message), context);
    return {ExitCode::kUsage, false};
  }
  auto words = std::get<std::vector<std::string>>(lexed);
  if (words.empty()) return {};
  if (words.size() == 2 && words[0] == "redo") {
    const auto n = parse_int_in(words[1], 0, static_cast<int64_t>(history_.size()) - 1);
    if (!n) return {usage("redo: no line " + words[1] + " in history", context), false};
    return run_line(std::string(history_[static_cast<size_t>(*n)]), context);
  }
  history_.emplace_back(line);
  if (words.size() == 1 && (words[0] == "quit" || words[0] == "exit")) return {ExitCode::kOk, true};
  const ExitCode code = run_words(words, context);
  print_fired_watches();
  return {code, false};
}

ExitCode LineInterpreter::run_words(const std::vector<std::string>& words,
                                    const std::string& context) {
  if (auto code = run_builtin(words, context)) return *code;
  ParseResult parsed = parse_command(words);
  if (const auto* usage = std::get_if<UsageError>(&parsed)) {
    printer_.print(usage_failure(usage->message), context);
    return ExitCode::kUsage;
  }
  return run_command(std::get<Command>(parsed), context);
}

std::optional<ExitCode> LineInterpreter::run_builtin(const std::vector<std::string>& words,
                                                     const std::string& context) {
  const std::string& name = words[0];
  const size_t args = words.size() - 1;
  if (name == "help" && args == 0) {
    printer_.print_text(shell_help_text());
    return ExitCode::kOk;
  }
  if (name == "version" && args == 0) {
    printer_.print(VersionResult{zk::version_line("zkctl")});
    return ExitCode::kOk;
  }
  if (name == "history" && args == 0) {
    const size_t first = history_.size() > kHistoryShown ? history_.size() - kHistoryShown : 0;
    std::string text;
    for (size_t i = first; i < history_.size(); ++i) {
      text += std::to_string(i) + " - " + history_[i] + "\n";
    }
    printer_.print_text(text);
    return ExitCode::kOk;
  }
  if (name == "printwatches" && args == 1 && (words[1] == "on" || words[1] == "off")) {
    print_watches_ = words[1] == "on";
    return ExitCode::kOk;
  }
  if (name == "connect" || name == "close") {
    if (session_ == nullptr) return usage(name + ": not available here", context);
    if (name == "close" && args == 0) {
      session_->close();
      return ExitCode::kOk;
    }
    if (name == "connect" && args == 1) {
      if (auto failure = session_->connect(words[1])) {
        failure->command = "connect";
        printer_.print(*failure, context);
        return failure->exit_code;
      }
      return ExitCode::kOk;
    }
    return usage(name == "close" ? "close takes no argument" : "connect HOSTS", context);
  }
  for (const char* builtin : {"help", "version", "history", "printwatches", "redo"}) {
    if (name == builtin) return usage(std::string("bad arguments to ") + builtin, context);
  }
  return std::nullopt;
}

ExitCode LineInterpreter::usage(const std::string& message, const std::string& context) {
  printer_.print(usage_failure(message), context);
  return ExitCode::kUsage;
}

ExitCode LineInterpreter::run_command(const Command& command, const std::string& context) {
  ExitCode code = ExitCode::kOk;
  auto failure = runner_.run(command, [&](const CommandResult& result) {
    printer_.print(result);
    if (code == ExitCode::kOk) code = exit_code_of(result);
  });
  if (failure) {
    printer_.print(*failure, context);
    return failure->exit_code;
  }
  return code;
}

bool LineInterpreter::print_fired_watches() {
  bool printed = false;
  for (const FiredWatchResult& event : runner_.take_fired_watches()) {
    if (print_watches_) printer_.print(event);
    printed |= print_watches_;
  }
  return printed;
}

std::string LineInterpreter::prompt() const {
  const std::string state = session_ == nullptr ? "CONNECTED" : session_->state_text();
  const std::string server = session_ == nullptr ? "" : session_->server();
  return "[zk: " + server + "(" + state + ") " + std::to_string(history_.size()) + "] ";
}

std::optional<std::vector<std::string>> LineInterpreter::list_children(const std::string& path) {
  std::optional<std::vector<std::string>> children;
  LsCommand ls;
  ls.path = path;
  const auto failure = runner_.run(ls, [&](const CommandResult& result) {
    if (const auto* listed = std::get_if<ChildrenResult>(&result)) children = listed->children;
  });
  if (failure) return std::nullopt;
  return children;
}

}  // namespace zkctl
