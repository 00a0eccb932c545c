// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/ip_acl.h"

#include <cstddef>

namespace zkd::tree {
namespace {

// Java's Integer.parseInt: an optional '+' or '-', then at least one decimal
// digit; nullopt when it does not parse or leaves the int range.
std::optional<int64_t> java_parse_int(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
    if (v > int64_t{1} << 31) return std::nullopt;
  }
  v = negative ? -v : v;
  if (v > INT32_MAX) return std::nullopt;
  return v;
}

// An ACL id split as Java's id.split("/", 2): the address, and the bits
// when a '/' is there (0..32, else nullopt overall).
struct Block {
  Ipv4 address{};
  int bits = 32;
};
std::optional<Block> parse_block(std::string_view acl_id) {
  const size_t slash = acl_id.find('/');
  auto address = parse_ipv4(acl_id.substr(0, slash));
  if (!address) return std::nullopt;
  Block block{*address, 32};
  if (slash != std::string_view::npos) {
    auto bits = java_parse_int(acl_id.substr(slash + 1));
    if (!bits || *bits < 0 || *bits > 32) return std::nullopt;
    block.bits = static_cast<int>(*bits);
  }
  return block;
}

Ipv4 masked(Ipv4 a, int bits) {
  for (size_t i = 0; i < a.size(); ++i) {
    const int keep = bits - static_cast<int>(8 * i);
    if (keep >= 8) continue;
    a[i] = keep <= 0 ? 0 : static_cast<uint8_t>(a[i] & (0xff << (8 - keep)));
  }
  return a;
}

}  // namespace

std::optional<Ipv4> parse_ipv4(std::string_view text) {
  Ipv4 out{};
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t dot = text.find('.');
    const bool last = i + 1 == out.size();
    if (last != (dot == std::string_view::npos)) return std::nullopt;
    auto v = java_parse_int(text.substr(0, dot));
    if (!v || *v < 0 || *v > 255) return std::nullopt;
    out[i] = static_cast<uint8_t>(*v);
    if (!last) text.remove_prefix(dot + 1);
  }
  return out;
}

bool valid_ip_acl(std::string_view acl_id) { return parse_block(acl_id).has_value(); }

bool ip_matches(std::string_view acl_id, std::string_view address) {
  auto block = parse_block(acl_id);
  if (!block) return false;
  auto remote = parse_ipv4(address);
  if (!remote) return false;
  return masked(*remote, block->bits) == masked(block->address, block->bits);
}

}  // namespace zkd::tree
