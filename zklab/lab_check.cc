#include "zklab/lab_check.h"

// STUB: to be written (helper D).
namespace zk::lab {
std::optional<Nemesis> parse_nemesis(std::string_view word) {
  if (word == "kill") return Nemesis::kKill;
  if (word == "pause") return Nemesis::kPause;
  if (word == "partition") return Nemesis::kPartition;
  return std::nullopt;
}
LabExit lab_check(const LabContext& ctx, const CheckOptions&) {
  ctx.err << "zklab: not yet\n";
  return LabExit::kError;
}
}  // namespace zk::lab
