// SPDX-License-Identifier: Apache-2.0
// The server processes found by their listening port (this test process is
// the "server": it listens on a loopback port itself), their CPU time from
// /proc, and what is reported when they cannot be found.
#include "zkbench/server_cpu.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cmath>

namespace zk::bench {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// A pid that no process has: a child that has exited and been reaped.
pid_t gone_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  return child;
}

// Uses CPU until this process's CPU time, as /proc shows it, has grown
// (deadline 30 s); false if it never did.
bool burn_until_cpu_grows() {
  const auto start = process_cpu_time(::getpid());
  if (!start) return false;
  volatile double sink = 0;
  for (const auto until = Clock::now() + std::chrono::seconds(30); Clock::now() < until;) {
    for (int i = 0; i < 100000; ++i) sink = sink + std::sqrt(static_cast<double>(i));
    const auto now = process_cpu_time(::getpid());
    if (now && *now > *start) return true;
  }
  return false;
}

TEST(ListeningPids, FindsTheProcessListeningOnALoopbackPort) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const uint16_t port = acceptor.local_endpoint().port();
  const auto found = listening_pids({port});
  ASSERT_EQ(found.count(port), 1u);
  EXPECT_EQ(found.at(port), std::vector<pid_t>{::getpid()});
}

TEST(ListeningPids, FindsAnIpv6LoopbackListener) {
  asio::io_context io;
  tcp::acceptor acceptor(io);
  boost::system::error_code ec;
  acceptor.open(tcp::v6(), ec);
  if (!ec) acceptor.bind(tcp::endpoint(asio::ip::make_address("::1"), 0), ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) GTEST_SKIP() << "no IPv6 loopback here: " << ec.message();
  const uint16_t port = acceptor.local_endpoint().port();
  const auto found = listening_pids({port});
  ASSERT_EQ(found.count(port), 1u);
  EXPECT_EQ(found.at(port), std::vector<pid_t>{::getpid()});
}

TEST(ListeningPids, APortWithoutAListenerHasNoEntry) {
  asio::io_context io;
  // A connected socket's local port is not a listening one.
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  tcp::socket client(io);
  client.connect(acceptor.local_endpoint());
  const uint16_t client_port = client.local_endpoint().port();
  const uint16_t listen_port = acceptor.local_endpoint().port();
  acceptor.close();
  const auto found = listening_pids({client_port, listen_port});
  EXPECT_TRUE(found.empty());
}

TEST(ServerCpu, FindsTheServerByItsAddressAndMeasuresItsCpu) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const std::string address = "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
  const ServerCpu servers({address}, {});
  EXPECT_EQ(servers.unknown(), "");
  EXPECT_EQ(servers.pids(), std::vector<pid_t>{::getpid()});
  const ServerCpuTimes from = servers.sample();
  EXPECT_EQ(from.unknown, "");
  ASSERT_TRUE(burn_until_cpu_grows());
  const ServerCpuUsage used = servers.usage(from, servers.sample());
  ASSERT_TRUE(used.cpu.has_value()) << used.unknown;
  EXPECT_GT(used.cpu->count(), 0);
  EXPECT_EQ(used.pids, std::vector<pid_t>{::getpid()});
  ASSERT_TRUE(used.us_per_op(4).has_value());
  EXPECT_DOUBLE_EQ(*used.us_per_op(4), static_cast<double>(used.cpu->count()) / 4);
  EXPECT_FALSE(used.us_per_op(0).has_value());
}

TEST(ServerCpu, ALocalhostNameIsLoopbackToo) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const ServerCpu servers({"localhost:" + std::to_string(acceptor.local_endpoint().port())}, {});
  EXPECT_EQ(servers.unknown(), "");
  EXPECT_EQ(servers.pids(), std::vector<pid_t>{::getpid()});
}

TEST(ServerCpu, UnknownWhenAServerIsNotFound) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const std::string found = "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
  tcp::acceptor closed(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const std::string missing = "127.0.0.1:" + std::to_string(closed.local_endpoint().port());
  closed.close();
  const ServerCpu servers({found, missing, "192.0.2.7:2181"}, {});
  // A partial sum would pass for the whole ensemble's: unknown instead.
  EXPECT_NE(servers.unknown().find(missing + ": no listening process found"), std::string::npos)
      << servers.unknown();
  EXPECT_NE(servers.unknown().find("192.0.2.7:2181: not a loopback address"), std::string::npos)
      << servers.unknown();
  const ServerCpuUsage used = servers.usage(servers.sample(), servers.sample());
  EXPECT_FALSE(used.cpu.has_value());
  EXPECT_EQ(used.unknown, servers.unknown());
  EXPECT_FALSE(used.us_per_op(10).has_value());
}

TEST(ServerCpu, GivenPidsAreTakenAsTheyAre) {
  const pid_t self = ::getpid();
  const ServerCpu servers({"192.0.2.7:2181"}, {self, self});
  EXPECT_EQ(servers.unknown(), "");
  EXPECT_EQ(servers.pids(), std::vector<pid_t>{self});
  EXPECT_TRUE(servers.usage(servers.sample(), servers.sample()).cpu.has_value());
}

TEST(ServerCpu, AProcessThatIsGoneMakesTheSampleUnknown) {
  const pid_t gone = gone_pid();
  EXPECT_FALSE(process_cpu_time(gone).has_value());
  const ServerCpu servers({"127.0.0.1:2181"}, {::getpid(), gone});
  const ServerCpuTimes t = servers.sample();
  EXPECT_NE(t.unknown.find("process " + std::to_string(gone)), std::string::npos) << t.unknown;
  const ServerCpuUsage used = servers.usage(t, servers.sample());
  EXPECT_FALSE(used.cpu.has_value());
  EXPECT_FALSE(used.unknown.empty());
}

TEST(ServerCpu, NoServerIsUnknown) {
  const ServerCpu none;
  EXPECT_FALSE(none.unknown().empty());
  EXPECT_FALSE(none.usage(none.sample(), none.sample()).cpu.has_value());
}

}  // namespace
}  // namespace zk::bench
