// Reads answered from the current state, as Apache's FinalRequestProcessor
// answers them (§4 of the wire reference), registering the watches Apache
// would register. ACLs are not enforced yet. Not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/results.h"
#include "zkd/tree/watch_manager.h"

namespace zkd::tree {

class ReadProcessor {
 public:
  // Both must outlive this object.
  ReadProcessor(const DataTree& tree, WatchManager& watches) : tree_(tree), watches_(watches) {}

  // exists (3), getData (4), getACL (6), getChildren (8), sync (9),
  // getChildren2 (12), getAllChildrenNumber (104), multiRead (22: only
  // getData and getChildren, else MARSHALLINGERROR); other opcodes give
  // UNIMPLEMENTED. The reply's zxid is `last_zxid`. A body that does not
  // decode gives MARSHALLINGERROR. Invalid paths simply miss (NONODE), except
  // a NUL in an exists path (BADARGUMENTS).
  Response read(WatcherId watcher, zk::wire::OpCode op, std::string_view body,
                int64_t last_zxid) const;

 private:
  Response exists(WatcherId watcher, std::string_view body) const;
  Response get_data(WatcherId watcher, std::string_view body) const;
  Response get_acl(std::string_view body) const;
  Response get_children(WatcherId watcher, std::string_view body, bool with_stat) const;
  Response sync(std::string_view body) const;
  Response all_children_number(std::string_view body) const;
  Response multi_read(std::string_view body) const;

  const DataTree& tree_;
  WatchManager& watches_;
};

}  // namespace zkd::tree
