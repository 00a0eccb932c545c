// SPDX-License-Identifier: Apache-2.0
#include "zkctl/acl_text.h"

#include <optional>

namespace zkctl {
namespace {

namespace perms = zk::wire::perms;

std::optional<int32_t> perm_bit(char letter) {
  switch (letter) {
    case 'c':
      return perms::kCreate;
    case 'd':
      return perms::kDelete;
    case 'r':
      return perms::kRead;
    case 'w':
      return perms::kWrite;
    case 'a':
      return perms::kAdmin;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::variant<zk::wire::ACLs, std::string> parse_acl_text(std::string_view text) {
  if (text.empty()) return std::string("the ACL is empty (expected scheme:id:perms[,...])");
  zk::wire::ACLs out;
  for (;;) {
    const size_t comma = text.find(',');
    const std::string_view entry = text.substr(0, comma);
    const size_t first = entry.find(':');
    const size_t last = entry.rfind(':');
    if (first == std::string_view::npos || first == last) {
      return "'" + std::string(entry) + "' is not scheme:id:perms";
    }
    zk::wire::ACL acl;
    acl.id.scheme = std::string(entry.substr(0, first));
    acl.id.id = std::string(entry.substr(first + 1, last - first - 1));
    for (char letter : entry.substr(last + 1)) {
      auto bit = perm_bit(letter);
      if (!bit) {
        return "'" + std::string(entry) + "': unknown permission '" + std::string(1, letter) +
               "' (use c, d, r, w, a)";
      }
      acl.perms |= *bit;
    }
    out.push_back(std::move(acl));
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

std::string perms_text(int32_t bits) {
  std::string out;
  for (char letter : {'c', 'd', 'r', 'w', 'a'}) {
    if ((bits & *perm_bit(letter)) != 0) out.push_back(letter);
  }
  return out;
}

std::string acl_entry_text(const zk::wire::ACL& acl) {
  return acl.id.scheme + ":" + acl.id.id + ":" + perms_text(acl.perms);
}

}  // namespace zkctl
