#include "zklab/lab_network.h"

// STUB: to be written (helper A).
namespace zk::lab {
LabExit lab_partition(const LabContext& ctx, const std::vector<std::string>&) {
  ctx.err << "zklab: not yet\n";
  return LabExit::kError;
}
LabExit lab_isolate(const LabContext& ctx, const std::string&) {
  ctx.err << "zklab: not yet\n";
  return LabExit::kError;
}
LabExit lab_slow(const LabContext& ctx, const std::string&, const std::string&) {
  ctx.err << "zklab: not yet\n";
  return LabExit::kError;
}
LabExit lab_heal(const LabContext& ctx) {
  ctx.err << "zklab: not yet\n";
  return LabExit::kError;
}
LabExit run_relay_daemon(const std::filesystem::path&) { return LabExit::kError; }
std::string set_network(const std::filesystem::path&, const NetworkFaults&,
                        std::chrono::milliseconds) {
  return "not yet";
}
}  // namespace zk::lab
