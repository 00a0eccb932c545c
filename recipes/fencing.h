// SPDX-License-Identifier: Apache-2.0
// Fencing tokens: what a lock or leadership hands its holder so that an
// external resource can refuse a holder that has lost its session.
//
// A holder passes its token with every write to the protected resource; the
// resource remembers the largest token it has seen and rejects smaller ones.
// Then a holder that was paused (GC, swap, partition) past its session's
// expiry, and does not know it lost the lock, cannot overwrite the work of the
// holder that came after it.
//
// The token is the czxid (creation zxid) of the node that won. Why the czxid
// rather than the node's sequence number:
//   * The czxid is the transaction id of the create: unique and increasing
//     across the whole ensemble, for every path. A later acquisition creates
//     its node later, so its czxid is larger, even when the lock's parent was
//     deleted and recreated (its sequence counter starts again at 0 then;
//     Curator's container parents are removed when empty) and even across
//     different lock paths guarding the same resource.
//   * The sequence is only unique under one parent, and the simple lock (one
//     fixed node name) has none.
// The sequence is offered too, for display and for Curator users who compare
// node names.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace zk::recipes {

struct FencingToken {
  int64_t czxid = 0;      // the token: compare these
  int64_t sequence = -1;  // the node's sequence number; -1 for a non-sequential node
  // The value to hand to the protected resource (the czxid).
  int64_t value() const { return czxid; }
  auto operator<=>(const FencingToken& other) const { return czxid <=> other.czxid; }
  bool operator==(const FencingToken& other) const { return czxid == other.czxid; }
};

// The token's value in decimal, e.g. "4294967302" (what zkctl puts in
// ZK_FENCING_TOKEN).
inline std::string to_string(const FencingToken& token) { return std::to_string(token.value()); }

}  // namespace zk::recipes
