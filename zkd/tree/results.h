// What the state machine hands back to the server: replies and watch events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkd/tree/ids.h"

namespace zkd::tree {

// The reply to one request, ready to frame: ReplyHeader{xid, zxid, err} + body.
struct Response {
  zk::wire::Error err = zk::wire::Error::kOk;
  int64_t zxid = 0;
  std::string body;  // encoded response record; empty when err != kOk or the op has none
};

// A watch event to send to one connection (xid -1, zxid -1, state SyncConnected).
struct Notification {
  WatcherId watcher = 0;
  zk::wire::WatcherEvent event;
};

struct ApplyResult {
  Response response;                        // for the session that issued the txn
  std::vector<Notification> notifications;  // in the order they must be sent
};

}  // namespace zkd::tree
