// SPDX-License-Identifier: Apache-2.0
// The body of `zklab relay-daemon <lab>` (run_relay_daemon, lab_network.h):
// the lab's Relay and its control port on one thread until SIGTERM or SIGINT,
// holding the nodes' ports meanwhile.
// Its output (relay.log) is one line per event.
#include <signal.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <utility>
#include <vector>

#include "zklab/process/port_reservation.h"
#include "zklab/relay/relay.h"
#include "zklab/relay/relay_control.h"
#include "zklab/relay/relay_links.h"
#include "zklab/tool/lab_network.h"
#include "zklab/tool/lab_state.h"
#include "zklab/tool/relay_daemon.h"

namespace zk::lab {

namespace {

// How long a relay of a lab of Apache's peer protocol tries a refusing
// target again: the initLimit x tickTime a learner has to reach its leader,
// at the lab's defaults (10 x 200 ms).
constexpr auto kApacheRefusedRetry = std::chrono::milliseconds(2000);

void log_line(const std::string& text) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  std::cout << std::put_time(&local, "%Y-%m-%d %H:%M:%S") << " zklab relay-daemon[" << ::getpid()
            << "]: " << text << std::endl;
}

// Writes `port` to `file` through a temporary file and a rename, so that a
// reader sees the whole number or no file.
bool write_port_file(const std::filesystem::path& file, uint16_t port) {
  auto temp = file;
  temp += ".tmp";
  std::ofstream out(temp, std::ios::trunc);
  out << port << "\n";
  out.close();
  std::error_code ec;
  if (out) std::filesystem::rename(temp, file, ec);
  return out && !ec;
}

// Every node's client, peer and admin port(s) that are free now, reserved
// (port_reservation.h): a node killed or stopped finds them free when it is
// started again, however long it was down. A port a node listens on already
// cannot be bound and is skipped (the daemon starts before the nodes in `up`).
std::vector<PortReservation> hold_node_ports(const std::filesystem::path& dir) {
  std::vector<PortReservation> held;
  const auto nodes = read_lab(dir);
  if (!nodes) return held;
  for (const LabNode& node : *nodes) {
    // The election port carries traffic in a lab of Apache's peer protocol only.
    const uint16_t election = node.apache_protocol ? node.election_port : 0;
    const uint16_t admin = node.has_admin() ? node.admin_port : 0;
    for (uint16_t port : {node.client_port, node.quorum_port, election, admin}) {
      if (port == 0) continue;
      if (PortReservation r = PortReservation::at(port); r.port() != 0)
        held.push_back(std::move(r));
    }
  }
  return held;
}

}  // namespace

LabExit run_relay_daemon(const std::filesystem::path& lab_dir) {
  const auto dir = relay_lab_dir(lab_dir);
  std::string error;
  auto links = read_relay_links(dir, error);
  if (!links) {
    log_line(error.empty() ? "no " + relay_links_path(dir).string() : error);
    return LabExit::kError;
  }
  boost::asio::io_context io(1);
  // In a lab of Apache's peer protocol an Apache leader binds its quorum port
  // only once it leads, and its learners dial at once: a refused connect
  // must stay a connect that waits, as it is without a relay (a learner
  // retries a refused dial), not an accepted connection reset (which sends
  // it back to the election).
  const auto nodes = read_lab(dir);
  RelayOptions options;
  if (nodes && !nodes->empty() && nodes->front().apache_protocol) {
    options.refused_retry = kApacheRefusedRetry;
  }
  Relay relay(io, *links, options);
  if (error = relay.start(); !error.empty()) {
    log_line(error);
    return LabExit::kError;
  }
  const std::vector<PortReservation> node_ports = hold_node_ports(dir);
  RelayControl control(io, relay, log_line);
  if (error = control.start(); !error.empty()) {
    log_line(error);
    return LabExit::kError;
  }
  boost::asio::signal_set signals(io, SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    log_line("signal " + std::to_string(signal) + ": stopping");
    control.stop();
    relay.stop();
    io.stop();
  });
  if (!write_port_file(relay_port_path(dir), control.port())) {
    log_line("cannot write " + relay_port_path(dir).string());
    return LabExit::kError;
  }
  log_line("relaying " + std::to_string(links->size()) + " links of " + dir.string() +
           "; control port " + std::to_string(control.port()) + "; holding " +
           std::to_string(node_ports.size()) + " node ports");
  io.run();
  std::error_code ignored;
  std::filesystem::remove(relay_port_path(dir), ignored);
  log_line("stopped");
  return LabExit::kOk;
}

}  // namespace zk::lab
