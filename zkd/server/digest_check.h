// SPDX-License-Identifier: Apache-2.0
// A learner's check of its tree against its leader's (docs/replication.md,
// "Tree digest"): the leader sends its tree digest (zkd/tree/digest.h) right
// after applying a zxid, now and then; the learner compares it with its own
// right after applying the same zxid. The two sides meet in either order:
// the learner keeps its recent digests, and the leader's that are ahead of
// what it applied. Pure; no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <utility>

namespace zkd::server {

class DigestCheck {
 public:
  // How many of its own digests, and of the leader's not yet met, it keeps.
  static constexpr size_t kKept = 4096;

  struct Mismatch {
    int64_t zxid = 0;
    uint64_t ours = 0;
    uint64_t leaders = 0;
  };

  // This replica's digest right after applying `zxid` (zxids increase).
  std::optional<Mismatch> applied(int64_t zxid, uint64_t digest);
  // The leader's digest right after it applied `zxid`. Compared at once when
  // this replica applied `zxid` recently, kept until it does when it is
  // ahead, dropped when it is older than anything kept.
  std::optional<Mismatch> leaders(int64_t zxid, uint64_t digest);
  // The state was replaced (a snapshot installed, a rebuild after a
  // truncation): what was kept no longer describes it. A fuzzy state (a
  // streamed snapshot: snapshot_stream.h) may hold txns after its zxid until
  // it has applied `fuzzy_until`: nothing before that zxid is compared.
  void reset(int64_t fuzzy_until = 0);

  // Comparisons made (equal or not).
  uint64_t compared() const { return compared_; }

 private:
  std::optional<Mismatch> compare(int64_t zxid, uint64_t ours, uint64_t leaders);

  std::deque<std::pair<int64_t, uint64_t>> ours_;  // newest last
  std::map<int64_t, uint64_t> ahead_;              // the leader's, above ours_
  int64_t fuzzy_until_ = 0;
  uint64_t compared_ = 0;
};

}  // namespace zkd::server
