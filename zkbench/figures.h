// SPDX-License-Identifier: Apache-2.0
// Figures: what a run measured, per op type: successful requests with their
// latencies, failed requests by error code. Plain data, mergeable; the engine
// keeps one per thread and merges them at the end.
#pragma once

#include <array>
#include <cstdint>
#include <map>

#include "libzk/wire/protocol.h"
#include "zkbench/histogram.h"
#include "zkbench/workload.h"

namespace zk::bench {

struct OpFigures {
  int64_t ok = 0;                             // acknowledged with success
  std::map<zk::wire::Error, int64_t> errors;  // failed, by code
  Histogram latency;                          // of the successful ones, in ns

  int64_t error_count() const;
  int64_t requests() const { return ok + error_count(); }
  void merge(const OpFigures& other);
};

struct Figures {
  std::array<OpFigures, kOpTypes> by_op;  // indexed by OpType

  OpFigures& of(OpType op) { return by_op[static_cast<size_t>(op)]; }
  const OpFigures& of(OpType op) const { return by_op[static_cast<size_t>(op)]; }
  // Every op type added up (the latencies of all successful requests).
  OpFigures total() const;
  void merge(const Figures& other);
};

}  // namespace zk::bench
