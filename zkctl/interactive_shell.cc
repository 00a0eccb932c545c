// SPDX-License-Identifier: Apache-2.0
#include "zkctl/interactive_shell.h"

#include <editline/readline.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include "zkctl/line_completion.h"

namespace zkctl {

namespace {

constexpr int kHistoryLines = 1000;

std::string history_file() {
  const char* home = std::getenv("HOME");
  return home == nullptr || *home == '\0' ? std::string() : std::string(home) + "/.zkctl_history";
}

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

// libedit's completion callbacks take no user data: the shell running now
// (one per process) and the candidates of the TAB being handled.
LineInterpreter* completing_interpreter = nullptr;
std::vector<std::string> pending_candidates;

// rl_completion_matches' generator: the pending candidates, one per call.
char* next_candidate(const char* /*text*/, int state) {
  static size_t next = 0;
  if (state == 0) next = 0;
  if (next >= pending_candidates.size()) return nullptr;
  return strdup(pending_candidates[next++].c_str());
}

// rl_attempted_completion_function: the word is [start, end) of the line,
// the cursor at `end` (libedit's line buffer need not end there with a NUL).
char** complete_word(const char* text, int /*start*/, int end) {
  rl_attempted_completion_over = 1;  // never fall back to file names
  if (rl_line_buffer == nullptr || end < 0) return nullptr;
  static const std::vector<CommandWords> commands = shell_command_words();
  const LineCompletion completion = complete_line(
      std::string_view(rl_line_buffer, static_cast<size_t>(end)), static_cast<size_t>(end),
      commands,
      [](const std::string& path) { return completing_interpreter->list_children(path); });
  if (completion.candidates.empty()) return nullptr;
  // A command or option is done when completed; a path may go on ("/a" -> "/a/b").
  rl_completion_append_character = completion.kind == CompletionKind::kPath ? '\0' : ' ';
  pending_candidates = completion.candidates;
  return rl_completion_matches(text, next_candidate);
}

}  // namespace

ExitCode run_interactive(LineInterpreter& interpreter) {
  using_history();
  stifle_history(kHistoryLines);
  const std::string history = history_file();
  if (!history.empty()) read_history(history.c_str());
  completing_interpreter = &interpreter;
  rl_basic_word_break_characters = " \t\n";  // as complete_line splits words
  rl_attempted_completion_function = complete_word;

  ExitCode last = ExitCode::kOk;
  for (;;) {
    interpreter.print_fired_watches();
    std::unique_ptr<char, FreeDeleter> line(readline(interpreter.prompt().c_str()));
    if (!line) break;  // end of input
    const std::string text(line.get());
    if (text.find_first_not_of(" \t") != std::string::npos) add_history(text.c_str());
    const LineOutcome outcome = interpreter.run_line(text, "zkctl");
    last = outcome.exit_code;
    if (outcome.quit) break;
  }
  rl_attempted_completion_function = nullptr;
  completing_interpreter = nullptr;
  if (!history.empty()) write_history(history.c_str());
  return last;
}

}  // namespace zkctl
