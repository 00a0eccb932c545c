// SPDX-License-Identifier: Apache-2.0
#include "zkctl/line_interpreter.h"

#include "zkctl/command_parser.h"
#include "zkctl/script_lexer.h"

namespace zkctl {

namespace {
CommandFailure usage_failure(std::string message) {
  CommandFailure f;
  f.exit_code = ExitCode::kUsage;
  f.name = "USAGE";
  f.message = std::move(message);
  return f;
}
}  // namespace

std::string shell_help_text() {
  return command_help_text() +
         "  help                           this text\n"
         "  quit, exit                     leave\n" +
         exit_code_help_text();
}

std::vector<CommandWords> shell_command_words() {
  std::vector<CommandWords> words = command_words();
  for (const char* builtin : {"help", "quit", "exit"}) words.push_back({builtin, {}, false});
  return words;
}

LineOutcome LineInterpreter::run_line(std::string_view line, const std::string& context) {
  LexResult lexed = split_command_line(line);
  if (const auto* error = std::get_if<LexError>(&lexed)) {
    printer_.print(usage_failure(error->message), context);
    return {ExitCode::kUsage, false};
  }
  const auto& words = std::get<std::vector<std::string>>(lexed);
  if (words.empty()) return {};
  if (words.size() == 1 && (words[0] == "quit" || words[0] == "exit")) return {ExitCode::kOk, true};
  return {run_words(words, context), false};
}

ExitCode LineInterpreter::run_words(const std::vector<std::string>& words,
                                    const std::string& context) {
  if (words.size() == 1 && words[0] == "help") {
    printer_.print_text(shell_help_text());
    return ExitCode::kOk;
  }
  ParseResult parsed = parse_command(words);
  if (const auto* usage = std::get_if<UsageError>(&parsed)) {
    printer_.print(usage_failure(usage->message), context);
    return ExitCode::kUsage;
  }
  return run_command(std::get<Command>(parsed), context);
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

std::optional<std::vector<std::string>> LineInterpreter::list_children(const std::string& path) {
  std::optional<std::vector<std::string>> children;
  const auto failure = runner_.run(LsCommand{path, false}, [&](const CommandResult& result) {
    if (const auto* listed = std::get_if<ChildrenResult>(&result)) children = listed->children;
  });
  if (failure) return std::nullopt;
  return children;
}

}  // namespace zkctl
