// SPDX-License-Identifier: Apache-2.0
#include "zkd/zab/config.h"

#include <set>

namespace zkd::zab {

std::string validate(const Config& config) {
  if (config.id <= 0) return "id must be > 0";
  if (config.voters.empty()) return "no voters";
  std::set<ServerId> seen;
  for (ServerId v : config.voters) {
    if (v <= 0) return "voter ids must be > 0";
    if (!seen.insert(v).second) return "duplicate voter " + std::to_string(v);
  }
  const std::set<ServerId> voters = seen;
  for (ServerId o : config.observers) {
    if (o <= 0) return "observer ids must be > 0";
    if (voters.contains(o)) return "observer " + std::to_string(o) + " is also a voter";
    if (!seen.insert(o).second) return "duplicate observer " + std::to_string(o);
  }
  if (config.finalize_ticks < 1) return "finalize_ticks must be >= 1";
  if (config.vote_resend_ticks < 1) return "vote_resend_ticks must be >= 1";
  if (config.init_limit < 1) return "init_limit must be >= 1";
  if (config.sync_limit < 1) return "sync_limit must be >= 1";
  if (config.busy_limit < 0) return "busy_limit must be >= 0";
  if (config.commit_window < 1) return "commit_window must be >= 1";
  if (config.max_counter < 1) return "max_counter must be >= 1";
  return {};
}

}  // namespace zkd::zab
