// SPDX-License-Identifier: Apache-2.0
// The linearizability search of check_registers (check_verdict.h), private to
// zk::lab::checker: the register model of check_history.h as the search sees
// it, and the search (Wing & Gong, with Lowe's cache of configurations) for
// one key's operations. check_window.h makes a SearchProblem of a key's
// recorded operations; check_search.cc holds the search and its reductions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "zklab/checker/check_history.h"

namespace zk::lab::check::detail {

// What an operation does in the search. Reads and failed cas only test the
// state; writes and cas change it.
enum class Effect { kRead, kWrite, kCas, kFailedCas };

struct SearchOp {
  Effect effect = Effect::kRead;
  int64_t value = 0;    // read: the value read; write/cas: the value written
  int64_t version = 0;  // read: the version read; cas/failed cas: the expected version
  // No return entry: may be linearized any time after its call, or never.
  bool optional = false;
  // Write/cas: no read of this search returns `value`, so the state it leaves
  // is only "some value nobody reads".
  bool value_unread = false;
  // >= 0: ops of one class have the same effect on every state (see
  // check_search.cc).
  int symmetry_class = -1;
  int64_t invoke_ns = 0;
  int64_t complete_ns = kNever;
  size_t source = 0;  // index in the key's operations sorted by invocation
};

enum class ValueKind : uint8_t {
  kConcrete,  // `value`
  kAny,       // not yet fixed (a window's start): the first read fixes it
  kUnread,    // written by a write whose value no read returns
};

struct State {
  int64_t value = 0;
  // base_known: the version. Otherwise the writes applied since the start,
  // whose version is unknown: the first read or cas fixes it.
  int64_t version = 0;
  ValueKind value_kind = ValueKind::kConcrete;
  bool base_known = true;
  bool operator==(const State&) const = default;
};

// A key's operations to linearize, and the state to start from.
struct SearchProblem {
  std::vector<SearchOp> ops;  // sorted by invoke_ns
  State start;
};

enum class SearchVerdict { kLinearizable, kNotLinearizable, kInconclusive };

struct SearchResult {
  SearchVerdict verdict = SearchVerdict::kLinearizable;
  // Not linearizable or inconclusive: the op (index in problem.ops) of the
  // latest return entry at which a branch of the search got stuck; -1 if none.
  ptrdiff_t stuck = -1;
  int64_t states = 0;  // configurations entered
};

// Searches for a linearization of problem.ops from problem.start: a total
// order of every mandatory op and some of the optional ones, consistent with
// real time (an op whose return comes before another's call goes first;
// equal timestamps count as concurrent), in which every op can happen in the
// state the ones before it leave (step in check_search.cc). Gives up
// (kInconclusive) after entering more than max_states configurations, or when
// its cache holds 1 GiB. Pure: the same problem always gets the same result.
SearchResult search(const SearchProblem& problem, int64_t max_states);

}  // namespace zk::lab::check::detail
