// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/records.h"

namespace zk::wire {

void Id::write(Writer& w) const {
  w.ustring(scheme);
  w.ustring(id);
}
void Id::read(Reader& r) {
  scheme = r.ustring();
  id = r.ustring();
}

void ACL::write(Writer& w) const {
  w.int32(perms);
  id.write(w);
}
void ACL::read(Reader& r) {
  perms = r.int32();
  id.read(r);
}

void write_acls(Writer& w, const ACLs& v) {
  w.vector_size(v.size());
  for (const auto& a : v) a.write(w);
}
ACLs read_acls(Reader& r) {
  ACLs v;
  int32_t n = r.vector_size(12);
  v.resize(static_cast<size_t>(n));
  for (auto& a : v) a.read(r);
  return v;
}

const ACLs& open_acl_unsafe() {
  static const ACLs acls{{perms::kAll, {"world", "anyone"}}};
  return acls;
}
const ACLs& read_acl_unsafe() {
  static const ACLs acls{{perms::kRead, {"world", "anyone"}}};
  return acls;
}

void Stat::write(Writer& w) const {
  // Room for all eleven fields at once: a write's reply is a Stat alone, and
  // growing it field by field from an empty string allocates three times.
  w.bytes().reserve(w.bytes().size() + kStatSize);
  w.int64(czxid);
  w.int64(mzxid);
  w.int64(ctime);
  w.int64(mtime);
  w.int32(version);
  w.int32(cversion);
  w.int32(aversion);
  w.int64(ephemeral_owner);
  w.int32(data_length);
  w.int32(num_children);
  w.int64(pzxid);
}
void Stat::read(Reader& r) {
  czxid = r.int64();
  mzxid = r.int64();
  ctime = r.int64();
  mtime = r.int64();
  version = r.int32();
  cversion = r.int32();
  aversion = r.int32();
  ephemeral_owner = r.int64();
  data_length = r.int32();
  num_children = r.int32();
  pzxid = r.int64();
}

void ConnectRequest::write(Writer& w) const {
  w.int32(protocol_version);
  w.int64(last_zxid_seen);
  w.int32(timeout_ms);
  w.int64(session_id);
  w.buffer(std::string_view(passwd));
  if (has_read_only) w.boolean(read_only);
}
void ConnectRequest::read(Reader& r) {
  protocol_version = r.int32();
  last_zxid_seen = r.int64();
  timeout_ms = r.int32();
  session_id = r.int64();
  passwd = r.ustring();
  has_read_only = r.ok() && r.remaining() > 0;
  read_only = has_read_only && r.boolean();
}

void ConnectResponse::write(Writer& w) const {
  w.int32(protocol_version);
  w.int32(timeout_ms);
  w.int64(session_id);
  w.buffer(std::string_view(passwd));
  if (has_read_only) w.boolean(read_only);
}
void ConnectResponse::read(Reader& r) {
  protocol_version = r.int32();
  timeout_ms = r.int32();
  session_id = r.int64();
  passwd = r.ustring();
  has_read_only = r.ok() && r.remaining() > 0;
  read_only = has_read_only && r.boolean();
}

void RequestHeader::write(Writer& w) const {
  w.int32(xid);
  w.int32(static_cast<int32_t>(type));
}
void RequestHeader::read(Reader& r) {
  xid = r.int32();
  type = static_cast<OpCode>(r.int32());
}

void ReplyHeader::write(Writer& w) const {
  w.int32(xid);
  w.int64(zxid);
  w.int32(static_cast<int32_t>(err));
}
void ReplyHeader::read(Reader& r) {
  xid = r.int32();
  zxid = r.int64();
  err = static_cast<Error>(r.int32());
}

void CreateRequest::write(Writer& w) const {
  w.ustring(path);
  w.buffer(data);
  write_acls(w, acl);
  w.int32(flags);
}
void CreateRequest::read(Reader& r) {
  path = r.ustring();
  data = r.buffer();
  acl = read_acls(r);
  flags = r.int32();
}

void CreateTTLRequest::write(Writer& w) const {
  w.ustring(path);
  w.buffer(data);
  write_acls(w, acl);
  w.int32(flags);
  w.int64(ttl);
}
void CreateTTLRequest::read(Reader& r) {
  path = r.ustring();
  data = r.buffer();
  acl = read_acls(r);
  flags = r.int32();
  ttl = r.int64();
}

void DeleteRequest::write(Writer& w) const {
  w.ustring(path);
  w.int32(version);
}
void DeleteRequest::read(Reader& r) {
  path = r.ustring();
  version = r.int32();
}

void PathWatchRequest::write(Writer& w) const {
  w.ustring(path);
  w.boolean(watch);
}
void PathWatchRequest::read(Reader& r) {
  path = r.ustring();
  watch = r.boolean();
}

void AddWatchRequest::write(Writer& w) const {
  w.ustring(path);
  w.int32(mode);
}
void AddWatchRequest::read(Reader& r) {
  path = r.ustring();
  mode = r.int32();
}

void WatchesRequest::write(Writer& w) const {
  w.ustring(path);
  w.int32(type);
}
void WatchesRequest::read(Reader& r) {
  path = r.ustring();
  type = r.int32();
}

void PathRecord::write(Writer& w) const { w.ustring(path); }
void PathRecord::read(Reader& r) { path = r.ustring(); }

void SetDataRequest::write(Writer& w) const {
  w.ustring(path);
  w.buffer(data);
  w.int32(version);
}
void SetDataRequest::read(Reader& r) {
  path = r.ustring();
  data = r.buffer();
  version = r.int32();
}

void ReconfigRequest::write(Writer& w) const {
  for (const std::string* s : {&joining, &leaving, &new_members}) {
    if (s->empty()) {
      w.null_ustring();
    } else {
      w.ustring(*s);
    }
  }
  w.int64(from_config);
}
void ReconfigRequest::read(Reader& r) {
  joining = r.ustring();
  leaving = r.ustring();
  new_members = r.ustring();
  from_config = r.int64();
}

void SetACLRequest::write(Writer& w) const {
  w.ustring(path);
  write_acls(w, acl);
  w.int32(version);
}
void SetACLRequest::read(Reader& r) {
  path = r.ustring();
  acl = read_acls(r);
  version = r.int32();
}

void CheckVersionRequest::write(Writer& w) const {
  w.ustring(path);
  w.int32(version);
}
void CheckVersionRequest::read(Reader& r) {
  path = r.ustring();
  version = r.int32();
}

void AuthPacket::write(Writer& w) const {
  w.int32(type);
  w.ustring(scheme);
  w.buffer(auth);
}
void AuthPacket::read(Reader& r) {
  type = r.int32();
  scheme = r.ustring();
  auth = r.buffer();
}

void SetWatches::write(Writer& w, bool v2) const {
  w.int64(relative_zxid);
  w.strings(data_watches);
  w.strings(exist_watches);
  w.strings(child_watches);
  if (v2) {
    w.strings(persistent_watches);
    w.strings(persistent_recursive_watches);
  }
}
void SetWatches::read(Reader& r, bool v2) {
  relative_zxid = r.int64();
  data_watches = r.strings();
  exist_watches = r.strings();
  child_watches = r.strings();
  if (v2) {
    persistent_watches = r.strings();
    persistent_recursive_watches = r.strings();
  }
}

void Create2Response::write(Writer& w) const {
  w.ustring(path);
  stat.write(w);
}
void Create2Response::read(Reader& r) {
  path = r.ustring();
  stat.read(r);
}

void GetDataResponse::write(Writer& w) const {
  w.buffer(data);
  stat.write(w);
}
void GetDataResponse::read(Reader& r) {
  data = r.buffer();
  stat.read(r);
}

void GetACLResponse::write(Writer& w) const {
  write_acls(w, acl);
  stat.write(w);
}
void GetACLResponse::read(Reader& r) {
  acl = read_acls(r);
  stat.read(r);
}

void GetChildrenResponse::write(Writer& w) const { w.strings(children); }
void GetChildrenResponse::read(Reader& r) { children = r.strings(); }

void GetChildren2Response::write(Writer& w) const {
  w.strings(children);
  stat.write(w);
}
void GetChildren2Response::read(Reader& r) {
  children = r.strings();
  stat.read(r);
}

void ClientInfo::write(Writer& w) const {
  w.ustring(auth_scheme);
  w.ustring(user);
}
void ClientInfo::read(Reader& r) {
  auth_scheme = r.ustring();
  user = r.ustring();
}

void WhoAmIResponse::write(Writer& w) const {
  w.vector_size(client_info.size());
  for (const auto& c : client_info) c.write(w);
}
void WhoAmIResponse::read(Reader& r) {
  // Each entry takes at least two 4-byte lengths.
  client_info.resize(static_cast<size_t>(r.vector_size(8)));
  for (auto& c : client_info) c.read(r);
}

void WatcherEvent::write(Writer& w) const {
  w.int32(static_cast<int32_t>(type));
  w.int32(static_cast<int32_t>(state));
  w.ustring(path);
}
void WatcherEvent::read(Reader& r) {
  type = static_cast<EventType>(r.int32());
  state = static_cast<KeeperState>(r.int32());
  path = r.ustring();
}

}  // namespace zk::wire
