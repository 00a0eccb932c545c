// SPDX-License-Identifier: Apache-2.0
// Client authentication (§10.2, §10.3 of docs/wire-protocol.md): the ids an
// AuthPacket (opcode 100) adds to its connection, by Apache's two default
// providers, digest and ip. What the ids allow is the tree's business
// (zkd/tree/acl_check.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libzk/wire/records.h"

namespace zkd::server {

// Apache's DigestAuthenticationProvider settings (zoo.cfg keys without
// Apache's "zookeeper." prefix).
struct DigestSettings {
  bool enabled = true;  // .enabled: false serves no digest scheme
  // .digestAlg: a Java MessageDigest name OpenSSL also knows ("SHA1",
  // "SHA-256", "SHA3-256", ...); valid_digest_algorithm() says which.
  std::string algorithm = "SHA1";
  // .superDigest ("super:<base64 hash>"): a digest id that makes its
  // connection super. "" = no super user.
  std::string super_digest;
};

// Whether OpenSSL has the digest `algorithm` names.
bool valid_digest_algorithm(const std::string& algorithm);

// Apache's DigestAuthenticationProvider.generateDigest: for "user:password",
// "user:" + base64(hash("user:password")); the user is everything before the
// first ':' (all of it when there is none; the hash is always of the whole
// text). SHA1: "alice:pw" -> "alice:V55/p2T0OpjQ+low3NVAH4aLvm0=".
// `algorithm` must be valid (valid_digest_algorithm).
std::string digest_id(std::string_view user_password, const std::string& algorithm = "SHA1");

// The ids an AuthPacket adds, in order, or nullopt (AUTHFAILED: reply, then
// close) for a scheme no provider serves. "digest", when enabled, always
// succeeds: ("digest", digest_id(auth)), preceded by ("super", "") when that
// id equals the super digest. "ip" ignores its payload and yields ("ip",
// `peer_ip`).
std::optional<std::vector<zk::wire::Id>> authenticate(const zk::wire::AuthPacket& packet,
                                                      std::string_view peer_ip,
                                                      const DigestSettings& digest);

// The sasl id of a Kerberos principal "primary/host@REALM", as Apache's
// SaslServerCallbackHandler builds it: the primary, then "/host" unless
// `remove_host` (kerberos.removeHostFromPrincipal), then "@REALM" unless
// `remove_realm`. (Apache's primary is the auth_to_local short name; zkd
// applies no rules: the DEFAULT rule keeps the primary of the default realm.)
std::string kerberos_sasl_id(std::string_view principal, bool remove_host, bool remove_realm);

// The ip id of an IPv6 peer, as Java's InetAddress.getHostAddress writes it:
// eight hex groups without compression ("0:0:0:0:0:0:0:1"). (An IPv4 peer's
// is the usual dotted text.)
std::string ipv6_host_address(const std::array<uint8_t, 16>& bytes);

// whoAmI (107): one entry per id, in order: the scheme and the user, which is
// the part of a digest id before its ':', an ip id's address, and "" for
// super (Apache's AuthUtil.getClientInfos).
zk::wire::WhoAmIResponse who_am_i(const std::vector<zk::wire::Id>& ids);

}  // namespace zkd::server
