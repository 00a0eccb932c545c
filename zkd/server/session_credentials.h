// SPDX-License-Identifier: Apache-2.0
// Session ids and passwords (§2.4 of docs/wire-protocol.md).
//
// Ids follow Apache: the top 8 bits are the server id (1 when standalone),
// bits 16..55 the low 40 bits of a millisecond clock read at start-up, and
// each new session takes the next value (0x8000000000000000, the container
// marker, is skipped).
//
// Passwords are not stored: a password is re-derived from the session id
// with a keyed hash (SipHash-2-4, two 64-bit halves) under a secret chosen at
// random. The durable server keeps that secret in the data dir (see
// recovery.h), so passwords stay valid across restarts, like the sessions.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace zkd::server {

class SessionIdGenerator {
 public:
  SessionIdGenerator(uint8_t server_id, int64_t clock_ms);
  int64_t next();

 private:
  int64_t next_;
};

class SessionPasswords {
 public:
  static constexpr size_t kPasswordSize = 16;
  using Key = std::array<uint64_t, 2>;

  // Passwords are made with `key`; with `also_accepted`, those made with it
  // (by an earlier key) match too.
  explicit SessionPasswords(Key key, std::optional<Key> also_accepted = std::nullopt)
      : key_(key), also_accepted_(also_accepted) {}
  // A fresh key from `random`, 64 bits per call (storage::Env::secure_random).
  static Key random_key(const std::function<uint64_t()>& random) { return Key{random(), random()}; }
  // The key as 16 bytes (little-endian halves) and back; nothing when
  // `bytes` is not exactly 16 bytes long.
  static std::string encode_key(const Key& key);
  static std::optional<Key> decode_key(std::string_view bytes);

  // Apache's own passwords (ZooKeeperServer.generatePasswd: java.util.Random
  // seeded with the id xor a secret every Apache server knows), which a mixed
  // ensemble (zkd.peerProtocol=apache) uses so that a session moves between
  // zkd and Apache servers. No secret: as weak as Apache's.
  static SessionPasswords apache();
  // Apache's password for `session_id` (16 bytes).
  static std::string apache_password(int64_t session_id);

  std::string password(int64_t session_id) const;  // 16 bytes
  // Constant-time comparison with the session's password (under either key).
  bool matches(int64_t session_id, std::string_view password) const;

 private:
  static std::string password(const Key& key, int64_t session_id);
  static bool equal(std::string_view expected, std::string_view candidate);

  Key key_;
  std::optional<Key> also_accepted_;
  bool apache_ = false;  // apache(): key_ is not used
};

// SipHash-2-4 of an 8-byte message; exposed for tests against the reference vectors' scheme.
uint64_t siphash24(const std::array<uint64_t, 2>& key, std::string_view message);

}  // namespace zkd::server
