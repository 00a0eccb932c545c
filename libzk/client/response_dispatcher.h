// SPDX-License-Identifier: Apache-2.0
// ResponseDispatcher: routes each frame the server sends on an established
// connection (docs/wire-protocol.md §3). A pure class (no I/O, no clock); not
// thread-safe: owned by a session and used on its executor only.
//
//   xid -1  notification: chroot stripped, matching one-shot watches removed
//           from the registry and their callbacks run immediately, in arrival
//           order, with the matching persistent ones (watch_registry.h)
//   xid -2  ping reply: nothing to do
//   xid -4  auth reply: completes the oldest outstanding auth request
//   other   the oldest outstanding ordinary request must carry this xid
//           (FIFO); otherwise kOutOfOrder, a fatal connection error
//
// Before a reply completes its request, a watch carried by the request is
// registered (getData/getChildren*/addWatch: on success; exists: data watch
// on success, exist watch on NONODE), as the Java client does. Reply handlers
// and watch callbacks run synchronously inside dispatch(), so a watch
// triggered by an earlier frame always runs before a later reply's handler.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "libzk/client/chroot.h"
#include "libzk/client/events.h"
#include "libzk/client/watch_registry.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"

namespace zk::client {

// One reply: the header and the undecoded body (empty when err != 0).
struct Reply {
  zk::wire::ReplyHeader header;
  std::string body;
};
using ReplyHandler = std::function<void(Reply)>;

struct WatchRegistration {
  std::string path;  // client path
  WatchCallback callback;
  WatchKind kind_on_ok = WatchKind::kData;
  bool exist_on_no_node = false;  // exists(): register an exist watch on NONODE
};

// A request that was written and awaits its reply.
struct SentRequest {
  int32_t xid = 0;
  zk::wire::OpCode op = zk::wire::OpCode::kNotification;
  std::optional<WatchRegistration> watch;
  ReplyHandler on_reply;  // may be empty (internal requests)
};

class ResponseDispatcher {
 public:
  enum class Route {
    kReply,         // completed an ordinary request
    kAuthReply,     // completed an auth request
    kPing,          // ping reply
    kNotification,  // watch event delivered
    kOutOfOrder,    // reply xid does not match the oldest outstanding request
    kMalformed,     // undecodable header or notification
  };

  explicit ResponseDispatcher(Chroot chroot) : chroot_(std::move(chroot)) {}

  // Records a request just handed to the connection. Auth requests (xid -4)
  // go to their own FIFO; every other request to the ordinary FIFO.
  void sent(SentRequest request);

  // Routes one frame payload (ReplyHeader + body).
  Route dispatch(std::string_view payload);
  // Routes a reply the client will not read (longer than its
  // jute.maxbuffer) from its first kReplyHeaderSize bytes: the request it
  // answers completes with kReplyTooLarge and registers no watch. A
  // notification cannot be skipped so: kMalformed.
  Route dispatch_oversized(std::string_view header);

  // Completes every outstanding request with `error` (a header-only reply),
  // oldest first: used when the connection is lost.
  void fail_outstanding(zk::wire::Error error);

  size_t outstanding() const { return ordinary_.size() + auth_.size(); }

  WatchRegistry& watches() { return watches_; }
  const Chroot& chroot() const { return chroot_; }

  // Largest zxid > 0 seen in any reply header (the handshake's lastZxidSeen).
  int64_t last_zxid_seen() const { return last_zxid_seen_; }
  void set_last_zxid_seen(int64_t zxid) { last_zxid_seen_ = zxid; }

 private:
  void complete(SentRequest& request, Reply reply);
  // A reply that is not a notification, to the request it answers.
  Route route(Reply reply);

  Chroot chroot_;
  WatchRegistry watches_;
  std::deque<SentRequest> ordinary_;
  std::deque<SentRequest> auth_;
  int64_t last_zxid_seen_ = 0;
};

}  // namespace zk::client
