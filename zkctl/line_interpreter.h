// SPDX-License-Identifier: Apache-2.0
// Runs one line of a script or of the interactive shell: split into words
// (script_lexer.h), handle the built-ins, parse (command_parser.h), run on the
// CommandRunner and print through the Printer.
//
// Built-ins: `help` prints the command list and exit codes; `quit` and `exit`
// end the script or shell. Blank lines and comments do nothing.
// A line that does not parse prints a USAGE failure and yields exit code 2.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkctl/command_parser.h"
#include "zkctl/command_runner.h"
#include "zkctl/exit_code.h"
#include "zkctl/printer.h"

namespace zkctl {

struct LineOutcome {
  ExitCode exit_code = ExitCode::kOk;
  bool quit = false;  // `quit` or `exit` was given
};

class LineInterpreter {
 public:
  // Both are borrowed and must outlive the interpreter.
  LineInterpreter(CommandRunner& runner, Printer& printer) : runner_(runner), printer_(printer) {}

  // `context` prefixes human error lines ("zkctl", "deploy.zk:12").
  LineOutcome run_line(std::string_view line, const std::string& context);

  // Runs already split words.
  ExitCode run_words(const std::vector<std::string>& words, const std::string& context);

  // Runs a parsed command, printing its results and its failure, if any.
  ExitCode run_command(const Command& command, const std::string& context);

  // The children's names of the node at `path`, through the runner (the
  // shell's session), printing nothing; nullopt when listing fails. For
  // completion (line_completion.h).
  std::optional<std::vector<std::string>> list_children(const std::string& path);

 private:
  CommandRunner& runner_;
  Printer& printer_;
};

// The text `help` prints.
std::string shell_help_text();

// The commands a line may start with: command_words() and the built-ins.
std::vector<CommandWords> shell_command_words();

}  // namespace zkctl
