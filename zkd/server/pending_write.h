// SPDX-License-Identifier: Apache-2.0
// What a server parks while a write or a request waits its turn in the
// ReplyPipeline (reply_pipeline.h): a prepared write with what finishes it
// once applied, and a request deferred behind earlier ones of its
// connection. Internal to zkd/server; plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "libzk/wire/protocol.h"
#include "zkd/audit/write_events.h"
#include "zkd/server/reply_pipeline.h"
#include "zkd/tree/txn.h"

namespace zkd::server {

// audit.enable: who sent an audited write and its request record (after the
// RequestHeader), from which its audit events take the znode, mode and ACL
// (audit_trail.h).
struct AuditedWrite {
  audit::Requester who;
  std::string body;
};

// What finishes a write once it is durable (standalone) or committed
// (ensemble) and applied.
struct PendingWrite {
  enum class Kind {
    kReply,          // a client's write (or an error txn): reply to it
    kCreateSession,  // the connect handshake: send the ConnectResponse
    kCloseSession,   // a client's closeSession: reply, then close
    kExpiry,         // the server's own (expiry, container manager): nobody to answer
    kSync,           // ensemble: a sync, answered once the leader's point is applied
  };
  Kind kind = Kind::kReply;
  tree::Txn txn;  // standalone: set when prepared; ensemble: when applied
  int32_t xid = 0;
  zk::wire::OpCode op = zk::wire::OpCode::kError;
  std::optional<zk::wire::Error> err;  // error txns made by the server: the reply's err
  int64_t started_ms = 0;              // steady clock, for latency
  int64_t prepared_ms = 0;             // steady clock: prepared or handed to the leader
  std::string payload;                 // kSync: the request, answered when released
  std::optional<AuditedWrite> audit;   // kReply with audit.enable: audited when answered
};

// A request (RequestHeader + body) waiting behind earlier ones of its connection.
struct PendingRequest {
  std::string payload;
  int64_t started_ms = 0;
};

using Pipeline = ReplyPipeline<PendingWrite, PendingRequest>;

// How a request reaches the request handler.
enum class Arrival {
  kNew,       // just read from the connection
  kInTurn,    // it waited behind earlier requests of its connection and is next
  kReleased,  // a sync whose barrier has passed: answer it now
};

}  // namespace zkd::server
