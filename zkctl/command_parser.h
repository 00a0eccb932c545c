// SPDX-License-Identifier: Apache-2.0
// Grammar of one zkctl command, shared by the one-shot command line
// (`zkctl [global options] CMD ARGS...`) and by script / interactive lines.
//
//   create [-e] [-s] PATH [DATA]
//   get [-S|--stat] PATH
//   set [-v VERSION] [-S|--stat] PATH DATA
//   ls [-S|--stat] PATH
//   stat PATH
//   exists PATH
//   delete [-v VERSION] PATH
//   deleteall PATH
//   watch [--data|--children|--exists] [--count N] [--timeout-watch MS] PATH
//   sync PATH
//   addauth SCHEME AUTH
//   getacl [-S|--stat] PATH
//   setacl [-v VERSION] [-S|--stat] PATH ACL      (ACL: zkctl/acl_text.h)
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

// The grammar above plus one line per command, for --help and `help`.
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
