// SPDX-License-Identifier: Apache-2.0
#include "recipes/receipt_multi.h"

#include <chrono>
#include <optional>

#include "recipes/protected_create.h"
#include "recipes/znode_util.h"

namespace zk::recipes {

namespace {

// The error of the operation that made a failed multi fail.
Error failing_error(const std::vector<zk::wire::MultiResult>& results) {
  for (const auto& r : results) {
    if (r.err != Error::kOk && r.err != Error::kRuntimeInconsistency) return r.err;
  }
  return Error::kOk;
}

// Whether `receipt` exists, as of the leader's state (sync first).
Result<bool> receipt_exists(SyncClient& zk, const std::string& parent, const std::string& receipt) {
  Status synced = zk.sync(parent);
  if (!synced.ok()) return synced.error();
  auto stat = zk.exists(receipt);
  if (!stat.ok()) return stat.error();
  return stat->has_value();
}

}  // namespace

Status multi_with_receipt(SyncClient& zk, std::vector<zk::wire::MultiOp> ops,
                          const std::string& receipt_parent, const RetryPolicy& policy) {
  // "_c_<uuid>-" without Curator's protection mark: a receipt is no protected create.
  const std::string uuid = new_protection_prefix().substr(3);
  const std::string receipt =
      detail::child_path(receipt_parent, "_receipt-" + uuid.substr(0, uuid.size() - 1));
  ops.push_back(zk::wire::multi_create(receipt, std::string(), zk::wire::CreateMode::kEphemeral));
  const auto start = std::chrono::steady_clock::now();
  bool in_doubt = false;  // a multi was sent and its reply lost
  for (int attempt = 0;; ++attempt) {
    if (in_doubt) {
      auto applied = receipt_exists(zk, receipt_parent, receipt);
      if (applied.ok() && *applied) break;
      if (applied.ok()) in_doubt = false;  // not applied: send again
      if (!applied.ok() && !is_retryable(applied.error())) return applied.error();
      if (!applied.ok()) {
        if (!backoff(zk, policy, start, attempt)) return applied.error();
        continue;
      }
    }
    auto results = zk.multi(ops);
    if (results.ok()) {
      Error failed = failing_error(*results);
      if (failed != Error::kOk) return failed;
      break;
    }
    if (!is_retryable(results.error())) return results.error();
    in_doubt = true;
    if (!backoff(zk, policy, start, attempt)) return results.error();
  }
  // Applied. The receipt's job is done; a failure to delete it leaves an
  // ephemeral node that the session's end removes.
  (void)detail::remove_node(zk, receipt, policy);
  return Error::kOk;
}

}  // namespace zk::recipes
