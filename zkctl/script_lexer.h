// SPDX-License-Identifier: Apache-2.0
// Splits one script or interactive line into words, shell style (a subset):
//   - blanks (space, tab) separate words; a line of only blanks gives no words;
//   - '#' at the start of a word starts a comment that runs to the end of line;
//   - 'single quotes' keep everything literally;
//   - "double quotes" keep everything except the escapes \" \\ \n \t
//     (any other backslash stays as typed);
//   - outside quotes a backslash makes the next character literal;
//   - quotes can abut other text: a"b c"d is the one word `ab cd`; "" is an
//     empty word.
// An unterminated quote or a trailing lone backslash is an error.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace zkctl {

struct LexError {
  std::string message;
};

using LexResult = std::variant<std::vector<std::string>, LexError>;

LexResult split_command_line(std::string_view line);

}  // namespace zkctl
