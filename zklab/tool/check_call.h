// SPDX-License-Identifier: Apache-2.0
// The two things every part of `zklab check` shares: the one clock of its
// history (check_history.h) and requests bounded by a deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>

#include "libzk/client/sync_client.h"

namespace zk::lab::check {

// Nanoseconds on the steady clock: the clock of every time in a history.
inline int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Runs `task` (an operation of client.async_client(), created on the calling
// thread) on the client's executor and waits for it at most `deadline`:
// its result, or nothing when the deadline passed first. After nothing the
// request may still be pending; it completes on its own, or fails with
// kConnectionLoss when the SyncClient is destroyed. `client` must be
// connected.
template <typename T>
std::optional<T> call_for(zk::client::SyncClient& client, zk::client::Task<T> task,
                          std::chrono::milliseconds deadline) {
  auto future = boost::asio::co_spawn(client.executor(), std::move(task), boost::asio::use_future);
  if (future.wait_for(deadline) != std::future_status::ready) return std::nullopt;
  return future.get();
}

}  // namespace zk::lab::check
