// SPDX-License-Identifier: Apache-2.0
#include "zklab/checker/check_verdict.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zklab/checker/check_search.h"
#include "zklab/checker/check_window.h"

// check_registers of check_verdict.h: the whole history of each key is
// searched (check_search.h); a key that fails gets its window (check_window.h).
namespace zk::lab::check {

namespace {

using detail::failing_window;
using detail::ops_of;
using detail::prepare;
using detail::Prepared;
using detail::search;
using detail::SearchResult;
using detail::SearchVerdict;
using detail::window_text;

// Checks one key's operations; times in `what` are relative to origin_ns.
void check_key(const std::string& key, std::vector<const RegisterOp*> ops, size_t max_window,
               int64_t max_states, int64_t origin_ns, std::vector<Violation>& out) {
  std::stable_sort(ops.begin(), ops.end(), [](const RegisterOp* a, const RegisterOp* b) {
    return a->invoke_ns < b->invoke_ns;
  });
  Prepared whole = prepare(ops, kNever, 0);
  SearchResult r = search(whole.problem, max_states);
  if (r.verdict == SearchVerdict::kLinearizable) return;
  std::optional<Prepared> window;
  const RegisterOp* stuck = nullptr;
  if (r.stuck >= 0) {
    stuck = ops[whole.problem.ops[static_cast<size_t>(r.stuck)].source];
    window = failing_window(ops, stuck->complete_ns, max_window);
  }
  Violation v;
  v.kind = "linearizability";
  if (r.verdict == SearchVerdict::kInconclusive && !window) {
    v.what = key + ": inconclusive: the search gave up after " + std::to_string(r.states) +
             " states" +
             (stuck ? ", the furthest at " + describe(*stuck, origin_ns) : std::string());
    out.push_back(std::move(v));
    return;
  }
  v.what = key + ": not linearizable: ";
  if (!stuck) {
    out.push_back(std::move(v));  // not reached: a search that fails got stuck somewhere
    return;
  }
  v.what += "no order explains " + describe(*stuck, origin_ns) + "; ";
  if (window) {
    v.what += window_text(*window);
    v.window = ops_of(*window, ops);
  } else {
    size_t m = 0;
    while (m < ops.size() && ops[m]->invoke_ns <= stuck->complete_ns) ++m;
    size_t from = m > max_window ? m - max_window : 0;
    for (size_t i = from; i < m; ++i) v.window.push_back(*ops[i]);
    v.what += "no window of at most " + std::to_string(max_window) +
              " operations fails on its own; the window is the last " +
              std::to_string(v.window.size()) + " invoked before that answer";
  }
  out.push_back(std::move(v));
}

}  // namespace

std::vector<Violation> check_registers(const std::vector<RegisterOp>& ops, size_t max_window) {
  return check_registers(ops, max_window, kMaxSearchStates);
}

std::vector<Violation> check_registers(const std::vector<RegisterOp>& ops, size_t max_window,
                                       int64_t max_states) {
  std::map<std::string, std::vector<const RegisterOp*>> by_key;
  int64_t origin_ns = ops.empty() ? 0 : kNever;
  for (const RegisterOp& op : ops) {
    by_key[op.key].push_back(&op);
    origin_ns = std::min(origin_ns, op.invoke_ns);
  }
  std::vector<Violation> out;
  for (auto& [key, key_ops] : by_key) {
    check_key(key, std::move(key_ops), max_window, max_states, origin_ns, out);
  }
  return out;
}

}  // namespace zk::lab::check
