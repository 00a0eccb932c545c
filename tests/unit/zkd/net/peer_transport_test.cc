// SPDX-License-Identifier: Apache-2.0
#include "zkd/peer/peer_transport.h"

#include <gtest/gtest.h>

#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "libzk/wire/jute.h"
#include "tests/common/run_until.h"
#include "tests/common/temp_dir.h"
#include "tests/unit/zkd/net/peer_packet_testing.h"
#include "zkd/storage/simulated_time.h"
#include "zklab/process/certificates.h"
#include "zklab/process/port_reservation.h"

namespace zkd::net {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using tcp = asio::ip::tcp;
using testing::expect_equal_packets;
using testing::full_packet;
using zab::MsgType;
using zab::ServerId;

// A frame as the transport writes it: 4-byte big-endian length, then the bytes.
std::string frame(std::string_view payload) {
  std::string bytes;
  zk::wire::Writer out(bytes);
  size_t start = out.begin_frame();
  bytes.append(payload);
  out.end_frame(start);
  return bytes;
}

// A hand-driven TCP client on the peer port: speaks whatever the test writes.
class RawPeer {
 public:
  RawPeer(asio::io_context& io, uint16_t port) : socket_(io) {
    socket_.connect({asio::ip::make_address("127.0.0.1"), port});
  }
  void write(std::string_view bytes) { asio::write(socket_, asio::buffer(bytes)); }
  // Reads until the transport closes the connection.
  void start_reading() {
    socket_.async_read_some(asio::buffer(chunk_), [this](boost::system::error_code ec, size_t n) {
      if (ec) {
        closed_ = true;
        return;
      }
      input_.append(chunk_.data(), n);
      start_reading();
    });
  }
  bool closed() const { return closed_; }
  const std::string& input() const { return input_; }

 private:
  tcp::socket socket_;
  std::array<char, 4096> chunk_;
  std::string input_;
  bool closed_ = false;
};

class PeerTransportTest : public ::testing::Test {
 protected:
  void configure(int servers) {
    for (ServerId id = 1; id <= static_cast<ServerId>(servers); ++id) {
      port_holds_.push_back(zk::lab::PortReservation::any());
      ASSERT_NE(port_holds_.back().port(), 0);
      addresses_.push_back({id, "127.0.0.1", port_holds_.back().port()});
    }
  }

  uint16_t port_of(ServerId id) const { return addresses_.at(static_cast<size_t>(id - 1)).port; }

  void start(ServerId id) {
    auto transport = std::make_unique<PeerTransport>(
        io_, id, addresses_, [this, id](PeerPacket p) { on_receive(id, std::move(p)); },
        node_options_.contains(id) ? node_options_.at(id) : options_);
    ASSERT_FALSE(transport->start()) << "server " << id;
    nodes_[id] = std::move(transport);
  }

  virtual void on_receive(ServerId at, PeerPacket packet) {
    received_[at].push_back(std::move(packet));
  }

  PeerTransport& node(ServerId id) { return *nodes_.at(id); }

  bool linked(ServerId a, ServerId b) { return node(a).connected(b) && node(b).connected(a); }

  // Runs the io_context until `done` (run_until.h); false at the deadline.
  bool run_until(const std::function<bool()>& done) { return zk::test::run_until(io_, done); }

  void send(ServerId from, ServerId to, uint64_t seq, MsgType type = MsgType::kProposal) {
    node(from).send(full_packet(type, from, to, seq));
  }

  // Both ways over the link a-b: the link carries packets.
  void expect_traffic(ServerId a, ServerId b) {
    size_t at_a = received_[a].size();
    size_t at_b = received_[b].size();
    send(a, b, 1000);
    send(b, a, 2000);
    ASSERT_TRUE(run_until(
        [&] { return received_[a].size() == at_a + 1 && received_[b].size() == at_b + 1; }));
    EXPECT_EQ(received_[b].back().message.request_id, 1000u);
    EXPECT_EQ(received_[a].back().message.request_id, 2000u);
  }

  asio::io_context io_;
  static PeerTransportOptions fast_backoff() {
    PeerTransportOptions options;
    options.min_backoff = 5ms;
    options.max_backoff = 40ms;
    return options;
  }

  PeerTransportOptions options_ = fast_backoff();
  // Runs for `window` and says whether a and b got linked meanwhile: a
  // refusal is the absence of a link, so it is watched for a while.
  bool links_within(ServerId a, ServerId b, std::chrono::milliseconds window) {
    return zk::test::run_until(
        io_, [&] { return linked(a, b); }, window);
  }

  std::map<ServerId, PeerTransportOptions> node_options_;  // overrides options_ per server
  std::vector<zk::lab::PortReservation> port_holds_;       // every server's port, held all along
  std::vector<PeerAddress> addresses_;
  std::map<ServerId, std::vector<PeerPacket>> received_;
  std::map<ServerId, std::unique_ptr<PeerTransport>> nodes_;  // destroyed before io_
};

TEST_F(PeerTransportTest, MessagesFlowBothWaysInOrder) {
  configure(2);
  start(1);
  start(2);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  std::vector<PeerPacket> to_2, to_1;
  for (int t = 0; t <= static_cast<int>(MsgType::kInform); ++t) {
    to_2.push_back(full_packet(static_cast<MsgType>(t), 1, 2, static_cast<uint64_t>(t)));
    to_1.push_back(full_packet(static_cast<MsgType>(t), 2, 1, static_cast<uint64_t>(t)));
    node(1).send(to_2.back());
    node(2).send(to_1.back());
  }
  ASSERT_TRUE(run_until(
      [&] { return received_[1].size() >= to_1.size() && received_[2].size() >= to_2.size(); }));
  ASSERT_EQ(received_[1].size(), to_1.size());
  ASSERT_EQ(received_[2].size(), to_2.size());
  for (size_t i = 0; i < to_1.size(); ++i) {
    expect_equal_packets(to_1[i], received_[1][i]);
    expect_equal_packets(to_2[i], received_[2][i]);
  }
}

TEST_F(PeerTransportTest, SendsToSelfAndToUnknownIdsAreIgnored) {
  configure(2);
  start(1);
  start(2);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  send(1, 1, 1);
  send(1, 9, 2);
  send(1, 2, 3);
  ASSERT_TRUE(run_until([&] { return received_[2].size() == 1; }));
  EXPECT_EQ(received_[2][0].message.request_id, 3u);
  EXPECT_TRUE(received_[1].empty());
}

TEST_F(PeerTransportTest, PipelinedMessagesArriveInOrder) {
  configure(2);
  start(1);
  start(2);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  constexpr uint64_t kCount = 1000;
  for (uint64_t i = 0; i < kCount; ++i) {
    send(1, 2, i);
    send(2, 1, i);
  }
  ASSERT_TRUE(
      run_until([&] { return received_[1].size() >= kCount && received_[2].size() >= kCount; }));
  for (ServerId id : {1, 2}) {
    ASSERT_EQ(received_[id].size(), kCount);
    for (uint64_t i = 0; i < kCount; ++i) ASSERT_EQ(received_[id][i].message.request_id, i);
  }
}

TEST_F(PeerTransportTest, SnapWithLargeAttachmentArrivesWhole) {
  configure(2);
  start(1);
  start(2);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  std::mt19937_64 rng(3);
  std::string snapshot(5 << 20, '\0');
  for (char& c : snapshot) c = static_cast<char>(rng());
  // The leader (either id) sends Snap then Diff; both directions.
  PeerPacket snap = full_packet(MsgType::kSnap, 1, 2, 1, snapshot);
  PeerPacket diff = full_packet(MsgType::kDiff, 1, 2, 2);
  node(1).send(snap);
  node(1).send(diff);
  PeerPacket snap_back = full_packet(MsgType::kSnap, 2, 1, 3, snapshot);
  node(2).send(snap_back);
  ASSERT_TRUE(run_until([&] { return received_[2].size() >= 2 && received_[1].size() >= 1; }));
  ASSERT_EQ(received_[2].size(), 2u);
  expect_equal_packets(snap, received_[2][0]);
  expect_equal_packets(diff, received_[2][1]);
  ASSERT_EQ(received_[1].size(), 1u);
  expect_equal_packets(snap_back, received_[1][0]);
}

TEST_F(PeerTransportTest, ThreeServersLinkEveryPair) {
  configure(3);
  for (ServerId id : {1, 2, 3}) start(id);
  ASSERT_TRUE(run_until([&] { return linked(1, 2) && linked(1, 3) && linked(2, 3); }));
  for (ServerId from : {1, 2, 3}) {
    for (ServerId to : {1, 2, 3}) {
      if (from == to) continue;
      for (uint64_t i = 0; i < 3; ++i) send(from, to, static_cast<uint64_t>(from) * 100 + i);
    }
  }
  ASSERT_TRUE(run_until([&] {
    return received_[1].size() >= 6 && received_[2].size() >= 6 && received_[3].size() >= 6;
  }));
  for (ServerId at : {1, 2, 3}) {
    ASSERT_EQ(received_[at].size(), 6u);
    std::map<ServerId, std::vector<uint64_t>> by_sender;
    for (const auto& p : received_[at]) {
      EXPECT_EQ(p.message.to, at);
      by_sender[p.message.from].push_back(p.message.request_id);
    }
    for (ServerId from : {1, 2, 3}) {
      if (from == at) continue;
      uint64_t base = static_cast<uint64_t>(from) * 100;
      EXPECT_EQ(by_sender[from], (std::vector<uint64_t>{base, base + 1, base + 2}));
    }
  }
}

TEST_F(PeerTransportTest, RestartedDialerRelinksByItself) {
  configure(3);
  for (ServerId id : {1, 2, 3}) start(id);
  ASSERT_TRUE(run_until([&] { return linked(1, 2) && linked(1, 3) && linked(2, 3); }));
  nodes_.erase(3);
  ASSERT_TRUE(run_until([&] { return !node(1).connected(3) && !node(2).connected(3); }));
  start(3);  // the same port
  ASSERT_TRUE(run_until([&] { return linked(1, 3) && linked(2, 3); }));
  expect_traffic(1, 3);
  expect_traffic(2, 3);
}

TEST_F(PeerTransportTest, ALostLinkIsReportedOnceAndStopIsNot) {
  configure(3);
  for (ServerId id : {1, 2, 3}) start(id);
  std::vector<ServerId> down_at_1;
  node(1).on_link_down([&](ServerId peer) { down_at_1.push_back(peer); });
  ASSERT_TRUE(run_until([&] { return linked(1, 2) && linked(1, 3) && linked(2, 3); }));
  nodes_.erase(3);
  ASSERT_TRUE(run_until([&] { return !down_at_1.empty(); }));
  EXPECT_EQ(down_at_1, std::vector<ServerId>{3});
  std::vector<ServerId> down_at_2;
  node(2).on_link_down([&](ServerId peer) { down_at_2.push_back(peer); });
  node(1).stop();
  ASSERT_TRUE(run_until([&] { return down_at_2 == std::vector<ServerId>{1}; }));
  EXPECT_EQ(down_at_1, std::vector<ServerId>{3});  // its own stop() is not reported
}

TEST_F(PeerTransportTest, RestartedAcceptorIsRedialed) {
  configure(3);
  for (ServerId id : {1, 2, 3}) start(id);
  ASSERT_TRUE(run_until([&] { return linked(1, 2) && linked(1, 3) && linked(2, 3); }));
  nodes_.erase(1);
  ASSERT_TRUE(run_until([&] { return !node(2).connected(1) && !node(3).connected(1); }));
  start(1);
  ASSERT_TRUE(run_until([&] { return linked(1, 2) && linked(1, 3); }));
  expect_traffic(1, 2);
  expect_traffic(1, 3);
  EXPECT_TRUE(linked(2, 3));
}

TEST_F(PeerTransportTest, SendsToADownPeerAreDroppedUntilItComesUp) {
  configure(2);
  start(2);
  for (uint64_t i = 0; i < 5; ++i) send(2, 1, i);  // no link yet: dropped
  io_.run_for(30ms);  // time for server 2 to fail to connect a few times; nothing to wait for
  EXPECT_FALSE(node(2).connected(1));
  start(1);
  for (uint64_t i = 5; i < 10; ++i) send(1, 2, i);  // not linked yet either
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  expect_traffic(1, 2);
  ASSERT_EQ(received_[1].size(), 1u);
  ASSERT_EQ(received_[2].size(), 1u);
}

TEST_F(PeerTransportTest, GarbageOnThePeerPortIsClosed) {
  configure(2);
  start(1);
  start(2);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  RawPeer raw(io_, port_of(1));
  raw.start_reading();
  raw.write(std::string(64, 'G'));
  ASSERT_TRUE(run_until([&] { return raw.closed(); }));
  EXPECT_TRUE(raw.input().empty());
  EXPECT_TRUE(linked(1, 2));
  expect_traffic(1, 2);
}

// A server the configuration does not name, with a larger id, is taken: it
// joins (it follows without a vote until a reconfiguration names it). Its
// own id, or a smaller one (which must be dialed, not dial), is closed.
TEST_F(PeerTransportTest, HelloFromOwnOrSmallerIdIsClosedAndAnUnknownLargerOneTaken) {
  configure(2);
  start(1);
  start(2);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  RawPeer joining(io_, port_of(1));
  joining.start_reading();
  joining.write(encode_peer_hello(7));
  RawPeer self(io_, port_of(1));
  self.start_reading();
  self.write(encode_peer_hello(1));
  RawPeer smaller(io_, port_of(2));  // server 1 must not dial server 2
  smaller.start_reading();
  smaller.write(encode_peer_hello(1));
  ASSERT_TRUE(run_until([&] { return self.closed() && smaller.closed(); }));
  EXPECT_TRUE(smaller.input().empty());
  ASSERT_TRUE(run_until([&] { return joining.input().size() >= kPeerHelloSize; }));
  EXPECT_FALSE(joining.closed());
  EXPECT_TRUE(node(1).connected(7));
  EXPECT_TRUE(linked(1, 2));
  expect_traffic(1, 2);
}

// Server 3 is a RawPeer that the test drives; servers 1 and 2 are real.
class PeerTransportRawThirdTest : public PeerTransportTest {
 protected:
  void SetUp() override {
    configure(3);
    start(1);
    start(2);
    ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  }
  // A RawPeer that said hello as server 3 to server 1, and was answered.
  std::unique_ptr<RawPeer> connect_third() {
    auto raw = std::make_unique<RawPeer>(io_, port_of(1));
    raw->start_reading();
    raw->write(encode_peer_hello(3));
    EXPECT_TRUE(run_until([&] { return raw->input().size() >= kPeerHelloSize; }));
    ServerId id = 0;
    bool sasl = true;
    EXPECT_TRUE(decode_peer_hello(raw->input().substr(0, kPeerHelloSize), id, sasl));
    EXPECT_FALSE(sasl);
    EXPECT_EQ(id, 1);
    EXPECT_TRUE(node(1).connected(3));
    return raw;
  }
};

TEST_F(PeerTransportRawThirdTest, PacketsFromAHandWrittenPeerArrive) {
  auto raw = connect_third();
  PeerPacket packet = full_packet(MsgType::kAck, 3, 1, 42);
  raw->write(frame(encode_peer_packet(packet)));
  ASSERT_TRUE(run_until([&] { return !received_[1].empty(); }));
  expect_equal_packets(packet, received_[1][0]);
  // And the other way, framed as documented.
  PeerPacket back = full_packet(MsgType::kCommit, 1, 3, 43);
  node(1).send(back);
  std::string expected = encode_peer_hello(1) + frame(encode_peer_packet(back));
  ASSERT_TRUE(run_until([&] { return raw->input().size() >= expected.size(); }));
  EXPECT_TRUE(raw->input() == expected);
}

class SmallPacketLimitTest : public PeerTransportRawThirdTest {
 protected:
  SmallPacketLimitTest() { options_.max_packet_bytes = 1 << 20; }
};

TEST_F(SmallPacketLimitTest, OversizedFrameClosesThatLinkOnly) {
  auto raw = connect_third();
  // A whole packet just under the limit still arrives.
  PeerPacket big = full_packet(MsgType::kSnap, 3, 1, 1, std::string((1 << 20) - 300, 's'));
  raw->write(frame(encode_peer_packet(big)));
  ASSERT_TRUE(run_until([&] { return !received_[1].empty(); }));
  raw->write(std::string("\x00\x10\x00\x01", 4));  // (1 << 20) + 1: only the length is needed
  ASSERT_TRUE(run_until([&] { return raw->closed(); }));
  EXPECT_FALSE(node(1).connected(3));
  EXPECT_TRUE(linked(1, 2));
  expect_traffic(1, 2);
}

TEST_F(PeerTransportRawThirdTest, UndecodableFrameClosesThatLinkOnly) {
  auto raw = connect_third();
  raw->write(frame("not a packet"));
  ASSERT_TRUE(run_until([&] { return raw->closed(); }));
  EXPECT_FALSE(node(1).connected(3));
  EXPECT_TRUE(received_[1].empty());
  expect_traffic(1, 2);
}

TEST_F(PeerTransportRawThirdTest, MisaddressedPacketClosesThatLinkOnly) {
  auto raw = connect_third();
  raw->write(frame(encode_peer_packet(full_packet(MsgType::kAck, 2, 1, 1))));  // not from 3
  ASSERT_TRUE(run_until([&] { return raw->closed(); }));
  EXPECT_FALSE(node(1).connected(3));
  EXPECT_TRUE(received_[1].empty());
  expect_traffic(1, 2);
}

TEST_F(PeerTransportRawThirdTest, NewConnectionFromAnIdReplacesTheOld) {
  auto first = connect_third();
  auto second = connect_third();
  ASSERT_TRUE(run_until([&] { return first->closed(); }));
  EXPECT_TRUE(node(1).connected(3));
  PeerPacket packet = full_packet(MsgType::kPing, 1, 3, 9);
  node(1).send(packet);
  std::string expected = encode_peer_hello(1) + frame(encode_peer_packet(packet));
  ASSERT_TRUE(run_until([&] { return second->input().size() >= expected.size(); }));
  EXPECT_TRUE(second->input() == expected);
}

class SmallQueueLimitTest : public PeerTransportRawThirdTest {
 protected:
  SmallQueueLimitTest() { options_.max_queued_bytes = 1 << 20; }
};

TEST_F(SmallQueueLimitTest, PeerThatDoesNotReadIsClosedWhenItsQueueFills) {
  auto raw = std::make_unique<RawPeer>(io_, port_of(1));
  raw->write(encode_peer_hello(3));  // and never reads
  ASSERT_TRUE(run_until([&] { return node(1).connected(3); }));
  // A first packet leaves for the peer's socket buffers: the limit counts
  // what waits here, not what was sent.
  PeerPacket small = full_packet(MsgType::kSnap, 1, 3, 1, std::string(64 << 10, 'q'));
  node(1).send(small);
  uint64_t sent_bytes = small.attachment.size();
  ASSERT_TRUE(run_until([&] { return node(1).queued_bytes(3) == 0; }));
  PeerPacket big = full_packet(MsgType::kSnap, 1, 3, 2, std::string(256 << 10, 'q'));
  ASSERT_TRUE(run_until([&] {
    if (!node(1).connected(3)) return true;
    node(1).send(big);
    sent_bytes += big.attachment.size();
    return false;
  }));
  EXPECT_GT(sent_bytes, options_.max_queued_bytes);
  expect_traffic(1, 2);
}

TEST_F(PeerTransportTest, ReceiveIsNotCalledAfterStop) {
  configure(2);
  start(1);
  auto stop_after_first = [this](PeerPacket p) {
    received_[2].push_back(std::move(p));
    node(2).stop();
  };
  auto transport = std::make_unique<PeerTransport>(io_, 2, addresses_, stop_after_first, options_);
  ASSERT_FALSE(transport->start());
  nodes_[2] = std::move(transport);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  for (uint64_t i = 0; i < 10; ++i) send(1, 2, i);
  ASSERT_TRUE(run_until([&] { return !node(1).connected(2); }));
  ASSERT_EQ(received_[2].size(), 1u);
  EXPECT_FALSE(node(2).connected(1));
}

TEST_F(PeerTransportTest, StopLetsTheIoContextRunOut) {
  configure(3);
  for (ServerId id : {1, 2, 3}) start(id);
  ASSERT_TRUE(run_until([&] { return linked(1, 2) && linked(1, 3) && linked(2, 3); }));
  for (uint64_t i = 0; i < 100; ++i) send(3, 1, i);
  for (ServerId id : {1, 2, 3}) node(id).stop();
  // run() returns once no work is left: no timer, socket or dial outlives stop().
  ASSERT_TRUE(run_until([&] { return io_.stopped(); }));
  EXPECT_FALSE(node(1).connected(2));
  EXPECT_TRUE(received_[1].empty());
}

TEST_F(PeerTransportTest, DestroyedWithHandlersPending) {
  configure(2);
  start(1);
  start(2);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  for (uint64_t i = 0; i < 100; ++i) {
    send(1, 2, i);
    send(2, 1, i);
  }
  nodes_.clear();  // the writes, reads and timers are still pending in io_
  ASSERT_TRUE(run_until([&] { return io_.stopped(); }));
  EXPECT_TRUE(received_[1].empty());
  EXPECT_TRUE(received_[2].empty());
}

TEST_F(PeerTransportTest, StartReportsABindError) {
  configure(2);
  tcp::acceptor taken(io_, {asio::ip::make_address("127.0.0.1"), port_of(1)});
  PeerTransport transport(
      io_, 1, addresses_, [](PeerPacket) {}, options_);
  EXPECT_EQ(transport.start(), asio::error::address_in_use);
  PeerTransport not_configured(
      io_, 5, addresses_, [](PeerPacket) {}, options_);
  EXPECT_TRUE(not_configured.start());
}

// Time handed in (options.new_timer, options.clock): the transport's
// deadlines and back-off are simulated here, so they pass only when the test
// moves the time, however long the test takes in real time.
class PeerTransportTimeTest : public PeerTransportTest {
 protected:
  PeerTransportTimeTest() {
    // The factories hold the time too: no timer outlives it.
    options_.new_timer = [time = time_] { return time->new_timer(); };
    options_.clock = time_.get();
  }
  void TearDown() override {
    nodes_.clear();
    io_.restart();
    io_.run_for(5s);  // until the stopped transports' coroutines have ended
  }

  std::shared_ptr<storage::SimulatedTime> time_ = std::make_shared<storage::SimulatedTime>();
};

TEST_F(PeerTransportTimeTest, AConnectionWithoutAHelloIsClosedAfterTenSecondsOfItsTime) {
  configure(1);
  start(1);
  RawPeer silent(io_, port_of(1));
  silent.start_reading();
  ASSERT_TRUE(run_until([&] { return time_->armed() == 1; }));  // its hello deadline
  time_->advance(9999ms);
  EXPECT_FALSE(zk::test::run_until(
      io_, [&] { return silent.closed(); }, 200ms));
  time_->advance(1ms);
  EXPECT_TRUE(run_until([&] { return silent.closed(); }));
}

TEST_F(PeerTransportTimeTest, ADialerRetriesAfterTheBackoffOfItsTime) {
  configure(2);
  start(2);                                            // dials server 1, which does not listen yet
  const int64_t retry_at = time_->steady_us() + 5000;  // min_backoff
  ASSERT_TRUE(run_until([&] { return time_->armed() == 1 && time_->next_deadline() == retry_at; }));
  start(1);
  EXPECT_FALSE(links_within(1, 2, 200ms));  // its time stands still
  time_->advance(5ms);
  EXPECT_TRUE(run_until([&] { return linked(1, 2); }));
  expect_traffic(1, 2);
}

// A name no resolver knows (RFC 6761's .invalid): a pod's own DNS name before
// its record exists.
constexpr const char* kUnresolvable = "zkd-peer-transport-test.invalid";

// The delays between the armed timers of `time`, each fired in turn, while
// `expect` timers stay armed; run_until waits out each resolution, which
// runs on Asio's resolver thread, in real time.
std::vector<std::chrono::milliseconds> retry_delays(
    storage::SimulatedTime& time, const std::function<bool(std::function<bool()>)>& run_until,
    int n) {
  std::vector<std::chrono::milliseconds> out;
  for (int i = 0; i < n; ++i) {
    if (!run_until([&] { return time.armed() == 1; })) break;
    const int64_t delay_us = *time.next_deadline() - time.steady_us();
    out.push_back(std::chrono::milliseconds(delay_us / 1000));
    time.advance(std::chrono::microseconds(delay_us));
    // Until the resolution that followed failed again and re-armed.
    if (!run_until([&] { return time.armed() == 1 && *time.next_deadline() > time.steady_us(); })) {
      break;
    }
  }
  return out;
}

TEST_F(PeerTransportTimeTest, AnOwnHostThatDoesNotResolveIsRetriedWithACappedBackoff) {
  configure(1);
  addresses_[0].host = kUnresolvable;
  start(1);  // not an error: the listener retries
  const auto delays = retry_delays(
      *time_, [this](std::function<bool()> done) { return run_until(done); }, 8);
  EXPECT_EQ(delays, (std::vector<std::chrono::milliseconds>{100ms, 200ms, 400ms, 800ms, 1600ms,
                                                            3200ms, 5000ms, 5000ms}));
  node(1).stop();
  EXPECT_TRUE(run_until([&] { return time_->armed() == 0; }));
}

TEST_F(PeerTransportTimeTest, APeerWhoseNameDoesNotResolveIsRetriedAndNeverGivenUp) {
  configure(2);
  addresses_[0].host = kUnresolvable;  // server 1, which server 2 dials
  start(2);
  const auto delays = retry_delays(
      *time_, [this](std::function<bool()> done) { return run_until(done); }, 8);
  EXPECT_EQ(delays, (std::vector<std::chrono::milliseconds>{100ms, 200ms, 400ms, 800ms, 1600ms,
                                                            3200ms, 5000ms, 5000ms}));
  EXPECT_FALSE(node(2).connected(1));
}

TEST_F(PeerTransportTest, AnOwnHostThatDoesNotResolveStillDialsItsPeers) {
  configure(2);
  // Server 2's own name does not resolve (for itself); server 1 knows it by
  // its address. Server 2 dials server 1, so the link comes up regardless.
  std::vector<PeerAddress> own_view = addresses_;
  own_view[1].host = kUnresolvable;
  start(1);
  auto two = std::make_unique<PeerTransport>(
      io_, 2, own_view, [this](PeerPacket p) { on_receive(2, std::move(p)); }, options_);
  ASSERT_FALSE(two->start());
  nodes_[2] = std::move(two);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  expect_traffic(1, 2);
}

TEST_F(PeerTransportTest, ListenOnAllIpsTakesEveryAddressAndNeedsNoOwnName) {
  configure(2);
  // quorumListenOnAllIPs: server 1 listens on 0.0.0.0 at its port, so its
  // own server line's host need not resolve, and any loopback address
  // reaches it; server 2 dials it at 127.0.0.1.
  std::vector<PeerAddress> own_view = addresses_;
  own_view[0].host = kUnresolvable;
  PeerTransportOptions all = options_;
  all.listen_on_all_ips = true;
  auto one = std::make_unique<PeerTransport>(
      io_, 1, own_view, [this](PeerPacket p) { on_receive(1, std::move(p)); }, all);
  ASSERT_FALSE(one->start());
  nodes_[1] = std::move(one);
  tcp::socket other_address(io_);
  boost::system::error_code ec;
  other_address.connect({asio::ip::make_address("127.0.0.2"), port_of(1)}, ec);
  EXPECT_FALSE(ec) << ec.message();
  other_address.close();
  start(2);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  expect_traffic(1, 2);
}

TEST_F(PeerTransportTest, WithoutListenOnAllIpsOnlyTheOwnAddressIsListenedOn) {
  configure(1);
  start(1);
  tcp::socket other_address(io_);
  boost::system::error_code ec;
  other_address.connect({asio::ip::make_address("127.0.0.2"), port_of(1)}, ec);
  EXPECT_EQ(ec, asio::error::connection_refused);
}

// sslQuorum: links over mutually authenticated TLS. Each server's identity
// is a self-signed certificate naming 127.0.0.1; the trust store holds the
// ones the ensemble trusts.
class PeerTransportTlsTest : public PeerTransportTest {
 protected:
  void SetUp() override {
    trusted_.write_pem(path("trusted.pem"));
    trusted_.write_pem(path("trust.pem"), false);
    rogue_.write_pem(path("rogue.pem"));
  }
  std::string path(const std::string& name) const { return temp_.at(name); }

  // TLS options with the key store `key_store` (trusting only trust.pem).
  PeerTransportOptions tls_options(const std::string& key_store, bool optional = false) {
    TlsSettings settings;
    settings.key_store.location = path(key_store);
    settings.trust_store.location = path("trust.pem");
    PeerTransportOptions options = fast_backoff();
    auto server = TlsServer::open(settings);
    auto client = make_client_context(settings);
    EXPECT_TRUE(server.ok()) << server.status().message();
    EXPECT_TRUE(client.ok()) << client.status().message();
    if (server.ok()) options.tls_server = *server;
    if (client.ok()) options.tls_client = *client;
    options.tls_optional = optional;
    return options;
  }

  zk::test::TempDir temp_{"zkd-peer-tls"};
  zk::lab::Identity trusted_{"server", "127.0.0.1"};
  zk::lab::Identity rogue_{"server", "127.0.0.1"};
};

TEST_F(PeerTransportTlsTest, LinksRunOverMutuallyAuthenticatedTls) {
  configure(3);
  for (ServerId id = 1; id <= 3; ++id) {
    node_options_[id] = tls_options("trusted.pem");
    start(id);
  }
  ASSERT_TRUE(run_until([&] { return linked(1, 2) && linked(1, 3) && linked(2, 3); }));
  expect_traffic(1, 2);
  expect_traffic(3, 1);
}

TEST_F(PeerTransportTlsTest, APeerWithAnUntrustedCertificateIsRefused) {
  configure(2);
  node_options_[1] = tls_options("trusted.pem");
  node_options_[2] = tls_options("rogue.pem");  // not in trust.pem
  start(1);
  start(2);
  EXPECT_FALSE(links_within(1, 2, 500ms));
}

TEST_F(PeerTransportTlsTest, APlaintextPeerIsRefusedOnATlsPort) {
  configure(2);
  node_options_[1] = tls_options("trusted.pem");
  start(1);
  start(2);  // plaintext: dials 1 without TLS
  EXPECT_FALSE(links_within(1, 2, 500ms));
}

TEST_F(PeerTransportTlsTest, PortUnificationTakesPlaintextAndTlsPeers) {
  configure(3);
  node_options_[1] = tls_options("trusted.pem", true);  // accepts both
  node_options_[2] = tls_options("trusted.pem");        // dials 1 over TLS
  node_options_[2].tls_optional = true;                 // and takes 3's plaintext
  start(1);
  start(2);
  start(3);  // plaintext
  ASSERT_TRUE(run_until([&] { return linked(1, 2) && linked(1, 3) && linked(2, 3); }));
  expect_traffic(2, 1);
  expect_traffic(3, 1);
}

// Quorum SASL (quorum.auth.*) through the transport, with a toy mechanism:
// the dialer sends "user:secret", the acceptor completes with "ok" when the
// secret is right. Real DIGEST-MD5 runs in tests/lab/ensemble_quorum_sasl_test.
class PeerTransportSaslTest : public PeerTransportTest {
 protected:
  static PeerAuthExchange dialer(std::string secret) {
    return [secret](std::optional<std::string_view> token) {
      if (!token) return PeerAuthStep{PeerAuthStep::Outcome::kContinue, "peer:" + secret, "", ""};
      if (*token == "ok") return PeerAuthStep{PeerAuthStep::Outcome::kComplete, {}, "", ""};
      return PeerAuthStep{PeerAuthStep::Outcome::kFailed, {}, "", "unexpected answer"};
    };
  }
  static PeerAuthExchange acceptor() {
    return [](std::optional<std::string_view> token) {
      if (token && *token == "peer:secret") {
        return PeerAuthStep{PeerAuthStep::Outcome::kComplete, "ok", "peer", ""};
      }
      return PeerAuthStep{PeerAuthStep::Outcome::kFailed, {}, "", "wrong secret"};
    };
  }
  // Server `id` dials with `secret` (none: no SASL) and accepts with SASL
  // when `serves`.
  void sasl(ServerId id, std::optional<std::string> secret, bool serves) {
    PeerTransportOptions o = options_;
    if (secret) o.sasl_client = [s = *secret](const std::string&) { return dialer(s); };
    if (serves) o.sasl_server = [] { return acceptor(); };
    node_options_[id] = o;
  }
};

TEST_F(PeerTransportSaslTest, PeersThatAuthenticateAreLinked) {
  configure(3);
  for (ServerId id = 1; id <= 3; ++id) {
    sasl(id, "secret", true);
    node_options_[id].sasl_required_by_acceptor = true;
    node_options_[id].sasl_required_by_dialer = true;
    start(id);
  }
  ASSERT_TRUE(run_until([&] { return linked(1, 2) && linked(1, 3) && linked(2, 3); }));
  expect_traffic(1, 2);
  expect_traffic(3, 1);
}

TEST_F(PeerTransportSaslTest, AWrongSecretIsRefused) {
  configure(2);
  sasl(1, "secret", true);
  sasl(2, "guess", true);
  start(1);
  start(2);
  EXPECT_FALSE(links_within(1, 2, 500ms));
}

TEST_F(PeerTransportSaslTest, AnAcceptorThatRequiresSaslRefusesAPlainDialer) {
  configure(2);
  sasl(1, std::nullopt, true);
  node_options_[1].sasl_required_by_acceptor = true;
  start(1);
  start(2);  // dials without SASL
  EXPECT_FALSE(links_within(1, 2, 500ms));
}

TEST_F(PeerTransportSaslTest, ADialerGoesOnWithoutSaslUnlessItRequiresIt) {
  configure(3);
  sasl(2, "secret", false);
  sasl(3, "secret", false);
  node_options_[3].sasl_required_by_dialer = true;
  start(1);  // offers no SASL
  start(2);
  start(3);
  ASSERT_TRUE(run_until([&] { return linked(1, 2); }));
  expect_traffic(2, 1);
  EXPECT_FALSE(links_within(1, 3, 500ms));
}

}  // namespace
}  // namespace zkd::net
