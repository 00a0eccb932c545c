// SPDX-License-Identifier: Apache-2.0
#include "zkctl/verb_words.h"

#include <algorithm>
#include <charconv>

namespace zkctl {

namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::variant<VerbWords, UsageError> split_verb_words(const std::string& name,
                                                     const std::vector<std::string>& words,
                                                     size_t first, const VerbSyntax& syntax) {
  VerbWords out;
  for (size_t i = first; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--" && !out.has_separator) {
      out.has_separator = true;
      if (syntax.command_after_separator) {
        out.command.assign(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
        break;
      }
      continue;
    }
    if (out.has_separator || !w.starts_with("-") || w == "-") {
      out.positionals.push_back(w);
      continue;
    }
    std::string option = w, value;
    bool has_value = false;
    if (auto eq = w.find('='); eq != std::string::npos && w.starts_with("--")) {
      option = w.substr(0, eq);
      value = w.substr(eq + 1);
      has_value = true;
    }
    if (listed(syntax.flags, option) && !has_value) {
      out.flags.push_back(option);
      continue;
    }
    if (!listed(syntax.with_value, option)) {
      return UsageError{name + ": unknown option '" + option + "'"};
    }
    if (!has_value) {
      if (i + 1 >= words.size()) return UsageError{name + ": " + option + " needs a value"};
      value = words[++i];
    }
    out.options[option] = value;
  }
  return out;
}

std::optional<int64_t> parse_int_in(const std::string& text, int64_t min, int64_t max) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return std::nullopt;
  }
  return value;
}

}  // namespace zkctl
