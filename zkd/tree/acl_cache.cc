// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/acl_cache.h"

#include <functional>
#include <string_view>

namespace zkd::tree {

size_t AclCache::Hash::operator()(const zk::wire::ACLs& acl) const {
  size_t h = acl.size();
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const zk::wire::ACL& entry : acl) {
    mix(static_cast<size_t>(entry.perms));
    mix(std::hash<std::string_view>{}(entry.id.scheme));
    mix(std::hash<std::string_view>{}(entry.id.id));
  }
  return h;
}

AclCache::Entry* AclCache::acquire(const zk::wire::ACLs& acl) {
  auto [it, inserted] = lists_.try_emplace(acl, 0);
  ++it->second;
  return &*it;
}

void AclCache::release(Entry* entry) {
  if (--entry->second > 0) return;
  lists_.erase(entry->first);
}

}  // namespace zkd::tree
