// SPDX-License-Identifier: Apache-2.0
#include "zklab/checker/check_search.h"

#include <algorithm>
#include <cassert>
#include <optional>

#include "zklab/checker/check_key_set.h"

namespace zk::lab::check::detail {

namespace {

// The version `op` expects, checked against `s`; when the version is not
// fixed yet, fixes it (a start version may not be negative).
bool match_version(int64_t expected, State& s) {
  if (s.base_known) return s.version == expected;
  if (expected < s.version) return false;
  s.version = expected;
  s.base_known = true;
  return true;
}

void set_value(const SearchOp& op, State& s) {
  s.value_kind = op.value_unread ? ValueKind::kUnread : ValueKind::kConcrete;
  s.value = op.value_unread ? 0 : op.value;
}

// Applies `op` to `s`; false (s unspecified) when the op cannot happen in s.
bool step(const SearchOp& op, State& s) {
  switch (op.effect) {
    case Effect::kRead:
      if (s.value_kind == ValueKind::kUnread) return false;
      if (s.value_kind == ValueKind::kConcrete && s.value != op.value) return false;
      if (!match_version(op.version, s)) return false;
      s.value_kind = ValueKind::kConcrete;
      s.value = op.value;
      return true;
    case Effect::kWrite:
      s.version += 1;
      set_value(op, s);
      return true;
    case Effect::kCas:
      if (!match_version(op.version, s)) return false;
      s.version += 1;
      set_value(op, s);
      return true;
    case Effect::kFailedCas:
      // While the version is not fixed, the cas is taken to have failed.
      return !s.base_known || s.version != op.version;
  }
  return false;
}

// The cache may hold at most this many words (1 GiB), whatever the budget
// of configurations: offsets into its pool are 32 bits.
constexpr size_t kMaxCacheWords = size_t{1} << 28;

// The search: Wing & Gong's depth-first search for a linearization over the
// call and return entries in time order, with Lowe's cache of configurations
// (set of linearized ops, state). Entries are ordered by time, a call before
// a return at the same time (equal timestamps are concurrent), then by op.
// Mandatory ops have a call and a return entry; optional ones only a call.
// At each configuration the search tries the mandatory calls before the
// first pending return R, in order, then the optional calls before R; when
// none leads anywhere it is stuck at R and backtracks. It succeeds when every
// mandatory op is linearized.
//
// Two reductions keep it from trying orders that cannot matter:
// - A read or failed cas that could go next and leaves the state as it is
//   goes next, and nothing else is tried there: moving it to the front of
//   any linearization leaves one.
// - Ops of one symmetry class have the same effect on every state, so of
//   those that could go next only one is tried: of the optional ones, the
//   first called (they never return, so the others stay available); of the
//   mandatory ones, the one that returns first (swapping it with one that
//   returns later leaves every state and every deadline met). An optional
//   one is tried only when no mandatory one of its class could go next.
class LinearizationSearch {
 public:
  LinearizationSearch(const SearchProblem& problem, int64_t max_states)
      : ops_(problem.ops), state_(problem.start), max_states_(max_states) {}

  SearchResult run() {
    build();
    return search();
  }

 private:
  struct Entry {
    int64_t time = 0;
    bool is_return = false;
    uint32_t op = 0;
  };
  enum class Pass : uint8_t { kMandatory, kOptional };
  struct Frame {
    uint32_t op;
    Pass pass;
    bool forced;  // a read or failed cas that went first (see above)
    State before;
    size_t k_before;
  };
  // The optional ops of one symmetry class in call order, and the place of
  // the first one not linearized.
  struct SymmetryClass {
    std::vector<size_t> optional;
    size_t first_optional = 0;
  };

  void build() {
    const size_t n = ops_.size();
    for (size_t i = 0; i < n; ++i) {
      entries_.push_back({ops_[i].invoke_ns, false, static_cast<uint32_t>(i)});
      if (!ops_[i].optional)
        entries_.push_back({ops_[i].complete_ns, true, static_cast<uint32_t>(i)});
    }
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      if (a.time != b.time) return a.time < b.time;
      if (a.is_return != b.is_return) return !a.is_return;
      return a.op < b.op;
    });
    call_pos_.assign(n, 0);
    return_pos_.assign(n, 0);
    reach_.assign(n, 0);
    std::vector<size_t> rings[3];
    size_t calls = 0;
    for (size_t pos = 0; pos < entries_.size(); ++pos) {
      const Entry& e = entries_[pos];
      if (e.is_return) {
        rings[kReturns].push_back(pos);
        return_pos_[e.op] = pos;
        reach_[e.op] = calls;
      } else {
        rings[ops_[e.op].optional ? kOptionalCalls : kMandatoryCalls].push_back(pos);
        call_pos_[e.op] = pos;
        ++calls;
      }
    }
    next_.assign(entries_.size() + 3, 0);
    prev_.assign(entries_.size() + 3, 0);
    for (size_t r = 0; r < 3; ++r) link_ring(sentinel(r), rings[r]);

    linearized_.assign(n / 64 + 2, 0);
    optional_rank_.assign(n, 0);
    optional_before_.assign(n + 1, 0);
    class_rank_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      optional_before_[i] = optional_ops_.size();
      if (ops_[i].optional) {
        optional_rank_[i] = optional_ops_.size();
        optional_ops_.push_back(i);
      } else {
        ++remaining_;
      }
      if (ops_[i].symmetry_class >= 0) {
        size_t c = static_cast<size_t>(ops_[i].symmetry_class);
        if (classes_.size() <= c) classes_.resize(c + 1);
        if (ops_[i].optional) classes_[c].optional.push_back(i);
      }
    }
    optional_before_[n] = optional_ops_.size();
    optional_linearized_.assign(optional_ops_.size() / 64 + 2, 0);
    for (SymmetryClass& c : classes_) {
      for (size_t r = 0; r < c.optional.size(); ++r) class_rank_[c.optional[r]] = r;
    }
    advance_k();
  }

  // The three rings, each through its own sentinel slot after the entries.
  static constexpr size_t kMandatoryCalls = 0, kOptionalCalls = 1, kReturns = 2;
  size_t sentinel(size_t ring) const { return entries_.size() + ring; }

  // Links `positions` (ascending) into a ring through `sentinel`.
  void link_ring(size_t sentinel, const std::vector<size_t>& positions) {
    size_t last = sentinel;
    for (size_t pos : positions) {
      next_[last] = pos;
      prev_[pos] = last;
      last = pos;
    }
    next_[last] = sentinel;
    prev_[sentinel] = last;
  }

  void unlink(size_t pos) {
    next_[prev_[pos]] = next_[pos];
    prev_[next_[pos]] = prev_[pos];
  }
  void relink(size_t pos) {
    next_[prev_[pos]] = pos;
    prev_[next_[pos]] = pos;
  }

  static bool bit(const std::vector<uint64_t>& bits, size_t i) {
    return (bits[i / 64] >> (i % 64)) & 1;
  }
  static void set_bit(std::vector<uint64_t>& bits, size_t i, bool on) {
    uint64_t mask = uint64_t{1} << (i % 64);
    if (on) {
      bits[i / 64] |= mask;
    } else {
      bits[i / 64] &= ~mask;
    }
  }

  // Appends bits [from, to) of `bits`, 32 to a word.
  static void append_bits(const std::vector<uint64_t>& bits, size_t from, size_t to,
                          std::vector<uint32_t>& key) {
    for (size_t i = from; i < to; i += 32) {
      size_t word = i / 64;
      size_t shift = i % 64;
      uint64_t v = bits[word] >> shift;
      if (shift > 32) v |= bits[word + 1] << (64 - shift);
      size_t count = std::min<size_t>(32, to - i);
      key.push_back(static_cast<uint32_t>(v & ((uint64_t{1} << count) - 1)));
    }
  }

  bool is_linearized(size_t op) const { return bit(linearized_, op); }

  // Marks `op` linearized or not, keeping the class places. Undoing happens
  // in the reverse order of doing, so going back to the smaller place is
  // right.
  void mark(size_t op, bool on) {
    set_bit(linearized_, op, on);
    const SearchOp& s = ops_[op];
    if (!s.optional) return;
    set_bit(optional_linearized_, optional_rank_[op], on);
    if (s.symmetry_class < 0) return;
    SymmetryClass& c = classes_[static_cast<size_t>(s.symmetry_class)];
    if (!on) {
      c.first_optional = std::min(c.first_optional, class_rank_[op]);
    } else {
      while (c.first_optional < c.optional.size() && is_linearized(c.optional[c.first_optional])) {
        ++c.first_optional;
      }
    }
  }

  // k_: the first mandatory op not linearized (ops_.size() if none).
  void advance_k() {
    while (k_ < ops_.size() && (ops_[k_].optional || is_linearized(k_))) ++k_;
  }

  // The configuration as a cache key: the state, then the linearized set as
  // k_, which of the ops in [k_, reach_[k_]) are linearized, and which of
  // the optional ones before k_ (every mandatory op before k_ is). Every
  // linearized op was called before k_'s return, so none lies beyond
  // reach_[k_]. The lengths follow from k_.
  void encode(std::vector<uint32_t>& key) const {
    key.clear();
    auto push64 = [&key](int64_t v) {
      key.push_back(static_cast<uint32_t>(static_cast<uint64_t>(v)));
      key.push_back(static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32));
    };
    push64(state_.value);
    push64(state_.version);
    key.push_back(static_cast<uint32_t>(state_.value_kind) | (state_.base_known ? 0x100u : 0u));
    key.push_back(static_cast<uint32_t>(k_));
    append_bits(linearized_, k_, reach_[k_], key);
    append_bits(optional_linearized_, 0, optional_before_[k_], key);
  }

  // Another op of `op`'s symmetry class could go next and is tried instead
  // (see above). `first_return`: the position of R.
  bool dominated(size_t op, size_t first_return) const {
    const SearchOp& s = ops_[op];
    if (s.symmetry_class < 0) return false;
    // The mandatory ops that could go next: their calls before R.
    for (size_t pos = next_[sentinel(kMandatoryCalls)]; pos < first_return; pos = next_[pos]) {
      size_t other = entries_[pos].op;
      if (other == op || ops_[other].symmetry_class != s.symmetry_class) continue;
      if (s.optional || return_pos_[other] < return_pos_[op]) return true;
    }
    if (!s.optional) return false;
    const SymmetryClass& c = classes_[static_cast<size_t>(s.symmetry_class)];
    return c.optional[c.first_optional] != op;
  }

  // A read or failed cas that could go next and would leave the state as it
  // is; the entry-ring sentinel if none.
  size_t forced(size_t first_return) const {
    for (size_t pos = next_[sentinel(kMandatoryCalls)]; pos < first_return; pos = next_[pos]) {
      const SearchOp& s = ops_[entries_[pos].op];
      if (s.effect != Effect::kRead && s.effect != Effect::kFailedCas) continue;
      State after = state_;
      if (step(s, after) && after == state_) return pos;
    }
    return sentinel(kMandatoryCalls);
  }

  // Linearizes `op` now if the model allows it and the configuration it
  // leads to is new. Sets over_budget_ when the budget runs out.
  bool try_op(size_t op, Pass pass, bool forced = false) {
    assert(!is_linearized(op));
    State before = state_;
    if (!step(ops_[op], state_)) {
      state_ = before;
      return false;
    }
    const size_t k_before = k_;
    mark(op, true);
    if (!ops_[op].optional) {
      --remaining_;
      advance_k();
    }
    if (remaining_ > 0) {
      encode(scratch_);
      if (!cache_.insert(scratch_)) {
        mark(op, false);
        if (!ops_[op].optional) ++remaining_;
        k_ = k_before;
        state_ = before;
        return false;
      }
      if (++states_ > max_states_ || cache_.words() > kMaxCacheWords) over_budget_ = true;
    }
    unlink(call_pos_[op]);
    if (!ops_[op].optional) unlink(return_pos_[op]);
    stack_.push_back({static_cast<uint32_t>(op), pass, forced, before, k_before});
    return true;
  }

  // Undoes the last linearization; returns its frame.
  Frame undo() {
    Frame f = stack_.back();
    stack_.pop_back();
    if (!ops_[f.op].optional) {
      relink(return_pos_[f.op]);
      ++remaining_;
    }
    relink(call_pos_[f.op]);
    mark(f.op, false);
    k_ = f.k_before;
    state_ = f.before;
    return f;
  }

  SearchResult search() {
    SearchResult result;
    Pass pass = Pass::kMandatory;
    size_t cur = next_[sentinel(kMandatoryCalls)];
    bool entered = true;  // the configuration was just entered
    while (remaining_ > 0) {
      if (over_budget_) {
        result.verdict = SearchVerdict::kInconclusive;
        break;
      }
      // R: while a mandatory op remains, its return is pending.
      const size_t first_return = next_[sentinel(kReturns)];
      bool stuck = false;
      if (entered) {
        entered = false;
        size_t pos = forced(first_return);
        if (pos != sentinel(kMandatoryCalls)) {
          // It goes next or nothing does.
          if (try_op(entries_[pos].op, Pass::kMandatory, true)) {
            pass = Pass::kMandatory;
            cur = next_[sentinel(kMandatoryCalls)];
            entered = true;
            continue;
          }
          stuck = true;
        }
      }
      const bool at_end =
          cur == sentinel(kMandatoryCalls) || cur == sentinel(kOptionalCalls) || cur > first_return;
      if (!stuck && pass == Pass::kMandatory && at_end) {
        pass = Pass::kOptional;
        cur = next_[sentinel(kOptionalCalls)];
        continue;
      }
      if (stuck || at_end) {
        if (deepest_ < 0 || first_return > static_cast<size_t>(deepest_)) {
          deepest_ = static_cast<ptrdiff_t>(first_return);
        }
        // Back to the last configuration with something left to try.
        std::optional<Frame> f;
        while (!stack_.empty() && (!f || f->forced)) f = undo();
        if (!f || f->forced) {
          result.verdict = SearchVerdict::kNotLinearizable;
          break;
        }
        pass = f->pass;
        cur = next_[call_pos_[f->op]];
        continue;
      }
      const size_t op = entries_[cur].op;
      if (!dominated(op, first_return) && try_op(op, pass)) {
        pass = Pass::kMandatory;
        cur = next_[sentinel(kMandatoryCalls)];
        entered = true;
      } else {
        cur = next_[cur];
      }
    }
    if (deepest_ >= 0) result.stuck = entries_[static_cast<size_t>(deepest_)].op;
    result.states = states_;
    return result;
  }

  std::vector<SearchOp> ops_;
  State state_;
  int64_t max_states_;

  std::vector<Entry> entries_;
  // Links of the rings (kMandatoryCalls, kOptionalCalls, kReturns) by entry
  // position; the sentinels are the three slots after the entries.
  std::vector<size_t> next_, prev_;
  std::vector<size_t> call_pos_, return_pos_;
  std::vector<size_t> reach_;            // mandatory op: how many calls precede its return
  std::vector<size_t> optional_ops_;     // in order
  std::vector<size_t> optional_rank_;    // optional op: its place in optional_ops_
  std::vector<size_t> optional_before_;  // i: how many optional ops come before op i
  std::vector<SymmetryClass> classes_;
  std::vector<size_t> class_rank_;  // op of a class: its place among its members

  std::vector<uint64_t> linearized_;
  std::vector<uint64_t> optional_linearized_;  // by rank
  size_t k_ = 0;
  size_t remaining_ = 0;  // mandatory ops not yet linearized
  std::vector<Frame> stack_;
  KeySet cache_;
  std::vector<uint32_t> scratch_;
  int64_t states_ = 0;
  bool over_budget_ = false;
  ptrdiff_t deepest_ = -1;
};

}  // namespace

SearchResult search(const SearchProblem& problem, int64_t max_states) {
  return LinearizationSearch(problem, max_states).run();
}

}  // namespace zk::lab::check::detail
