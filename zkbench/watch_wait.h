// SPDX-License-Identifier: Apache-2.0
// WatchWait: a one-shot watch a coroutine can wait for. Pass callback() with
// the request that sets the watch (exists, get_data, get_children), then
// co_await wait(): it returns the event once the watch has fired, at once if
// it fired already (a notification may be delivered before the reply of the
// request that set the watch resumes its caller).
//
// The callback keeps what it touches alive itself, so it may fire after the
// WatchWait is gone: a watch set by a request that failed, or set on a znode
// that never changes, fires with a kNone event when its session closes. Each
// node event (type other than kNone) adds one to `node_events`, when given.
//
// Threads: the client's executor only (the callback runs there; wait() must
// be awaited there). `node_events` may be shared with other threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include <boost/asio/any_io_executor.hpp>

#include "libzk/client/client.h"

namespace zk::bench {

class WatchWait {
 public:
  explicit WatchWait(boost::asio::any_io_executor executor,
                     std::shared_ptr<std::atomic<int64_t>> node_events = nullptr);

  // The watch to pass with the request; one per WatchWait.
  zk::client::WatchCallback callback() const;
  // The event the watch fired with, once it has.
  zk::client::Task<zk::client::WatchedEvent> wait();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace zk::bench
