// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/response_dispatcher.h"

namespace zk::client {

using zk::wire::Error;
using zk::wire::OpCode;

void ResponseDispatcher::sent(SentRequest request) {
  if (request.xid == zk::wire::kAuthXid) {
    auth_.push_back(std::move(request));
  } else {
    ordinary_.push_back(std::move(request));
  }
}

void ResponseDispatcher::complete(SentRequest& request, Reply reply) {
  if (request.watch) {
    WatchRegistration& w = *request.watch;
    if (reply.header.err == Error::kOk) {
      watches_.add(w.kind_on_ok, w.path, std::move(w.callback));
    } else if (reply.header.err == Error::kNoNode && w.exist_on_no_node) {
      watches_.add(WatchKind::kExist, w.path, std::move(w.callback));
    }
  }
  if (request.on_reply) request.on_reply(std::move(reply));
}

ResponseDispatcher::Route ResponseDispatcher::dispatch(std::string_view payload) {
  zk::wire::Reader reader(payload);
  Reply reply;
  reply.header.read(reader);
  if (!reader.ok()) return Route::kMalformed;
  reply.body = std::string(reader.rest());

  if (reply.header.xid == zk::wire::kNotificationXid) {
    zk::wire::WatcherEvent event;
    if (!zk::wire::decode(reply.body, event)) return Route::kMalformed;
    WatchedEvent delivered{event.type, event.state, chroot_.strip(event.path), reply.header.zxid};
    for (auto& callback : watches_.take(event.type, delivered.path)) {
      if (callback) callback(delivered);
    }
    return Route::kNotification;
  }
  return route(std::move(reply));
}

ResponseDispatcher::Route ResponseDispatcher::dispatch_oversized(std::string_view header) {
  zk::wire::Reader reader(header);
  Reply reply;
  reply.header.read(reader);
  if (!reader.ok() || reply.header.xid == zk::wire::kNotificationXid) return Route::kMalformed;
  reply.header.err = Error::kReplyTooLarge;
  return route(std::move(reply));
}

ResponseDispatcher::Route ResponseDispatcher::route(Reply reply) {
  if (reply.header.zxid > last_zxid_seen_) last_zxid_seen_ = reply.header.zxid;
  if (reply.header.xid == zk::wire::kPingXid) return Route::kPing;
  if (reply.header.xid == zk::wire::kAuthXid) {
    if (auth_.empty()) return Route::kOutOfOrder;
    SentRequest request = std::move(auth_.front());
    auth_.pop_front();
    complete(request, std::move(reply));
    return Route::kAuthReply;
  }
  if (ordinary_.empty() || ordinary_.front().xid != reply.header.xid) return Route::kOutOfOrder;
  SentRequest request = std::move(ordinary_.front());
  ordinary_.pop_front();
  complete(request, std::move(reply));
  return Route::kReply;
}

void ResponseDispatcher::fail_outstanding(Error error) {
  std::deque<SentRequest> ordinary = std::move(ordinary_);
  std::deque<SentRequest> auth = std::move(auth_);
  ordinary_.clear();
  auth_.clear();
  for (auto* queue : {&auth, &ordinary}) {
    for (SentRequest& request : *queue) {
      Reply reply;
      reply.header.xid = request.xid;
      reply.header.err = error;
      request.watch.reset();  // a failed request registers no watch
      if (request.on_reply) request.on_reply(std::move(reply));
    }
  }
}

}  // namespace zk::client
