// SPDX-License-Identifier: Apache-2.0
// Checking a recorded history (check_history.h). Pure functions: no I/O.
//
// - Registers: the operations on each key (checked one key at a time) must be
//   linearizable against the register model of check_history.h: there is a
//   total order of the kOk operations, the kFailed cas and some of the
//   kUnknown writes and cas,
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

#include "zklab/checker/check_history.h"

namespace zk::lab::check {

struct Violation {
  std::string kind;  // "linearizability", "sequential", "ephemeral", "watch"
  std::string what;  // one line: which key/parent/path and what is wrong
  // linearizability: the window (see check_registers); otherwise empty.
  std::vector<RegisterOp> window;
};

struct Verdict {
  std::vector<Violation> violations;  // empty: the history passed
  int64_t register_ops = 0;           // operations checked, per kind of check
  int64_t creates = 0;
  int64_t ephemerals = 0;
  int64_t watch_events = 0;
  bool ok() const { return violations.empty(); }
};

// Linearizability of the register operations, per key (keys in name order).
//
// The search is Wing & Gong's, improved by Lowe: depth first over the call
// and return entries in time order (a call before a return at the same time:
// equal timestamps count as concurrent), undoing on backtrack, with a cache
// of configurations (set of linearized operations, register state) entered
// before. kOk operations and kFailed cas are mandatory; kUnknown writes and
// cas are optional (a call and no return: they may take effect any time
// after their call, or never; a cas only at its expected version); kFailed
// writes and reads that did not succeed are left out. At each configuration
// the mandatory calls before the first pending return are tried before the
// optional ones. Two reductions, each of which keeps some linearization if
// there is one, prune the rest: a read or failed cas that can go next
// without changing the state goes next and nothing else is tried there; and
// of writes (or cas expecting one version) whose value no read returns, which
// all have the same effect, only one is tried: among the mandatory ones that
// could go next, the one that returns first, else the first optional one.
//
// A key whose search enters more than `max_states` configurations is
// reported as "<key>: inconclusive: ..." with no window, unless a window
// (below) at the furthest point the search reached fails on its own: that
// proves a violation and is reported as one.
//
// The window of a key that fails is found so:
// 1. The search records the latest return entry that it got stuck at in
//    some branch; let z be its operation. The history cut at z's completion
//    T (operations invoked after T left out; of those still in flight at T,
//    reads and failed cas left out and writes and cas optional) is not
//    linearizable, and every cut before T is.
// 2. For a = the key's operations invoked up to T, in order of invocation,
//    from the last back to max_window before it: the window of a holds every
//    operation of the cut invoked at or after a's invocation, as in the cut,
//    plus those invoked before it and not yet completed then (in flight), as
//    optional writes and cas (their reads and failed cas left out). It
//    starts from any state (value, version >= 0) -- a failed cas met before
//    anything fixed the version is taken to have failed -- or, when a is the
//    key's first operation, from (0, 0). The first window with at most
//    `max_window` operations that has no linearization (within a budget of
//    its own) is the key's window: its operations in order of invocation,
//    the in-flight ones first. Any linearization of the whole history would
//    give it one (from the state after the operations completed before a's
//    invocation), so it proves the violation on its own.
// 3. When no such window fails, the window is the last max_window
//    operations invoked up to T, and `what` says so.
//
// `what` (times in seconds since the first operation's invocation):
//   "<key>: not linearizable: no order explains <describe(z)>; N operations
//   of the window have no valid order from any state (the first K, already
//   in flight, may also have taken effect before)" -- or "... from the
//   initial state (0, v0)", or "... no window of at most M operations fails
//   on its own; the window is the last M invoked before that answer".
std::vector<Violation> check_registers(const std::vector<RegisterOp>& ops, size_t max_window = 24);

// The search budget of check_registers, per key: configurations entered
// (a search also stops when its cache holds 1 GiB). A history of tens of
// thousands of operations from a few clients enters about as many
// configurations as it has operations.
inline constexpr int64_t kMaxSearchStates = 2'000'000;

// check_registers with another search budget.
std::vector<Violation> check_registers(const std::vector<RegisterOp>& ops, size_t max_window,
                                       int64_t max_states);

// Sequential creates, per parent (parents in name order; times in `what` are
// seconds since the first create's invocation). At most one violation of
// each sort per parent, its first case, with "(and N more like it)":
// - a sequence number given to two kOk creates;
// - a kOk create that got a smaller number than a kOk create that completed
//   before it was invoked;
// - a kOk create whose number is not in the final listing;
// - a listed number that is no kOk create's and that no distinct kUnknown
//   create can have got (one can get only a number above those of the kOk
//   creates completed before it was invoked).
// A parent with no final listing is checked for the first two only; a
// listed parent with no creates has every child unexplained.
std::vector<Violation> check_sequential(
    const std::vector<SequentialCreate>& creates,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& final_children);

// One violation per record whose session ended and whose node is still
// there, or whose session is alive and whose node is gone.
std::vector<Violation> check_ephemerals(const std::vector<EphemeralRecord>& ephemerals);

// Watch events (a watcher session's persistent watches on the registers)
// against the acknowledged writes and cas (their RegisterOp::zxid). At most
// one violation of each sort, its first case, with "(and N more like it)":
// - on one connection of a watcher, events come in zxid order, once each;
// - between two events of one register on one connection, no acknowledged
//   write or cas of that register has a zxid strictly between theirs (the
//   server sends every event of a registered watch, in order).
// Across connections neither holds: a reconnection may lose events, and a
// server that lags the previous one may fire again what the watcher saw.
// Events need the zxid in the notification header (Apache 3.9, zkd); one
// without (zxid -1: an Apache 3.8 server's, in a mixed lab) is not checked.
std::vector<Violation> check_watches(const std::vector<WatchEventRecord>& events,
                                     const std::vector<RegisterOp>& ops);

// All four, violations in that order; the counts are the sizes of the
// history's registers, creates, ephemerals and watch events.
Verdict check_history(const History& history);

// One operation as one line of text, times in seconds since origin_ns
// ("?": never completed):
//   "c3 read /r1 = 12 @v4 ok [1.203117 s, 1.207020 s]"
//   "c3 write /r1 := 12 unknown [1.203117 s, ?]"
//   "c3 cas /r1 @v4 := 12 failed [1.203117 s, 1.207020 s]"
// (a read that did not succeed shows no value).
std::string describe(const RegisterOp& op, int64_t origin_ns = 0);

}  // namespace zk::lab::check
