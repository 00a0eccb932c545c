// SPDX-License-Identifier: Apache-2.0
#include "zklab/checker/check_verdict.h"

#include <cstdint>
#include <cstdio>
#include <vector>

// check_ephemerals of check_verdict.h.
namespace zk::lab::check {

std::vector<Violation> check_ephemerals(const std::vector<EphemeralRecord>& ephemerals) {
  std::vector<Violation> out;
  for (const EphemeralRecord& e : ephemerals) {
    char session[32];
    std::snprintf(session, sizeof session, "0x%llx",
                  static_cast<unsigned long long>(static_cast<uint64_t>(e.session_id)));
    if (e.session_ended && e.present_at_end) {
      out.push_back(
          {"ephemeral", e.path + ": still present after its session " + session + " ended", {}});
    } else if (!e.session_ended && !e.present_at_end) {
      out.push_back(
          {"ephemeral", e.path + ": missing while its session " + session + " is alive", {}});
    }
  }
  return out;
}

}  // namespace zk::lab::check
