// SPDX-License-Identifier: Apache-2.0
// A client write on its way to the server that orders writes: in standalone
// mode this server, in an ensemble the leader (a follower forwards it through
// the Zab core's forward(), as the opaque payload of a Request message).
//
// prepare_write() is the one place where a WriteRequest becomes a txn
// (validation, version checks, sequential names, error txns): the standalone
// server calls it for its own clients, a leader for every server's clients.
//
// The request carries the ids of the connection it came on (as Apache's
// Request carries authInfo to the leader), so that the leader checks ACLs
// against the caller's identities, whichever server the caller is on.
//
// A follower also reports the sessions its clients kept alive since its last
// report (kTouch): the leader decides expiry for the whole ensemble from its
// own clients' activity and these reports (Apache's LearnerSessionTracker).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "libzk/wire/protocol.h"
#include "zkd/tree/database.h"
#include "zkd/tree/txn.h"

namespace zkd::server {

struct WriteRequest {
  enum class Kind : uint8_t {
    kOp,             // create, delete, setData, setACL: session, xid, op, body
    kCreateSession,  // session (chosen by the server the client is on), timeout_ms
    kCloseSession,   // session, xid (0 for expiry)
    kError,          // a request refused with `err`, which still takes a zxid
    kTouch,          // not a write: `touches` keep sessions alive on the leader
    // Not a write: a client resumed `session` (timeout_ms) on this server.
    // An Apache leader makes this server the session's owner (its
    // REVALIDATE; without it, the session's writes here are SESSIONMOVED);
    // zkd's leader takes it as a touch.
    kRevalidate,
  };
  Kind kind = Kind::kOp;
  int64_t session = 0;
  int32_t xid = 0;
  zk::wire::OpCode op = zk::wire::OpCode::kError;
  std::string body;
  int32_t timeout_ms = 0;
  zk::wire::Error err = zk::wire::Error::kOk;
  std::vector<std::pair<int64_t, int32_t>> touches;  // session, timeout_ms
  tree::AuthIds auth;                                // kOp: the ids of the caller's connection
};

std::string encode_write_request(const WriteRequest& request);
// Nothing when `bytes` is not a whole WriteRequest.
std::optional<WriteRequest> decode_write_request(std::string_view bytes);

// The txn for `request` at `zxid` (`time_ms`: the orderer's wall clock),
// validated against `db` and its pending txns. Precondition: kind is neither
// kTouch nor kRevalidate.
tree::Txn prepare_write(tree::Database& db, const WriteRequest& request, int64_t zxid,
                        int64_t time_ms);

// tree::write_txn() of `txn`, prepared from `request`, in one allocation: a
// txn's record is about as long as its request's body (a setData's exactly),
// so room for that and the header is reserved before writing, rather than
// the string regrown, and a 1 KiB value copied again, field by field.
std::string encode_prepared_txn(const tree::Txn& txn, const WriteRequest& request);

}  // namespace zkd::server
