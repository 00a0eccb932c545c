// SPDX-License-Identifier: Apache-2.0
#include "recipes/double_barrier.h"

#include <algorithm>
#include <vector>

#include "recipes/protected_create.h"
#include "recipes/watch_wait.h"
#include "recipes/znode_util.h"

namespace zk::recipes {

namespace {

// The member names under `path` (B/ready left out), sorted.
Result<std::vector<std::string>> member_names(SyncClient& zk, const std::string& path,
                                              const RetryPolicy& policy) {
  auto children =
      with_retries<std::vector<std::string>>(zk, policy, [&] { return zk.get_children(path); });
  if (!children.ok()) {
    if (children.error() == Error::kNoNode) return std::vector<std::string>{};
    return children.error();
  }
  std::erase(*children, std::string(kDoubleBarrierReadyNode));
  std::sort(children->begin(), children->end());
  return children;
}

std::string random_member_name() {
  std::string prefix = new_protection_prefix();  // "_c_<uuid>-"
  return prefix.substr(3, prefix.size() - 4);
}

}  // namespace

DoubleBarrier::DoubleBarrier(SyncClient& zk, std::string path, int members,
                             DoubleBarrierOptions options)
    : zk_(zk), path_(std::move(path)), members_(members), options_(std::move(options)) {
  member_name_ = options_.member_name.empty() ? random_member_name() : options_.member_name;
  member_path_ = detail::child_path(path_, member_name_);
  ready_path_ = detail::child_path(path_, kDoubleBarrierReadyNode);
}

Status DoubleBarrier::enter(std::optional<std::chrono::milliseconds> timeout) {
  if (members_ < 1 || member_name_ == kDoubleBarrierReadyNode ||
      member_name_.find('/') != std::string::npos) {
    return Error::kBadArguments;
  }
  const detail::Deadline deadline = detail::deadline_after(timeout);
  const RetryPolicy& policy = options_.retry;
  Status parent = ensure_path(zk_, path_, policy);
  if (!parent.ok()) return parent;

  auto watch_ready = [&] {
    return detail::watched_read<std::optional<zk::wire::Stat>>(
        zk_, policy, [&](auto watch) { return zk_.exists(ready_path_, std::move(watch)); });
  };
  auto ready = watch_ready();
  if (!ready.result.ok()) return ready.result.error();

  const auto mode =
      options_.persistent ? zk::wire::CreateMode::kPersistent : zk::wire::CreateMode::kEphemeral;
  Status joined = with_retries<std::monostate>(zk_, policy, [&]() -> Result<std::monostate> {
                    auto created = zk_.create(member_path_, std::string(), mode);
                    if (created.ok()) return std::monostate{};
                    if (created.error() != Error::kNodeExists) return created.error();
                    if (options_.persistent)
                      return std::monostate{};  // entered before under this name
                    auto stat = zk_.exists(member_path_);
                    if (!stat.ok()) return stat.error();
                    if (stat->has_value() && (*stat)->ephemeral_owner == zk_.session_id()) {
                      return std::monostate{};
                    }
                    return Error::kNodeExists;
                  }).error();
  if (!joined.ok()) return joined;
  if (ready.result->has_value()) return Error::kOk;

  for (;;) {
    auto names = member_names(zk_, path_, policy);
    if (!names.ok()) return names.error();
    if (static_cast<int>(names->size()) >= members_) {
      auto created = with_retries<std::string>(zk_, policy, [&]() -> Result<std::string> {
        auto r = zk_.create(ready_path_, std::string());
        if (r.error() == Error::kNodeExists) return ready_path_;
        return r;
      });
      return created.error();
    }
    if (!ready.wait(deadline)) {
      (void)detail::remove_node(zk_, member_path_, policy);
      return Error::kOperationTimeout;
    }
    // The ready watch fired (created, or the session ended): look again.
    ready = watch_ready();
    if (!ready.result.ok()) return ready.result.error();
    if (ready.result->has_value()) return Error::kOk;
  }
}

Status DoubleBarrier::leave(std::optional<std::chrono::milliseconds> timeout) {
  const detail::Deadline deadline = detail::deadline_after(timeout);
  const RetryPolicy& policy = options_.retry;
  bool deleted = false;
  auto remove_own = [&]() -> Status {
    if (deleted) return Error::kOk;
    Status removed = detail::remove_node(zk_, member_path_, policy);
    if (removed.ok()) deleted = true;
    return removed;
  };
  for (;;) {
    auto names = member_names(zk_, path_, policy);
    if (!names.ok()) return names.error();
    if (names->empty()) break;
    const bool present = std::binary_search(names->begin(), names->end(), member_name_);
    if (!present) deleted = true;
    if (names->size() == 1 && present) {
      Status removed = remove_own();
      if (!removed.ok()) return removed;
      break;
    }
    std::string watched;
    if (present && names->front() == member_name_) {
      watched = names->back();  // the lowest waits for the highest
    } else {
      Status removed = remove_own();
      if (!removed.ok()) return removed;
      watched = names->front();  // everyone else waits for the lowest
    }
    const std::string watched_path = detail::child_path(path_, watched);
    auto stat = detail::watched_read<std::optional<zk::wire::Stat>>(
        zk_, policy, [&](auto watch) { return zk_.exists(watched_path, std::move(watch)); });
    if (!stat.result.ok()) return stat.result.error();
    if (stat.result->has_value() && !stat.wait(deadline)) {
      (void)remove_own();
      return Error::kOperationTimeout;
    }
  }
  // Everyone has left: reset the barrier for the next round.
  return detail::remove_node(zk_, ready_path_, policy);
}

}  // namespace zk::recipes
