// SPDX-License-Identifier: Apache-2.0
// A blocking zk::client session for the process tests that use an ensemble
// as a client does (ensemble_test.cc, restore_test.cc): connecting with a
// session that outlives an election, and retrying an operation across one.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "libzk/client/sync_client.h"

namespace zk::lab {

// The session's timeout: it outlives an election (the ensembles' tickTime
// is 200 ms).
inline constexpr std::chrono::seconds kClientSessionTimeout{10};
// For a client to find a serving node.
inline constexpr std::chrono::seconds kClientConnectDeadline{20};
// For an operation retried across an election.
inline constexpr std::chrono::seconds kClientOpDeadline{30};

// A client with a session on `hosts` (reconnecting after 50 ms). Nothing,
// and a test failure, when no server takes the session within the connect
// deadline.
std::unique_ptr<zk::client::SyncClient> connect_to(const std::string& hosts,
                                                   bool shuffle_hosts = true);

// Calls `op` (returning a Result) again while it fails with connection
// loss, until the op deadline; the last result.
template <typename Op>
auto retrying(Op op) -> decltype(op()) {
  const auto until = std::chrono::steady_clock::now() + kClientOpDeadline;
  auto r = op();
  while (!r.ok() && r.error() == zk::client::Error::kConnectionLoss &&
         std::chrono::steady_clock::now() < until) {
    r = op();
  }
  return r;
}

}  // namespace zk::lab
