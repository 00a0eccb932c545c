// SPDX-License-Identifier: Apache-2.0
#include "zkbench/workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace zk::bench {

std::string_view op_name(OpType op) {
  switch (op) {
    case OpType::kGet:
      return "get";
    case OpType::kExists:
      return "exists";
    case OpType::kChildren:
      return "children";
    case OpType::kSet:
      return "set";
    case OpType::kCreate:
      return "create";
    case OpType::kDelete:
      return "delete";
    case OpType::kMulti:
      return "multi";
  }
  return "?";
}

std::optional<OpType> parse_op_type(std::string_view name) {
  for (OpType op : kAllOpTypes) {
    if (op_name(op) == name) return op;
  }
  return std::nullopt;
}

bool is_read(OpType op) {
  return op == OpType::kGet || op == OpType::kExists || op == OpType::kChildren;
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t OpMix::total() const {
  int64_t sum = 0;
  for (int64_t w : weights) sum += w;
  return sum;
}

double OpMix::share(OpType op) const {
  const int64_t t = total();
  return t == 0 ? 0 : static_cast<double>(weights[static_cast<size_t>(op)]) / t;
}

std::string OpMix::describe() const {
  std::string out;
  for (OpType op : kAllOpTypes) {
    const int64_t w = weights[static_cast<size_t>(op)];
    if (w == 0) continue;
    if (!out.empty()) out += ',';
    out += std::string(op_name(op)) + "=" + std::to_string(w);
  }
  return out;
}

MixParse parse_mix(std::string_view text) {
  MixParse out;
  std::array<bool, kOpTypes> seen{};
  size_t at = 0;
  while (true) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, comma - at);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      out.error = "'" + std::string(item) + "' is not TYPE=WEIGHT";
      return out;
    }
    const std::string_view name = item.substr(0, eq);
    const std::string_view number = item.substr(eq + 1);
    const auto op = parse_op_type(name);
    if (!op || *op == OpType::kDelete) {
      out.error =
          "unknown op type '" + std::string(name) + "' (get, exists, children, set, create, multi)";
      return out;
    }
    int64_t weight = -1;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), weight);
    if (ec != std::errc() || end != number.data() + number.size() || weight < 0 ||
        weight > 1'000'000) {
      out.error = "weight of " + std::string(name) + " is not an integer in [0, 1000000]";
      return out;
    }
    const auto i = static_cast<size_t>(*op);
    if (seen[i]) {
      out.error = std::string(name) + " is given twice";
      return out;
    }
    seen[i] = true;
    out.mix.weights[i] = weight;
    if (comma == text.size()) break;
    at = comma + 1;
  }
  if (out.mix.total() == 0) out.error = "the weights add up to 0";
  return out;
}

OpMix reads_mix(int read_percent) {
  OpMix mix;
  const int r = std::clamp(read_percent, 0, 100);
  mix.weights[static_cast<size_t>(OpType::kGet)] = r;
  mix.weights[static_cast<size_t>(OpType::kSet)] = 100 - r;
  return mix;
}

OpChooser::OpChooser(const OpMix& mix) {
  for (size_t i = 0; i < kOpTypes; ++i) {
    total_ += mix.weights[i];
    cumulative_[i] = total_;
  }
}

OpType OpChooser::draw(Rng& rng) const {
  if (total_ <= 0) return OpType::kGet;
  const auto x = static_cast<int64_t>(rng() % static_cast<uint64_t>(total_));
  for (size_t i = 0; i < kOpTypes; ++i) {
    if (x < cumulative_[i]) return kAllOpTypes[i];
  }
  return OpType::kGet;  // unreachable
}

std::string_view distribution_name(KeyDistribution d) {
  return d == KeyDistribution::kZipf ? "zipf" : "uniform";
}

std::optional<KeyDistribution> parse_distribution(std::string_view name) {
  if (name == "uniform") return KeyDistribution::kUniform;
  if (name == "zipf") return KeyDistribution::kZipf;
  return std::nullopt;
}

KeyChooser::KeyChooser(const KeySpec& spec) : spec_(spec) {
  spec_.znodes = std::max<int64_t>(spec_.znodes, 1);
  if (spec_.distribution != KeyDistribution::kZipf) return;
  auto cdf = std::make_shared<std::vector<double>>(static_cast<size_t>(spec_.znodes));
  double sum = 0;
  for (int64_t k = 0; k < spec_.znodes; ++k) {
    sum += 1.0 / std::pow(static_cast<double>(k + 1), spec_.zipf_s);
    (*cdf)[static_cast<size_t>(k)] = sum;
  }
  for (double& c : *cdf) c /= sum;
  cdf->back() = 1.0;
  cdf_ = std::move(cdf);
}

int64_t KeyChooser::draw(Rng& rng) const {
  if (!cdf_) return static_cast<int64_t>(rng() % static_cast<uint64_t>(spec_.znodes));
  const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
  const auto it = std::upper_bound(cdf_->begin(), cdf_->end(), u);
  return std::min<int64_t>(it - cdf_->begin(), spec_.znodes - 1);
}

double KeyChooser::probability(int64_t k) const {
  if (k < 0 || k >= spec_.znodes) return 0;
  if (!cdf_) return 1.0 / static_cast<double>(spec_.znodes);
  const auto i = static_cast<size_t>(k);
  return (*cdf_)[i] - (i == 0 ? 0.0 : (*cdf_)[i - 1]);
}

std::string make_value(int bytes) {
  std::string value(static_cast<size_t>(std::max(bytes, 0)), 'x');
  for (size_t i = 0; i < value.size(); ++i) value[i] = static_cast<char>('a' + i % 26);
  return value;
}

}  // namespace zk::bench
