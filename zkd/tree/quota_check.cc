// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/quota_check.h"

#include <optional>

#include "zkd/tree/quota_paths.h"

namespace zkd::tree {
namespace {

std::optional<StatsTrack> stats_at(const DataTree& tree, const std::string& path) {
  const Node* node = tree.find(path);
  if (node == nullptr) return std::nullopt;
  return StatsTrack::parse(node->data().value_or(""));
}

// One figure against its limits; true when the operation may go ahead.
bool within(const QuotaPolicy& policy, const std::string& root, std::string_view what,
            int64_t current, int64_t soft, int64_t hard) {
  const bool is_hard = hard > -1;
  const int64_t limit = is_hard ? hard : soft;
  if (current <= limit) return true;
  if (policy.warn) {
    policy.warn("Quota exceeded: " + root + " [current " + std::string(what) + "=" +
                std::to_string(current) + ", " + (is_hard ? "hard" : "soft") +
                (what == "count" ? "CountLimit=" : "ByteLimit=") + std::to_string(limit) + "]");
  }
  return !is_hard;
}

}  // namespace

zk::wire::Error check_quota(const QuotaPolicy& policy, const DataTree& tree,
                            const PendingChanges& pending, std::string_view path,
                            int64_t bytes_diff, int64_t count_diff) {
  using zk::wire::Error;
  if (!policy.enforce) return Error::kOk;
  std::optional<std::string> root = tree.quota_paths().root_of(path);
  if (!root) return Error::kOk;
  std::optional<StatsTrack> limits = stats_at(tree, quota_limit_path(*root));
  if (!limits) return Error::kOk;
  const bool check_count =
      count_diff != 0 && (limits->count() > -1 || limits->count_hard_limit() > -1);
  const bool check_bytes =
      bytes_diff != 0 && (limits->bytes() > -1 || limits->byte_hard_limit() > -1);
  if (!check_count && !check_bytes) return Error::kOk;
  std::optional<StatsTrack> stats = stats_at(tree, quota_stat_path(*root));
  if (!stats) return Error::kOk;
  const QuotaUsage in_flight = pending.quota_pending(*root);
  if (check_count && !within(policy, *root, "count", stats->count() + in_flight.count + count_diff,
                             limits->count(), limits->count_hard_limit())) {
    return Error::kQuotaExceeded;
  }
  if (check_bytes && !within(policy, *root, "bytes", stats->bytes() + in_flight.bytes + bytes_diff,
                             limits->bytes(), limits->byte_hard_limit())) {
    return Error::kQuotaExceeded;
  }
  return Error::kOk;
}

}  // namespace zkd::tree
