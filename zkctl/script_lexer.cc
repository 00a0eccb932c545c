// SPDX-License-Identifier: Apache-2.0
#include "zkctl/script_lexer.h"

#include <optional>

namespace zkctl {

LexResult split_command_line(std::string_view line) {
  std::vector<std::string> words;
  std::optional<std::string> word;  // engaged once a word has started
  size_t i = 0;
  const size_t n = line.size();
  while (i < n) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      if (word) words.push_back(std::move(*word)), word.reset();
      ++i;
    } else if (c == '#' && !word) {
      break;
    } else if (c == '\'') {
      const size_t close = line.find('\'', i + 1);
      if (close == std::string_view::npos) return LexError{"unterminated single quote"};
      if (!word) word.emplace();
      word->append(line.substr(i + 1, close - i - 1));
      i = close + 1;
    } else if (c == '"') {
      if (!word) word.emplace();
      ++i;
      bool closed = false;
      while (i < n) {
        const char d = line[i];
        if (d == '"') {
          closed = true;
          ++i;
          break;
        }
        if (d == '\\' && i + 1 < n) {
          const char e = line[i + 1];
          if (e == '"' || e == '\\') {
            *word += e;
          } else if (e == 'n') {
            *word += '\n';
          } else if (e == 't') {
            *word += '\t';
          } else {
            *word += '\\';
            *word += e;
          }
          i += 2;
          continue;
        }
        *word += d;
        ++i;
      }
      if (!closed) return LexError{"unterminated double quote"};
    } else if (c == '\\') {
      if (i + 1 >= n) return LexError{"backslash at end of line"};
      if (!word) word.emplace();
      *word += line[i + 1];
      i += 2;
    } else {
      if (!word) word.emplace();
      *word += c;
      ++i;
    }
  }
  if (word) words.push_back(std::move(*word));
  return words;
}

}  // namespace zkctl
