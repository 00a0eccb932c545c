// SPDX-License-Identifier: Apache-2.0
// Grammar of one zkctl command, shared by the one-shot command line
// (`zkctl [global options] CMD ARGS...`) and by script / interactive lines:
// zkCli 3.8/3.9's commands as zkCli spells them, plus zkctl's `exists` and
// `watch`; command_help_text() lists them. Names match in any case
// ("getacl" is getAcl); -S and --stat are zkctl's spellings of zkCli's -s
// where -s means the Stat; reconfig's -file, -members, -add and -remove may
// have one dash, as in zkCli.
//
// Options may come before or after the positionals; `--` ends the options (for
// data that starts with '-'). DATA "@FILE" reads FILE when the command runs;
// "@@..." is a literal starting with '@'.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "zkctl/command.h"

namespace zkctl {

struct UsageError {
  std::string message;  // one line, e.g. "get: PATH is required"
};

using ParseResult = std::variant<Command, UsageError>;

// Parses `words` (the command name first). Never throws.
ParseResult parse_command(const std::vector<std::string>& words);

// How a command is written and what it does, registered with its grammar
// (one per form: watch has two): its entry in command_help_text().
struct CommandUsage {
  std::string name;  // "get"
  // What follows the name, zkCli's way: -s rather than --stat, alternatives
  // as -c|-d|-a; a '\n' continues on the next line (help_layout.h).
  std::string args;
  std::string summary;  // what it does, one paragraph
};

// Every command's usages, in the order of the grammar.
std::vector<CommandUsage> command_usages();

// The grammar above plus the entry of each of command_usages(), for --help
// and `help`.
std::string command_help_text();

// How one command is spelled, read from the same grammar parse_command uses:
// for completion (line_completion.h).
struct CommandWords {
  std::string name;                  // "get"
  std::vector<std::string> options;  // "-S", "--stat"
  bool takes_path = false;           // it has a PATH argument
};

// Every command parse_command knows, in the order of the grammar above.
std::vector<CommandWords> command_words();

}  // namespace zkctl
