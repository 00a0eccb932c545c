// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/sync_client.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

namespace zk::client {

namespace asio = boost::asio;

struct SyncClient::Impl {
  explicit Impl(ClientOptions opts) : options(std::move(opts)) {}

  // Runs `op` on the io thread and blocks until it completes.
  template <typename T>
  T run(asio::awaitable<T> op) {
    return asio::co_spawn(io, std::move(op), asio::use_future).get();
  }

  template <typename T>
  std::optional<T> pop(std::deque<T>& queue, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu);
    if (!cv.wait_for(lock, timeout, [&] { return !queue.empty(); })) return std::nullopt;
    T front = std::move(queue.front());
    queue.pop_front();
    return front;
  }

  WatchCallback watch_callback() {
    return [this](const WatchedEvent& event) {
      {
        std::lock_guard lock(mu);
        watch_events.push_back(event);
      }
      cv.notify_all();
    };
  }

  ClientOptions options;
  asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  std::optional<Client> client;  // set by connect(); touched on the io thread afterwards
  std::mutex mu;                 // guards the two event queues
  std::condition_variable cv;
  std::deque<WatchedEvent> watch_events;
  std::deque<SessionState> session_events;
  std::thread thread;
};

SyncClient::SyncClient(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

SyncClient::~SyncClient() {
  // Drop the Client on the io thread (its destructor posts the shutdown),
  // then let the shutdown run before stopping the loop.
  impl_->run([](Impl* impl) -> asio::awaitable<void> {
    impl->client.reset();
    co_return;
  }(impl_.get()));
  impl_->run([]() -> asio::awaitable<void> { co_return; }());
  impl_->work.reset();
  impl_->io.stop();
  impl_->thread.join();
}

Status SyncClient::connect(const std::string& connect_string,
                           std::chrono::milliseconds session_timeout,
                           std::chrono::milliseconds deadline) {
  if (impl_->client) return Error::kInvalidState;
  ClientOptions options = impl_->options;
  options.session_timeout = session_timeout;
  options.on_session_event = [impl = impl_.get(),
                              user = impl_->options.on_session_event](SessionState s) {
    {
      std::lock_guard lock(impl->mu);
      impl->session_events.push_back(s);
    }
    impl->cv.notify_all();
    if (user) user(s);
  };
  impl_->client.emplace(impl_->io.get_executor(), std::move(options));
  return impl_->run(impl_->client->connect(connect_string, deadline));
}

#define ZK_SYNC_REQUIRE_CLIENT() \
  if (!impl_->client) return Error::kConnectionLoss

Result<std::string> SyncClient::create(const std::string& path, const zk::wire::Buffer& data,
                                       zk::wire::CreateMode mode, const zk::wire::ACLs& acl) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->create(path, data, mode, acl));
}

Result<Created> SyncClient::create2(const std::string& path, const zk::wire::Buffer& data,
                                    zk::wire::CreateMode mode, const zk::wire::ACLs& acl) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->create2(path, data, mode, acl));
}

Result<Created> SyncClient::create_ttl(const std::string& path, const zk::wire::Buffer& data,
                                       zk::wire::CreateMode mode, int64_t ttl_ms,
                                       const zk::wire::ACLs& acl) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->create_ttl(path, data, mode, ttl_ms, acl));
}

Status SyncClient::remove(const std::string& path, int32_t version) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->remove(path, version));
}

Result<std::optional<zk::wire::Stat>> SyncClient::exists(const std::string& path, bool watch) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->exists(path, watch ? impl_->watch_callback() : nullptr));
}

Result<NodeData> SyncClient::get_data(const std::string& path, bool watch) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->get_data(path, watch ? impl_->watch_callback() : nullptr));
}

Result<zk::wire::Stat> SyncClient::set_data(const std::string& path, const zk::wire::Buffer& data,
                                            int32_t version) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->set_data(path, data, version));
}

Result<NodeData> SyncClient::reconfig(const zk::wire::ReconfigRequest& request) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->reconfig(request));
}

Result<std::vector<std::string>> SyncClient::get_children(const std::string& path, bool watch) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->get_children(path, watch ? impl_->watch_callback() : nullptr));
}

Result<Children> SyncClient::get_children2(const std::string& path, bool watch) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->get_children2(path, watch ? impl_->watch_callback() : nullptr));
}

Result<std::optional<zk::wire::Stat>> SyncClient::exists(const std::string& path,
                                                         WatchCallback watch) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->exists(path, std::move(watch)));
}

Result<NodeData> SyncClient::get_data(const std::string& path, WatchCallback watch) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->get_data(path, std::move(watch)));
}

Result<std::vector<std::string>> SyncClient::get_children(const std::string& path,
                                                          WatchCallback watch) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->get_children(path, std::move(watch)));
}

Result<Children> SyncClient::get_children2(const std::string& path, WatchCallback watch) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->get_children2(path, std::move(watch)));
}

Status SyncClient::add_watch(const std::string& path, zk::wire::AddWatchMode mode) {
  return add_watch(path, mode, impl_->watch_callback());
}

Status SyncClient::add_watch(const std::string& path, zk::wire::AddWatchMode mode,
                             WatchCallback watch) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->add_watch(path, mode, std::move(watch)));
}

Status SyncClient::remove_watches(const std::string& path, zk::wire::WatcherType type, bool local) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->remove_watches(path, type, local));
}

Status SyncClient::check_watches(const std::string& path, zk::wire::WatcherType type) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->check_watches(path, type));
}

Result<NodeAcl> SyncClient::get_acl(const std::string& path) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->get_acl(path));
}

Result<zk::wire::Stat> SyncClient::set_acl(const std::string& path, const zk::wire::ACLs& acl,
                                           int32_t version) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->set_acl(path, acl, version));
}

Status SyncClient::sync(const std::string& path) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->sync(path));
}

Result<std::vector<std::string>> SyncClient::get_ephemerals(const std::string& prefix) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->get_ephemerals(prefix));
}

Result<int32_t> SyncClient::get_all_children_number(const std::string& path) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->get_all_children_number(path));
}

Result<std::vector<zk::wire::ClientInfo>> SyncClient::who_am_i() {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->who_am_i());
}

Result<std::vector<zk::wire::MultiResult>> SyncClient::multi(
    const std::vector<zk::wire::MultiOp>& ops) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->multi(ops));
}

Result<std::vector<zk::wire::MultiResult>> SyncClient::multi_read(
    const std::vector<zk::wire::MultiOp>& ops) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->multi_read(ops));
}

Status SyncClient::add_auth(const std::string& scheme, const zk::wire::Buffer& auth) {
  ZK_SYNC_REQUIRE_CLIENT();
  return impl_->run(impl_->client->add_auth(scheme, auth));
}

Status SyncClient::close() {
  if (!impl_->client) return Error::kOk;
  return impl_->run(impl_->client->close());
}

#undef ZK_SYNC_REQUIRE_CLIENT

std::optional<WatchedEvent> SyncClient::next_watch_event(std::chrono::milliseconds timeout) {
  return impl_->pop(impl_->watch_events, timeout);
}

std::optional<SessionState> SyncClient::next_session_event(std::chrono::milliseconds timeout) {
  return impl_->pop(impl_->session_events, timeout);
}

SessionState SyncClient::state() const {
  return impl_->client ? impl_->client->state() : SessionState::kDisconnected;
}
int64_t SyncClient::session_id() const { return impl_->client ? impl_->client->session_id() : 0; }
std::string SyncClient::auth_failure() const {
  return impl_->client ? impl_->client->auth_failure() : std::string();
}
int64_t SyncClient::refused_reply_bytes() const {
  return impl_->client ? impl_->client->refused_reply_bytes() : 0;
}

SessionCredentials SyncClient::credentials() const {
  return impl_->client ? impl_->client->credentials() : SessionCredentials{};
}
std::chrono::milliseconds SyncClient::negotiated_timeout() const {
  return impl_->client ? impl_->client->negotiated_timeout() : std::chrono::milliseconds(0);
}

Client& SyncClient::async_client() {
  if (!impl_->client) impl_->client.emplace(impl_->io.get_executor(), impl_->options);
  return *impl_->client;
}

boost::asio::any_io_executor SyncClient::executor() { return impl_->io.get_executor(); }

}  // namespace zk::client
