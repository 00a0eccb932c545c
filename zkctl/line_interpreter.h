// SPDX-License-Identifier: Apache-2.0
// Runs one line of a script or of the interactive shell: split into words
// (script_lexer.h), handle the built-ins, parse (command_parser.h), run on the
// CommandRunner and print through the Printer. After each line, the events
// of watches that earlier commands left set are printed (unless turned off).
//
// Built-ins (zkCli's shell commands):
//   help              the command list and exit codes
//   quit, exit        end the script or shell
//   version           zkctl's version
//   history           the last 10 lines, numbered
//   redo N            run line N again
//   connect HOSTS     end the session and open one to HOSTS
//   close             end the session (its ephemerals go)
//   printwatches on|off
//                     whether fired watches are printed
// Blank lines and comments do nothing. A line that does not parse prints a
// USAGE failure and yields exit code 2.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkctl/command_parser.h"
#include "zkctl/command_runner.h"
#include "zkctl/exit_code.h"
#include "zkctl/printer.h"
#include "zkctl/session_control.h"

namespace zkctl {

struct LineOutcome {
  ExitCode exit_code = ExitCode::kOk;
  bool quit = false;  // `quit` or `exit` was given
};

class LineInterpreter {
 public:
  // All are borrowed and must outlive the interpreter. Without `session`,
  // connect and close fail with USAGE.
  LineInterpreter(CommandRunner& runner, Printer& printer, SessionControl* session = nullptr)
      : runner_(runner), printer_(printer), session_(session) {}

  // `context` prefixes human error lines ("zkctl", "deploy.zk:12").
  LineOutcome run_line(std::string_view line, const std::string& context);

  // Runs already split words.
  ExitCode run_words(const std::vector<std::string>& words, const std::string& context);

  // Runs a parsed command, printing its results and its failure, if any.
  ExitCode run_command(const Command& command, const std::string& context);

  // Prints the events of fired watches (see CommandRunner::take_fired_watches);
  // true when it printed any.
  bool print_fired_watches();

  // See CommandRunner::on_watch_fired.
  void on_watch_fired(std::function<void()> wake) { runner_.on_watch_fired(std::move(wake)); }

  // zkCli's prompt: "[zk: HOSTS(CONNECTED 0x...) N] ", N the number the next
  // line gets in `history`.
  std::string prompt() const;

  // The children's names of the node at `path`, through the runner (the
  // shell's session), printing nothing; nullopt when listing fails. For
  // completion (line_completion.h).
  std::optional<std::vector<std::string>> list_children(const std::string& path);

 private:
  // A built-in's exit code; nullopt when `words` is not a built-in.
  std::optional<ExitCode> run_builtin(const std::vector<std::string>& words,
                                      const std::string& context);
  ExitCode usage(const std::string& message, const std::string& context);

  CommandRunner& runner_;
  Printer& printer_;
  SessionControl* session_;
  std::vector<std::string> history_;  // every line run, redo's as the line it ran
  bool print_watches_ = true;
};

// The text `help` prints.
std::string shell_help_text();

// The commands a line may start with: command_words() and the built-ins.
std::vector<CommandWords> shell_command_words();

}  // namespace zkctl
