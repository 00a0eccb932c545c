// SPDX-License-Identifier: Apache-2.0
#include "zkbench/figures.h"

namespace zk::bench {

int64_t OpFigures::error_count() const {
  int64_t n = 0;
  for (const auto& [code, count] : errors) n += count;
  return n;
}

void OpFigures::merge(const OpFigures& other) {
  ok += other.ok;
  for (const auto& [code, count] : other.errors) errors[code] += count;
  latency.merge(other.latency);
}

OpFigures Figures::total() const {
  OpFigures sum;
  for (const auto& f : by_op) sum.merge(f);
  return sum;
}

void Figures::merge(const Figures& other) {
  for (size_t i = 0; i < kOpTypes; ++i) by_op[i].merge(other.by_op[i]);
}

}  // namespace zk::bench
