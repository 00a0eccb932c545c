#include "zkd/zab/config.h"

#include <algorithm>
#include <set>

namespace zkd::zab {

std::string validate(const Config& config) {
  if (config.id <= 0) return "id must be > 0";
  std::set<ServerId> seen;
  for (ServerId v : config.voters) {
    if (v <= 0) return "voter ids must be > 0";
    if (!seen.insert(v).second) return "duplicate voter " + std::to_string(v);
  }
  if (!seen.contains(config.id)) return "id " + std::to_string(config.id) + " is not a voter";
  if (config.finalize_ticks < 1) return "finalize_ticks must be >= 1";
  if (config.vote_resend_ticks < 1) return "vote_resend_ticks must be >= 1";
  if (config.init_limit < 1) return "init_limit must be >= 1";
  if (config.sync_limit < 1) return "sync_limit must be >= 1";
  if (config.commit_window < 1) return "commit_window must be >= 1";
  if (config.max_counter < 1) return "max_counter must be >= 1";
  return {};
}

}  // namespace zkd::zab
