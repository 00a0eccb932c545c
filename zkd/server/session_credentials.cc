// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/session_credentials.h"

namespace zkd::server {

SessionIdGenerator::SessionIdGenerator(uint8_t server_id, int64_t clock_ms) {
  auto clock_bits = (static_cast<uint64_t>(clock_ms) << 24) >> 8;  // low 40 bits -> bits 16..55
  next_ = static_cast<int64_t>(clock_bits | (static_cast<uint64_t>(server_id) << 56));
}

int64_t SessionIdGenerator::next() {
  constexpr auto kContainerMarker = static_cast<int64_t>(0x8000000000000000ULL);
  if (next_ == kContainerMarker) ++next_;
  return next_++;
}

namespace {

uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

void sip_round(uint64_t& v0, uint64_t& v1, uint64_t& v2, uint64_t& v3) {
  v0 += v1;
  v1 = rotl(v1, 13);
  v1 ^= v0;
  v0 = rotl(v0, 32);
  v2 += v3;
  v3 = rotl(v3, 16);
  v3 ^= v2;
  v0 += v3;
  v3 = rotl(v3, 21);
  v3 ^= v0;
  v2 += v1;
  v1 = rotl(v1, 17);
  v1 ^= v2;
  v2 = rotl(v2, 32);
}

uint64_t load_le(const unsigned char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

uint64_t siphash24(const std::array<uint64_t, 2>& key, std::string_view message) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ key[0];
  uint64_t v1 = 0x646f72616e646f6dULL ^ key[1];
  uint64_t v2 = 0x6c7967656e657261ULL ^ key[0];
  uint64_t v3 = 0x7465646279746573ULL ^ key[1];
  auto p = reinterpret_cast<const unsigned char*>(message.data());
  size_t n = message.size();
  size_t whole = n - n % 8;
  for (size_t i = 0; i < whole; i += 8) {
    uint64_t m = load_le(p + i, 8);
    v3 ^= m;
    sip_round(v0, v1, v2, v3);
    sip_round(v0, v1, v2, v3);
    v0 ^= m;
  }
  uint64_t last = (static_cast<uint64_t>(n) << 56) | load_le(p + whole, n % 8);
  v3 ^= last;
  sip_round(v0, v1, v2, v3);
  sip_round(v0, v1, v2, v3);
  v0 ^= last;
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) sip_round(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}

std::string SessionPasswords::encode_key(const Key& key) {
  std::string out;
  for (uint64_t half : key) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(half >> (8 * i)));
  }
  return out;
}

std::optional<SessionPasswords::Key> SessionPasswords::decode_key(std::string_view bytes) {
  if (bytes.size() != 16) return std::nullopt;
  auto p = reinterpret_cast<const unsigned char*>(bytes.data());
  return Key{load_le(p, 8), load_le(p + 8, 8)};
}

SessionPasswords SessionPasswords::apache() {
  SessionPasswords out(Key{0, 0});
  out.apache_ = true;
  return out;
}

std::string SessionPasswords::apache_password(int64_t session_id) {
  // java.util.Random: a 48-bit linear congruential generator; nextBytes
  // takes each nextInt()'s bytes low first.
  constexpr uint64_t kMultiplier = 0x5DEECE66DULL;
  constexpr uint64_t kMask = (1ULL << 48) - 1;
  constexpr uint64_t kApacheSecret = 0xB3415C00ULL;
  uint64_t seed = ((static_cast<uint64_t>(session_id) ^ kApacheSecret) ^ kMultiplier) & kMask;
  std::string out;
  while (out.size() < kPasswordSize) {
    seed = (seed * kMultiplier + 0xB) & kMask;
    auto value = static_cast<uint32_t>(seed >> 16);
    for (int n = 0; n < 4 && out.size() < kPasswordSize; ++n, value >>= 8) {
      out.push_back(static_cast<char>(value & 0xff));
    }
  }
  return out;
}

std::string SessionPasswords::password(int64_t session_id) const {
  return apache_ ? apache_password(session_id) : password(key_, session_id);
}

std::string SessionPasswords::password(const Key& key, int64_t session_id) {
  std::string out;
  for (unsigned char half = 0; half < 2; ++half) {
    char message[9];
    auto id = static_cast<uint64_t>(session_id);
    for (int i = 0; i < 8; ++i) message[i] = static_cast<char>(id >> (8 * i));
    message[8] = static_cast<char>(half);  // domain separation of the two halves
    uint64_t h = siphash24(key, std::string_view(message, 9));
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(h >> (8 * i)));
  }
  return out;
}

bool SessionPasswords::matches(int64_t session_id, std::string_view candidate) const {
  if (apache_) return equal(apache_password(session_id), candidate);
  if (equal(password(key_, session_id), candidate)) return true;
  return also_accepted_ && equal(password(*also_accepted_, session_id), candidate);
}

bool SessionPasswords::equal(std::string_view expected, std::string_view candidate) {
  if (candidate.size() != expected.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    diff |= static_cast<unsigned char>(expected[i] ^ candidate[i]);
  }
  return diff == 0;
}

}  // namespace zkd::server
