// SPDX-License-Identifier: Apache-2.0
#include "zkbench/watch_wait.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace zk::bench {

struct WatchWait::State {
  explicit State(boost::asio::any_io_executor executor) : timer(std::move(executor)) {}

  boost::asio::steady_timer timer;  // waited on until the watch fires, which cancels it
  bool fired = false;
  zk::client::WatchedEvent event;
  std::shared_ptr<std::atomic<int64_t>> node_events;
};

WatchWait::WatchWait(boost::asio::any_io_executor executor,
                     std::shared_ptr<std::atomic<int64_t>> node_events)
    : state_(std::make_shared<State>(std::move(executor))) {
  state_->node_events = std::move(node_events);
}

zk::client::WatchCallback WatchWait::callback() const {
  return [state = state_](const zk::client::WatchedEvent& e) {
    if (state->fired) return;
    state->fired = true;
    state->event = e;
    if (e.type != zk::wire::EventType::kNone && state->node_events) {
      state->node_events->fetch_add(1, std::memory_order_relaxed);
    }
    state->timer.cancel();
  };
}

zk::client::Task<zk::client::WatchedEvent> WatchWait::wait() {
  const std::shared_ptr<State> state = state_;
  while (!state->fired) {
    state->timer.expires_at(boost::asio::steady_timer::time_point::max());
    (void)co_await state->timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
  }
  co_return state->event;
}

}  // namespace zk::bench
