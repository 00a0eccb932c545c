// SPDX-License-Identifier: Apache-2.0
#include "zklab/relay/election_hello.h"

#include <algorithm>

namespace zk::lab {

namespace {

constexpr int64_t kVersionOneAddress = -65536;
constexpr int64_t kVersionAddresses = -65535;
constexpr size_t kMaxAddressBytes = 2048;
constexpr size_t kHeaderBytes = 20;  // version, id, address length

uint64_t big_endian(std::string_view bytes, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

// "host:port" with `port` in place of its port; unchanged without a ':'.
std::string with_port(std::string_view address, uint16_t port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return std::string(address);
  return std::string(address.substr(0, colon + 1)) + std::to_string(port);
}

}  // namespace

HelloRewrite rewrite_election_hello(std::string_view bytes, uint16_t port) {
  using Outcome = HelloRewrite::Outcome;
  if (bytes.size() < 8) return {Outcome::kNeedMore, {}};
  const auto version = static_cast<int64_t>(big_endian(bytes, 8));
  if (version != kVersionOneAddress && version != kVersionAddresses) {
    return {Outcome::kAsIs, std::string(bytes)};
  }
  if (bytes.size() < kHeaderBytes) return {Outcome::kNeedMore, {}};
  const auto n = static_cast<int32_t>(big_endian(bytes.substr(16), 4));
  if (n <= 0 || static_cast<size_t>(n) > kMaxAddressBytes) {
    return {Outcome::kAsIs, std::string(bytes)};
  }
  if (bytes.size() < kHeaderBytes + static_cast<size_t>(n)) return {Outcome::kNeedMore, {}};
  const std::string_view joined = bytes.substr(kHeaderBytes, static_cast<size_t>(n));
  std::string rewritten;
  if (version == kVersionOneAddress) {
    rewritten = with_port(joined, port);
  } else {
    for (size_t at = 0; at <= joined.size();) {
      const size_t bar = std::min(joined.find('|', at), joined.size());
      rewritten += (at == 0 ? "" : "|") + with_port(joined.substr(at, bar - at), port);
      at = bar + 1;
    }
  }
  std::string out(bytes.substr(0, 16));
  const auto length = static_cast<uint32_t>(rewritten.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(length >> shift));
  out += rewritten;
  out += bytes.substr(kHeaderBytes + static_cast<size_t>(n));
  return {Outcome::kRewritten, std::move(out)};
}

}  // namespace zk::lab
