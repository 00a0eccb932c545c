// SPDX-License-Identifier: Apache-2.0
// The `ip` ACL scheme as Apache 3.8's IPAuthenticationProvider reads it
// (§10.2 of docs/wire-protocol.md): an ACL id is an IPv4 address "a.b.c.d" or a
// block "a.b.c.d/bits" (bits 0..32); each number is read as Java's
// Integer.parseInt reads it (an optional sign, decimal digits) and must be
// 0..255. IPv6 is not an ACL id in 3.8 (never valid, never matches).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace zkd::tree {

using Ipv4 = std::array<uint8_t, 4>;

// "a.b.c.d" exactly (four numbers, no empty part); nullopt otherwise.
std::optional<Ipv4> parse_ipv4(std::string_view text);

// Whether `acl_id` is a valid ip ACL id (Apache's isValid): setACL and create
// refuse the ACL (INVALIDACL) otherwise.
bool valid_ip_acl(std::string_view acl_id);

// Whether a connection whose ip id is `address` matches the ACL id `acl_id`
// (Apache's matches): both masked to the block's bits and compared. False
// when either does not parse.
bool ip_matches(std::string_view acl_id, std::string_view address);

}  // namespace zkd::tree
