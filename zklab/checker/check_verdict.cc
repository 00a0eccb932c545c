// SPDX-License-Identifier: Apache-2.0
#include "zklab/checker/check_verdict.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "zklab/checker/check_text.h"

// check_history and describe of check_verdict.h, and the text of
// check_text.h.
namespace zk::lab::check {

namespace {

std::string seconds(int64_t ns, int64_t origin_ns) {
  if (ns == kNever) return "?";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f s", static_cast<double>(ns - origin_ns) / 1e9);
  return buf;
}

}  // namespace

namespace detail {

std::string interval(int64_t invoke_ns, int64_t complete_ns, Outcome outcome, int64_t origin_ns) {
  int64_t complete = outcome == Outcome::kUnknown ? kNever : complete_ns;
  return std::string(outcome_name(outcome)) + " [" + seconds(invoke_ns, origin_ns) + ", " +
         seconds(complete, origin_ns) + "]";
}

}  // namespace detail

Verdict check_history(const History& history) {
  Verdict verdict;
  auto add = [&verdict](std::vector<Violation> found) {
    for (Violation& v : found) verdict.violations.push_back(std::move(v));
  };
  add(check_registers(history.registers));
  add(check_sequential(history.creates, history.final_children));
  add(check_ephemerals(history.ephemerals));
  add(check_watches(history.watch_events, history.registers));
  verdict.register_ops = static_cast<int64_t>(history.registers.size());
  verdict.creates = static_cast<int64_t>(history.creates.size());
  verdict.ephemerals = static_cast<int64_t>(history.ephemerals.size());
  verdict.watch_events = static_cast<int64_t>(history.watch_events.size());
  return verdict;
}

std::string_view outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view kind_name(RegisterOpKind kind) {
  switch (kind) {
    case RegisterOpKind::kRead:
      return "read";
    case RegisterOpKind::kWrite:
      return "write";
    case RegisterOpKind::kCas:
      break;
  }
  return "cas";
}

std::string describe(const RegisterOp& op, int64_t origin_ns) {
  std::string text = "c" + std::to_string(op.client) + " ";
  switch (op.kind) {
    case RegisterOpKind::kRead:
      text += "read " + op.key;
      if (op.outcome == Outcome::kOk) {
        text += " = " + std::to_string(op.value) + " @v" + std::to_string(op.version);
      }
      break;
    case RegisterOpKind::kWrite:
      text += "write " + op.key + " := " + std::to_string(op.value);
      break;
    case RegisterOpKind::kCas:
      text +=
          "cas " + op.key + " @v" + std::to_string(op.version) + " := " + std::to_string(op.value);
      break;
  }
  return text + " " + detail::interval(op.invoke_ns, op.complete_ns, op.outcome, origin_ns);
}

}  // namespace zk::lab::check
