// SPDX-License-Identifier: Apache-2.0
// ACLs as zkCli writes them: "scheme:id:perms" entries separated by ',',
// e.g. "digest:alice:V55/p2T0OpjQ+low3NVAH4aLvm0=:cdrwa,world:anyone:r". The
// scheme is up to the first ':', the perms after the last one, the id (which
// may hold ':', as a digest id does) in between; perms are letters of
// c(reate) d(elete) r(ead) w(rite) a(dmin), in any order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "libzk/wire/records.h"

namespace zkctl {

// The ACL, or why `text` is not one (one line naming the bad entry). Stricter
// than zkCli, which skips bad entries and unknown perm letters: here they are
// errors, and an empty text is one too.
std::variant<zk::wire::ACLs, std::string> parse_acl_text(std::string_view text);

// "cdrwa" order, as zkCli prints perms; bits outside ALL are not shown.
std::string perms_text(int32_t perms);

// The inverse of parse_acl_text for one entry: "scheme:id:perms".
std::string acl_entry_text(const zk::wire::ACL& acl);

}  // namespace zkctl
