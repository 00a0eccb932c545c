// SPDX-License-Identifier: Apache-2.0
// The history `zklab check` records and checks (check_verdict.h): what each
// client asked, when, and what it was told. Times are nanoseconds on one
// steady clock, measured by the recording process: invoke_ns just before the
// request left (for a sync-then-read, before the sync), complete_ns just after
// the answer arrived.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace zk::lab::check {

// Never completes: an operation whose outcome is unknown stays open to the
// end of the history.
inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

enum class Outcome {
  kOk,       // acknowledged: it took effect (a read: it returned these figures)
  kFailed,   // definitely did not take effect (for a cas: BadVersion)
  kUnknown,  // may or may not have taken effect (connection loss, timeout,
             // session expiry with the request in flight): complete_ns is kNever
};

// One register is one znode holding a decimal integer. Its state is
// (value, version) with the version of ZooKeeper's Stat: the znode is created
// with value 0 at version 0 before the history starts; a write sets the value
// and adds one to the version, whatever the version was; a cas
// (setData with an expected version) does the same only when the version is
// the expected one, else it fails (BadVersion) and changes nothing.
enum class RegisterOpKind {
  kRead,   // sync, then getData: returns (value, version)
  kWrite,  // setData(value, version -1)
  kCas,    // setData(value, expected_version)
};

struct RegisterOp {
  int client = 0;   // the recording client (one request in flight per client)
  std::string key;  // the register's znode path
  RegisterOpKind kind = RegisterOpKind::kRead;
  int64_t value = 0;    // write/cas: the value written; read (kOk): the value read
  int32_t version = 0;  // read (kOk): the version read; cas: the expected version
  int64_t invoke_ns = 0;
  int64_t complete_ns = kNever;
  Outcome outcome = Outcome::kUnknown;
  int64_t zxid = 0;  // write/cas (kOk): the mzxid of the Stat it returned
};

// A watch event a watcher session received: a NodeDataChanged of a
// register, with the zxid its notification carried. `connection` numbers the
// watcher's connections (1 for the first; a reconnection, even of the same
// session, starts the next), `watcher` its sessions.
struct WatchEventRecord {
  int watcher = 0;
  int connection = 0;
  std::string path;
  int64_t zxid = 0;
};

// A create of a sequential znode under `parent`.
struct SequentialCreate {
  int client = 0;
  std::string parent;
  int64_t sequence = -1;  // kOk: the 10-digit suffix of the name the server gave
  int64_t invoke_ns = 0;
  int64_t complete_ns = kNever;
  Outcome outcome = Outcome::kUnknown;
};

// An ephemeral znode a session created, and what became of the session.
struct EphemeralRecord {
  std::string path;
  int64_t session_id = 0;
  // The session was closed, abandoned or expired before the final look
  // (waited for long enough that the server must have expired it): its
  // ephemeral must be gone. Otherwise the session is alive and it must exist.
  bool session_ended = false;
  bool present_at_end = false;  // what the final (sync-then-)read saw
};

// "ok", "failed", "unknown".
std::string_view outcome_name(Outcome outcome);
// "read", "write", "cas".
std::string_view kind_name(RegisterOpKind kind);

struct History {
  std::vector<RegisterOp> registers;
  std::vector<SequentialCreate> creates;
  // parent -> the sequence numbers of every child in the final listing
  // (taken after the nemesis stopped and every node serves again).
  std::vector<std::pair<std::string, std::vector<int64_t>>> final_children;
  std::vector<EphemeralRecord> ephemerals;
  std::vector<WatchEventRecord> watch_events;  // in the order each watcher got them
};

}  // namespace zk::lab::check
