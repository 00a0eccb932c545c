#include "zklab/lab_failover.h"

// STUB: to be written (helper C).
namespace zk::lab {
LabExit lab_failover(const LabContext& ctx, const FailoverOptions&) {
  ctx.err << "zklab: not yet\n";
  return LabExit::kError;
}
}  // namespace zk::lab
