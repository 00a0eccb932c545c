// SPDX-License-Identifier: Apache-2.0
// What the state machine hands back to the server: replies and watch events.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkd/tree/ids.h"

namespace zkd::tree {

// The reply to one request, ready to frame: ReplyHeader{xid, zxid, err} + body.
struct Response {
  zk::wire::Error err = zk::wire::Error::kOk;
  int64_t zxid = 0;
  // The encoded response record; empty when the op has none or err != kOk
  // (except a multiRead of writes only: an empty result list, as Apache).
  std::string body;
};

// A watch event to send to one connection (xid -1, zxid -1, state SyncConnected).
struct Notification {
  WatcherId watcher = 0;
  zk::wire::WatcherEvent event;
  // Sent only if the watching connection has READ in this ACL when it is
  // delivered (Apache with the CVE-2024-23944 fix, which the Debian 3.8.0 we
  // compare against carries): the node's for its own events, the parent's
  // for NodeChildrenChanged. Empty: no check.
  zk::wire::ACLs acl;
};

struct ApplyResult {
  Response response;                        // for the session that issued the txn
  std::vector<Notification> notifications;  // in the order they must be sent
  // A closeSession: each ephemeral node it deleted, in order, and whether it
  // was there to delete (false: gone already), for the audit log.
  std::vector<std::pair<std::string, bool>> closed_ephemerals;
};

}  // namespace zkd::tree
