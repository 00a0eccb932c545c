// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/acl_fixup.h"

#include <algorithm>
#include <cstddef>

#include "zkd/tree/ip_acl.h"

namespace zkd::tree {

bool valid_digest_acl(std::string_view id) {
  // Parts of id.split(":") up to the last non-empty one.
  size_t parts = 0;
  size_t kept = 0;
  for (;;) {
    const size_t colon = id.find(':');
    ++parts;
    if (!id.substr(0, colon).empty()) kept = parts;
    if (colon == std::string_view::npos) break;
    id.remove_prefix(colon + 1);
  }
  return kept == 2;
}

std::optional<zk::wire::ACLs> fixup_acl(const zk::wire::ACLs& given, const AuthIds& caller) {
  zk::wire::ACLs unique;
  for (const auto& acl : given) {
    if (std::find(unique.begin(), unique.end(), acl) == unique.end()) unique.push_back(acl);
  }
  if (unique.empty()) return std::nullopt;
  zk::wire::ACLs out;
  for (const auto& acl : unique) {
    const zk::wire::Id& id = acl.id;
    if (id.scheme == kWorldScheme && id.id == kAnyoneId) {
      out.push_back(acl);
    } else if (id.scheme == kAuthScheme) {
      bool expanded = false;
      for (const zk::wire::Id& own : caller.ids()) {
        if (own.scheme != kDigestScheme) continue;  // only digest ids are "authenticated"
        out.push_back(zk::wire::ACL{acl.perms, own});
        expanded = true;
      }
      if (!expanded) return std::nullopt;
    } else if ((id.scheme == kDigestScheme && valid_digest_acl(id.id)) ||
               (id.scheme == kIpScheme && valid_ip_acl(id.id))) {
      out.push_back(acl);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace zkd::tree
