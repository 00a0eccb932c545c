// SPDX-License-Identifier: Apache-2.0
// Java Properties text, the format of Apache's zoo.cfg: one `key=value`,
// `key: value` or `key value` per logical line; lines whose first non-blank
// character is `#` or `!` are comments; a line ending in an odd number of
// backslashes continues on the next one; keys and values are trimmed and the
// usual escapes (\t \n \r \f \\ \uXXXX, \ before any other character) are
// undone. Later duplicates win, as in java.util.Properties.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zkd::server {

struct Property {
  std::string key;
  std::string value;
  int line = 0;  // 1-based line where the entry starts
};

// Entries in file order (duplicates kept; the last one counts).
std::vector<Property> parse_properties(std::string_view text);

// A value that lists items with commas, as Apache splits them
// (4lw.commands.whitelist, ssl.enabledProtocols, ssl.ciphersuites,
// enforce.auth.schemes): each item trimmed of blank space, empty ones dropped.
std::vector<std::string> comma_list(std::string_view value);

}  // namespace zkd::server
