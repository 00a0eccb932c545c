// SPDX-License-Identifier: Apache-2.0
#include "recipes/protected_create.h"

#include <cstdio>
#include <random>
#include <variant>

#include "libzk/wire/path.h"
#include "recipes/znode_util.h"

namespace zk::recipes {

namespace {

constexpr std::string_view kProtectionMark = "_c_";
constexpr size_t kUuidLength = 36;  // 8-4-4-4-12 hex digits

// The child of `parent` whose name starts with `prefix`, if any.
Result<std::optional<std::string>> find_created(SyncClient& zk, const std::string& parent,
                                                const std::string& prefix) {
  auto children = zk.get_children(parent);
  if (!children.ok()) return children.error();
  for (const std::string& child : *children) {
    if (child.starts_with(prefix)) {
      return std::optional<std::string>(detail::child_path(parent, child));
    }
  }
  return std::optional<std::string>();
}

}  // namespace

std::string new_protection_prefix() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  uint64_t hi = random(), lo = random();
  hi = (hi & ~0xF000ull) | 0x4000ull;              // version 4
  lo = (lo & ~(0xC0ull << 56)) | (0x80ull << 56);  // IETF variant
  char text[kUuidLength + 1];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return std::string(kProtectionMark) + text + "-";
}

std::optional<int64_t> sequence_of(std::string_view name) {
  constexpr size_t kDigits = 10;
  if (name.size() < kDigits) return std::nullopt;
  int64_t value = 0;
  for (char c : name.substr(name.size() - kDigits)) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::string_view strip_protection(std::string_view name) {
  constexpr size_t kPrefixLength = 3 + kUuidLength + 1;  // "_c_" uuid "-"
  if (name.size() >= kPrefixLength && name.starts_with(kProtectionMark) &&
      name[kPrefixLength - 1] == '-') {
    return name.substr(kPrefixLength);
  }
  return name;
}

Status ensure_path(SyncClient& zk, const std::string& path, const RetryPolicy& policy) {
  if (path == "/") return Error::kOk;
  return with_retries<std::monostate>(zk, policy,
                                      [&]() -> Result<std::monostate> {
                                        auto created = zk.create(path, std::string());
                                        if (created.ok() || created.error() == Error::kNodeExists)
                                          return std::monostate{};
                                        if (created.error() != Error::kNoNode)
                                          return created.error();
                                        Status parent = ensure_path(
                                            zk, std::string(zk::wire::parent_path(path)), policy);
                                        if (!parent.ok()) return parent.error();
                                        created = zk.create(path, std::string());
                                        if (created.ok() || created.error() == Error::kNodeExists)
                                          return std::monostate{};
                                        return created.error();
                                      })
      .error();
}

Result<std::string> protected_create(SyncClient& zk, const std::string& parent,
                                     const std::string& name, const zk::wire::Buffer& data,
                                     zk::wire::CreateMode mode, const RetryPolicy& policy) {
  const std::string prefix = new_protection_prefix();
  const std::string path = detail::child_path(parent, prefix + name);
  bool maybe_created = false;  // an earlier attempt was lost in flight
  return with_retries<std::string>(zk, policy, [&]() -> Result<std::string> {
    if (maybe_created) {
      auto found = find_created(zk, parent, prefix);
      if (!found.ok()) return found.error();
      if (found->has_value()) return **found;
    }
    auto created = zk.create(path, data, mode);
    if (created.error() == Error::kNoNode) {
      Status ancestors = ensure_path(zk, parent, policy);
      if (!ancestors.ok()) return ancestors.error();
      created = zk.create(path, data, mode);
    }
    if (created.error() == Error::kConnectionLoss) maybe_created = true;
    return created;
  });
}

}  // namespace zk::recipes
