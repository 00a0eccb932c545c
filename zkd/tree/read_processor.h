// SPDX-License-Identifier: Apache-2.0
// Reads answered from the current state, as Apache's FinalRequestProcessor
// answers them (§4 of docs/wire-protocol.md), registering the watches Apache
// would register. ACLs are checked as Apache 3.8.4 and 3.9.2+ check them
// (§10.4, with acl_check.h): READ for getData, getChildren, getChildren2,
// getAllChildrenNumber and each multiRead operation; READ for exists on a node
// that exists (ZOOKEEPER-2590; 3.8.0-3.8.3 checked nothing), none on a missing
// one; READ or ADMIN for getACL, which masks digest ids without ADMIN;
// nothing for sync. A refused read sets no watch. Not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "zkd/tree/auth_ids.h"
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
  // getData and getChildren, else MARSHALLINGERROR — with an empty result
  // list as its body when it holds writes only, as Apache), and the watch
  // requests addWatch (106), checkWatches (17) and removeWatches (18)
  // (watch_requests.h); other opcodes give
  // UNIMPLEMENTED. The reply's zxid is `last_zxid`. A body that does not
  // decode gives MARSHALLINGERROR. Invalid paths simply miss (NONODE), except
  // a NUL in an exists path (BADARGUMENTS). `caller`: the ids of the
  // connection the request came on; NOAUTH when they lack the permission.
  Response read(WatcherId watcher, zk::wire::OpCode op, std::string_view body, int64_t last_zxid,
                const AuthIds& caller) const;

 private:
  Response exists(WatcherId watcher, std::string_view body, const AuthIds& caller) const;
  Response get_data(WatcherId watcher, const zk::wire::PathWatchRequest& req,
                    const AuthIds& caller) const;
  Response get_acl(std::string_view body, const AuthIds& caller) const;
  Response get_children(WatcherId watcher, const zk::wire::PathWatchRequest& req, bool with_stat,
                        const AuthIds& caller) const;
  Response sync(std::string_view body) const;
  Response all_children_number(std::string_view body, const AuthIds& caller) const;
  Response multi_read(std::string_view body, const AuthIds& caller) const;

  const DataTree& tree_;
  WatchManager& watches_;
};

}  // namespace zkd::tree
