// SPDX-License-Identifier: Apache-2.0
#include "zkctl/interactive_shell.h"

#include <editline/readline.h>

#include <cstdlib>
#include <memory>

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

}  // namespace

ExitCode run_interactive(LineInterpreter& interpreter, const std::string& prompt) {
  using_history();
  stifle_history(kHistoryLines);
  const std::string history = history_file();
  if (!history.empty()) read_history(history.c_str());

  ExitCode last = ExitCode::kOk;
  for (;;) {
    std::unique_ptr<char, FreeDeleter> line(readline(prompt.c_str()));
    if (!line) break;  // end of input
    const std::string text(line.get());
    if (text.find_first_not_of(" \t") != std::string::npos) add_history(text.c_str());
    const LineOutcome outcome = interpreter.run_line(text, "zkctl");
    last = outcome.exit_code;
    if (outcome.quit) break;
  }
  if (!history.empty()) write_history(history.c_str());
  return last;
}

}  // namespace zkctl
