// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_links/apache_transport.h"

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/system/errc.hpp>
#include <deque>
#include <exception>
#include <map>
#include <set>
#include <utility>

#include "zkd/apache_peer/election_wire.h"
#include "zkd/apache_peer/quorum_packet.h"
#include "zkd/apache_peer/snap_stream.h"
#include "zkd/apache_peer/vote_translation.h"
#include "zkd/clock/real_time.h"
#include "zkd/log/log.h"
#include "zkd/net/asio_text.h"
#include "zkd/net/backoff.h"
#include "zkd/net/listen.h"
#include "zkd/net/pause.h"
#include "zkd/net/wake_up.h"

namespace zkd::apache {

namespace asio = boost::asio;
using asio::as_tuple;
using asio::use_awaitable;
using tcp = asio::ip::tcp;
using net::endpoint_text;
using net::exception_text;
using net::log_error;
using net::log_info;
using net::log_warn;
using net::WakeUp;
using zab::ServerId;

namespace {

// How long a dial may take to connect, and an accepted election connection
// to send its hello.
constexpr std::chrono::seconds kHandshakeTimeout{10};

bool is_leader_message(zab::MsgType type) {
  switch (type) {
    case zab::MsgType::kLeaderInfo:
    case zab::MsgType::kTrunc:
    case zab::MsgType::kSnap:
    case zab::MsgType::kSnapChunk:
    case zab::MsgType::kDiff:
    case zab::MsgType::kNewLeader:
    case zab::MsgType::kUpToDate:
    case zab::MsgType::kProposal:
    case zab::MsgType::kCommit:
    case zab::MsgType::kInform:
    case zab::MsgType::kSyncReply:
    case zab::MsgType::kDigest:
      return true;
    default:
      return false;
  }
}

bool is_learner_message(zab::MsgType type) {
  switch (type) {
    case zab::MsgType::kFollowerInfo:
    case zab::MsgType::kAckEpoch:
    case zab::MsgType::kAckNewLeader:
    case zab::MsgType::kAck:
    case zab::MsgType::kPing:
    case zab::MsgType::kRequest:
    case zab::MsgType::kSync:
      return true;
    default:
      return false;
  }
}

// One TCP connection: an election link (its peer known once the hello is
// in), this learner's connection to its leader, or (leading) a learner's
// connection (its peer known once its first packet is in).
struct Conn {
  enum class Kind { kElection, kLearner, kLeader };
  Conn(tcp::socket s, Kind k, ServerId p)
      : socket(std::move(s)), kind(k), peer(p), writer_wakeup(socket.get_executor()) {}

  tcp::socket socket;
  Kind kind;
  ServerId peer;  // 0: an accepted election connection before its hello
  bool open = true;
  std::string remote;
  std::deque<std::string> queue;
  WakeUp writer_wakeup;
  std::string input;
  std::unique_ptr<Timer> hello_timer;
  // kLearner: the translation, and the SNAP stream while one comes.
  std::unique_ptr<LearnerLink> learner;
  SnapStreamScanner snap_scanner;
  std::string snap;
  // kLearner, while it dials: the wait between two tries (close() ends it).
  std::unique_ptr<net::Pause> redial;
  // kLeader: the translation, and a Snap's state while its chunks come.
  std::unique_ptr<LeaderLink> leader;
  std::optional<zab::Zxid> snap_zxid;
  std::string snap_state;
};

// Redials one election peer with a smaller id.
struct Dialer {
  Dialer(asio::io_context& io, net::PeerAddress peer_address, const TimerFactory& new_timer)
      : address(std::move(peer_address)),
        resolver(io),
        backoff(new_timer(), io.get_executor()),
        link_closed(io.get_executor()) {}
  net::PeerAddress address;
  tcp::resolver resolver;
  net::Pause backoff;
  WakeUp link_closed;
};

}  // namespace

struct ApacheTransport::Impl : std::enable_shared_from_this<Impl> {
  Impl(asio::io_context& io_context, ServerId self_id, std::vector<net::PeerAddress> addresses,
       Receive receive_fn, ApacheTransportOptions opts)
      : io(io_context),
        self(self_id),
        receive(std::move(receive_fn)),
        options(std::move(opts)),
        new_timer(options.new_timer ? options.new_timer : TimerFactory([&io = io_context] {
          return new_real_timer(io);
        })),
        election_acceptor(io_context),
        quorum_acceptor(io_context),
        listen_resolver(io_context),
        listen_retry(new_timer(), io_context.get_executor()) {
    for (auto& a : addresses) peers[a.id] = std::move(a);
  }

  boost::system::error_code start();
  // Both ports on `address`, or neither.
  boost::system::error_code listen(const tcp::endpoint& address);
  void start_accepting();
  // The own host did not resolve at start(): resolves it again (and binds)
  // after each back-off, logging each failure, until it listens.
  asio::awaitable<void> listen_when_resolved(std::string host, boost::system::error_code first);
  void send(net::PeerPacket packet);
  void stop();
  void add_peer(net::PeerAddress address);
  bool connected(ServerId peer) const;

  void spawn(asio::awaitable<void> coroutine, std::shared_ptr<Conn> conn, const char* what);
  asio::awaitable<void> election_accept_loop();
  asio::awaitable<void> quorum_accept_loop();
  asio::awaitable<void> dial_loop(std::shared_ptr<Dialer> dialer);
  // Connects to host:port; a closed socket when it did not (`failure` says why).
  asio::awaitable<tcp::socket> connect(const std::string& host, uint16_t port,
                                       std::string& failure);
  asio::awaitable<void> dial_leader(std::shared_ptr<Conn> conn, net::PeerAddress leader);
  void start_conn(const std::shared_ptr<Conn>& conn);
  asio::awaitable<void> read_loop(std::shared_ptr<Conn> conn);
  asio::awaitable<void> write_loop(std::shared_ptr<Conn> conn);
  void queue(const std::shared_ptr<Conn>& conn, std::string bytes);
  // Handles conn->input; false once the connection is closed.
  bool consume_election(const std::shared_ptr<Conn>& conn);
  bool consume_learner(const std::shared_ptr<Conn>& conn);
  bool consume_leader(const std::shared_ptr<Conn>& conn);
  // A core message for a learner of this leader.
  void send_to_learner(const std::shared_ptr<Conn>& conn, net::PeerPacket packet);
  void deliver(std::vector<net::PeerPacket>& packets);
  void close(const std::shared_ptr<Conn>& conn, const std::string& reason);
  void start_learning(const zab::Message& follower_info);
  // Asks server `peer` (a larger id) to dial this one: a connection that
  // carries only the hello (Apache's smaller servers do the same).
  void poke(ServerId peer);
  asio::awaitable<void> poke_loop(ServerId peer);

  asio::io_context& io;
  const ServerId self;
  std::map<ServerId, net::PeerAddress> peers;
  Receive receive;
  std::function<void(ServerId)> link_down;
  const ApacheTransportOptions options;
  const TimerFactory new_timer;
  tcp::acceptor election_acceptor;
  tcp::acceptor quorum_acceptor;
  tcp::resolver listen_resolver;  // while the own host does not resolve
  net::Pause listen_retry;
  bool started = false;
  bool stopped = false;
  std::function<void(ServerId)> drained;
  std::map<ServerId, std::shared_ptr<Dialer>> dialers;
  std::map<ServerId, std::shared_ptr<Conn>> election_links;  // up: hello through
  std::shared_ptr<Conn> leader_conn;                         // this learner's, if any
  std::set<ServerId> pokes;                                  // under way
  std::map<ServerId, std::shared_ptr<Conn>> learner_conns;   // leading: by learner
  uint64_t next_attempt = 0;  // the core's handshake number for each learner connection
};

boost::system::error_code ApacheTransport::Impl::listen(const tcp::endpoint& address) {
  const auto& own = peers.at(self);
  const tcp::endpoint election(address.address(), own.election_port);
  const tcp::endpoint quorum(address.address(), own.port);
  if (auto ec = net::listen_at(election_acceptor, election)) return ec;
  if (auto ec = net::listen_at(quorum_acceptor, quorum)) {
    boost::system::error_code ignored;
    election_acceptor.close(ignored);
    return ec;
  }
  log_info("Apache peer protocol: server ", self, " listening on ", endpoint_text(election),
           " (election port) and ", endpoint_text(quorum), " (quorum port)");
  return {};
}

void ApacheTransport::Impl::start_accepting() {
  spawn(election_accept_loop(), nullptr, "election acceptor");
  spawn(quorum_accept_loop(), nullptr, "quorum acceptor");
}

boost::system::error_code ApacheTransport::Impl::start() {
  namespace errc = boost::system::errc;
  if (started || stopped) return asio::error::already_started;
  auto own = peers.find(self);
  if (own == peers.end() || own->second.election_port == 0) {
    return errc::make_error_code(errc::invalid_argument);
  }
  const std::string host =
      options.listen_on_all_ips ? std::string(net::kAllAddresses) : own->second.host;
  boost::system::error_code ec;
  tcp::resolver resolver(io);
  auto results = resolver.resolve(host, std::to_string(own->second.port), ec);
  if (!ec && results.empty()) ec = asio::error::host_not_found;
  if (!ec) ec = listen(results.begin()->endpoint());
  if (ec && !net::is_resolution_error(ec)) return ec;
  started = true;
  if (ec) {
    spawn(listen_when_resolved(host, ec), nullptr, "listener");
  } else {
    start_accepting();
  }
  for (const auto& [id, address] : peers) {
    if (id < self) add_peer(address);
  }
  return {};
}

asio::awaitable<void> ApacheTransport::Impl::listen_when_resolved(std::string host,
                                                                  boost::system::error_code first) {
  net::Backoff backoff(options.resolve_min_backoff, options.resolve_max_backoff);
  std::string failure = "cannot resolve its own address " + host + ": " + first.message();
  while (!stopped) {
    const auto delay = backoff.next();
    log_warn("Apache peer protocol: server ", self, ": ", failure,
             "; not listening for peers until it does, trying again in ", delay.count(), " ms");
    co_await listen_retry.wait(delay);
    if (stopped) co_return;
    auto [resolve_ec, results] =
        co_await listen_resolver.async_resolve(host, "0", as_tuple(use_awaitable));
    if (stopped) co_return;
    if (resolve_ec || results.empty()) {
      const auto why = resolve_ec ? resolve_ec : asio::error::host_not_found;
      failure = "cannot resolve its own address " + host + ": " + why.message();
      continue;
    }
    if (auto bind_ec = listen(results.begin()->endpoint())) {
      failure = "cannot listen on " + host + ": " + bind_ec.message();
      continue;
    }
    start_accepting();
    co_return;
  }
}

void ApacheTransport::Impl::add_peer(net::PeerAddress address) {
  if (stopped || address.id == self) return;
  peers.try_emplace(address.id, address);
  if (!started || address.id > self || dialers.contains(address.id)) return;
  auto dialer = std::make_shared<Dialer>(io, peers.at(address.id), new_timer);
  dialers[address.id] = dialer;
  spawn(dial_loop(dialer), nullptr, "election dialer");
}

void ApacheTransport::Impl::spawn(asio::awaitable<void> coroutine, std::shared_ptr<Conn> conn,
                                  const char* what) {
  asio::co_spawn(io, std::move(coroutine),
                 [impl = shared_from_this(), conn = std::move(conn), what](std::exception_ptr e) {
                   if (!e) return;
                   const std::string text = exception_text(e);
                   log_error("Apache peer protocol: ", what, " failed: ", text);
                   if (conn) impl->close(conn, std::string(what) + " failed: " + text);
                 });
}

asio::awaitable<tcp::socket> ApacheTransport::Impl::connect(const std::string& host, uint16_t port,
                                                            std::string& failure) {
  tcp::resolver resolver(io);
  tcp::socket socket(io);
  auto [resolve_ec, results] =
      co_await resolver.async_resolve(host, std::to_string(port), as_tuple(use_awaitable));
  if (resolve_ec) {
    failure = "cannot resolve " + host + ": " + resolve_ec.message();
    co_return socket;
  }
  bool timed_out = false;
  auto timer = new_timer();
  timer->arm(kHandshakeTimeout, [&socket, &timed_out] {
    timed_out = true;
    boost::system::error_code ignored;
    socket.close(ignored);
  });
  auto [ec, endpoint] = co_await asio::async_connect(socket, results, as_tuple(use_awaitable));
  timer->cancel();
  if (ec) {
    failure = "cannot connect to " + host + ":" + std::to_string(port) + ": " +
              (timed_out ? std::string("timed out") : ec.message());
    boost::system::error_code ignored;
    socket.close(ignored);
  }
  co_return socket;
}

asio::awaitable<void> ApacheTransport::Impl::dial_loop(std::shared_ptr<Dialer> d) {
  const net::PeerAddress& peer = d->address;
  auto backoff = options.min_backoff;
  bool failure_reported = false;
  while (!stopped) {
    std::string failure;
    tcp::socket socket = co_await connect(peer.host, peer.election_port, failure);
    if (stopped) break;
    if (socket.is_open()) {
      auto conn = std::make_shared<Conn>(std::move(socket), Conn::Kind::kElection, peer.id);
      const auto& own = peers.at(self);
      queue(conn,
            encode_election_hello(
                {kElectionProtocolV1, self, {own.host + ":" + std::to_string(own.election_port)}}));
      if (auto old = election_links.find(peer.id); old != election_links.end()) {
        close(old->second, "replaced by a new connection");
      }
      election_links[peer.id] = conn;
      start_conn(conn);
      while (conn->open) co_await d->link_closed.wait();
      backoff = options.min_backoff;
      failure_reported = false;
    } else if (!failure_reported) {
      log_info("Apache peer protocol: election port of server ", peer.id, ": ", failure,
               "; retrying every ", options.min_backoff.count(), "..", options.max_backoff.count(),
               " ms");
      failure_reported = true;
    }
    if (stopped) break;
    co_await d->backoff.wait(backoff);
    backoff = std::min(backoff * 2, options.max_backoff);
  }
}

asio::awaitable<void> ApacheTransport::Impl::election_accept_loop() {
  while (!stopped) {
    auto [ec, socket] = co_await election_acceptor.async_accept(as_tuple(use_awaitable));
    if (stopped) break;
    if (ec) {
      log_warn("Apache peer protocol: election accept failed: ", ec.message());
      continue;
    }
    auto conn = std::make_shared<Conn>(std::move(socket), Conn::Kind::kElection, 0);
    conn->hello_timer = new_timer();
    conn->hello_timer->arm(kHandshakeTimeout, [impl = shared_from_this(), conn] {
      if (conn->open && conn->peer == 0) impl->close(conn, "no hello within the timeout");
    });
    start_conn(conn);
  }
}

asio::awaitable<void> ApacheTransport::Impl::quorum_accept_loop() {
  while (!stopped) {
    auto [ec, socket] = co_await quorum_acceptor.async_accept(as_tuple(use_awaitable));
    if (stopped) break;
    if (ec) {
      log_warn("Apache peer protocol: quorum accept failed: ", ec.message());
      continue;
    }
    auto conn = std::make_shared<Conn>(std::move(socket), Conn::Kind::kLeader, 0);
    conn->leader = std::make_unique<LeaderLink>(LeaderLink::Options{
        self, ++next_attempt, options.config_text, options.write_forwarded, options.revalidate});
    conn->hello_timer = new_timer();
    conn->hello_timer->arm(kHandshakeTimeout, [impl = shared_from_this(), conn] {
      if (conn->open && conn->peer == 0) impl->close(conn, "no FOLLOWERINFO within the timeout");
    });
    start_conn(conn);
  }
}

void ApacheTransport::Impl::start_conn(const std::shared_ptr<Conn>& conn) {
  boost::system::error_code ec;
  auto remote = conn->socket.remote_endpoint(ec);
  conn->remote = ec ? std::string("(unknown address)") : endpoint_text(remote);
  conn->socket.set_option(tcp::no_delay(true), ec);
  spawn(read_loop(conn), conn, "reader");
  spawn(write_loop(conn), conn, "writer");
}

void ApacheTransport::Impl::queue(const std::shared_ptr<Conn>& conn, std::string bytes) {
  if (!conn->open) return;
  conn->queue.push_back(std::move(bytes));
  conn->writer_wakeup.notify();
}

asio::awaitable<void> ApacheTransport::Impl::write_loop(std::shared_ptr<Conn> conn) {
  std::vector<std::string> batch;
  std::vector<asio::const_buffer> buffers;
  while (conn->open) {
    if (conn->queue.empty()) {
      co_await conn->writer_wakeup.wait();
      continue;
    }
    batch.assign(std::make_move_iterator(conn->queue.begin()),
                 std::make_move_iterator(conn->queue.end()));
    conn->queue.clear();
    buffers.clear();
    for (const auto& bytes : batch) buffers.emplace_back(asio::buffer(bytes));
    auto [ec, n] = co_await asio::async_write(conn->socket, buffers, as_tuple(use_awaitable));
    if (ec) {
      close(conn, "write failed: " + ec.message());
      break;
    }
  }
}

asio::awaitable<void> ApacheTransport::Impl::read_loop(std::shared_ptr<Conn> conn) {
  std::array<char, 64 * 1024> chunk;
  while (conn->open) {
    auto [ec, n] =
        co_await conn->socket.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    if (ec) {
      close(conn, ec == asio::error::eof ? "closed by the peer" : ec.message());
      break;
    }
    if (!conn->open || stopped) break;
    conn->input.append(chunk.data(), n);
    const bool open = conn->kind == Conn::Kind::kElection  ? consume_election(conn)
                      : conn->kind == Conn::Kind::kLearner ? consume_learner(conn)
                                                           : consume_leader(conn);
    if (!open) break;
  }
}

bool ApacheTransport::Impl::consume_election(const std::shared_ptr<Conn>& conn) {
  size_t offset = 0;
  if (conn->peer == 0) {
    ElectionHello hello;
    size_t used = 0;
    std::string error;
    switch (decode_election_hello(conn->input, hello, used, error)) {
      case Decode::kNeedMore:
        return true;
      case Decode::kBad:
        log_warn("Apache peer protocol: election connection from ", conn->remote, ": ", error);
        close(conn, error);
        return false;
      case Decode::kOk:
        break;
    }
    if (hello.server_id == self) {
      log_warn("Apache peer protocol: election connection from ", conn->remote,
               " says it is this server (", self, ")");
      close(conn, "own server id");
      return false;
    }
    if (!peers.contains(hello.server_id) && hello.server_id > self) {
      // A server joining the ensemble (or removed from it) follows without
      // a vote until a reconfiguration names it (docs/zab.md, "Join, then
      // vote"), as Apache's QuorumCnxManager takes any server's connection.
      log_info("Apache peer protocol: election connection from ", conn->remote, ": server ",
               hello.server_id, " is not in the configuration; taking it as a joining server");
    } else if (!peers.contains(hello.server_id)) {
      log_warn("Apache peer protocol: election connection from ", conn->remote,
               " says it is server ", hello.server_id,
               ", not a peer in the configuration, with a smaller id: it joins once the "
               "configuration names it");
      close(conn, "unknown server id");
      return false;
    }
    if (hello.server_id < self) {
      // A smaller server dials to be dialed back (Apache's QuorumCnxManager):
      // the dialer of that server tries now rather than after its back-off.
      close(conn, "a smaller id's connection (this server dials it)");
      if (auto d = dialers.find(hello.server_id); d != dialers.end()) d->second->backoff.cancel();
      return false;
    }
    conn->peer = hello.server_id;
    if (conn->hello_timer) conn->hello_timer->cancel();
    if (auto old = election_links.find(conn->peer); old != election_links.end()) {
      close(old->second, "replaced by a new connection");
    }
    election_links[conn->peer] = conn;
    offset = used;
  }
  std::vector<net::PeerPacket> packets;
  while (conn->open) {
    std::string_view body;
    size_t used = 0;
    const Decode d = next_election_frame(std::string_view(conn->input).substr(offset), body, used);
    if (d == Decode::kNeedMore) break;
    Notification n;
    std::string error;
    if (d == Decode::kBad) {
      error = "a frame length out of bounds";
    } else {
      decode_notification(body, n, error);
    }
    if (!error.empty()) {
      log_warn("Apache peer protocol: election link of server ", conn->peer, ": ", error);
      close(conn, error);
      return false;
    }
    offset += used;
    packets.push_back({from_notification(n, conn->peer, self), {}});
  }
  conn->input.erase(0, offset);
  deliver(packets);
  return conn->open && !stopped;
}

bool ApacheTransport::Impl::consume_learner(const std::shared_ptr<Conn>& conn) {
  LearnerLink& link = *conn->learner;
  std::vector<net::PeerPacket> to_core;
  std::vector<QuorumPacket> to_leader;
  size_t offset = 0;
  std::string error;
  while (conn->open && error.empty()) {
    const std::string_view rest = std::string_view(conn->input).substr(offset);
    if (link.awaiting_snapshot()) {
      const size_t before = conn->snap.size();
      conn->snap.append(rest);
      const Decode d = conn->snap_scanner.scan(conn->snap, error);
      if (d == Decode::kBad) break;
      if (d == Decode::kNeedMore) {
        offset = conn->input.size();
        if (conn->snap.size() > options.max_snapshot_bytes) {
          error = "the leader's snapshot exceeds " + std::to_string(options.max_snapshot_bytes) +
                  " bytes";
        }
        break;
      }
      const size_t end = conn->snap_scanner.end();
      offset += end - before;
      log_info("Apache peer protocol: received the leader's snapshot (", conn->snap_scanner.nodes(),
               " znodes, ", end, " bytes)");
      ConvertedSnapshot converted =
          options.convert_snapshot
              ? options.convert_snapshot(std::string_view(conn->snap).substr(0, end),
                                         link.snapshot_zxid())
              : ConvertedSnapshot{{}, "no snapshot converter"};
      conn->snap.clear();
      conn->snap.shrink_to_fit();
      if (!converted.error.empty()) {
        error = "the leader's snapshot: " + converted.error;
        break;
      }
      link.snapshot_received(std::move(converted.payload), to_core);
      continue;
    }
    QuorumPacket p;
    size_t used = 0;
    const Decode d = decode_quorum_packet(rest, p, used, options.max_packet_data, error);
    if (d != Decode::kOk) break;
    offset += used;
    link.from_leader(p, to_core, to_leader, error);
  }
  conn->input.erase(0, offset);
  for (const QuorumPacket& p : to_leader) queue(conn, encode_quorum_packet(p));
  deliver(to_core);
  if (!error.empty() && conn->open) {
    log_warn("Apache peer protocol: link to leader ", conn->peer, ": ", error);
    close(conn, error);
  }
  return conn->open && !stopped;
}

bool ApacheTransport::Impl::consume_leader(const std::shared_ptr<Conn>& conn) {
  LeaderLink& link = *conn->leader;
  std::vector<net::PeerPacket> to_core;
  std::vector<QuorumPacket> to_learner;
  size_t offset = 0;
  std::string error;
  while (conn->open && error.empty()) {
    QuorumPacket p;
    size_t used = 0;
    const Decode d = decode_quorum_packet(std::string_view(conn->input).substr(offset), p, used,
                                          options.max_packet_data, error);
    if (d != Decode::kOk) break;
    offset += used;
    if (conn->peer != 0) {
      link.from_learner(p, to_core, to_learner, error);
      continue;
    }
    std::optional<zab::Message> info = link.open(p, error);
    if (!info) break;
    if (link.learner() == self) {
      error = "a learner says it is this server (" + std::to_string(self) + ")";
      break;
    }
    conn->peer = link.learner();
    if (conn->hello_timer) conn->hello_timer->cancel();
    // A learner's new connection ends its old one, which is no news to the
    // core: it takes this FollowerInfo as the learner's new handshake.
    if (auto old = learner_conns.find(conn->peer); old != learner_conns.end()) {
      close(std::exchange(old->second, nullptr), "replaced by the learner's new connection");
    }
    learner_conns[conn->peer] = conn;
    log_info("Apache peer protocol: server ", conn->peer, " connected to learn from ",
             conn->remote);
    to_core.push_back({std::move(*info), {}});
  }
  conn->input.erase(0, offset);
  for (const QuorumPacket& p : to_learner) queue(conn, encode_quorum_packet(p));
  deliver(to_core);
  if (!error.empty() && conn->open) {
    log_warn("Apache peer protocol: learner connection from ", conn->remote, ": ", error);
    close(conn, error);
  }
  return conn->open && !stopped;
}

void ApacheTransport::Impl::send_to_learner(const std::shared_ptr<Conn>& conn,
                                            net::PeerPacket packet) {
  const zab::Message& m = packet.message;
  if (m.type == zab::MsgType::kSnap) {
    conn->snap_zxid = m.zxid;
    conn->snap_state = std::move(packet.attachment);  // empty: streamed
    if (conn->snap_state.empty()) return;             // the chunks follow
  } else if (m.type == zab::MsgType::kSnapChunk) {
    if (!conn->snap_zxid) return;
    const bool last = packet.attachment.empty();
    conn->snap_state += packet.attachment;
    if (!last) {
      asio::post(io, [impl = shared_from_this(), peer = conn->peer] {
        if (!impl->stopped && impl->drained) impl->drained(peer);
      });
      return;
    }
  } else {
    std::vector<QuorumPacket> out;
    conn->leader->from_core(m, out);
    for (const QuorumPacket& p : out) queue(conn, encode_quorum_packet(p));
    return;
  }
  // The whole state: SNAP, then the database in Apache's form.
  const zab::Zxid zxid = *conn->snap_zxid;
  conn->snap_zxid.reset();
  ConvertedSnapshot stream = options.snapshot_to_apache
                                 ? options.snapshot_to_apache(conn->snap_state)
                                 : ConvertedSnapshot{{}, "no snapshot writer"};
  conn->snap_state.clear();
  conn->snap_state.shrink_to_fit();
  if (!stream.error.empty()) {
    log_error("Apache peer protocol: cannot send server ", conn->peer,
              " a snapshot: ", stream.error);
    close(conn, "no snapshot to send");
    return;
  }
  log_info("Apache peer protocol: sending server ", conn->peer, " a snapshot at ", net::hex(zxid),
           " (", stream.payload.size(), " bytes)");
  queue(conn, encode_quorum_packet(conn->leader->snap_packet(zxid)));
  queue(conn, std::move(stream.payload));
}

void ApacheTransport::Impl::deliver(std::vector<net::PeerPacket>& packets) {
  for (net::PeerPacket& p : packets) {
    if (stopped) return;
    receive(std::move(p));
  }
}

void ApacheTransport::Impl::close(const std::shared_ptr<Conn>& conn, const std::string& reason) {
  if (!conn->open) return;
  conn->open = false;
  boost::system::error_code ignored;
  conn->socket.close(ignored);
  conn->writer_wakeup.notify();
  if (conn->hello_timer) conn->hello_timer->cancel();
  if (conn->redial) conn->redial->cancel();
  bool was_current = false;
  if (conn->kind == Conn::Kind::kElection && conn->peer != 0) {
    auto it = election_links.find(conn->peer);
    if (it != election_links.end() && it->second == conn) {
      election_links.erase(it);
      was_current = true;
    }
    if (auto d = dialers.find(conn->peer); d != dialers.end()) d->second->link_closed.notify();
  } else if (conn->kind == Conn::Kind::kLeader && conn->peer != 0) {
    auto it = learner_conns.find(conn->peer);
    if (it != learner_conns.end() && it->second == conn) {
      learner_conns.erase(it);
      was_current = true;
      log_info("Apache peer protocol: learner ", conn->peer, " disconnected: ", reason);
    }
  } else if (conn->kind == Conn::Kind::kLearner && leader_conn == conn) {
    leader_conn.reset();
    was_current = true;
    log_info("Apache peer protocol: link to leader ", conn->peer, " closed: ", reason);
  }
  // A learner's leader is down when its connection closes, whatever its
  // election link does (the core then looks for a leader at once).
  const bool learner = conn->kind == Conn::Kind::kLearner;
  if (!was_current || stopped || !link_down || (!learner && connected(conn->peer))) return;
  asio::post(io, [impl = shared_from_this(), peer = conn->peer, learner] {
    if (impl->stopped || !impl->link_down) return;
    if (learner || !impl->connected(peer)) impl->link_down(peer);
  });
}

bool ApacheTransport::Impl::connected(ServerId peer) const {
  if (election_links.contains(peer) || learner_conns.contains(peer)) return true;
  return leader_conn && leader_conn->peer == peer && leader_conn->open;
}

void ApacheTransport::Impl::start_learning(const zab::Message& follower_info) {
  if (leader_conn && leader_conn->peer == follower_info.to &&
      leader_conn->learner->attempt() == follower_info.attempt) {
    return;  // the core resends FollowerInfo until answered: the link opened with it
  }
  // The core has left the old handshake: its connection's end is no news
  // to it (a link_down now would end the new one).
  if (leader_conn) close(std::exchange(leader_conn, nullptr), "a new handshake");
  auto leader = peers.find(follower_info.to);
  if (leader == peers.end()) return;
  auto conn = std::make_shared<Conn>(tcp::socket(io), Conn::Kind::kLearner, follower_info.to);
  conn->learner = std::make_unique<LearnerLink>(LearnerLink::Options{
      self, follower_info.to, options.observer, options.config_version, options.read_forwarded});
  queue(conn, encode_quorum_packet(conn->learner->open(follower_info)));
  conn->redial = std::make_unique<net::Pause>(new_timer(), io.get_executor());
  leader_conn = conn;
  spawn(dial_leader(conn, leader->second), conn, "learner");
}

asio::awaitable<void> ApacheTransport::Impl::dial_leader(std::shared_ptr<Conn> conn,
                                                         net::PeerAddress leader) {
  // A leader opens its quorum port only once it has decided (after Apache's
  // finalizeWait), and this learner may decide first: it tries again, as
  // Apache's learners do, for as long as the core keeps this handshake
  // (initLimit), rather than going back to election at the first refusal.
  auto backoff = options.min_backoff;
  bool failure_logged = false;
  while (conn->open && !stopped) {
    std::string failure;
    tcp::socket socket = co_await connect(leader.host, leader.port, failure);
    if (!conn->open || stopped) co_return;
    if (socket.is_open()) {
      conn->socket = std::move(socket);
      conn->redial.reset();
      log_info("Apache peer protocol: following server ", leader.id, " at ", leader.host, ":",
               leader.port);
      start_conn(conn);
      co_return;
    }
    if (!failure_logged) {
      log_info("Apache peer protocol: leader ", leader.id, ": ", failure, "; retrying");
      failure_logged = true;
    }
    co_await conn->redial->wait(backoff);
    backoff = std::min(backoff * 2, options.max_backoff);
  }
}

void ApacheTransport::Impl::poke(ServerId peer) {
  if (!pokes.insert(peer).second) return;
  spawn(poke_loop(peer), nullptr, "election poke");
}

asio::awaitable<void> ApacheTransport::Impl::poke_loop(ServerId peer) {
  const net::PeerAddress address = peers.at(peer);
  std::string failure;
  tcp::socket socket = co_await connect(address.host, address.election_port, failure);
  if (socket.is_open() && !stopped) {
    const auto& own = peers.at(self);
    // One write: Apache reads the hello's address with a single read().
    const std::string hello = encode_election_hello(
        {kElectionProtocolV1, self, {own.host + ":" + std::to_string(own.election_port)}});
    co_await asio::async_write(socket, asio::buffer(hello), as_tuple(use_awaitable));
    boost::system::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    socket.close(ignored);
  }
  pokes.erase(peer);
}

void ApacheTransport::Impl::send(net::PeerPacket packet) {
  if (stopped) return;
  const zab::Message& m = packet.message;
  if (m.type == zab::MsgType::kVote) {
    auto it = election_links.find(m.to);
    if (it == election_links.end()) {
      // A larger id dials this server; it does once poked (the core resends
      // its vote). A smaller one is being dialed already.
      if (m.to > self && peers.contains(m.to)) poke(m.to);
      return;
    }
    Notification n = to_notification(m, options.observer,
                                     options.config_text ? options.config_text() : std::string());
    // Once its leader and followers agreed on the epoch, a LEADING or
    // FOLLOWING server votes with it (Apache's updateElectionVote): a server
    // joining late counts only votes whose epochs agree.
    if (m.state != zab::PeerState::kLooking && options.agreed_epoch) {
      if (const int64_t epoch = options.agreed_epoch(); epoch != 0) n.peer_epoch = epoch;
    }
    queue(it->second, encode_notification_frame(n));
    return;
  }
  if (m.type == zab::MsgType::kFollowerInfo) {
    start_learning(m);
    return;
  }
  if (auto it = learner_conns.find(m.to);
      it != learner_conns.end() && (is_leader_message(m.type) || m.type == zab::MsgType::kPing)) {
    send_to_learner(it->second, std::move(packet));
    return;
  }
  if (is_learner_message(m.type)) {
    if (!leader_conn || leader_conn->peer != m.to || !leader_conn->open) return;
    std::vector<QuorumPacket> out;
    leader_conn->learner->from_core(m, out);
    for (const QuorumPacket& p : out) queue(leader_conn, encode_quorum_packet(p));
  }
}

void ApacheTransport::Impl::stop() {
  if (stopped) return;
  stopped = true;
  boost::system::error_code ignored;
  election_acceptor.close(ignored);
  quorum_acceptor.close(ignored);
  listen_resolver.cancel();
  listen_retry.cancel();
  for (auto& [id, d] : dialers) {
    d->backoff.cancel();
    d->link_closed.notify();
    d->resolver.cancel();
  }
  std::vector<std::shared_ptr<Conn>> conns;
  for (auto& [id, conn] : election_links) conns.push_back(conn);
  if (leader_conn) conns.push_back(leader_conn);
  for (auto& [id, conn] : learner_conns) conns.push_back(conn);
  for (auto& conn : conns) close(conn, "stopped");
}

ApacheTransport::ApacheTransport(asio::io_context& io, ServerId self,
                                 std::vector<net::PeerAddress> peers, Receive receive,
                                 ApacheTransportOptions options)
    : impl_(std::make_shared<Impl>(io, self, std::move(peers), std::move(receive),
                                   std::move(options))) {}

ApacheTransport::~ApacheTransport() { impl_->stop(); }

boost::system::error_code ApacheTransport::start() { return impl_->start(); }
void ApacheTransport::send(net::PeerPacket packet) { impl_->send(std::move(packet)); }
void ApacheTransport::stop() { impl_->stop(); }
void ApacheTransport::add_peer(net::PeerAddress address) { impl_->add_peer(std::move(address)); }
void ApacheTransport::on_drained(std::function<void(ServerId)> drained) {
  impl_->drained = std::move(drained);
}
void ApacheTransport::on_link_down(std::function<void(ServerId)> down) {
  impl_->link_down = std::move(down);
}
bool ApacheTransport::connected(ServerId peer) const { return impl_->connected(peer); }

}  // namespace zkd::apache
