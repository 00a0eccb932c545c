// SPDX-License-Identifier: Apache-2.0
// Basic Zab vocabulary: zxids, epochs, server ids, log entries, election
// votes and quorum arithmetic. Pure helpers, no state. Protocol: docs/zab.md.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zkd::zab {

using ServerId = int64_t;  // myid; > 0
using Epoch = int64_t;     // 0 <= epoch <= kMaxEpoch
using Zxid = int64_t;      // epoch << 32 | counter; 0 is "nothing"

inline constexpr Epoch kMaxEpoch = 0x7fffffff;
inline constexpr uint32_t kMaxCounter = 0xffffffff;

constexpr Zxid make_zxid(Epoch epoch, uint32_t counter) {
  return static_cast<Zxid>((static_cast<uint64_t>(epoch) << 32) | counter);
}
constexpr Epoch epoch_of(Zxid zxid) {
  return static_cast<Epoch>(static_cast<uint64_t>(zxid) >> 32);
}
constexpr uint32_t counter_of(Zxid zxid) {
  return static_cast<uint32_t>(static_cast<uint64_t>(zxid) & 0xffffffffu);
}

// Whether `next` may come right after `prev` in one replica's history: the
// next counter of the same epoch, or the first zxid of a later epoch (each
// leader numbers its proposals from counter 1). Between two neighbours of a
// log, anything else is a hole: txns the replica once had are missing.
constexpr bool follows(Zxid prev, Zxid next) {
  return next == prev + 1 || (epoch_of(next) > epoch_of(prev) && counter_of(next) == 1);
}

// "epoch:counter", e.g. "3:17"; "0:0" for zxid 0.
std::string zxid_string(Zxid zxid);

// The bytes of a log entry, opaque to the core: immutable and shared, so that
// the copies of an entry (the core's log, a Ready's entries and committed
// txns, a Proposal per follower, the host's disk writer) hold one buffer, not
// one copy of the txn each. Safe to copy and read across threads.
class Payload {
 public:
  Payload() = default;
  // Takes the bytes; implicit by design, as an Entry is built from a string.
  Payload(std::string bytes)  // NOLINT
      : bytes_(bytes.empty() ? nullptr : std::make_shared<const std::string>(std::move(bytes))) {}
  Payload(const char* bytes) : Payload(std::string(bytes)) {}  // NOLINT

  std::string_view view() const { return bytes_ ? std::string_view(*bytes_) : std::string_view(); }
  operator std::string_view() const { return view(); }  // NOLINT: read as bytes
  const char* data() const { return view().data(); }
  size_t size() const { return bytes_ ? bytes_->size() : 0; }
  bool empty() const { return size() == 0; }

  friend bool operator==(const Payload& a, const Payload& b) { return a.view() == b.view(); }

 private:
  std::shared_ptr<const std::string> bytes_;  // null when empty
};

// One txn of the replicated log.
struct Entry {
  Zxid zxid = 0;
  Payload payload;
  friend bool operator==(const Entry&, const Entry&) = default;
};

// A vote in leader election: who should lead, and the state that makes that
// server a good leader: its current epoch and its last logged zxid.
struct Vote {
  ServerId leader = 0;
  Zxid zxid = 0;
  Epoch epoch = 0;
  friend bool operator==(const Vote&, const Vote&) = default;
};

// The total order of FastLeaderElection: a higher epoch wins, then a higher
// last zxid, then a higher server id. True if `a` beats `b`.
constexpr bool vote_beats(const Vote& a, const Vote& b) {
  if (a.epoch != b.epoch) return a.epoch > b.epoch;
  if (a.zxid != b.zxid) return a.zxid > b.zxid;
  return a.leader > b.leader;
}

// Who takes part in the protocol: voters elect and count toward quorums;
// observers (Apache's) only learn. Disjoint; ids > 0.
struct Membership {
  std::vector<ServerId> voters;
  std::vector<ServerId> observers{};
  friend bool operator==(const Membership&, const Membership&) = default;
};

// Majority of `voters`.
constexpr size_t quorum_size(size_t voters) { return voters / 2 + 1; }

// The largest zxid that at least a quorum of `voters` has acknowledged, given
// one acknowledged zxid per voter (missing voters count as 0). Returns 0 when
// fewer than a quorum of values is given. `acked` is reordered.
inline Zxid quorum_zxid(std::span<Zxid> acked, size_t voters) {
  const size_t q = quorum_size(voters);
  if (acked.size() < q) return 0;
  std::sort(acked.begin(), acked.end(), [](Zxid a, Zxid b) { return a > b; });
  return acked[q - 1];
}
inline Zxid quorum_zxid(std::vector<Zxid> acked, size_t voters) {
  return quorum_zxid(std::span<Zxid>(acked), voters);
}

}  // namespace zkd::zab
