// SPDX-License-Identifier: Apache-2.0
// Splitting the words of zkctl's recipe verbs (lock_verbs.h,
// coordination_verbs.h) into positionals, options and flags, the one way
// both do it: "--name value", "--name=value", "-n value"; a word "-" is a
// positional; "--" ends the options (and, for verbs that run a command,
// everything after it is the command).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "zkctl/command_parser.h"

namespace zkctl {

struct VerbSyntax {
  std::vector<std::string> with_value;  // options taking a value
  std::vector<std::string> flags;       // options without one
  // True: the words after "--" are a command (VerbWords::command), not
  // positionals.
  bool command_after_separator = false;
};

struct VerbWords {
  std::vector<std::string> positionals;
  std::map<std::string, std::string> options;  // a repeated option: the last value
  std::vector<std::string> flags;
  std::vector<std::string> command;  // after "--", with command_after_separator
  bool has_separator = false;        // "--" was given
};

// Splits words[first...] of verb `name` (for messages). Errors: an unknown
// option, an option without its value.
std::variant<VerbWords, UsageError> split_verb_words(const std::string& name,
                                                     const std::vector<std::string>& words,
                                                     size_t first, const VerbSyntax& syntax);

// `text` as a whole decimal integer in [min, max]; nothing otherwise.
std::optional<int64_t> parse_int_in(const std::string& text, int64_t min, int64_t max);

// Milliseconds for --timeout: 0 to one day.
inline std::optional<int64_t> parse_timeout_ms(const std::string& text) {
  return parse_int_in(text, 0, 86400000);
}

}  // namespace zkctl
