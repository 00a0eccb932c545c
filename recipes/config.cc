// SPDX-License-Identifier: Apache-2.0
#include "recipes/config.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <set>
#include <type_traits>
#include <vector>

#include "recipes/protected_create.h"
#include "recipes/watch_wait.h"
#include "recipes/znode_util.h"

namespace zk::recipes {

namespace {

using zk::client::Client;

// Starts `op(client)` on the client's io thread and returns its future.
// Operations started one after another leave in that order (pipelining).
template <typename Op>
auto start(SyncClient& zk, Op op) {
  using Task = std::invoke_result_t<Op&, Client&>;
  return boost::asio::co_spawn(
      zk.executor(),
      [&zk, op = std::move(op)]() -> Task { co_return co_await op(zk.async_client()); },
      boost::asio::use_future);
}

// One pipelined pass of an apply: the keys as they are now must be `present`.
Status write_keys(SyncClient& zk, const std::string& path, const ConfigMap& values,
                  const std::set<std::string>& present) {
  const std::string ready = detail::child_path(path, kConfigReadyNode);
  auto unready = start(zk, [ready](Client& c) { return c.remove(ready); });
  std::vector<std::future<Status>> writes;
  for (const auto& [key, value] : values) {
    std::string node = detail::child_path(path, key);
    if (present.contains(key)) {
      // A copy of the binding: clang 14 cannot capture structured bindings.
      writes.push_back(start(zk, [node, data = value](Client& c) -> zk::client::Task<Status> {
        auto stat = co_await c.set_data(node, data);
        co_return stat.error();
      }));
    } else {
      writes.push_back(start(zk, [node, data = value](Client& c) -> zk::client::Task<Status> {
        auto created = co_await c.create(node, data);
        co_return created.error();
      }));
    }
  }
  for (const std::string& key : present) {
    if (values.contains(key)) continue;
    std::string node = detail::child_path(path, key);
    writes.push_back(start(zk, [node](Client& c) -> zk::client::Task<Status> {
      Status removed = co_await c.remove(node);
      co_return removed.error() == Error::kNoNode ? Status() : removed;
    }));
  }
  Status first_error = unready.get();
  if (first_error.error() == Error::kNoNode) first_error = Error::kOk;
  for (auto& write : writes) {
    Status s = write.get();
    if (first_error.ok() || (!is_retryable(first_error.error()) && is_retryable(s.error()))) {
      if (!s.ok()) first_error = s;
    }
  }
  return first_error;
}

}  // namespace

bool valid_config_key(const std::string& key) {
  return !key.empty() && key != kConfigReadyNode && key != "." && key != ".." &&
         key.find('/') == std::string::npos && key.find('\0') == std::string::npos &&
         !key.starts_with("_receipt-");
}

Result<int64_t> apply_config(SyncClient& zk, const std::string& path, const ConfigMap& values,
                             const RetryPolicy& policy) {
  for (const auto& entry : values) {
    if (!valid_config_key(entry.first)) return Error::kBadArguments;
  }
  Status exists = ensure_path(zk, path, policy);
  if (!exists.ok()) return exists.error();
  const std::string ready = detail::child_path(path, kConfigReadyNode);
  bool ready_in_doubt = false;  // a create of ready was lost in flight
  return with_retries<int64_t>(zk, policy, [&]() -> Result<int64_t> {
    if (!ready_in_doubt) {
      auto children = zk.get_children(path);
      if (!children.ok()) return children.error();
      std::set<std::string> present;
      for (const std::string& name : *children) {
        if (valid_config_key(name)) present.insert(name);
      }
      Status written = write_keys(zk, path, values, present);
      if (!written.ok()) return written.error();
    }
    // Only now, with every key written, announce the configuration.
    auto created = zk.create2(ready, std::string());
    if (created.ok()) return created->stat.czxid;
    if (created.error() == Error::kNodeExists && ready_in_doubt) {
      auto stat = zk.exists(ready);
      if (!stat.ok()) return stat.error();
      if (stat->has_value()) return (*stat)->czxid;
      ready_in_doubt = false;
      return Error::kConnectionLoss;  // gone again: start over
    }
    ready_in_doubt = created.error() == Error::kConnectionLoss;
    return created.error();
  });
}

Result<ConfigSnapshot> read_config(SyncClient& zk, const std::string& path,
                                   std::optional<std::chrono::milliseconds> timeout,
                                   const RetryPolicy& policy) {
  const detail::Deadline deadline = detail::deadline_after(timeout);
  const std::string ready = detail::child_path(path, kConfigReadyNode);
  const auto start_time = std::chrono::steady_clock::now();
  int losses = 0;
  auto lost = [&](Error e) { return is_retryable(e) && backoff(zk, policy, start_time, losses++); };
  for (;;) {
    auto waker = std::make_shared<detail::Waker>();
    const uint64_t seen = waker->seen();
    auto stat = zk.exists(ready, detail::wake_on_event(waker));
    if (!stat.ok()) {
      if (lost(stat.error())) continue;
      return stat.error();
    }
    if (!stat->has_value()) {
      if (!waker->wait(seen, deadline)) return Error::kOperationTimeout;
      continue;
    }
    auto children = zk.get_children(path);
    if (!children.ok()) {
      if (children.error() == Error::kNoNode || lost(children.error())) continue;
      return children.error();
    }
    std::vector<std::pair<std::string, std::future<Result<zk::client::NodeData>>>> reads;
    for (const std::string& key : *children) {
      if (!valid_config_key(key)) continue;
      std::string node = detail::child_path(path, key);
      reads.emplace_back(key, start(zk, [node](Client& c) { return c.get_data(node); }));
    }
    ConfigSnapshot snapshot{{}, (*stat)->czxid};
    Error failed = Error::kOk;
    for (auto& [key, read] : reads) {
      auto node = read.get();
      if (node.ok()) {
        snapshot.values[key] = node->data.value_or(std::string());
      } else if (failed == Error::kOk) {
        failed = node.error();
      }
    }
    // A notification for ready was delivered before any reply read after it.
    if (waker->seen() != seen) continue;
    if (failed == Error::kNoNode) continue;  // a writer is at work: look again
    if (failed != Error::kOk) {
      if (lost(failed)) continue;
      return failed;
    }
    return snapshot;
  }
}

}  // namespace zk::recipes
