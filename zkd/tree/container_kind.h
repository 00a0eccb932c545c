// SPDX-License-Identifier: Apache-2.0
// Node kinds and how a node's stored ephemeralOwner encodes them (§5.3 of
// docs/wire-protocol.md; Apache's EphemeralType):
//
//   persistent  0
//   ephemeral   the owning session's id
//   container   0x8000000000000000 (whether or not extended types are on)
//   TTL         0xFF << 56 | ttl ms (bits 40..55 = extended type 0 = TTL);
//               only with extended types on (zoo.cfg extendedTypesEnabled)
//
// With extended types off an owner whose top byte is 0xFF is a session's
// (server id 255 makes such ids), which is why a server with extended types
// on must have an id <= 254. The encodings are what the txn log and the
// snapshot hold; clients see ephemeralOwner 0 for containers and TTL nodes.
#pragma once

#include <cstdint>
#include <limits>

namespace zkd::tree {

enum class NodeKind : uint8_t { kPersistent, kEphemeral, kContainer, kTtl };

inline constexpr int64_t kContainerOwner = std::numeric_limits<int64_t>::min();
// The largest TTL (ms): 2^40 - 1, about 34 years.
inline constexpr int64_t kMaxTtlMs = (int64_t{1} << 40) - 1;

// Apache's EphemeralType.TTL.toEphemeralOwner range: 0 < ttl <= kMaxTtlMs.
constexpr bool valid_ttl(int64_t ttl_ms) { return ttl_ms > 0 && ttl_ms <= kMaxTtlMs; }

// The stored owner of a TTL node. Precondition: valid_ttl(ttl_ms).
constexpr int64_t ttl_owner(int64_t ttl_ms) {
  return static_cast<int64_t>(0xFF00000000000000ULL | static_cast<uint64_t>(ttl_ms));
}

// The TTL (ms) a TTL node's owner holds.
constexpr int64_t ttl_of_owner(int64_t owner) { return owner & kMaxTtlMs; }

// The kind `owner` encodes (Apache's EphemeralType.get). With extended types
// on, a 0xFF-topped owner of an extended type other than TTL (none exists)
// counts as persistent.
constexpr NodeKind kind_of_owner(int64_t owner, bool extended_types) {
  const auto bits = static_cast<uint64_t>(owner);
  if (extended_types && (bits >> 56) == 0xFF) {
    return ((bits >> 40) & 0xFFFF) == 0 ? NodeKind::kTtl : NodeKind::kPersistent;
  }
  if (owner == kContainerOwner) return NodeKind::kContainer;
  return owner == 0 ? NodeKind::kPersistent : NodeKind::kEphemeral;
}

}  // namespace zkd::tree
