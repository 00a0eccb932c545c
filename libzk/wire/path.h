// SPDX-License-Identifier: Apache-2.0
// ZooKeeper path rules (§11.1 of docs/wire-protocol.md, Apache's PathUtils).
#pragma once

#include <string>
#include <string_view>

namespace zk::wire {

// Empty when `path` is a valid znode path; otherwise the reason, worded like
// Apache's ("Path must start with / character"). With `sequential`, the path
// is checked as if a sequence number were appended (a trailing '/' is allowed).
std::string path_error(std::string_view path, bool sequential = false);
inline bool is_valid_path(std::string_view path) { return path_error(path).empty(); }

// "/a/b" -> "/a"; "/a" -> "/"; "/" -> "".
std::string_view parent_path(std::string_view path);
// "/a/b" -> "b"; "/" -> "".
std::string_view base_name(std::string_view path);

}  // namespace zk::wire
