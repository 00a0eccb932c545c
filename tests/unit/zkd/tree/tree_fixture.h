// SPDX-License-Identifier: Apache-2.0
// A Database driven the way the standalone server drives it: each write is
// prepared with the next zxid and applied at once. Times are 1000 * zxid so
// that every txn's time is distinct and predictable.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkd/tree/database.h"

namespace zk::wire {
// Readable Stat values in assertion failures.
inline void PrintTo(const Stat& s, std::ostream* os) {
  *os << "{czxid=" << s.czxid << " mzxid=" << s.mzxid << " ctime=" << s.ctime
      << " mtime=" << s.mtime << " version=" << s.version << " cversion=" << s.cversion
      << " aversion=" << s.aversion << " owner=" << s.ephemeral_owner
      << " dataLength=" << s.data_length << " numChildren=" << s.num_children
      << " pzxid=" << s.pzxid << "}";
}
}  // namespace zk::wire

namespace zkd::tree::testing {

using zk::wire::encode;
using zk::wire::Error;
using zk::wire::EventType;
using zk::wire::OpCode;

template <typename Record>
Record decode_as(const std::string& body) {
  Record r;
  EXPECT_TRUE(zk::wire::decode(body, r));
  return r;
}

inline int64_t time_of(int64_t zxid) { return 1000 * zxid; }

class TreeTest : public ::testing::Test {
 protected:
  static constexpr SessionId kSession = 0x1000004c2160000;
  static constexpr SessionId kOther = 0x1000004c2160001;

  void SetUp() override { open_session(kSession); }

  int64_t next_zxid() const { return db.last_zxid() + 1; }

  ApplyResult open_session(SessionId s, int32_t timeout_ms = 30000) {
    int64_t z = next_zxid();
    return db.apply(db.prepare_create_session(s, timeout_ms, z, time_of(z)));
  }

  // Prepares and applies one write; returns the apply result.
  ApplyResult write(OpCode op, const std::string& body, SessionId s = kSession) {
    int64_t z = next_zxid();
    last_txn = db.prepare(s, 7, op, body, z, time_of(z));
    return db.apply(last_txn);
  }

  ApplyResult create(const std::string& path, zk::wire::Buffer data = std::string(),
                     int32_t flags = 0, SessionId s = kSession, OpCode op = OpCode::kCreate,
                     zk::wire::ACLs acl = zk::wire::open_acl_unsafe()) {
    return write(op, encode(zk::wire::CreateRequest{path, std::move(data), std::move(acl), flags}),
                 s);
  }
  // Creates and expects success; returns the actual path.
  std::string must_create(const std::string& path, int32_t flags = 0, SessionId s = kSession) {
    ApplyResult r = create(path, std::string(), flags, s);
    EXPECT_EQ(r.response.err, Error::kOk) << path;
    if (r.response.err != Error::kOk) return {};
    return decode_as<zk::wire::PathRecord>(r.response.body).path;
  }
  ApplyResult remove(const std::string& path, int32_t version = -1, SessionId s = kSession) {
    return write(OpCode::kDelete, encode(zk::wire::DeleteRequest{path, version}), s);
  }
  ApplyResult set_data(const std::string& path, zk::wire::Buffer data, int32_t version = -1) {
    return write(OpCode::kSetData,
                 encode(zk::wire::SetDataRequest{path, std::move(data), version}));
  }
  ApplyResult set_acl(const std::string& path, zk::wire::ACLs acl, int32_t version = -1) {
    return write(OpCode::kSetACL, encode(zk::wire::SetACLRequest{path, std::move(acl), version}));
  }

  Response read(OpCode op, const std::string& path, bool watch = false, WatcherId w = 1) {
    if (op == OpCode::kGetACL || op == OpCode::kSync || op == OpCode::kGetAllChildrenNumber) {
      return db.read(w, op, encode(zk::wire::PathRecord{path}));
    }
    return db.read(w, op, encode(zk::wire::PathWatchRequest{path, watch}));
  }
  // The Stat exists() reports; fails the test when the node is missing.
  zk::wire::Stat stat(const std::string& path) {
    Response r = read(OpCode::kExists, path);
    EXPECT_EQ(r.err, Error::kOk) << path;
    return r.err == Error::kOk ? decode_as<zk::wire::Stat>(r.body) : zk::wire::Stat{};
  }
  zk::wire::Buffer data(const std::string& path) {
    Response r = read(OpCode::kGetData, path);
    EXPECT_EQ(r.err, Error::kOk) << path;
    return r.err == Error::kOk ? decode_as<zk::wire::GetDataResponse>(r.body).data : std::nullopt;
  }
  std::vector<std::string> children(const std::string& path) {
    Response r = read(OpCode::kGetChildren, path);
    EXPECT_EQ(r.err, Error::kOk) << path;
    return r.err == Error::kOk ? decode_as<zk::wire::GetChildrenResponse>(r.body).children
                               : std::vector<std::string>{};
  }
  bool exists(const std::string& path) {
    return db.read(99, OpCode::kExists, encode(zk::wire::PathWatchRequest{path, false})).err ==
           Error::kOk;
  }

  Database db;
  Txn last_txn;
};

// A Stat of a node created by the txn `zxid` and not changed since.
inline zk::wire::Stat fresh_stat(int64_t zxid, int32_t data_length = 0, int64_t owner = 0) {
  zk::wire::Stat s;
  s.czxid = s.mzxid = s.pzxid = zxid;
  s.ctime = s.mtime = time_of(zxid);
  s.ephemeral_owner = owner;
  s.data_length = data_length;
  return s;
}

// Compact rendering of notifications for EXPECT_EQ: "w:type:path".
inline std::vector<std::string> events(const std::vector<Notification>& ns) {
  std::vector<std::string> out;
  for (const auto& n : ns) {
    EXPECT_EQ(n.event.state, zk::wire::KeeperState::kSyncConnected);
    out.push_back(std::to_string(n.watcher) + ":" +
                  std::string(zk::wire::event_type_name(n.event.type)) + ":" + n.event.path);
  }
  return out;
}

}  // namespace zkd::tree::testing
