// SPDX-License-Identifier: Apache-2.0
// Windows of one key's history for the linearizability check (check_verdict.h,
// check_registers), private to zk::lab::checker: the key's recorded operations
// made into a search problem (check_search.h) -- the whole history, the
// history cut at a time, or a window of it -- and the search for the window
// that fails on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zklab/checker/check_history.h"
#include "zklab/checker/check_search.h"

namespace zk::lab::check::detail {

// A key's operations, prepared for a search. Each op's `source` is its index
// in the operations it was prepared from.
struct Prepared {
  SearchProblem problem;
  bool from_initial_state = true;  // else from any state
  size_t in_flight = 0;            // optional ops called before the window's start
};

// The key's operations (sorted by invocation) cut at `cut_ns`, from op
// `first` on (check_verdict.h, check_registers):
// - ops invoked after cut_ns are left out;
// - ops before `first` that completed before its invocation are left out;
//   those still in flight then are treated as the ones still in flight at
//   the cut: reads and failed cas left out, writes and cas optional;
// - the start state is (0, 0) when first is 0, else any state.
// Failed writes, and reads that did not succeed, are always left out;
// unknown writes and cas are optional. Writes and cas whose value no read of
// the result returns are marked value_unread and put in symmetry classes:
// the writes one class, the cas one class per expected version.
// prepare(ops, kNever, 0) is the whole history.
Prepared prepare(const std::vector<const RegisterOp*>& ops, int64_t cut_ns, size_t first);

// The latest window (check_verdict.h, check_registers, step 2) of at most
// max_window ops of the history cut at cut_ns (`ops` sorted by invocation)
// that is not linearizable on its own, within a search budget of its own;
// nullopt if none is.
std::optional<Prepared> failing_window(const std::vector<const RegisterOp*>& ops, int64_t cut_ns,
                                       size_t max_window);

// The window's part of `what` (check_verdict.h): "N operations of the window
// have no valid order from ...".
std::string window_text(const Prepared& p);

// The operations of `p`, prepared from `ops`, as recorded and in p's order.
std::vector<RegisterOp> ops_of(const Prepared& p, const std::vector<const RegisterOp*>& ops);

}  // namespace zk::lab::check::detail
