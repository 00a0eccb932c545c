// SPDX-License-Identifier: Apache-2.0
// Jute records of the ZooKeeper 3.8 client protocol (§1.2, §2, §3, §4 of
// docs/wire-protocol.md). Each record has write(Writer&) and
// read(Reader&); fields are in declaration order, exactly as on the wire.
// read() leaves failures in the Reader (check reader.ok()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"

namespace zk::wire {

struct Id {
  std::string scheme;
  std::string id;
  void write(Writer& w) const;
  void read(Reader& r);
  bool operator==(const Id&) const = default;
};

struct ACL {
  int32_t perms = 0;
  Id id;
  void write(Writer& w) const;
  void read(Reader& r);
  bool operator==(const ACL&) const = default;
};
using ACLs = std::vector<ACL>;
void write_acls(Writer& w, const ACLs& v);
ACLs read_acls(Reader& r);

// [(ALL, world, anyone)]
const ACLs& open_acl_unsafe();
// [(READ, world, anyone)]
const ACLs& read_acl_unsafe();

struct Stat {
  int64_t czxid = 0;
  int64_t mzxid = 0;
  int64_t ctime = 0;
  int64_t mtime = 0;
  int32_t version = 0;
  int32_t cversion = 0;
  int32_t aversion = 0;
  int64_t ephemeral_owner = 0;
  int32_t data_length = 0;
  int32_t num_children = 0;
  int64_t pzxid = 0;
  void write(Writer& w) const;
  void read(Reader& r);
  bool operator==(const Stat&) const = default;
};
inline constexpr size_t kStatSize = 68;

// First frame from a client; no RequestHeader. `read_only` is the trailing
// byte outside the jute record: present in the request iff has_read_only.
struct ConnectRequest {
  int32_t protocol_version = 0;
  int64_t last_zxid_seen = 0;
  int32_t timeout_ms = 0;
  int64_t session_id = 0;
  std::string passwd = std::string(16, '\0');
  bool has_read_only = true;
  bool read_only = false;
  void write(Writer& w) const;
  void read(Reader& r);
};

// First frame from the server; no ReplyHeader. The trailing read_only byte is
// sent iff the request carried one (has_read_only).
struct ConnectResponse {
  int32_t protocol_version = 0;
  int32_t timeout_ms = 0;  // 0 means the session is invalid or expired
  int64_t session_id = 0;
  std::string passwd = std::string(16, '\0');
  bool has_read_only = true;
  bool read_only = false;
  void write(Writer& w) const;
  void read(Reader& r);  // has_read_only reflects whether the byte was there
};

struct RequestHeader {
  int32_t xid = 0;
  OpCode type = OpCode::kNotification;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct ReplyHeader {
  int32_t xid = 0;
  int64_t zxid = 0;
  Error err = Error::kOk;
  void write(Writer& w) const;
  void read(Reader& r);
};
inline constexpr size_t kReplyHeaderSize = 16;

struct CreateRequest {  // create (1), create2 (15), createContainer (19)
  std::string path;
  Buffer data;
  ACLs acl;
  int32_t flags = 0;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct CreateTTLRequest {  // createTTL (21)
  std::string path;
  Buffer data;
  ACLs acl;
  int32_t flags = 0;
  int64_t ttl = 0;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct DeleteRequest {
  std::string path;
  int32_t version = -1;
  void write(Writer& w) const;
  void read(Reader& r);
};

// exists (3), getData (4), getChildren (8), getChildren2 (12).
struct PathWatchRequest {
  std::string path;
  bool watch = false;
  void write(Writer& w) const;
  void read(Reader& r);
};

// addWatch (106). `mode` is an AddWatchMode, kept raw: a server must refuse
// other values.
struct AddWatchRequest {
  std::string path;
  int32_t mode = 0;
  void write(Writer& w) const;
  void read(Reader& r);
};

// checkWatches (17) and removeWatches (18): CheckWatchesRequest and
// RemoveWatchesRequest have the same fields. `type` is a WatcherType, kept raw.
struct WatchesRequest {
  std::string path;
  int32_t type = 0;
  void write(Writer& w) const;
  void read(Reader& r);
};

// getACL (6), sync (9), and the CreateResponse / SyncResponse bodies.
struct PathRecord {
  std::string path;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct SetDataRequest {
  std::string path;
  Buffer data;
  int32_t version = -1;
  void write(Writer& w) const;
  void read(Reader& r);
};

// reconfig (16): joiningServers, leavingServers, newMembers (an empty one
// goes as null, as kazoo and zkCli send an absent one), curConfigId (-1:
// any). Answered with a GetDataResponse of the new configuration.
struct ReconfigRequest {
  std::string joining;
  std::string leaving;
  std::string new_members;
  int64_t from_config = -1;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct SetACLRequest {
  std::string path;
  ACLs acl;
  int32_t version = -1;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct CheckVersionRequest {
  std::string path;
  int32_t version = -1;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct AuthPacket {
  int32_t type = 0;
  std::string scheme;
  Buffer auth;
  void write(Writer& w) const;
  void read(Reader& r);
};

// setWatches (101); setWatches2 (105) adds the two persistent lists.
struct SetWatches {
  int64_t relative_zxid = 0;
  std::vector<std::string> data_watches;
  std::vector<std::string> exist_watches;
  std::vector<std::string> child_watches;
  std::vector<std::string> persistent_watches;            // v2 only
  std::vector<std::string> persistent_recursive_watches;  // v2 only
  void write(Writer& w, bool v2) const;
  void read(Reader& r, bool v2);
};

struct Create2Response {
  std::string path;
  Stat stat;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct GetDataResponse {
  Buffer data;
  Stat stat;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct GetACLResponse {
  ACLs acl;
  Stat stat;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct GetChildrenResponse {
  std::vector<std::string> children;
  void write(Writer& w) const;
  void read(Reader& r);
};

struct GetChildren2Response {
  std::vector<std::string> children;
  Stat stat;
  void write(Writer& w) const;
  void read(Reader& r);
};

// whoAmI (107): one ClientInfo per id the connection authenticated as, in
// the order they were added (§4.3).
struct ClientInfo {
  std::string auth_scheme;
  std::string user;
  void write(Writer& w) const;
  void read(Reader& r);
  bool operator==(const ClientInfo&) const = default;
};

struct WhoAmIResponse {
  std::vector<ClientInfo> client_info;
  void write(Writer& w) const;
  void read(Reader& r);
};

// The body of a notification frame (xid -1, zxid -1, err 0).
struct WatcherEvent {
  EventType type = EventType::kNone;
  KeeperState state = KeeperState::kSyncConnected;
  std::string path;
  void write(Writer& w) const;
  void read(Reader& r);
};

// The jute encoding of one record, without a frame.
template <typename Record>
std::string encode(const Record& record) {
  std::string out;
  Writer w(out);
  record.write(w);
  return out;
}

// Decodes a whole record from `bytes`; false when it is truncated or invalid.
// Trailing bytes are allowed, as Apache allows them.
template <typename Record>
bool decode(std::string_view bytes, Record& out) {
  Reader r(bytes);
  out.read(r);
  return r.ok();
}

}  // namespace zk::wire
