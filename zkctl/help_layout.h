// SPDX-License-Identifier: Apache-2.0
// The layout of zkctl's help entries (`zkctl --help`, the shell's `help`):
//
//   ls [-s] [-w] [-R] PATH         list the children, sorted (-s: and the
//                                  Stat; -R: every path of the subtree)
//   get [-s] [-w] [--base64|--hex] PATH
//                                  print the data (-s: and the Stat; ...)
//
// The syntax at column 2; the summary at column 33, on the syntax's last line
// when that leaves a space before column 33, else on the lines below, wrapped
// between words so that no line is longer than 77 columns (a longer word
// stands alone on its line) and none ends in an option ("-e", "(-e") without
// the word after it.
#pragma once

#include <string>
#include <string_view>

namespace zkctl {

inline constexpr size_t kHelpSummaryColumn = 33;
inline constexpr size_t kHelpWidth = 77;

// One entry, each line ending in '\n'. A '\n' in `syntax` starts a new line
// of it, indented by two spaces and then as written ("reconfig ... |\n
// [-add SERVERS]").
std::string help_entry(std::string_view syntax, std::string_view summary);

}  // namespace zkctl
