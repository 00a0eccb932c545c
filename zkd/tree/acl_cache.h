// SPDX-License-Identifier: Apache-2.0
// Interned ACL lists (Apache's ReferenceCountedACLCache): every distinct list
// is stored once and shared by the nodes that carry it, counted by reference.
// A tree of a million nodes with the same ACL holds one list, not a million.
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "libzk/wire/records.h"

namespace zkd::tree {

class AclCache {
 public:
  // A handle to one interned list; stable until its last reference is
  // released (moving the table keeps it valid).
  using Entry = std::pair<const zk::wire::ACLs, uint64_t>;  // the list, its references

  // The entry for `acl` with one more reference (added when new).
  Entry* acquire(const zk::wire::ACLs& acl);
  // One more reference to an entry this table handed out.
  static void retain(Entry* entry) { ++entry->second; }
  // Drops one reference; the list goes when none is left.
  void release(Entry* entry);

  // Distinct lists held.
  size_t size() const { return lists_.size(); }

 private:
  struct Hash {
    size_t operator()(const zk::wire::ACLs& acl) const;
  };
  std::unordered_map<zk::wire::ACLs, uint64_t, Hash> lists_;
};

}  // namespace zkd::tree
