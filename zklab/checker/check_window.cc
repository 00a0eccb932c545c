// SPDX-License-Identifier: Apache-2.0
#include "zklab/checker/check_window.h"

#include <map>
#include <set>

namespace zk::lab::check::detail {

namespace {

int64_t completion(const RegisterOp& op) {
  return op.outcome == Outcome::kUnknown ? kNever : op.complete_ns;
}

// Budget of one window's search (windows have at most max_window ops).
constexpr int64_t kMaxWindowStates = 200'000;

}  // namespace

Prepared prepare(const std::vector<const RegisterOp*>& ops, int64_t cut_ns, size_t first) {
  Prepared p;
  if (first > 0) {
    p.from_initial_state = false;
    p.problem.start.value_kind = ValueKind::kAny;
    p.problem.start.base_known = false;
  }
  const int64_t window_start = first < ops.size() ? ops[first]->invoke_ns : kNever;
  std::set<int64_t> values_read;
  for (size_t i = 0; i < ops.size(); ++i) {
    const RegisterOp& op = *ops[i];
    if (op.invoke_ns > cut_ns) break;
    const int64_t complete = completion(op);
    const bool before = i < first;
    if (before && complete < window_start) continue;
    const bool optional = before || complete > cut_ns || op.outcome == Outcome::kUnknown;
    SearchOp s;
    s.value = op.value;
    s.version = op.version;
    s.optional = optional;
    s.invoke_ns = op.invoke_ns;
    s.complete_ns = optional ? kNever : complete;
    s.source = i;
    switch (op.kind) {
      case RegisterOpKind::kRead:
        if (op.outcome != Outcome::kOk || optional) continue;
        s.effect = Effect::kRead;
        values_read.insert(op.value);
        break;
      case RegisterOpKind::kWrite:
        if (op.outcome == Outcome::kFailed) continue;
        s.effect = Effect::kWrite;
        break;
      case RegisterOpKind::kCas:
        if (op.outcome == Outcome::kFailed && optional) continue;
        s.effect = op.outcome == Outcome::kFailed ? Effect::kFailedCas : Effect::kCas;
        break;
    }
    if (before) ++p.in_flight;
    p.problem.ops.push_back(s);
  }
  // Symmetry classes: unread writes form one class; unread cas one class
  // per expected version.
  std::map<int64_t, int> cas_classes;
  for (SearchOp& s : p.problem.ops) {
    if (s.effect != Effect::kWrite && s.effect != Effect::kCas) continue;
    s.value_unread = !values_read.contains(s.value);
    if (!s.value_unread) continue;
    if (s.effect == Effect::kWrite) {
      s.symmetry_class = 0;
    } else {
      auto [it, added] = cas_classes.emplace(s.version, 0);
      if (added) it->second = static_cast<int>(cas_classes.size());
      s.symmetry_class = it->second;
    }
  }
  return p;
}

std::optional<Prepared> failing_window(const std::vector<const RegisterOp*>& ops, int64_t cut_ns,
                                       size_t max_window) {
  size_t m = 0;
  while (m < ops.size() && ops[m]->invoke_ns <= cut_ns) ++m;
  const size_t lowest = m > max_window ? m - max_window : 0;
  for (size_t first = m; first-- > lowest;) {
    Prepared p = prepare(ops, cut_ns, first);
    if (p.problem.ops.empty() || p.problem.ops.size() > max_window) continue;
    if (search(p.problem, kMaxWindowStates).verdict == SearchVerdict::kNotLinearizable) return p;
  }
  return std::nullopt;
}

std::string window_text(const Prepared& p) {
  std::string text = std::to_string(p.problem.ops.size()) + " operations of the window";
  if (p.from_initial_state) {
    return text + " have no valid order from the initial state (0, v0)";
  }
  text += " have no valid order from any state";
  if (p.in_flight > 0) {
    text += " (the first " + std::to_string(p.in_flight) +
            ", already in flight, may also have taken effect before)";
  }
  return text;
}

std::vector<RegisterOp> ops_of(const Prepared& p, const std::vector<const RegisterOp*>& ops) {
  std::vector<RegisterOp> out;
  for (const SearchOp& s : p.problem.ops) out.push_back(*ops[s.source]);
  return out;
}

}  // namespace zk::lab::check::detail
