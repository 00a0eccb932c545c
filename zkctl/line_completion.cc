// SPDX-License-Identifier: Apache-2.0
#include "zkctl/line_completion.h"

#include <algorithm>

namespace zkctl {

namespace {

constexpr std::string_view kBlanks = " \t";

// The words of `text`, split at blanks.
std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t at = text.find_first_not_of(kBlanks);
  while (at != std::string_view::npos) {
    const size_t end = std::min(text.find_first_of(kBlanks, at), text.size());
    words.push_back(text.substr(at, end - at));
    at = text.find_first_not_of(kBlanks, end);
  }
  return words;
}

void keep_sorted_unique(std::vector<std::string>& names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
}

std::vector<std::string> starting_with(const std::vector<std::string>& names,
                                       std::string_view prefix) {
  std::vector<std::string> out;
  for (const std::string& name : names) {
    if (name.starts_with(prefix)) out.push_back(name);
  }
  keep_sorted_unique(out);
  return out;
}

// "/a/b/pa": the children of /a/b starting with "pa", as whole paths.
std::vector<std::string> child_paths(std::string_view word, const ChildLister& list_children) {
  const size_t last_slash = word.rfind('/');
  const std::string_view dir = word.substr(0, last_slash + 1);  // "/a/b/"
  const std::string_view prefix = word.substr(last_slash + 1);  // "pa"
  if (dir.find("//") != std::string_view::npos) return {};      // an empty name: no such node
  const std::string parent(last_slash == 0 ? "/" : word.substr(0, last_slash));
  std::optional<std::vector<std::string>> children;
  try {
    children = list_children(parent);
  } catch (...) {
    return {};  // completion must never end the shell
  }
  if (!children) return {};
  std::vector<std::string> out;
  for (const std::string& child : *children) {
    if (child.starts_with(prefix)) out.push_back(std::string(dir) + child);
  }
  keep_sorted_unique(out);
  return out;
}

}  // namespace

LineCompletion complete_line(std::string_view line, size_t cursor,
                             const std::vector<CommandWords>& commands,
                             const ChildLister& list_children) {
  const std::string_view before = line.substr(0, std::min(cursor, line.size()));
  const size_t blank = before.find_last_of(kBlanks);
  LineCompletion out;
  out.word_start = blank == std::string_view::npos ? 0 : blank + 1;
  const std::string_view word = before.substr(out.word_start);
  const std::vector<std::string_view> earlier = split_words(before.substr(0, out.word_start));

  if (earlier.empty()) {
    std::vector<std::string> names;
    for (const CommandWords& command : commands) names.push_back(command.name);
    out.kind = CompletionKind::kCommand;
    out.candidates = starting_with(names, word);
    return out;
  }
  const auto command = std::find_if(commands.begin(), commands.end(),
                                    [&](const CommandWords& c) { return c.name == earlier[0]; });
  if (command == commands.end()) return out;
  const bool options_ended = std::find(earlier.begin(), earlier.end(), "--") != earlier.end();
  if (word.starts_with("-") && !options_ended) {
    out.kind = CompletionKind::kOption;
    out.candidates = starting_with(command->options, word);
  } else if (word.starts_with("/") && command->takes_path) {
    out.kind = CompletionKind::kPath;
    out.candidates = child_paths(word, list_children);
  }
  return out;
}

}  // namespace zkctl
