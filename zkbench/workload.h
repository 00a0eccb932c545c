// SPDX-License-Identifier: Apache-2.0
// Workload: what zkbench asks of the servers, and the seeded generators that
// draw it: the op mix (which request next), the key (which znode) and the
// value (how many bytes a write carries).
//
// Op types: get (getData), exists, children (getChildren), set (setData) of a
// key znode <root>/k<i>; create: a create of a new znode under <root>/new,
// followed, once it succeeded, by a delete of that znode (the delete is a
// request of its own, type delete: it is not drawn from the mix but reported
// like the others); and multi: one multi request (a transaction) of
// Workload::multi_ops setData operations (version -1) on keys drawn one by
// one, counted as one request of type multi. A failed transaction counts as
// one error of type multi under the failing operation's code.
//
// Generators are deterministic for a seed (std::mt19937_64 and integer or
// double arithmetic only), so a run can be replayed.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace zk::bench {

enum class OpType : uint8_t { kGet, kExists, kChildren, kSet, kCreate, kDelete, kMulti };
inline constexpr size_t kOpTypes = 7;
inline constexpr std::array<OpType, kOpTypes> kAllOpTypes = {
    OpType::kGet,    OpType::kExists, OpType::kChildren, OpType::kSet,
    OpType::kCreate, OpType::kDelete, OpType::kMulti};

// "get", "exists", "children", "set", "create", "delete", "multi".
std::string_view op_name(OpType op);
// The type named so; nothing for another name.
std::optional<OpType> parse_op_type(std::string_view name);
// True for get, exists and children.
bool is_read(OpType op);

using Rng = std::mt19937_64;

// A seed for stream `stream` derived from `seed` (splitmix64), so that
// neighbouring streams (lanes) draw unrelated sequences.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

// Relative weights of the drawable op types (delete's is always 0).
struct OpMix {
  std::array<int64_t, kOpTypes> weights{};

  int64_t total() const;
  // The share of `op` in [0, 1].
  double share(OpType op) const;
  // "get=70,set=30": the types with a weight, in the order of kAllOpTypes.
  std::string describe() const;
};

struct MixParse {
  OpMix mix;
  std::string error;  // empty on success
};

// Parses "get=70,set=20,exists=10": comma-separated TYPE=WEIGHT, weights
// non-negative integers summing to more than 0, each type at most once,
// delete not allowed (it follows a create).
MixParse parse_mix(std::string_view text);
// get=percent, set=100-percent (percent in [0, 100]).
OpMix reads_mix(int read_percent);

// Draws op types in the proportions of a mix.
class OpChooser {
 public:
  explicit OpChooser(const OpMix& mix);
  OpType draw(Rng& rng) const;

 private:
  std::array<int64_t, kOpTypes> cumulative_{};
  int64_t total_ = 0;
};

enum class KeyDistribution { kUniform, kZipf };

// "uniform", "zipf"; parse: nothing for another name.
std::string_view distribution_name(KeyDistribution d);
std::optional<KeyDistribution> parse_distribution(std::string_view name);

struct KeySpec {
  int64_t znodes = 1000;  // keys 0..znodes-1; at least 1
  KeyDistribution distribution = KeyDistribution::kUniform;
  // Zipf: key k (from 0) is drawn with probability proportional to
  // 1 / (k + 1)^zipf_s, so key 0 is the hottest.
  double zipf_s = 0.99;
};

// Draws keys as a KeySpec says. Zipf builds a table of the cumulative
// probabilities (8 bytes per key) once, shared by copies; a draw is a binary
// search. Copies may be used from different threads, each with its own Rng.
class KeyChooser {
 public:
  explicit KeyChooser(const KeySpec& spec);
  int64_t draw(Rng& rng) const;
  // The probability of key `k` under the spec (for tests and reports).
  double probability(int64_t k) const;

 private:
  KeySpec spec_;
  std::shared_ptr<const std::vector<double>> cdf_;  // zipf only
};

struct Workload {
  OpMix mix = reads_mix(100);
  KeySpec keys;
  int value_bytes = 1024;  // of every set, create and multi setData, and of each key at setup
  int multi_ops = 2;       // setData operations per multi (op type multi); at least 1
  uint64_t seed = 1;
};

// `bytes` bytes of value: a fixed printable pattern.
std::string make_value(int bytes);

}  // namespace zk::bench
