// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/check_cleanup.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <memory>
#include <thread>

#include "zklab/tool/check_call.h"

namespace zk::lab::check {

namespace {

// Deletes in flight at once on one session.
constexpr size_t kBatch = 128;

// Deletes `paths` on `client`, kBatch in flight at a time; the failures.
int delete_all(zk::client::SyncClient& client, const std::vector<std::string>& paths,
               std::chrono::milliseconds deadline) {
  int failed = 0;
  for (size_t at = 0; at < paths.size(); at += kBatch) {
    std::vector<std::future<zk::client::Status>> pending;
    for (size_t i = at; i < std::min(at + kBatch, paths.size()); ++i) {
      pending.push_back(boost::asio::co_spawn(
          client.executor(), client.async_client().remove(paths[i]), boost::asio::use_future));
    }
    const auto until = std::chrono::steady_clock::now() + deadline;
    for (auto& f : pending) {
      if (f.wait_until(until) != std::future_status::ready || !f.get()) ++failed;
    }
  }
  return failed;
}

}  // namespace

int delete_tree(const std::vector<std::string>& connect_strings,
                const std::vector<std::string>& parents, const std::vector<std::string>& then,
                std::chrono::milliseconds session_timeout, std::chrono::milliseconds deadline,
                const toolkit::ClientSecurity& security) {
  std::vector<std::unique_ptr<zk::client::SyncClient>> clients;
  zk::client::ClientOptions options;
  toolkit::apply_client_security(security, options);
  for (const auto& connect : connect_strings) {
    auto client = std::make_unique<zk::client::SyncClient>(options);
    if (client->connect(connect, session_timeout, deadline)) clients.push_back(std::move(client));
  }
  if (clients.empty()) return static_cast<int>(then.size());
  std::vector<std::string> children;
  for (const auto& parent : parents) {
    auto names =
        call_for(*clients.front(), clients.front()->async_client().get_children(parent), deadline);
    if (!names || !*names) continue;
    for (const auto& name : **names) children.push_back(parent + "/" + name);
  }
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (size_t c = 0; c < clients.size(); ++c) {
    threads.emplace_back([&, c] {
      std::vector<std::string> share;
      for (size_t i = c; i < children.size(); i += clients.size()) share.push_back(children[i]);
      failed += delete_all(*clients[c], share, deadline);
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& path : then) failed += delete_all(*clients.front(), {path}, deadline);
  for (auto& client : clients) {
    (void)call_for(*client, client->async_client().close(), deadline);
  }
  return failed.load();
}

}  // namespace zk::lab::check
