// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/acl_check.h"

#include <atomic>

#include "zkd/tree/ip_acl.h"

namespace zkd::tree {
namespace {

// Apache's per-provider matches(id, aclExpr); schemes without a provider in
// zkd match nobody. A sasl id "super" matches every sasl entry, as Apache's
// SASLAuthenticationProvider.
bool matches(const zk::wire::Id& entry, const zk::wire::Id& caller) {
  if (entry.scheme != caller.scheme) return false;
  if (entry.scheme == kDigestScheme) return entry.id == caller.id;
  if (entry.scheme == kIpScheme) return ip_matches(entry.id, caller.id);
  if (entry.scheme == kSaslScheme) return entry.id == caller.id || caller.id == "super";
  if (entry.scheme == kX509Scheme) return entry.id == caller.id;
  return false;
}

std::atomic<bool> acl_checks_skipped{false};

}  // namespace

void skip_acl_checks() { acl_checks_skipped = true; }

bool permitted(const zk::wire::ACLs& node_acl, int32_t perm, const AuthIds& caller) {
  if (node_acl.empty() || caller.is_super() || acl_checks_skipped) return true;
  for (const zk::wire::ACL& entry : node_acl) {
    if ((entry.perms & perm) == 0) continue;
    if (entry.id.scheme == kWorldScheme && entry.id.id == kAnyoneId) return true;
    for (const zk::wire::Id& id : caller.ids()) {
      if (matches(entry.id, id)) return true;
    }
  }
  return false;
}

}  // namespace zkd::tree
