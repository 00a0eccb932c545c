// SPDX-License-Identifier: Apache-2.0
#include "tests/lab/sync_client_util.h"

#include <gtest/gtest.h>

#include "libzk/wire/protocol.h"

namespace zk::lab {

std::unique_ptr<zk::client::SyncClient> connect_to(const std::string& hosts, bool shuffle_hosts) {
  zk::client::ClientOptions options;
  options.reconnect_backoff = std::chrono::milliseconds(50);
  options.shuffle_hosts = shuffle_hosts;
  auto client = std::make_unique<zk::client::SyncClient>(options);
  auto st = client->connect(hosts, kClientSessionTimeout, kClientConnectDeadline);
  if (!st.ok()) {
    ADD_FAILURE() << "cannot open a session on " << hosts << ": "
                  << zk::wire::error_name(st.error());
    return nullptr;
  }
  return client;
}

}  // namespace zk::lab
