// SPDX-License-Identifier: Apache-2.0
#include "zkbench/client_group.h"

#include "zkbench/pool_tasks.h"

namespace zk::bench {

ClientGroup::ClientGroup(toolkit::SessionPool& pool, std::vector<std::string> steps)
    : pool_(pool), steps_(pool.threads(), std::move(steps)) {}

bool ClientGroup::retry(size_t client, size_t step, Clock::time_point start, zk::wire::Error e) {
  if (failed_.load()) return false;
  steps_.record(pool_.thread_of(client), step, start, e);
  return e == zk::wire::Error::kConnectionLoss || e == zk::wire::Error::kOperationTimeout;
}

void ClientGroup::fail(size_t client, const std::string& why) {
  if (failed_.exchange(true)) return;
  {
    std::lock_guard lock(mu_);
    failure_ = "client " + std::to_string(client) + ": " + why;
  }
  close_sessions_now(pool_);
}

zk::client::Task<zk::wire::Error> ClientGroup::create(zk::client::Client& client, size_t c,
                                                      size_t step, std::string path,
                                                      zk::wire::CreateMode mode, bool existing_ok) {
  for (bool retried = false;; retried = true) {
    zk::wire::Buffer empty = std::string();
    const auto start = Clock::now();
    auto created = co_await client.create(path, std::move(empty), mode);
    const zk::wire::Error e = created.error();
    if (e == zk::wire::Error::kOk ||
        (e == zk::wire::Error::kNodeExists && (retried || existing_ok))) {
      co_return zk::wire::Error::kOk;
    }
    if (!retry(c, step, start, e)) co_return e;
  }
}

zk::client::Task<zk::wire::Error> ClientGroup::remove(zk::client::Client& client, size_t c,
                                                      size_t step, std::string path) {
  for (bool retried = false;; retried = true) {
    const auto start = Clock::now();
    const zk::wire::Error e = (co_await client.remove(path)).error();
    if (e == zk::wire::Error::kOk || (e == zk::wire::Error::kNoNode && retried)) {
      co_return zk::wire::Error::kOk;
    }
    if (!retry(c, step, start, e)) co_return e;
  }
}

std::string ClientGroup::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

}  // namespace zk::bench
