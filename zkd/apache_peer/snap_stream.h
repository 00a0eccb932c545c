// SPDX-License-Identifier: Apache-2.0
// Where the database an Apache leader writes after a SNAP packet ends
// (LearnerHandler: ZKDatabase.serializeSnapshot, then a signature). It comes
// on the quorum connection outside any packet, with no length before it, so
// a reader must walk it to find its end. Jute, big-endian:
//
//   sessions   int32 count, then count x (int64 id, int32 timeout ms)
//   ACL map    int32 count, then count x (int64 key, vector<ACL>: int32 n
//              (-1 none), n x (int32 perms, ustring scheme, ustring id))
//   nodes      each: ustring path (the root ""), buffer data, int64 ACL key,
//              60 bytes of StatPersisted; ended by the path "/"
//   signature  ustring "BenWasHere"
//
// That is the body of Apache's snapshot file without the file header, the
// checksums and the digest (apache_snapshot.h in zkd::apache_files reads
// both).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "zkd/apache_peer/election_wire.h"

namespace zkd::apache {

inline constexpr std::string_view kSnapSignature = "BenWasHere";

class SnapStreamScanner {
 public:
  // Scans on from where the last call stopped; `bytes` is the stream from
  // its first byte (the same bytes as before, and maybe more). kOk once the
  // signature is in `bytes`: end() is then the stream's length, signature
  // included. kBad (and `error`) for a length out of bounds or a wrong
  // signature.
  Decode scan(std::string_view bytes, std::string& error);
  size_t end() const { return pos_; }
  int64_t nodes() const { return nodes_; }

 private:
  enum class Phase { kSessionCount, kSessions, kAclCount, kAcls, kNodes, kSignature, kDone };
  Phase phase_ = Phase::kSessionCount;
  size_t pos_ = 0;         // the end of the last whole item
  int64_t remaining_ = 0;  // sessions or ACL entries still to come
  int64_t nodes_ = 0;
};

}  // namespace zkd::apache
