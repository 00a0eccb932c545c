// SPDX-License-Identifier: Apache-2.0
// File names that carry a zxid: `<prefix><16 lowercase hex digits><suffix>`
// (docs/storage-format.md). Internal to zkd/storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zkd::storage::file_names {

std::string with_zxid(std::string_view prefix, int64_t zxid, std::string_view suffix = {});
// The zxid when `name` is exactly prefix + 16 lowercase hex digits + suffix.
std::optional<int64_t> parse_zxid(std::string_view name, std::string_view prefix,
                                  std::string_view suffix = {});
// dir + "/" + name.
std::string join(const std::string& dir, std::string_view name);
// The part of `path` after its last '/'.
std::string_view base_name(std::string_view path);

}  // namespace zkd::storage::file_names
