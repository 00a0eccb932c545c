// SPDX-License-Identifier: Apache-2.0
// A zk::client session on one node of a lab ensemble, for the process tests
// that drive an ensemble through the client library (link zk::client).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "libzk/client/sync_client.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {

// A session on node `id` alone (10 s timeout, 20 s to connect), then
// authenticated with digest `user_password` unless that is empty; null, with
// a test failure naming the node and the error, when it cannot be opened.
inline std::unique_ptr<zk::client::SyncClient> connect_node(const Ensemble& ensemble, int id,
                                                            const std::string& user_password = "") {
  using namespace std::chrono_literals;
  auto client = std::make_unique<zk::client::SyncClient>();
  auto st = client->connect(ensemble.address(id), 10s, 20s);
  if (!st.ok()) {
    ADD_FAILURE() << "cannot open a session on node " << id << ": "
                  << zk::wire::error_name(st.error());
    return nullptr;
  }
  if (!user_password.empty()) {
    auto added = client->add_auth("digest", user_password);
    EXPECT_TRUE(added.ok()) << "add_auth: " << zk::wire::error_name(added.error());
  }
  return client;
}

}  // namespace zk::lab
