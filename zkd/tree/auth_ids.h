// SPDX-License-Identifier: Apache-2.0
// The identities a client connection has proved (Apache's ServerCnxn
// authInfo, §10.2 of docs/wire-protocol.md): ("ip", peer address) from the
// accept, ("digest", "user:hash") per digest AuthPacket, ("super", "") when a
// digest matched the configured super digest. They belong to the connection,
// not the session; a write carries its connection's ids to the leader, which
// checks them (zkd/server/write_request.h).
#pragma once

#include <initializer_list>
#include <string_view>
#include <vector>

#include "libzk/wire/records.h"

namespace zkd::tree {

// Scheme names with a meaning of their own in ACL checks and fixups.
inline constexpr std::string_view kWorldScheme = "world";
inline constexpr std::string_view kAnyoneId = "anyone";
inline constexpr std::string_view kAuthScheme = "auth";
inline constexpr std::string_view kDigestScheme = "digest";
inline constexpr std::string_view kIpScheme = "ip";
inline constexpr std::string_view kSuperScheme = "super";
inline constexpr std::string_view kSaslScheme = "sasl";
inline constexpr std::string_view kX509Scheme = "x509";

class AuthIds {
 public:
  AuthIds() = default;
  // Each id added in turn, as add() takes it.
  explicit AuthIds(std::initializer_list<zk::wire::Id> ids);

  // Adds `id` unless it is there already (Apache's addAuthInfo).
  void add(const zk::wire::Id& id);

  // The ids in the order Apache lists a connection's ids: its authInfo is a
  // set backed by a java.util.concurrent.ConcurrentHashMap, so they come in
  // that map's iteration order (by the Id's Java hash code, then insertion),
  // which is the order whoAmI answers with and `auth` ACL entries expand in.
  const std::vector<zk::wire::Id>& ids() const { return java_order_; }
  // The ids in the order they were added: what rebuilds the same set
  // elsewhere (a forwarded write) by add()ing them in turn.
  const std::vector<zk::wire::Id>& added() const { return added_; }

  // A "super" id bypasses every ACL check (§10.4 step 3).
  bool is_super() const;

  bool operator==(const AuthIds& other) const { return added_ == other.added_; }

 private:
  std::vector<zk::wire::Id> added_;
  std::vector<zk::wire::Id> java_order_;
};

}  // namespace zkd::tree
