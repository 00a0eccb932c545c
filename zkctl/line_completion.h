// SPDX-License-Identifier: Apache-2.0
// What TAB offers in the interactive shell, as a pure function of the line:
// no terminal, no server (the shell's libedit glue is in interactive_shell.cc).
//
// The word under the cursor (from the last blank before the cursor to the
// cursor; quotes are not interpreted) is completed by what it starts with:
//   - the first word: the command names starting with it ("cr" -> "create");
//   - a word starting with '-', after a known command and before a "--"
//     word: that command's options, short and long, starting with it;
//   - a word starting with '/', after a command that takes a PATH: the
//     children of the parent node whose names start with what follows the
//     last '/', as whole paths: "/a/b/pa" lists /a/b and offers "/a/b/pal",
//     "/a/b/pan"; "/" offers the root's children. As in zkCli, nothing is
//     appended to a path (type '/' and TAB again to go deeper);
//   - anything else: nothing.
// A failing lister (nullopt: no node, no connection, ...) or a malformed
// parent path ("//x") gives no candidates. Never throws on any line or cursor
// (a cursor past the end counts as the end).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkctl/command_parser.h"

namespace zkctl {

// The children's names of the node at `path` (not whole paths), or nullopt
// when they cannot be had.
using ChildLister = std::function<std::optional<std::vector<std::string>>(const std::string& path)>;

enum class CompletionKind { kNone, kCommand, kOption, kPath };

struct LineCompletion {
  CompletionKind kind = CompletionKind::kNone;
  size_t word_start = 0;                // the candidates replace line[word_start, cursor)
  std::vector<std::string> candidates;  // sorted, unique
};

LineCompletion complete_line(std::string_view line, size_t cursor,
                             const std::vector<CommandWords>& commands,
                             const ChildLister& list_children);

}  // namespace zkctl
