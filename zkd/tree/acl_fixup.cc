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

bool valid_sasl_acl(std::string_view id) {
  // Apache's KerberosName: "primary[/host]@realm" with no further '/' or
  // '@', or a name without '@'.
  const size_t at = id.find('@');
  if (at == std::string_view::npos) return true;
  const std::string_view name = id.substr(0, at);
  const std::string_view realm = id.substr(at + 1);
  if (realm.find_first_of("/@") != std::string_view::npos) return false;
  const size_t slash = name.find('/');
  return slash == std::string_view::npos || name.find('/', slash + 1) == std::string_view::npos;
}

bool valid_x509_acl(std::string_view id) {
  // Every comma-separated part (a backslash escapes the next character) is
  // type=value with a type.
  if (id.empty()) return false;
  bool escaped = false;
  size_t part_start = 0;
  for (size_t i = 0; i <= id.size(); ++i) {
    if (i < id.size() && (escaped || id[i] == '\\')) {
      escaped = !escaped && id[i] == '\\';
      continue;
    }
    if (i < id.size() && id[i] != ',') continue;
    const std::string_view part = id.substr(part_start, i - part_start);
    const size_t equals = part.find('=');
    if (equals == std::string_view::npos || part.find_first_not_of(' ') == equals) return false;
    part_start = i + 1;
  }
  return true;
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
        // Apache's isAuthenticated(): digest and sasl ids, not ip or super.
        if (own.scheme != kDigestScheme && own.scheme != kSaslScheme && own.scheme != kX509Scheme) {
          continue;
        }
        out.push_back(zk::wire::ACL{acl.perms, own});
        expanded = true;
      }
      if (!expanded) return std::nullopt;
    } else if ((id.scheme == kDigestScheme && valid_digest_acl(id.id)) ||
               (id.scheme == kIpScheme && valid_ip_acl(id.id)) ||
               (id.scheme == kSaslScheme && valid_sasl_acl(id.id)) ||
               (id.scheme == kX509Scheme && valid_x509_acl(id.id))) {
      out.push_back(acl);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace zkd::tree
