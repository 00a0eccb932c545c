// SPDX-License-Identifier: Apache-2.0
// The relay engine of zklab's network faults (zklab/relay.h), its control
// protocol (zklab/relay_control.h), its layout file (relay_links.h) and the
// election hello it rewrites (election_hello.h), in-process: a Relay on its
// own io thread between plain loopback sockets the test drives with
// deadlines. No zkd.
#include "zklab/relay/relay.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <type_traits>

#include "zklab/relay/election_hello.h"
#include "zklab/relay/network_faults.h"
#include "zklab/relay/relay_control.h"
#include "zklab/relay/relay_links.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kDeadline = 10s;

// A socket file descriptor, closed when it goes.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

sockaddr_in loopback(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

uint16_t port_of(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

// A socket bound to a free loopback port; listening unless `listen` is false
// (then connections to it are refused).
Fd bound_socket(bool listen) {
  Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in a = loopback(0);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return Fd();
  if (listen && ::listen(fd.get(), 16) != 0) return Fd();
  return fd;
}

int millis_left(Clock::time_point until) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  return static_cast<int>(std::max<int64_t>(left.count(), 0));
}

// The next connection on `listener`, within the deadline (-1 fd if none).
Fd accept_one(const Fd& listener) {
  pollfd p{listener.get(), POLLIN, 0};
  if (::poll(&p, 1, millis_left(Clock::now() + kDeadline)) != 1) return Fd();
  return Fd(::accept(listener.get(), nullptr, nullptr));
}

Fd connect_to(uint16_t port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in a = loopback(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return Fd();
  return fd;
}

bool send_all(const Fd& fd, const std::string& bytes) {
  return ::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
         static_cast<ssize_t>(bytes.size());
}

struct Received {
  std::string bytes;
  bool closed = false;  // end of stream or a reset
};

// Reads until `want` bytes came, the stream ended, or the deadline.
Received receive(const Fd& fd, size_t want) {
  const auto until = Clock::now() + kDeadline;
  Received r;
  while (r.bytes.size() < want) {
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, millis_left(until)) != 1) break;
    char buf[4096];
    const ssize_t n = ::recv(fd.get(), buf, std::min(sizeof buf, want - r.bytes.size()), 0);
    if (n <= 0) {
      r.closed = true;
      break;
    }
    r.bytes.append(buf, static_cast<size_t>(n));
  }
  return r;
}

// Reads until the stream ends (or the deadline): what came before the end.
Received receive_until_closed(const Fd& fd) { return receive(fd, SIZE_MAX); }

// A Relay on its own io thread; `run` executes on that thread and waits.
class RelayThread {
 public:
  explicit RelayThread(std::vector<RelayLink> links, RelayOptions options = {})
      : relay_(io_, std::move(links), options) {
    error_ = relay_.start();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RelayThread() {
    run([this] { relay_.stop(); });
    io_.stop();
    thread_.join();
  }

  const std::string& start_error() const { return error_; }

  template <typename F>
  std::invoke_result_t<F> run(F f) {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto result = task.get_future();
    boost::asio::post(io_, [&task] { task(); });
    return result.get();
  }

  uint16_t port(size_t link) {
    return run([this, link] { return relay_.port(link); });
  }
  void set_faults(const NetworkFaults& faults) {
    run([&] { relay_.set_faults(faults); });
  }
  RelayStats stats() {
    return run([this] { return relay_.stats(); });
  }
  // Polls the stats until `ok` holds; false at the deadline.
  bool wait_stats(const std::function<bool(const RelayStats&)>& ok) {
    const auto until = Clock::now() + kDeadline;
    while (!ok(stats())) {
      if (Clock::now() >= until) return false;
      std::this_thread::sleep_for(1ms);  // poll interval, bounded by the deadline
    }
    return true;
  }

  boost::asio::io_context& io() { return io_; }
  Relay& relay() { return relay_; }

 private:
  boost::asio::io_context io_{1};
  Relay relay_;
  std::string error_;
  std::thread thread_;
};

class RelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    target_ = bound_socket(true);
    ASSERT_GE(target_.get(), 0);
    relay_ =
        std::make_unique<RelayThread>(std::vector<RelayLink>{{1, 2, 0, port_of(target_.get())}});
    ASSERT_EQ(relay_->start_error(), "");
  }

  // A client connection through the relay and the target's end of it, after
  // one exchange each way.
  std::pair<Fd, Fd> forwarded_pair() {
    Fd client = connect_to(relay_->port(0));
    EXPECT_GE(client.get(), 0);
    Fd server = accept_one(target_);
    EXPECT_GE(server.get(), 0);
    EXPECT_TRUE(send_all(client, "ping"));
    EXPECT_EQ(receive(server, 4).bytes, "ping");
    EXPECT_TRUE(send_all(server, "pong"));
    EXPECT_EQ(receive(client, 4).bytes, "pong");
    return {std::move(client), std::move(server)};
  }

  Fd target_;
  std::unique_ptr<RelayThread> relay_;
};

TEST_F(RelayTest, ForwardsBothWaysAndClosesBoth) {
  auto [client, server] = forwarded_pair();
  const std::string big(1 << 20, 'x');
  std::thread sender([&client, &big] { send_all(client, big); });
  EXPECT_EQ(receive(server, big.size()).bytes.size(), big.size());
  sender.join();
  client = Fd();  // the client goes: the target's side is closed too
  Received rest = receive_until_closed(server);
  EXPECT_TRUE(rest.closed);
  EXPECT_EQ(rest.bytes, "");
  EXPECT_EQ(relay_->stats().dropped_bytes, 0u);
}

// Streams bigger than a direction's queue (so its reader is held back) arrive
// whole and in order, both ways at once.
TEST_F(RelayTest, BigStreamsArriveWholeAndInOrderBothWays) {
  auto [client, server] = forwarded_pair();
  const auto pattern = [](size_t size, uint32_t seed) {
    std::string out(size, '\0');
    for (size_t i = 0; i < size; ++i) {
      out[i] = static_cast<char>((static_cast<uint32_t>(i) * 2654435761u + seed) >> 13);
    }
    return out;
  };
  const std::string up = pattern(Relay::kMaxQueuedBytes + (8u << 20), 1);
  const std::string down = pattern(Relay::kMaxQueuedBytes + (3u << 20), 7);
  std::thread to_server([&client, &up] { send_all(client, up); });
  std::thread to_client([&server, &down] { send_all(server, down); });
  const Received at_server = receive(server, up.size());
  const Received at_client = receive(client, down.size());
  to_server.join();
  to_client.join();
  EXPECT_TRUE(at_server.bytes == up) << at_server.bytes.size() << " of " << up.size();
  EXPECT_TRUE(at_client.bytes == down) << at_client.bytes.size() << " of " << down.size();
  EXPECT_EQ(relay_->stats().dropped_bytes, 0u);
}

TEST_F(RelayTest, CutDropsSilentlyAndHealClosesCutConnections) {
  auto [client, server] = forwarded_pair();
  relay_->set_faults({{{1, 2}}, {}});

  // Bytes either way are read and dropped; nobody sees a close.
  ASSERT_TRUE(send_all(client, "lost"));
  ASSERT_TRUE(relay_->wait_stats([](const RelayStats& s) { return s.dropped_bytes >= 4; }));
  ASSERT_TRUE(send_all(server, "gone"));
  ASSERT_TRUE(relay_->wait_stats([](const RelayStats& s) { return s.dropped_bytes >= 8; }));

  // A new connection over the cut link is accepted, read and dropped.
  Fd late = connect_to(relay_->port(0));
  ASSERT_GE(late.get(), 0);
  ASSERT_TRUE(send_all(late, "x"));
  ASSERT_TRUE(relay_->wait_stats([](const RelayStats& s) { return s.dropped_bytes >= 9; }));
  EXPECT_EQ(relay_->stats().accepted, 2u);

  // Heal: every cut connection is closed, without a byte of what was dropped.
  relay_->set_faults({});
  for (const Fd* fd : {&client, &server, &late}) {
    Received r = receive_until_closed(*fd);
    EXPECT_TRUE(r.closed);
    EXPECT_EQ(r.bytes, "");
  }

  // New connections are forwarded again; the first the target accepts after
  // the cut is this one (the late one never reached it).
  Fd fresh = connect_to(relay_->port(0));
  ASSERT_GE(fresh.get(), 0);
  ASSERT_TRUE(send_all(fresh, "new"));
  Fd fresh_server = accept_one(target_);
  ASSERT_GE(fresh_server.get(), 0);
  EXPECT_EQ(receive(fresh_server, 3).bytes, "new");
  ASSERT_TRUE(send_all(fresh_server, "ok"));
  EXPECT_EQ(receive(fresh, 2).bytes, "ok");
}

TEST_F(RelayTest, DelayDeliversLaterAndKeepsOrder) {
  auto [client, server] = forwarded_pair();
  constexpr auto kDelay = 300ms;
  for (bool from_client : {true, false}) {
    const Fd& from = from_client ? client : server;
    const Fd& to = from_client ? server : client;
    // Node 1's delay applies to both directions of its links.
    relay_->set_faults({{}, {{1, kDelay}}});
    const auto sent = Clock::now();
    // "a" and "b" are queued for later, one at a time; "c", read with no
    // delay, must overtake neither.
    for (const char* bytes : {"a", "b"}) {
      const uint64_t read_before = relay_->stats().read_bytes;
      ASSERT_TRUE(send_all(from, bytes));
      ASSERT_TRUE(
          relay_->wait_stats([&](const RelayStats& s) { return s.read_bytes > read_before; }));
    }
    relay_->set_faults({});
    ASSERT_TRUE(send_all(from, "c"));
    EXPECT_EQ(receive(to, 3).bytes, "abc");
    EXPECT_GE(Clock::now() - sent, kDelay);  // delivered no earlier than due
  }
}

TEST(RelayEngineTest, TargetRefusingClosesTheClient) {
  Fd refusing = bound_socket(false);  // bound, not listening: connections are refused
  ASSERT_GE(refusing.get(), 0);
  RelayThread relay({{1, 2, 0, port_of(refusing.get())}});
  ASSERT_EQ(relay.start_error(), "");
  Fd client = connect_to(relay.port(0));
  ASSERT_GE(client.get(), 0);
  Received r = receive_until_closed(client);
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(r.bytes, "");
}

TEST(RelayEngineTest, WithRefusedRetryATargetThatListensLaterGetsTheConnection) {
  Fd late = bound_socket(false);  // refuses until it listens
  ASSERT_GE(late.get(), 0);
  RelayThread relay({{1, 2, 0, port_of(late.get())}}, RelayOptions{std::chrono::seconds(5)});
  ASSERT_EQ(relay.start_error(), "");
  Fd client = connect_to(relay.port(0));
  ASSERT_GE(client.get(), 0);
  ASSERT_TRUE(send_all(client, "early"));
  // A few refusals (the relay tries every 25 ms), then the target listens.
  std::this_thread::sleep_for(100ms);
  ASSERT_EQ(::listen(late.get(), 4), 0);
  Fd server = accept_one(late);
  ASSERT_GE(server.get(), 0);
  EXPECT_EQ(receive(server, 5).bytes, "early");
  ASSERT_TRUE(send_all(server, "ok"));
  EXPECT_EQ(receive(client, 2).bytes, "ok");
}

TEST(RelayEngineTest, StartFailsOnATakenPort) {
  Fd taken = bound_socket(true);
  boost::asio::io_context io;
  Relay relay(io, {{1, 2, port_of(taken.get()), 1}});
  const std::string error = relay.start();
  EXPECT_NE(error.find("cannot listen on 127.0.0.1:" + std::to_string(port_of(taken.get()))),
            std::string::npos)
      << error;
}

// Apache's election hello: version, server id, the address's length, the
// address (big-endian).
std::string hello(int64_t version, int64_t id, const std::string& address) {
  std::string out;
  const auto put = [&out](uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>(v >> (8 * i)));
  };
  put(static_cast<uint64_t>(version), 8);
  put(static_cast<uint64_t>(id), 8);
  put(address.size(), 4);
  return out + address;
}

TEST(RelayElectionHelloTest, RewritesThePortsOnceTheHelloIsWhole) {
  using Outcome = HelloRewrite::Outcome;
  const std::string v1 = hello(-65536, 2, "127.0.0.1:40001");
  for (size_t n = 0; n < v1.size(); ++n) {
    EXPECT_EQ(rewrite_election_hello(v1.substr(0, n), 5).outcome, Outcome::kNeedMore) << n;
  }
  HelloRewrite r = rewrite_election_hello(v1 + "frame", 5);
  EXPECT_EQ(r.outcome, Outcome::kRewritten);
  EXPECT_EQ(r.bytes, hello(-65536, 2, "127.0.0.1:5") + "frame");
  // Version 2: every address of the list.
  r = rewrite_election_hello(hello(-65535, 7, "10.0.0.1:1|h:2"), 40999);
  EXPECT_EQ(r.outcome, Outcome::kRewritten);
  EXPECT_EQ(r.bytes, hello(-65535, 7, "10.0.0.1:40999|h:40999"));
  // A pre-3.5 server's id (no address), an unknown version, a length out of
  // bounds: relayed as they are.
  for (const std::string& other :
       {hello(3, 3, "x"), hello(-65534, 3, "a:1"), hello(-65536, 3, "") + std::string(4, 'z')}) {
    r = rewrite_election_hello(other, 5);
    EXPECT_EQ(r.outcome, Outcome::kAsIs);
    EXPECT_EQ(r.bytes, other);
  }
}

TEST(RelayEngineTest, RewritesTheElectionHelloOnALinkWithAHelloPort) {
  Fd target = bound_socket(true);
  ASSERT_GE(target.get(), 0);
  RelayLink link{1, 2, 0, port_of(target.get())};
  link.hello_port = 4242;
  RelayThread relay({link});
  ASSERT_EQ(relay.start_error(), "");
  Fd client = connect_to(relay.port(0));
  ASSERT_GE(client.get(), 0);
  Fd server = accept_one(target);
  ASSERT_GE(server.get(), 0);
  // Sent in two pieces; delivered whole, rewritten, then what follows as is.
  const std::string sent = hello(-65536, 1, "127.0.0.1:31000");
  ASSERT_TRUE(send_all(client, sent.substr(0, 11)));
  ASSERT_TRUE(relay.wait_stats([](const RelayStats& s) { return s.read_bytes >= 11; }));
  ASSERT_TRUE(send_all(client, sent.substr(11) + "vote"));
  const std::string expected = hello(-65536, 1, "127.0.0.1:4242") + "vote";
  EXPECT_EQ(receive(server, expected.size()).bytes, expected);
  ASSERT_TRUE(send_all(client, "more"));
  EXPECT_EQ(receive(server, 4).bytes, "more");
  ASSERT_TRUE(send_all(server, "back"));
  EXPECT_EQ(receive(client, 4).bytes, "back");
}

TEST(RelayLinksTest, WritesAndReadsLinksWithAndWithoutAHelloPort) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("relay_links_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<RelayLink> links = {{1, 2, 1001, 2001}, {1, 2, 1002, 2002, 1001}};
  ASSERT_EQ(write_relay_links(dir, links), "");
  std::string error;
  EXPECT_EQ(read_relay_links(dir, error), links) << error;
  for (const char* bad :
       {"1 2 3\n", "2 1 3 4\n", "1 2 3 4 x\n", "1 2 3 4 5 6\n", "1 2 3 4 0\n", "1 2 3 70000\n"}) {
    std::ofstream(relay_links_path(dir), std::ios::trunc) << bad;
    EXPECT_FALSE(read_relay_links(dir, error)) << bad;
    EXPECT_NE(error.find("not a link"), std::string::npos) << error;
  }
  std::filesystem::remove_all(dir);
}

TEST(RelayControlTest, GetAndSetThroughTheControlPort) {
  RelayThread relay({{1, 2, 0, 1}, {1, 3, 0, 1}, {2, 3, 0, 1}});
  std::vector<std::string> logged;
  // Made, used and destroyed on the relay's thread.
  std::unique_ptr<RelayControl> control = relay.run([&] {
    return std::make_unique<RelayControl>(relay.io(), relay.relay(),
                                          [&](const std::string& l) { logged.push_back(l); });
  });
  struct Destroy {
    RelayThread& relay;
    std::unique_ptr<RelayControl>& control;
    ~Destroy() {
      relay.run([this] { control.reset(); });
    }
  } destroy{relay, control};
  ASSERT_EQ(relay.run([&] { return control->start(); }), "");
  const uint16_t port = relay.run([&] { return control->port(); });

  std::string error;
  auto now = control_get(port, kDeadline, error);
  ASSERT_TRUE(now) << error;
  EXPECT_EQ(*now, NetworkFaults{});

  const NetworkFaults faults{{{1, 3}, {2, 3}}, {{2, 50ms}}};
  now = control_set(port, faults, kDeadline, error);
  ASSERT_TRUE(now) << error;
  EXPECT_EQ(*now, faults);
  // Applied before the answer.
  EXPECT_EQ(relay.run([&] { return relay.relay().faults(); }), faults);
  now = control_get(port, kDeadline, error);
  ASSERT_TRUE(now) << error;
  EXPECT_EQ(*now, faults);
  EXPECT_EQ(relay.run([&] { return logged; }),
            std::vector<std::string>{"faults now cut 1-3 2-3; slow 2 +50ms"});
}

TEST(NetworkFaultsTest, TextFormRoundTripsAndRejectsOtherText) {
  const NetworkFaults faults{{{1, 2}, {2, 5}}, {{3, 50ms}, {4, 1000ms}}};
  EXPECT_EQ(format_faults(faults), "cut=1-2,2-5 slow=3:50,4:1000");
  EXPECT_EQ(parse_faults(format_faults(faults)), faults);
  EXPECT_EQ(format_faults({}), "cut= slow=");
  EXPECT_EQ(parse_faults("cut= slow="), NetworkFaults{});
  EXPECT_EQ(describe_faults(faults), "cut 1-2 2-5; slow 3 +50ms 4 +1000ms");
  EXPECT_EQ(describe_faults({}), "none");
  for (const char* bad : {"", "cut=", "slow= cut=", "cut=2-1 slow=", "cut=1-1 slow=",
                          "cut=1-2,1-2 slow=", "cut= slow=3:0", "cut= slow=3:5,3:6",
                          "cut=1-2, slow=", "cut= slow=x:5", "cut= slow= ", "cut=0-1 slow="}) {
    EXPECT_FALSE(parse_faults(bad)) << bad;
  }
}

}  // namespace
}  // namespace zk::lab
