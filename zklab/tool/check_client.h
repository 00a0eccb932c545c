// SPDX-License-Identifier: Apache-2.0
// One client of `zklab check`: a loop of register reads (sync, then
// getData), writes (setData of a value no one else writes), compare-and-sets
// (getData for the version, then setData with it) and sequential creates,
// one request in flight at a time, each recorded (check_history.h) under the
// client id it ran with. Every session the client opens holds one ephemeral
// znode until the session ends.
//
// Client ids: the client takes a fresh id (ClientIds) with every session and
// after every operation whose outcome is unknown, so that no id of the
// history has two operations in flight (the unknown one stays open forever).
//
// Sessions: one that the server reports expired ends (its ephemeral is
// recorded as ended) and the client opens another. A request that misses its
// deadline abandons the session: the SyncClient is destroyed without
// closeSession and the server expires the session later; abandon() does the
// same on purpose. Every call of the client is bounded by its deadline.
//
// Not thread-safe: one thread drives a client (run, then the end checks).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "libzk/client/sync_client.h"
#include "toolkit/client_security.h"
#include "zklab/checker/check_history.h"

namespace zk::lab::check {

// The znodes of one run.
struct CheckPaths {
  std::string root;
  std::vector<std::string> registers;  // each holds a decimal integer
  std::string sequential;              // parent of the buckets of sequential creates
  std::string ephemeral;               // parent of the ephemerals
};

// The sequential creates go into buckets, children of CheckPaths::sequential
// made as needed: bucket 0, 1, ... A client creates in its current bucket and
// moves to the next once a create there was given a sequence number of at
// least the bucket size; so a bucket holds at most the bucket size plus one
// create per client and per unknown outcome, every listing of a bucket stays
// small however long the run, and bucket k+1 exists only if bucket k does.
std::string sequential_bucket(const CheckPaths& paths, int64_t bucket);
// The bucket size that keeps a bucket's listing (16 bytes a child) within
// half of `max_reply_bytes`, but at least 64 and at most 16384.
int64_t bucket_size_for(int32_t max_reply_bytes);
// The sequence number a sequential znode's name or path ends in (its last 10
// digits); -1 when it ends otherwise.
int64_t parse_sequence(const std::string& name);

struct ClientSettings {
  std::string connect_string;  // the servers, in the order this client tries them
  std::chrono::milliseconds session_timeout{2000};   // requested
  std::chrono::milliseconds request_deadline{4000};  // per request, and per connect
  toolkit::ClientSecurity security;                  // a TLS or SASL lab's; none: plaintext
  int32_t max_reply_bytes = zk::client::kDefaultMaxReplyBytes;  // the client's jute.maxbuffer
};

// Hands out client ids, unique within a run; thread-safe.
class ClientIds {
 public:
  int next() { return next_.fetch_add(1); }

 private:
  std::atomic<int> next_{0};
};

// What a sync on a client's open session said.
enum class SessionCheck {
  kAlive,    // the sync succeeded
  kExpired,  // the server reports the session expired
  kUnknown,  // no answer in time, the connection is lost, or no session is open
};

class CheckClient {
 public:
  CheckClient(int slot, CheckPaths paths, ClientSettings settings, ClientIds& ids, uint64_t seed);
  // Abandons the open session, if any.
  ~CheckClient();
  CheckClient(const CheckClient&) = delete;
  CheckClient& operator=(const CheckClient&) = delete;

  // Runs operations until `stop` is set (returns once the one in flight is
  // done). At `abandon_at`, if given, abandons its session once on purpose
  // and goes on with a new one.
  void run(const std::atomic<bool>& stop,
           std::optional<std::chrono::steady_clock::time_point> abandon_at);

  // A sync on the open session, within the request deadline.
  SessionCheck check_session();
  // The server reported the open session expired: it ends (its ephemeral
  // recorded as ended).
  void end_expired();
  // Abandons the open session (destroyed without closeSession); its
  // ephemeral is recorded as ended.
  void abandon();
  // Drops the ephemeral record of the open session: whether the node should
  // be there at the end cannot be told.
  void forget_ephemeral();
  // closeSession of the open session (bounded); records stay as they are.
  void close();

  const std::vector<RegisterOp>& ops() const { return ops_; }
  const std::vector<SequentialCreate>& creates() const { return creates_; }
  // One per session that created (or may have created) its ephemeral; the
  // one of the open session, if any, is the last and not ended.
  std::vector<EphemeralRecord>& ephemerals() { return ephemerals_; }
  bool has_session() const { return session_ != nullptr; }
  // The bucket the next create goes to; no bucket above it was created by
  // this client.
  int64_t bucket() const { return bucket_; }

  int sessions_opened() const { return sessions_opened_; }
  int sessions_expired() const { return sessions_expired_; }
  int sessions_abandoned() const { return sessions_abandoned_; }
  int abandoned_on_purpose() const { return abandoned_on_purpose_; }
  // The latest abandonment (steady_now_ns; 0: none) and the longest
  // negotiated timeout of an abandoned session: the server has expired them
  // all once that long has passed since the later of the abandonment and the
  // election of its current leader.
  int64_t last_abandoned_ns() const { return last_abandoned_ns_; }
  std::chrono::milliseconds abandoned_timeout() const { return abandoned_timeout_; }

 private:
  struct Answer;

  bool open_session();
  void read(const std::string& key);
  void write(const std::string& key);
  void cas(const std::string& key);
  void create();
  // Deals with what an answer says about the session, and takes a fresh id
  // after an operation whose outcome is unknown.
  void after(const Answer& answer, Outcome outcome);
  // After a connection loss: until the session is connected again, ends, or
  // the request deadline passes.
  void wait_connected();
  // The open session is gone: its ephemeral record ends.
  void drop_session();
  RegisterOp new_op(const std::string& key, RegisterOpKind kind) const;
  int64_t next_value();

  int slot_;
  CheckPaths paths_;
  ClientSettings settings_;
  ClientIds& ids_;
  std::mt19937_64 rng_;
  std::unique_ptr<zk::client::SyncClient> session_;
  int client_id_ = -1;
  int64_t counter_ = 0;
  int64_t bucket_ = 0;
  int64_t bucket_size_;
  std::vector<RegisterOp> ops_;
  std::vector<SequentialCreate> creates_;
  std::vector<EphemeralRecord> ephemerals_;
  bool holds_ephemeral_ = false;  // ephemerals_.back() is the open session's
  int sessions_opened_ = 0;
  int sessions_expired_ = 0;
  int sessions_abandoned_ = 0;
  int abandoned_on_purpose_ = 0;
  int64_t last_abandoned_ns_ = 0;
  std::chrono::milliseconds abandoned_timeout_{0};
};

}  // namespace zk::lab::check
