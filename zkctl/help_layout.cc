// SPDX-License-Identifier: Apache-2.0
#include "zkctl/help_layout.h"

#include <cctype>
#include <vector>

namespace zkctl {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(separator, start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// The summary's words, an option ("-e", "(-e") kept with the word after it
// so that no line ends in an option apart from what it means.
std::vector<std::string> units(std::string_view summary) {
  std::vector<std::string> out;
  bool glue = false;
  for (std::string_view word : split(summary, ' ')) {
    if (glue) {
      out.back() += ' ';
      out.back() += word;
    } else {
      out.emplace_back(word);
    }
    const bool option = word.starts_with('-') || word.starts_with("(-");
    glue = !glue && option && std::isalnum(static_cast<unsigned char>(word.back())) != 0;
  }
  return out;
}

}  // namespace

std::string help_entry(std::string_view syntax, std::string_view summary) {
  std::string out;
  std::string line;
  const std::vector<std::string_view> syntax_lines = split(syntax, '\n');
  for (size_t i = 0; i < syntax_lines.size(); ++i) {
    if (i > 0) out += line + '\n';
    line = "  " + std::string(syntax_lines[i]);
  }
  // The summary's first word goes on the syntax's line if it leaves a space.
  if (line.size() >= kHelpSummaryColumn) {
    out += line + '\n';
    line.clear();
  }
  bool line_has_words = false;
  for (const std::string& word : units(summary)) {
    if (line_has_words && line.size() + 1 + word.size() > kHelpWidth) {
      out += line + '\n';
      line.clear();
      line_has_words = false;
    }
    if (line_has_words) {
      line += ' ';
    } else {
      line.resize(kHelpSummaryColumn, ' ');
    }
    line += word;
    line_has_words = true;
  }
  out += line + '\n';
  return out;
}

}  // namespace zkctl
