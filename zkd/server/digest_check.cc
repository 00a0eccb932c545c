// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/digest_check.h"

#include <algorithm>

namespace zkd::server {

std::optional<DigestCheck::Mismatch> DigestCheck::applied(int64_t zxid, uint64_t digest) {
  if (zxid < fuzzy_until_) return std::nullopt;
  ours_.emplace_back(zxid, digest);
  if (ours_.size() > kKept) ours_.pop_front();
  // The leader's digests at zxids this replica passed without applying them
  // (a snapshot took it past them) can no longer be met.
  while (!ahead_.empty() && ahead_.begin()->first < zxid) ahead_.erase(ahead_.begin());
  auto it = ahead_.find(zxid);
  if (it == ahead_.end()) return std::nullopt;
  const uint64_t leaders = it->second;
  ahead_.erase(it);
  return compare(zxid, digest, leaders);
}

std::optional<DigestCheck::Mismatch> DigestCheck::leaders(int64_t zxid, uint64_t digest) {
  if (ours_.empty() || zxid > ours_.back().first) {
    if (ahead_.size() < kKept) ahead_[zxid] = digest;
    return std::nullopt;
  }
  auto it = std::lower_bound(ours_.begin(), ours_.end(), std::make_pair(zxid, uint64_t{0}));
  if (it == ours_.end() || it->first != zxid) return std::nullopt;
  return compare(zxid, it->second, digest);
}

void DigestCheck::reset(int64_t fuzzy_until) {
  ours_.clear();
  ahead_.clear();
  fuzzy_until_ = fuzzy_until;
}

std::optional<DigestCheck::Mismatch> DigestCheck::compare(int64_t zxid, uint64_t ours,
                                                          uint64_t leaders) {
  ++compared_;
  if (ours == leaders) return std::nullopt;
  return Mismatch{zxid, ours, leaders};
}

}  // namespace zkd::server
