// Checking a recorded history (check_history.h). Pure functions: no I/O.
//
// - Registers: the operations on each key (checked one key at a time) must be
//   linearizable against the register model of check_history.h: there is a
//   total order of the kOk operations and of some of the kUnknown ones,
//   consistent with real time (a completed before b was invoked => a before
//   b), in which every read returns the state before it, every kOk cas found
//   its expected version, every kFailed cas did not. kFailed writes are left
//   out. Acknowledged writes that were lost show up here as reads (the final
//   reads included) that no order explains.
// - Sequential creates: the kOk sequence numbers under one parent are unique;
//   a create that completed before another was invoked got the smaller
//   number; every kOk create is in the final listing; nothing is listed that
//   no create (kOk or kUnknown) could have made.
// - Ephemerals: present at the end exactly when the session did not end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zklab/check_history.h"

namespace zk::lab::check {

struct Violation {
  std::string kind;  // "linearizability", "sequential", "ephemeral"
  std::string what;  // one line: which key/parent/path and what is wrong
  // linearizability: the smallest failing window found (see check_registers);
  // otherwise empty.
  std::vector<RegisterOp> window;
};

struct Verdict {
  std::vector<Violation> violations;  // empty: the history passed
  int64_t register_ops = 0;           // operations checked, per kind of check
  int64_t creates = 0;
  int64_t ephemerals = 0;
  bool ok() const { return violations.empty(); }
};

// Linearizability of the register operations, per key. For a key that fails,
// the violation's window is the smallest failing window found: a short run of
// consecutive operations of that key (at most `max_window`) around the first
// point where no linearization can go on, such that the window is not
// linearizable from any state a linearization of what comes before it can
// reach. (check_verdict.cc states exactly how it is found.)
std::vector<Violation> check_registers(const std::vector<RegisterOp>& ops, size_t max_window = 24);

std::vector<Violation> check_sequential(
    const std::vector<SequentialCreate>& creates,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& final_children);

std::vector<Violation> check_ephemerals(const std::vector<EphemeralRecord>& ephemerals);

// All three.
Verdict check_history(const History& history);

// One operation as one line of text: "c3 cas /r1 7 -> 12 @v4 ok [1.203 s, 1.207 s]".
std::string describe(const RegisterOp& op, int64_t origin_ns = 0);

}  // namespace zk::lab::check
