// SPDX-License-Identifier: Apache-2.0
#include "zklab/relay/network_faults.h"

#include <charconv>
#include <vector>

namespace zk::lab {

namespace {

// A positive decimal number (no sign, no spaces); nothing otherwise.
std::optional<int64_t> parse_positive(std::string_view text) {
  int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || at != end || value <= 0) return std::nullopt;
  return value;
}

// `text` split at `sep`; an empty text is an empty list.
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  if (text.empty()) return parts;
  for (size_t at = 0;;) {
    const size_t next = text.find(sep, at);
    parts.push_back(text.substr(at, next == std::string_view::npos ? next : next - at));
    if (next == std::string_view::npos) return parts;
    at = next + 1;
  }
}

// The numbers either side of `sep` in "X<sep>Y".
std::optional<std::pair<int64_t, int64_t>> parse_pair(std::string_view text, char sep) {
  const size_t at = text.find(sep);
  if (at == std::string_view::npos) return std::nullopt;
  auto x = parse_positive(text.substr(0, at));
  auto y = parse_positive(text.substr(at + 1));
  if (!x || !y) return std::nullopt;
  return std::pair{*x, *y};
}

constexpr int64_t kMaxId = 1 << 20;

}  // namespace

std::string format_faults(const NetworkFaults& faults) {
  std::string out = "cut=";
  for (const auto& [a, b] : faults.cut) {
    if (out.back() != '=') out += ",";
    out += std::to_string(a) + "-" + std::to_string(b);
  }
  out += " slow=";
  for (const auto& [node, delay] : faults.slow) {
    if (out.back() != '=') out += ",";
    out += std::to_string(node) + ":" + std::to_string(delay.count());
  }
  return out;
}

std::optional<NetworkFaults> parse_faults(std::string_view text) {
  constexpr std::string_view kCut = "cut=";
  constexpr std::string_view kSlow = " slow=";
  const size_t slow_at = text.find(kSlow);
  if (!text.starts_with(kCut) || slow_at == std::string_view::npos) return std::nullopt;
  NetworkFaults faults;
  for (auto link : split(text.substr(kCut.size(), slow_at - kCut.size()), ',')) {
    auto ab = parse_pair(link, '-');
    if (!ab || ab->first >= ab->second || ab->second > kMaxId) return std::nullopt;
    if (!faults.cut.emplace(static_cast<int>(ab->first), static_cast<int>(ab->second)).second) {
      return std::nullopt;
    }
  }
  for (auto delay : split(text.substr(slow_at + kSlow.size()), ',')) {
    auto nd = parse_pair(delay, ':');
    if (!nd || nd->first > kMaxId) return std::nullopt;
    const auto [it, fresh] =
        faults.slow.emplace(static_cast<int>(nd->first), std::chrono::milliseconds(nd->second));
    if (!fresh) return std::nullopt;
  }
  return faults;
}

std::string describe_faults(const NetworkFaults& faults) {
  if (faults.cut.empty() && faults.slow.empty()) return "none";
  std::string out;
  if (!faults.cut.empty()) {
    out = "cut";
    for (const auto& [a, b] : faults.cut) out += " " + std::to_string(a) + "-" + std::to_string(b);
  }
  if (!faults.slow.empty()) {
    out += out.empty() ? "slow" : "; slow";
    for (const auto& [node, delay] : faults.slow) {
      out += " " + std::to_string(node) + " +" + std::to_string(delay.count()) + "ms";
    }
  }
  return out;
}

}  // namespace zk::lab
