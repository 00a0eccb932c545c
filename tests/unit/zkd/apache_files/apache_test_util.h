// SPDX-License-Identifier: Apache-2.0
// Apache-format bytes and trees for the tests of Apache's files and of the
// migration (tests/unit/zkd/migrate): a tree with every
// kind of node, and Apache's snapshot and log files built from the format's
// rules (zkd/apache_files/apache_snapshot.h, apache_txn_log.h).
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <string_view>
#include <vector>

#include "libzk/wire/jute.h"
#include "zkd/apache_files/apache_format.h"
#include "zkd/apache_files/apache_snapshot.h"
#include "zkd/tree/container_kind.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/session_table.h"
#include "zkd/tree/txn.h"

namespace zkd::apache::test {

inline constexpr tree::SessionId kSession = 0x1000229df8a0001;

// Every kind of node: nested, binary, null and empty data, a digest ACL, an
// ephemeral of kSession, a container and (extended types) a TTL node.
inline tree::DataTree varied_tree() {
  using zk::wire::ACLs;
  tree::DataTree t(/*extended_types=*/true);
  const ACLs& open = zk::wire::open_acl_unsafe();
  const ACLs digest{{31, {"digest", "user:QSwNsVOcUI0OGpXjGk3T7kmA+3c="}},
                    {1, {"world", "anyone"}}};
  std::string binary;
  for (int i = 0; i < 256; ++i) binary.push_back(static_cast<char>(i));
  int64_t zxid = 0;
  const auto create = [&](const std::string& path, zk::wire::Buffer data, const ACLs& acl,
                          int64_t owner) {
    ++zxid;
    ASSERT_EQ(t.create(path, data, acl, owner, -1, zxid, 1'700'000'000'000 + zxid),
              zk::wire::Error::kOk)
        << path;
  };
  create("/a", std::string("top"), open, 0);
  create("/a/b", binary, open, 0);
  create("/a/b/c", std::nullopt, digest, 0);
  create("/a/b/c/d", std::string(), open, 0);
  create("/eph", std::string("e"), open, kSession);
  create("/box", std::string(), open, tree::kContainerOwner);
  create("/box/in", std::string("x"), open, 0);
  create("/ttl", std::string("t"), open, tree::ttl_owner(60'000));
  EXPECT_EQ(t.set_data("/a", std::string("changed"), 1, ++zxid, 1'700'000'000'999),
            zk::wire::Error::kOk);
  EXPECT_EQ(t.set_acl("/a/b", digest, 1), zk::wire::Error::kOk);
  EXPECT_EQ(t.remove("/a/b/c/d", ++zxid), zk::wire::Error::kOk);
  return t;
}

inline tree::SessionTable varied_sessions() {
  tree::SessionTable s;
  s.open(kSession, 10'000);
  s.open(0x2000000000000002, 30'000);
  return s;
}

inline std::string apache_snapshot_bytes(const tree::DataTree& tree,
                                         const tree::SessionTable& sessions) {
  std::string out;
  zkd::Status s = write_apache_snapshot(
      tree, sessions,
      [&out](std::string_view bytes) {
        out += bytes;
        return zkd::Status();
      },
      nullptr);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

// A seal as Apache writes one: Adler-32 of every byte so far, then "/".
inline void seal(std::string& bytes) {
  const uint32_t sum = adler32(1, bytes);
  zk::wire::Writer w(bytes);
  w.int64(sum);
  w.ustring("/");
}

// `snapshot` with 3.9's last section: the last processed zxid, sealed.
inline std::string with_last_zxid(std::string snapshot, int64_t zxid) {
  {
    zk::wire::Writer w(snapshot);
    w.int64(zxid);
  }
  seal(snapshot);
  return snapshot;
}

// What java.util.zip.GZIPOutputStream writes: one gzip member.
inline std::string gzip(std::string_view bytes) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, bytes.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Every node of `tree` as "path data acl stat" lines, sorted by path, for
// comparing two trees field by field.
inline std::vector<std::string> describe(const tree::DataTree& tree) {
  std::vector<std::string> lines;
  std::vector<const tree::Node*> stack{tree.find("/")};
  while (!stack.empty()) {
    const tree::Node* n = stack.back();
    stack.pop_back();
    const auto& s = n->stat();
    std::string acl;
    for (const auto& a : n->acl())
      acl += std::to_string(a.perms) + a.id.scheme + ":" + a.id.id + ",";
    lines.push_back(
        std::string(n->path()) +
        " data=" + (n->data() ? "'" + std::string(*n->data()) + "'" : std::string("null")) +
        " acl=" + acl + " " + std::to_string(s.czxid) + "/" + std::to_string(s.mzxid) + "/" +
        std::to_string(s.pzxid) + "/" + std::to_string(s.ctime) + "/" + std::to_string(s.mtime) +
        "/" + std::to_string(s.version) + "/" + std::to_string(s.cversion) + "/" +
        std::to_string(s.aversion) + "/" + std::to_string(s.ephemeral_owner));
    for (const tree::Node* child : n->children()) stack.push_back(child);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// One txn log entry: checksum, length, txn bytes, 'B'.
inline std::string log_entry(const tree::Txn& txn) {
  std::string txn_bytes;
  zk::wire::Writer tw(txn_bytes);
  tree::write_txn(tw, txn);
  std::string out;
  zk::wire::Writer w(out);
  w.int64(adler32(1, txn_bytes));
  w.int32(static_cast<int32_t>(txn_bytes.size()));
  out += txn_bytes;
  out.push_back(kLogEntryEnd);
  return out;
}

inline std::string log_header() {
  std::string out;
  zk::wire::Writer w(out);
  w.int32(kLogMagic);
  w.int32(kFormatVersion);
  w.int64(0);
  return out;
}

inline tree::Txn create_txn(int64_t zxid, const std::string& path, const std::string& data,
                            int32_t parent_cversion) {
  tree::Txn txn;
  txn.header = {kSession, 1, zxid, 1'700'000'100'000, zk::wire::OpCode::kCreate};
  txn.body = tree::CreateTxn{path, data, zk::wire::open_acl_unsafe(), false, parent_cversion};
  return txn;
}

}  // namespace zkd::apache::test
