// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/forwarded_writes.h"

#include <algorithm>

#include "zkd/log/log.h"

namespace zkd::server {

namespace {

// Whether committed txn `h` carries the write (kind, session, xid).
bool matches(WriteRequest::Kind kind, int64_t session, int32_t xid, const tree::TxnHeader& h) {
  using zk::wire::OpCode;
  if (h.session_id != session) return false;
  switch (kind) {
    case WriteRequest::Kind::kCreateSession:
      return h.type == OpCode::kCreateSession;
    case WriteRequest::Kind::kCloseSession:
      return h.type == OpCode::kCloseSession;
    case WriteRequest::Kind::kOp:
    case WriteRequest::Kind::kError:
    case WriteRequest::Kind::kTouch:
    case WriteRequest::Kind::kRevalidate:
      break;
  }
  return h.cxid == xid && h.type != OpCode::kCreateSession && h.type != OpCode::kCloseSession;
}

}  // namespace

uint64_t ForwardedWrites::add_write(const WriteRequest& request) {
  const uint64_t ticket = ++last_ticket_;
  in_flight_.push_back(Write{ticket, request.session, request.xid, request.kind});
  ++per_session_[request.session];
  return ticket;
}

bool ForwardedWrites::applied(tree::Txn& txn, tree::Response& response) {
  // Most txns a follower applies are other servers' clients': their session
  // has nothing in flight here, and no scan is needed.
  if (!per_session_.contains(txn.header.session_id)) return false;
  auto it = std::find_if(in_flight_.begin(), in_flight_.end(), [&](const Write& w) {
    return matches(w.kind, w.session, w.xid, txn.header);
  });
  if (it == in_flight_.end()) return false;
  for (auto lost = in_flight_.begin(); lost != it; ++lost) {
    settle(*lost);
    net::log_warn("write of session ", net::hex(lost->session), " xid ", lost->xid,
                  " was not committed; closing its connection");
    outcomes_[lost->ticket] = std::nullopt;
    done(lost->ticket);
  }
  settle(*it);
  outcomes_[it->ticket] = std::make_pair(std::move(txn), std::move(response));
  done(it->ticket);
  in_flight_.erase(in_flight_.begin(), it + 1);
  return true;
}

ForwardedWrites::Outcome ForwardedWrites::take(uint64_t ticket) {
  auto it = outcomes_.find(ticket);
  if (it == outcomes_.end()) return std::nullopt;
  Outcome outcome = std::move(it->second);
  outcomes_.erase(it);
  return outcome;
}

void ForwardedWrites::clear() {
  in_flight_.clear();
  per_session_.clear();
  outcomes_.clear();
  done_.clear();
  done_upto_ = last_ticket_;
}

void ForwardedWrites::done(uint64_t ticket) {
  if (ticket <= done_upto_) return;
  // In order, as most are: no set node to allocate and free.
  if (ticket == done_upto_ + 1) {
    ++done_upto_;
  } else {
    done_.insert(ticket);
  }
  while (!done_.empty() && *done_.begin() == done_upto_ + 1) {
    done_.erase(done_.begin());
    ++done_upto_;
  }
}

void ForwardedWrites::settle(const Write& write) {
  auto count = per_session_.find(write.session);
  if (count != per_session_.end() && --count->second == 0) per_session_.erase(count);
}

}  // namespace zkd::server
