// SPDX-License-Identifier: Apache-2.0
// A replica's own client writes and syncs on their way through the leader,
// numbered by "tickets" in arrival order (the ReplyPipeline's order in an
// ensemble). A write is finished when the committed txn that carries it is
// applied here: forwarded writes commit in the order this server sent them,
// so a committed txn whose session and xid match the oldest write of its
// session in flight is that write, and the writes before it that it passed
// were lost (the leader changed; their connections get closed). A sync is
// finished when the core says so.
//
// Not thread-safe: the state thread owns it.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "zkd/server/write_request.h"
#include "zkd/tree/database.h"
#include "zkd/tree/txn.h"

namespace zkd::server {

class ForwardedWrites {
 public:
  // What a finished write comes to: its txn and result, or nullopt when it
  // was lost.
  using Outcome = std::optional<std::pair<tree::Txn, tree::Response>>;

  // Numbers a write of `request` (its session, xid and kind).
  uint64_t add_write(const WriteRequest& request);
  // Numbers a sync; finished by sync_done().
  uint64_t add_sync() { return ++last_ticket_; }
  void sync_done(uint64_t ticket) { done(ticket); }
  // A committed txn was applied: when it is one of ours it is kept (moved
  // from `txn` and `response`) for take(), and true is returned.
  bool applied(tree::Txn& txn, tree::Response& response);
  // Every ticket up to here is finished.
  uint64_t released() const { return done_upto_; }
  // The outcome of finished write `ticket` (once).
  Outcome take(uint64_t ticket);
  // Forgets everything in flight (the replica stopped serving or changed
  // leader; their connections are closed). Later tickets go on numbering.
  void clear();

 private:
  struct Write {
    uint64_t ticket = 0;
    int64_t session = 0;
    int32_t xid = 0;
    WriteRequest::Kind kind = WriteRequest::Kind::kOp;
  };
  void done(uint64_t ticket);
  void settle(const Write& write);

  uint64_t last_ticket_ = 0;
  uint64_t done_upto_ = 0;
  std::set<uint64_t> done_;  // finished tickets above done_upto_
  std::deque<Write> in_flight_;
  std::unordered_map<int64_t, size_t> per_session_;  // entries of in_flight_ per session
  std::unordered_map<uint64_t, Outcome> outcomes_;
};

}  // namespace zkd::server
