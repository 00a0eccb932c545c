// SPDX-License-Identifier: Apache-2.0
// The control protocol of a lab's relay daemon: both ends.
//
// The daemon listens on a free 127.0.0.1 port (written to <lab>/relay.port,
// relay_daemon.h). A client connects and sends request lines; each gets one
// answer line ("\n" ends every line; at most kMaxLine bytes):
//   get              ->  ok <faults>
//   set <faults>     ->  ok <faults>      once the relay applied them
//   anything else    ->  error <why>      (also for <faults> that do not parse)
// <faults> is the text form of network_faults.h ("cut=1-3,2-3 slow=2:50").
// The answer to set names the faults now in force. A connection may carry any
// number of requests; the daemon closes it on a line too long.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "zklab/relay/network_faults.h"
#include "zklab/relay/relay.h"

namespace zk::lab {

inline constexpr size_t kMaxControlLine = 1 << 20;

// The daemon's end. Runs on the io_context's thread, like `relay` (which must
// outlive it); `log` is told of every change of faults.
class RelayControl {
 public:
  RelayControl(boost::asio::io_context& io, Relay& relay,
               std::function<void(const std::string&)> log);
  ~RelayControl();  // stop()
  RelayControl(const RelayControl&) = delete;
  RelayControl& operator=(const RelayControl&) = delete;

  // Listens on a free 127.0.0.1 port; empty on success, else why not.
  std::string start();
  uint16_t port() const;
  // Stops listening and closes every control connection. Idempotent.
  void stop();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// The client's end: one request on a fresh connection to 127.0.0.1:`port`,
// within `deadline`. The faults in force (after set: with `faults` applied);
// nothing, with `error` set, when no answer came in time or it is not "ok".
std::optional<NetworkFaults> control_get(uint16_t port, std::chrono::milliseconds deadline,
                                         std::string& error);
std::optional<NetworkFaults> control_set(uint16_t port, const NetworkFaults& faults,
                                         std::chrono::milliseconds deadline, std::string& error);

}  // namespace zk::lab
