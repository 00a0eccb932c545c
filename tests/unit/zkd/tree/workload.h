// SPDX-License-Identifier: Apache-2.0
// Random client workloads for property tests (seeded, so a failure names the
// seed that replays it), and a dump of a Database as clients see it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkd/tree/database.h"
#include "zkd/tree/txn.h"

namespace zkd::tree::testing {

// How many seeds a property test runs: `fallback`, or ZKD_TREE_SEEDS for a
// longer local run.
inline uint32_t seed_count(uint32_t fallback) {
  const char* env = std::getenv("ZKD_TREE_SEEDS");
  return env != nullptr ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : fallback;
}

// One request as the server would hand it to prepare().
struct Request {
  enum class Kind { kWrite, kCreateSession, kCloseSession };
  Kind kind = Kind::kWrite;
  SessionId session = 0;
  int32_t xid = 0;
  zk::wire::OpCode op = zk::wire::OpCode::kError;
  std::string body;
  int32_t timeout_ms = 0;
};

inline Txn prepare(Database& db, const Request& r, int64_t zxid) {
  int64_t time = 1000 * zxid;
  switch (r.kind) {
    case Request::Kind::kCreateSession:
      return db.prepare_create_session(r.session, r.timeout_ms, zxid, time);
    case Request::Kind::kCloseSession:
      return db.prepare_close_session(r.session, 0, zxid, time);
    case Request::Kind::kWrite:
      break;
  }
  return db.prepare(r.session, r.xid, r.op, r.body, zxid, time);
}

inline std::string txn_bytes(const Txn& txn) {
  std::string out;
  zk::wire::Writer w(out);
  write_txn(w, txn);
  return out;
}

// Writes over a small namespace (three names, three levels) so that creates
// collide, deletes meet children, versions go stale and sessions close with
// ephemerals; sequential names the server hands back join the namespace.
class Workload {
 public:
  static constexpr SessionId kFirstSession = 0x1000004c2160000;
  static constexpr int kSessions = 4;

  explicit Workload(uint32_t seed) : rng_(seed) {
    for (const char* a : {"a", "b", "c"}) {
      std::string p1 = std::string("/") + a;
      paths_.push_back(p1);
      for (const char* b : {"a", "b", "c"}) {
        std::string p2 = p1 + "/" + b;
        paths_.push_back(p2);
        for (const char* c : {"a", "b"}) paths_.push_back(p2 + "/" + c);
      }
    }
  }

  // Requests that open every session, to run first.
  std::vector<Request> open_sessions() const {
    std::vector<Request> out;
    for (int i = 0; i < kSessions; ++i) {
      Request r;
      r.kind = Request::Kind::kCreateSession;
      r.session = kFirstSession + i;
      r.timeout_ms = 10000 + i;
      out.push_back(r);
    }
    return out;
  }

  Request next() {
    Request r;
    r.session = kFirstSession + pick(kSessions);
    r.xid = ++xid_;
    int dice = pick(100);
    if (dice < 3) {
      r.kind = Request::Kind::kCloseSession;
    } else if (dice < 7) {
      r.kind = Request::Kind::kCreateSession;
      r.timeout_ms = 5000 + pick(3) * 1000;
    } else if (dice < 45) {
      int32_t flags = pick(10) < 6 ? 0 : pick(4);
      std::string path = path_for_create(flags);
      r.op = pick(2) == 0 ? zk::wire::OpCode::kCreate : zk::wire::OpCode::kCreate2;
      r.body = zk::wire::encode(zk::wire::CreateRequest{path, data(), acl(), flags});
    } else if (dice < 65) {
      r.op = zk::wire::OpCode::kDelete;
      r.body = zk::wire::encode(zk::wire::DeleteRequest{any_path(), version()});
    } else if (dice < 88) {
      r.op = zk::wire::OpCode::kSetData;
      r.body = zk::wire::encode(zk::wire::SetDataRequest{any_path(), data(), version()});
    } else if (dice < 98) {
      r.op = zk::wire::OpCode::kSetACL;
      r.body = zk::wire::encode(zk::wire::SetACLRequest{any_path(), acl(), version()});
    } else {
      r.op = zk::wire::OpCode::kSetData;
      r.body = "\x00\x00\x00\x09/";  // does not decode
    }
    return r;
  }

  // Learns the names sequential creates were given.
  void observe(const Request& r, const ApplyResult& result) {
    if (result.response.err != zk::wire::Error::kOk) return;
    if (r.op != zk::wire::OpCode::kCreate && r.op != zk::wire::OpCode::kCreate2) return;
    std::string path = r.op == zk::wire::OpCode::kCreate
                           ? decode_path<zk::wire::PathRecord>(result.response.body)
                           : decode_path<zk::wire::Create2Response>(result.response.body);
    if (path.size() > 10 && path[path.size() - 10] == '0') paths_.push_back(path);
  }

  std::mt19937& rng() { return rng_; }
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

 private:
  template <typename Record>
  static std::string decode_path(const std::string& body) {
    Record rec;
    zk::wire::decode(body, rec);
    return rec.path;
  }

  std::string any_path() { return paths_[pick(static_cast<int>(paths_.size()))]; }
  std::string path_for_create(int32_t flags) {
    std::string path = paths_[pick(27)];  // one of the fixed paths
    if ((flags & 2) != 0) path += pick(2) == 0 ? "/s-" : "/";
    return path;
  }
  int32_t version() { return pick(2) == 0 ? -1 : pick(3); }
  zk::wire::Buffer data() {
    switch (pick(4)) {
      case 0:
        return std::nullopt;
      case 1:
        return std::string();
      default:
        return std::string(1 + pick(20), static_cast<char>('a' + pick(26)));
    }
  }
  zk::wire::ACLs acl() {
    switch (pick(4)) {
      case 0:
        return zk::wire::read_acl_unsafe();
      case 1:
        return {{31, {"digest", "u:" + std::to_string(pick(3))}}, {1, {"world", "anyone"}}};
      default:
        return zk::wire::open_acl_unsafe();
    }
  }

  std::mt19937 rng_;
  std::vector<std::string> paths_;
  int32_t xid_ = 0;
};

// Every node (path, data, ACL, Stat) as a client reads it, in pre-order, then
// every session with its timeout and ephemerals, then the mntr counts.
inline std::vector<std::string> dump(Database& db) {
  using zk::wire::OpCode;
  std::vector<std::string> out;
  std::vector<std::string> stack{"/"};
  while (!stack.empty()) {
    std::string path = stack.back();
    stack.pop_back();
    zk::wire::GetDataResponse data;
    zk::wire::GetACLResponse acl;
    zk::wire::GetChildrenResponse children;
    Response r = db.read(0, OpCode::kGetData, zk::wire::encode(zk::wire::PathWatchRequest{path}));
    bool ok = r.err == zk::wire::Error::kOk && zk::wire::decode(r.body, data);
    r = db.read(0, OpCode::kGetACL, zk::wire::encode(zk::wire::PathRecord{path}));
    ok = ok && r.err == zk::wire::Error::kOk && zk::wire::decode(r.body, acl);
    r = db.read(0, OpCode::kGetChildren, zk::wire::encode(zk::wire::PathWatchRequest{path}));
    ok = ok && r.err == zk::wire::Error::kOk && zk::wire::decode(r.body, children);
    std::ostringstream line;
    line << path << (ok ? "" : " UNREADABLE")
         << " data=" << (data.data ? "'" + *data.data + "'" : "null") << " acl=";
    for (const auto& a : acl.acl) line << a.perms << ":" << a.id.scheme << ":" << a.id.id << ",";
    const zk::wire::Stat& s = data.stat;
    line << " stat=" << s.czxid << "," << s.mzxid << "," << s.ctime << "," << s.mtime << ","
         << s.version << "," << s.cversion << "," << s.aversion << "," << s.ephemeral_owner << ","
         << s.data_length << "," << s.num_children << "," << s.pzxid;
    out.push_back(line.str());
    std::string prefix = path == "/" ? "" : path;
    for (auto it = children.children.rbegin(); it != children.children.rend(); ++it) {
      stack.push_back(prefix + "/" + *it);
    }
  }
  for (SessionId id : db.sessions()) {
    std::ostringstream line;
    line << "session " << id << " timeout=" << db.session_timeout(id).value_or(-1)
         << " ephemerals=";
    for (const std::string& p : db.ephemerals(id)) line << p << ",";
    out.push_back(line.str());
  }
  Counts c = db.counts();
  out.push_back("counts znodes=" + std::to_string(c.znodes) +
                " size=" + std::to_string(c.approximate_data_size) + " ephemerals=" +
                std::to_string(c.ephemerals) + " sessions=" + std::to_string(c.sessions));
  return out;
}

}  // namespace zkd::tree::testing
