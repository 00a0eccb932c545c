// SPDX-License-Identifier: Apache-2.0
#include "zkd/peer/peer_transport.h"

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/system/errc.hpp>
#include <deque>
#include <exception>
#include <limits>
#include <set>
#include <tuple>
#include <utility>

#include "libzk/wire/jute.h"
#include "zkd/clock/real_time.h"
#include "zkd/log/log.h"
#include "zkd/net/asio_text.h"
#include "zkd/net/backoff.h"
#include "zkd/net/listen.h"
#include "zkd/net/pause.h"
#include "zkd/net/tls_detect.h"
#include "zkd/net/wake_up.h"

namespace zkd::net {

namespace asio = boost::asio;
using asio::as_tuple;
using asio::use_awaitable;
using tcp = asio::ip::tcp;
using zab::ServerId;

namespace {

// How long a dial may take to connect, and a new connection to exchange hellos.
constexpr std::chrono::seconds kHandshakeTimeout{10};
constexpr size_t kFrameHeaderSize = 4;

// One TCP connection to a peer. A dialed link knows its peer from the start;
// an accepted one learns it from the hello. Either carries packets only once
// `up` (hellos exchanged).
struct Link {
  Link(tcp::socket s, ServerId peer_id, bool was_dialed, std::unique_ptr<Timer> hello)
      : socket(std::move(s)),
        peer(peer_id),
        dialed(was_dialed),
        writer_wakeup(socket.get_executor()),
        hello_timer(std::move(hello)) {}

  tcp::socket socket;
  ServerId peer;  // 0 until an accepted link's hello
  bool dialed;
  bool open = true;
  bool up = false;  // stays true after close: the link did carry packets
  std::string remote;
  std::string close_reason;
  std::deque<std::string> queue;  // whole frames, the hello first
  uint64_t queued_bytes = 0;      // queued or being written
  bool wake_posted = false;       // queue_frame posted a wake-up that has not run yet
  WakeUp writer_wakeup;
  std::unique_ptr<Timer> hello_timer;
  // TLS: `secured` once the handshake is done (at once without TLS); the
  // writer waits for it. `dialed_host` is what a dialed link's certificate
  // must name.
  bool secured = true;
  std::string dialed_host;
  // Quorum SASL: the peer's hello arrived; `auth` runs the exchange until
  // the link is up (empty without SASL).
  bool hello_seen = false;
  PeerAuthExchange auth;
  // An acceptor that offers no SASL drops the dialer's first token, sent
  // before the dialer learned that.
  bool drop_first_auth = false;
  std::shared_ptr<asio::ssl::context> tls_context;  // kept while `tls` uses it
  std::unique_ptr<asio::ssl::stream<tcp::socket&>> tls;
};

namespace {

constexpr std::chrono::milliseconds kRefusalLogInterval = std::chrono::minutes(1);

}  // namespace

// Reconnects to one peer with a smaller id.
struct Dialer {
  Dialer(asio::io_context& io, PeerAddress peer_address, const TimerFactory& new_timer)
      : address(std::move(peer_address)),
        resolver(io),
        socket(io),
        backoff(new_timer(), io.get_executor()),
        connect_timer(new_timer()),
        link_closed(io.get_executor()) {}

  PeerAddress address;
  tcp::resolver resolver;
  tcp::socket socket;  // while connecting
  Pause backoff;
  std::unique_ptr<Timer> connect_timer;
  WakeUp link_closed;            // notified when the dialed link closes
  uint64_t connect_attempt = 0;  // tells a late connect timeout it is stale
  bool connect_timed_out = false;
};

}  // namespace

struct PeerTransport::Impl : std::enable_shared_from_this<Impl> {
  Impl(asio::io_context& io_context, ServerId self_id, std::vector<PeerAddress> addresses,
       Receive receive_fn, PeerTransportOptions opts)
      : io(io_context),
        self(self_id),
        receive(std::move(receive_fn)),
        options(opts),
        new_timer(options.new_timer ? options.new_timer : TimerFactory([&io = io_context] {
          return new_real_timer(io);
        })),
        clock(options.clock != nullptr ? *options.clock : real_clock()),
        acceptor(io_context),
        accept_retry(new_timer(), io_context.get_executor()),
        listen_resolver(io_context),
        listen_retry(new_timer(), io_context.get_executor()) {
    for (auto& a : addresses) peers[a.id] = std::move(a);
  }

  boost::system::error_code start();
  void add_peer(PeerAddress address);
  void start_dialer(const PeerAddress& address);
  void send(PeerPacket packet);
  void stop();

  asio::awaitable<void> accept_loop();
  // This server's own host did not resolve at start(): resolves it again
  // (and binds) after each back-off, logging each failure, until it
  // listens; then accepts.
  asio::awaitable<void> listen_when_resolved(std::string host, uint16_t port,
                                             boost::system::error_code first);
  asio::awaitable<void> dial_loop(std::shared_ptr<Dialer> dialer);
  asio::awaitable<void> read_loop(std::shared_ptr<Link> link);
  // TLS links: the handshake (an accepted one first tells TLS from plaintext
  // by its first byte) and the certificate checks; false: the link closed.
  asio::awaitable<bool> secure(std::shared_ptr<Link> link);
  // Closes a link whose TLS failed, logging it once a minute per address.
  void refuse(const std::shared_ptr<Link>& link, const std::string& why);
  std::map<std::string, int64_t> refusals_logged;  // steady ms of the last line
  asio::awaitable<void> write_loop(std::shared_ptr<Link> link);

  void start_link(const std::shared_ptr<Link>& link);
  // Queues a frame and wakes the link's writer one handler later, not at
  // once: frames queued while a handler runs (a leader's COMMITs) then leave
  // after the client replies that same handler queued (those writers are
  // woken at once), and still in one write per link.
  void queue_frame(const std::shared_ptr<Link>& link, std::string frame);
  // Handles the buffered input: the hello, then whole frames. False once the
  // link is closed.
  bool consume(const std::shared_ptr<Link>& link, std::string& input);
  bool accept_hello(const std::shared_ptr<Link>& link, std::string_view hello);
  // Takes the link up: the hellos (and any SASL exchange) are through.
  void bring_up(const std::shared_ptr<Link>& link);
  // Handles an auth frame of a link that is not up yet. False once closed.
  bool authenticate(const std::shared_ptr<Link>& link, std::string_view payload);
  // Sends `step`'s token (if any) with `status`; false (link refused) when
  // the step failed.
  bool send_auth(const std::shared_ptr<Link>& link, const PeerAuthStep& step,
                 PeerAuthStatus status);
  bool deliver(const std::shared_ptr<Link>& link, std::string_view payload);
  // Idempotent. Logs "down" when the link was the peer's current one.
  void close_link(const std::shared_ptr<Link>& link, const std::string& reason);
  void spawn(asio::awaitable<void> coroutine, std::shared_ptr<Link> link, const char* what);

  asio::io_context& io;
  const ServerId self;
  std::map<ServerId, PeerAddress> peers;
  Receive receive;
  std::function<void(ServerId)> link_down;
  std::function<void(ServerId)> drained;
  const PeerTransportOptions options;
  const TimerFactory new_timer;  // options.new_timer, or the real one
  Clock& clock;                  // *options.clock, or the real one
  tcp::acceptor acceptor;
  Pause accept_retry;
  tcp::resolver listen_resolver;  // while the own host does not resolve
  Pause listen_retry;
  bool started = false;
  bool stopped = false;
  std::map<ServerId, std::shared_ptr<Dialer>> dialers;
  std::set<std::shared_ptr<Link>> all_links;           // open, up or not
  std::map<ServerId, std::shared_ptr<Link>> up_links;  // the current link per peer
};

boost::system::error_code PeerTransport::Impl::start() {
  namespace errc = boost::system::errc;
  if (started || stopped) return asio::error::already_started;
  auto own = peers.find(self);
  if (own == peers.end()) return errc::make_error_code(errc::invalid_argument);
  const std::string host =
      options.listen_on_all_ips ? std::string(kAllAddresses) : own->second.host;
  tcp::endpoint endpoint;
  const auto ec = listen_on(acceptor, host, own->second.port, endpoint);
  if (ec && !is_resolution_error(ec)) return ec;
  started = true;
  if (ec) {
    spawn(listen_when_resolved(host, own->second.port, ec), nullptr, "listener");
  } else {
    log_info("peer transport of server ", self, " listening on ", endpoint_text(endpoint));
    spawn(accept_loop(), nullptr, "acceptor");
  }
  for (const auto& [id, address] : peers) {
    if (id < self) start_dialer(address);
  }
  return {};
}

void PeerTransport::Impl::start_dialer(const PeerAddress& address) {
  auto dialer = std::make_shared<Dialer>(io, address, new_timer);
  dialers[address.id] = dialer;
  spawn(dial_loop(dialer), nullptr, "dialer");
}

void PeerTransport::Impl::add_peer(PeerAddress address) {
  if (stopped || address.id == self || peers.contains(address.id)) return;
  log_info("peer transport of server ", self, ": server ", address.id, " at ", address.host, ":",
           address.port, " joined the configuration");
  peers[address.id] = address;
  if (started && address.id < self) start_dialer(address);
}

void PeerTransport::Impl::spawn(asio::awaitable<void> coroutine, std::shared_ptr<Link> link,
                                const char* what) {
  // The handler keeps the Impl alive until the coroutine is over.
  asio::co_spawn(io, std::move(coroutine),
                 [impl = shared_from_this(), link = std::move(link), what](std::exception_ptr e) {
                   if (!e) return;
                   std::string text = exception_text(e);
                   log_error("peer transport ", what, " failed: ", text);
                   if (link) impl->close_link(link, std::string(what) + " failed: " + text);
                 });
}

asio::awaitable<void> PeerTransport::Impl::accept_loop() {
  while (!stopped) {
    auto [ec, socket] = co_await acceptor.async_accept(as_tuple(use_awaitable));
    if (stopped) break;
    if (ec) {
      // Out of descriptors and the like: keep the links we have, try again soon.
      log_warn("peer accept failed: ", ec.message());
      co_await accept_retry.wait(options.min_backoff);
      continue;
    }
    auto link = std::make_shared<Link>(std::move(socket), 0, false, new_timer());
    start_link(link);
  }
}

asio::awaitable<void> PeerTransport::Impl::listen_when_resolved(std::string host, uint16_t port,
                                                                boost::system::error_code first) {
  Backoff backoff(options.resolve_min_backoff, options.resolve_max_backoff);
  std::string failure = "cannot resolve its own address " + host + ": " + first.message();
  while (!stopped) {
    const auto delay = backoff.next();
    log_warn("peer transport of server ", self, ": ", failure,
             "; not listening for peers until it does, trying again in ", delay.count(), " ms");
    co_await listen_retry.wait(delay);
    if (stopped) co_return;
    auto [resolve_ec, results] =
        co_await listen_resolver.async_resolve(host, std::to_string(port), as_tuple(use_awaitable));
    if (stopped) co_return;
    if (resolve_ec || results.empty()) {
      const auto why = resolve_ec ? resolve_ec : asio::error::host_not_found;
      failure = "cannot resolve its own address " + host + ": " + why.message();
      continue;
    }
    const tcp::endpoint endpoint = results.begin()->endpoint();
    if (auto bind_ec = listen_at(acceptor, endpoint)) {
      failure =
          "cannot listen on " + endpoint_text(endpoint) + " (" + host + "): " + bind_ec.message();
      continue;
    }
    log_info("peer transport of server ", self, " listening on ", endpoint_text(endpoint), " (",
             host, " resolved)");
    co_await accept_loop();
    co_return;
  }
}

asio::awaitable<void> PeerTransport::Impl::dial_loop(std::shared_ptr<Dialer> d) {
  const PeerAddress& peer = d->address;
  const std::string target = peer.host + ":" + std::to_string(peer.port);
  Backoff backoff(options.min_backoff, options.max_backoff);
  Backoff resolve_backoff(options.resolve_min_backoff, options.resolve_max_backoff);
  bool failure_reported = false;
  while (!stopped) {
    std::string failure;
    auto [resolve_ec, results] = co_await d->resolver.async_resolve(
        peer.host, std::to_string(peer.port), as_tuple(use_awaitable));
    if (stopped) break;
    if (resolve_ec) {
      // Not yet in DNS, say: unreachable like a peer that does not answer,
      // and logged at each attempt, which the back-off spaces out.
      const auto delay = resolve_backoff.next();
      log_info("peer ", peer.id, ": cannot resolve ", peer.host, ": ", resolve_ec.message(),
               "; trying again in ", delay.count(), " ms");
      failure_reported = false;  // what follows, once it resolves, is news
      co_await d->backoff.wait(delay);
      continue;
    }
    resolve_backoff.reset();
    d->socket = tcp::socket(io);
    d->connect_timed_out = false;
    d->connect_timer->arm(kHandshakeTimeout, [d, attempt = ++d->connect_attempt] {
      // Expired as the connect finished (the timer drops a call once
      // cancelled; the attempt number checks it again): nothing to do.
      if (d->connect_attempt != attempt) return;
      d->connect_timed_out = true;
      boost::system::error_code ignored;
      d->socket.close(ignored);
    });
    auto [connect_ec, endpoint] =
        co_await asio::async_connect(d->socket, results, as_tuple(use_awaitable));
    ++d->connect_attempt;
    d->connect_timer->cancel();
    if (stopped) break;
    if (connect_ec) {
      failure = "cannot connect to " + target + ": " +
                (d->connect_timed_out ? std::string("timed out") : connect_ec.message());
    } else {
      auto link = std::make_shared<Link>(std::move(d->socket), peer.id, true, new_timer());
      link->dialed_host = peer.host;
      queue_frame(link, encode_peer_hello(self, static_cast<bool>(options.sasl_client)));
      if (options.sasl_client) {
        link->auth = options.sasl_client(peer.host);
        const PeerAuthStep first = link->auth(std::nullopt);
        if (first.outcome == PeerAuthStep::Outcome::kFailed) {
          failure = "cannot start quorum SASL: " + first.error;
        } else {
          queue_frame(link, encode_peer_auth_frame({PeerAuthStatus::kToken, first.token}));
        }
      }
      if (failure.empty()) {
        start_link(link);
        while (link->open) co_await d->link_closed.wait();
        if (link->up) {
          backoff.reset();
          failure_reported = false;
        } else {
          failure = "connected to " + target + ", then " + link->close_reason;
        }
      }
    }
    if (stopped) break;
    if (!failure.empty() && !failure_reported) {
      // Once per outage, not per attempt.
      log_info("peer ", peer.id, ": ", failure, "; retrying every ", options.min_backoff.count(),
               "..", options.max_backoff.count(), " ms");
      failure_reported = true;
    }
    co_await d->backoff.wait(backoff.next());
  }
}

void PeerTransport::Impl::start_link(const std::shared_ptr<Link>& link) {
  boost::system::error_code ec;
  auto remote = link->socket.remote_endpoint(ec);
  link->remote = ec ? std::string("(unknown address)") : endpoint_text(remote);
  link->socket.set_option(tcp::no_delay(true), ec);
  if (ec) log_warn("peer connection ", link->remote, ": cannot set TCP_NODELAY: ", ec.message());
  all_links.insert(link);
  link->secured = link->dialed ? options.tls_client == nullptr : options.tls_server == nullptr;
  link->hello_timer->arm(kHandshakeTimeout, [impl = shared_from_this(), link] {
    if (!link->open || link->up) return;
    if (!link->dialed) {
      log_warn("closing peer connection from ", link->remote, ": no hello within ",
               kHandshakeTimeout.count(), " s");
    }
    impl->close_link(link, "no hello within the timeout");
  });
  spawn(read_loop(link), link, "reader");
  spawn(write_loop(link), link, "writer");
}

void PeerTransport::Impl::queue_frame(const std::shared_ptr<Link>& link, std::string frame) {
  link->queued_bytes += frame.size();
  link->queue.push_back(std::move(frame));
  if (link->wake_posted) return;
  link->wake_posted = true;
  asio::post(io, [link] {
    link->wake_posted = false;
    link->writer_wakeup.notify();
  });
}

void PeerTransport::Impl::send(PeerPacket packet) {
  if (stopped) return;
  const ServerId to = packet.message.to;
  auto it = up_links.find(to);
  if (it == up_links.end()) return;  // down (or self, or unknown): dropped
  std::shared_ptr<Link> link = it->second;

  std::string frame;
  zk::wire::Writer out(frame);
  size_t start = out.begin_frame();
  append_peer_packet(packet, frame);
  const uint64_t size = frame.size() - kFrameHeaderSize;
  if (size > options.max_packet_bytes || size > std::numeric_limits<uint32_t>::max()) {
    log_warn("dropping a ", zab::to_string(packet.message.type), " of ", size, " bytes for peer ",
             to, ": larger than max_packet_bytes (", options.max_packet_bytes, ")");
    return;
  }
  out.end_frame(start);
  // One packet always fits an empty queue; max_packet_bytes bounds it.
  if (link->queued_bytes > 0 && link->queued_bytes + frame.size() > options.max_queued_bytes) {
    log_warn("link to peer ", to, ": ", link->queued_bytes,
             " bytes not yet written and the peer is not reading (max_queued_bytes ",
             options.max_queued_bytes, "); closing the link");
    close_link(link, "send queue full");
    return;
  }
  queue_frame(link, std::move(frame));
}

asio::awaitable<void> PeerTransport::Impl::write_loop(std::shared_ptr<Link> link) {
  std::vector<std::string> batch;
  std::vector<asio::const_buffer> buffers;
  while (link->open) {
    if (link->queue.empty() || !link->secured) {
      co_await link->writer_wakeup.wait();  // queue_frame(), secured, closed; the loop re-checks
      continue;
    }
    batch.clear();
    buffers.clear();
    uint64_t batch_bytes = 0;
    while (!link->queue.empty()) {
      batch_bytes += link->queue.front().size();
      batch.push_back(std::move(link->queue.front()));
      link->queue.pop_front();
    }
    if (link->tls && batch.size() > 1) {
      // One TLS record per write_some: join the batch so it goes out whole.
      std::string joined;
      for (const auto& frame : batch) joined += frame;
      batch.assign(1, std::move(joined));
    }
    for (const auto& frame : batch) buffers.emplace_back(asio::buffer(frame));
    std::tuple<boost::system::error_code, size_t> written;
    if (link->tls) {
      written = co_await asio::async_write(*link->tls, buffers, as_tuple(use_awaitable));
    } else {
      written = co_await asio::async_write(link->socket, buffers, as_tuple(use_awaitable));
    }
    auto [ec, n] = written;
    if (ec) {
      close_link(link, "write failed: " + ec.message());
      break;
    }
    if (link->open) link->queued_bytes -= batch_bytes;
    if (link->open && link->up && link->queue.empty() && drained && !stopped) {
      asio::post(io, [self = shared_from_this(), peer = link->peer] {
        if (!self->stopped && self->drained) self->drained(peer);
      });
    }
  }
}

void PeerTransport::Impl::refuse(const std::shared_ptr<Link>& link, const std::string& why) {
  // A refused peer retries every max_backoff: one line per address a minute.
  const std::string address = link->remote.substr(0, link->remote.rfind(':'));
  const int64_t now = clock.steady_ms();
  auto [it, first] = refusals_logged.try_emplace(address, now);
  if (first || now - it->second >= kRefusalLogInterval.count()) {
    it->second = now;
    log_warn("refusing peer connection ", link->dialed ? "to " : "from ", link->remote, ": ", why);
  }
  close_link(link, why);
}

asio::awaitable<bool> PeerTransport::Impl::secure(std::shared_ptr<Link> link) {
  if (!link->dialed) {
    const FirstByte first = co_await peek_first_byte(link->socket);
    if (!link->open) co_return false;
    if (first == FirstByte::kGone) {
      close_link(link, "closed by the peer");
      co_return false;
    }
    if (first == FirstByte::kOther) {
      if (!options.tls_optional) {
        refuse(link, "plaintext on a TLS quorum port (sslQuorum)");
        co_return false;
      }
      link->secured = true;  // a plaintext peer on a unified port
      link->writer_wakeup.notify();
      co_return true;
    }
    options.tls_server->reload_if_changed();
  }
  link->tls_context = link->dialed ? options.tls_client : options.tls_server->context();
  link->tls = std::make_unique<asio::ssl::stream<tcp::socket&>>(link->socket, *link->tls_context);
  auto [ec] = co_await link->tls->async_handshake(
      link->dialed ? asio::ssl::stream_base::client : asio::ssl::stream_base::server,
      as_tuple(use_awaitable));
  if (!link->open) co_return false;
  if (ec) {
    refuse(link, "TLS handshake failed: " + ec.message());
    co_return false;
  }
  X509* certificate = SSL_get0_peer_certificate(link->tls->native_handle());
  if (certificate == nullptr) {
    refuse(link, "the peer presented no certificate");
    co_return false;
  }
  if (link->dialed ? options.verify_host : options.verify_client_host) {
    const std::string host =
        link->dialed ? link->dialed_host : link->remote.substr(0, link->remote.rfind(':'));
    if (!certificate_names(certificate, host)) {
      refuse(link, "its certificate (" + x509_subject(certificate) + ") does not name " + host +
                       " (ssl.quorum.hostnameVerification)");
      co_return false;
    }
  }
  link->secured = true;
  link->writer_wakeup.notify();
  co_return true;
}

asio::awaitable<void> PeerTransport::Impl::read_loop(std::shared_ptr<Link> link) {
  if (!link->secured && !co_await secure(link)) co_return;
  std::array<char, 64 * 1024> chunk;
  std::string input;
  while (link->open) {
    std::tuple<boost::system::error_code, size_t> got;
    if (link->tls) {
      got = co_await link->tls->async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    } else {
      got = co_await link->socket.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    }
    auto [ec, n] = got;
    if (ec) {
      close_link(link, ec == asio::error::eof || ec == asio::ssl::error::stream_truncated
                           ? "closed by the peer"
                           : ec.message());
      break;
    }
    if (!link->open) break;
    input.append(chunk.data(), n);
    if (!consume(link, input)) break;
  }
}

bool PeerTransport::Impl::consume(const std::shared_ptr<Link>& link, std::string& input) {
  size_t offset = 0;
  if (!link->hello_seen) {
    if (input.size() < kPeerHelloSize) return true;
    if (!accept_hello(link, std::string_view(input).substr(0, kPeerHelloSize))) return false;
    offset = kPeerHelloSize;
  }
  while (link->open && !stopped) {
    std::string_view rest = std::string_view(input).substr(offset);
    if (rest.size() < kFrameHeaderSize) break;
    zk::wire::Reader header(rest.substr(0, kFrameHeaderSize));
    const uint64_t length = static_cast<uint32_t>(header.int32());
    const uint64_t limit = link->up ? options.max_packet_bytes : kMaxPeerAuthFrame;
    if (length > limit) {
      log_warn("link to peer ", link->peer, ": a frame of ", length, " bytes exceeds ",
               link->up ? "max_packet_bytes (" : "what an auth frame may hold (", limit, ")");
      close_link(link, "oversized frame");
      return false;
    }
    if (rest.size() - kFrameHeaderSize < length) break;
    offset += kFrameHeaderSize + length;
    const std::string_view payload = rest.substr(kFrameHeaderSize, length);
    if (std::exchange(link->drop_first_auth, false)) {
      PeerAuth ignored;
      if (decode_peer_auth(payload, ignored)) continue;
    }
    if (!(link->up ? deliver(link, payload) : authenticate(link, payload))) return false;
  }
  input.erase(0, offset);
  return link->open && !stopped;
}

bool PeerTransport::Impl::deliver(const std::shared_ptr<Link>& link, std::string_view payload) {
  PeerPacket packet;
  if (!decode_peer_packet(payload, packet)) {
    log_warn("link to peer ", link->peer, ": a frame of ", payload.size(),
             " bytes is not a peer packet of this version");
    close_link(link, "undecodable frame");
    return false;
  }
  if (packet.message.from != link->peer || packet.message.to != self) {
    log_warn("link to peer ", link->peer, ": a packet (", zab::to_string(packet.message.type),
             ") claims to be from ", packet.message.from, " to ", packet.message.to);
    close_link(link, "misaddressed packet");
    return false;
  }
  receive(std::move(packet));
  return true;
}

bool PeerTransport::Impl::accept_hello(const std::shared_ptr<Link>& link, std::string_view hello) {
  ServerId id = 0;
  bool sasl = false;
  if (!decode_peer_hello(hello, id, sasl)) {
    log_warn("closing peer connection ", link->dialed ? "to " : "from ", link->remote,
             ": not a zkd peer hello (wrong magic or protocol version)");
    close_link(link, "no valid hello");
    return false;
  }
  if (link->dialed) {
    if (id != link->peer) {
      log_warn("closing peer connection to ", link->remote, ": expected server ", link->peer,
               ", it says it is server ", id);
      close_link(link, "wrong server");
      return false;
    }
  } else {
    if (id == self) {
      log_warn("closing peer connection from ", link->remote, ": it claims this server's id ", id);
      close_link(link, "own id");
      return false;
    }
    if (id < self) {
      log_warn("closing peer connection from ", link->remote, ": server ", id,
               " has a smaller id than this server (", self,
               ") and must not dial it; check the configuration");
      close_link(link, "dialed by a smaller id");
      return false;
    }
    if (!peers.contains(id)) {
      // A server joining the ensemble (or removed from it) follows without
      // a vote until a reconfiguration names it (docs/zab.md, "Join, then
      // vote"). It dials: its id is larger.
      log_info("peer connection from ", link->remote, ": server ", id,
               " is not in the configuration; taking it as a joining server");
    }
    link->peer = id;
    if (!sasl && options.sasl_required_by_acceptor) {
      refuse(link, "server " + std::to_string(id) +
                       " does not authenticate with SASL (quorum.auth.serverRequireSasl)");
      return false;
    }
    queue_frame(link, encode_peer_hello(self));
    if (sasl && options.sasl_server) {
      link->auth = options.sasl_server();  // up once the exchange completes
    } else if (sasl) {
      queue_frame(link, encode_peer_auth_frame({PeerAuthStatus::kNotOffered, std::nullopt}));
      link->drop_first_auth = true;
    }
  }
  link->hello_seen = true;
  if (link->auth) return true;  // SASL first
  bring_up(link);
  return true;
}

bool PeerTransport::Impl::send_auth(const std::shared_ptr<Link>& link, const PeerAuthStep& step,
                                    PeerAuthStatus status) {
  if (step.outcome == PeerAuthStep::Outcome::kFailed) {
    refuse(link,
           "quorum SASL with server " + std::to_string(link->peer) + " failed: " + step.error);
    return false;
  }
  if (step.token || status != PeerAuthStatus::kToken) {
    queue_frame(link, encode_peer_auth_frame({status, step.token}));
  }
  return true;
}

bool PeerTransport::Impl::authenticate(const std::shared_ptr<Link>& link,
                                       std::string_view payload) {
  PeerAuth auth;
  if (!decode_peer_auth(payload, auth)) {
    refuse(link, "server " + std::to_string(link->peer) +
                     " sent something other than quorum SASL before authenticating");
    return false;
  }
  if (!link->dialed) {  // the acceptor: the dialer's tokens
    if (auth.status != PeerAuthStatus::kToken) {
      refuse(link, "unexpected quorum SASL status from server " + std::to_string(link->peer));
      return false;
    }
    const PeerAuthStep step = link->auth(auth.token.value_or(""));
    const bool complete = step.outcome == PeerAuthStep::Outcome::kComplete;
    if (!send_auth(link, step, complete ? PeerAuthStatus::kComplete : PeerAuthStatus::kToken)) {
      return false;
    }
    if (!complete) return true;
    log_info("peer ", link->peer, " authenticated with quorum SASL as ", step.who);
    link->auth = nullptr;
    bring_up(link);
    return link->open;
  }
  // The dialer: the acceptor's answers.
  if (auth.status == PeerAuthStatus::kNotOffered) {
    if (options.sasl_required_by_dialer) {
      refuse(link, "server " + std::to_string(link->peer) +
                       " offers no quorum SASL (quorum.auth.learnerRequireSasl)");
      return false;
    }
    log_warn("link to peer ", link->peer,
             ": it offers no quorum SASL; going on unauthenticated (set "
             "quorum.auth.learnerRequireSasl to refuse)");
    link->auth = nullptr;
    bring_up(link);
    return link->open;
  }
  if (auth.token) {
    const PeerAuthStep step = link->auth(std::string_view(*auth.token));
    if (step.outcome == PeerAuthStep::Outcome::kFailed || auth.status == PeerAuthStatus::kToken) {
      if (!send_auth(link, step, PeerAuthStatus::kToken)) return false;
    }
  }
  if (auth.status != PeerAuthStatus::kComplete) return true;
  link->auth = nullptr;
  bring_up(link);
  return link->open;
}

void PeerTransport::Impl::bring_up(const std::shared_ptr<Link>& link) {
  const ServerId id = link->peer;
  link->up = true;
  link->hello_timer->cancel();
  std::shared_ptr<Link>& current = up_links[id];
  std::shared_ptr<Link> old = std::exchange(current, link);
  log_info("link to peer ", id, " up (", link->dialed ? "connected to " : "accepted from ",
           link->remote, old ? ", replacing the previous connection)" : ")");
  if (old) close_link(old, "replaced");
}

void PeerTransport::Impl::close_link(const std::shared_ptr<Link>& link, const std::string& reason) {
  if (!link->open) return;
  link->open = false;
  link->close_reason = reason;
  link->queue.clear();
  link->queued_bytes = 0;
  link->writer_wakeup.notify();
  link->hello_timer->cancel();
  boost::system::error_code ec;
  link->socket.shutdown(tcp::socket::shutdown_both, ec);  // fails harmlessly if already gone
  link->socket.close(ec);
  all_links.erase(link);
  if (link->up) {
    auto it = up_links.find(link->peer);
    if (it != up_links.end() && it->second == link) {
      up_links.erase(it);
      log_info("link to peer ", link->peer, " down: ", reason);
      if (link_down && !stopped) {
        asio::post(io, [self = shared_from_this(), peer = link->peer] {
          if (!self->stopped && self->link_down) self->link_down(peer);
        });
      }
    }
  }
  if (link->dialed) {
    auto it = dialers.find(link->peer);
    if (it != dialers.end()) it->second->link_closed.notify();
  }
}

void PeerTransport::Impl::stop() {
  if (stopped) return;
  stopped = true;
  boost::system::error_code ec;
  acceptor.close(ec);
  accept_retry.cancel();
  listen_resolver.cancel();
  listen_retry.cancel();
  for (auto& [id, d] : dialers) {
    d->resolver.cancel();
    d->socket.close(ec);
    d->backoff.cancel();
    d->connect_timer->cancel();
    d->link_closed.notify();
  }
  auto links = all_links;  // close_link() erases from all_links
  for (const auto& link : links) close_link(link, "stopping");
}

PeerTransport::PeerTransport(asio::io_context& io, ServerId self, std::vector<PeerAddress> peers,
                             Receive receive, PeerTransportOptions options)
    : impl_(std::make_shared<Impl>(io, self, std::move(peers), std::move(receive), options)) {}

PeerTransport::~PeerTransport() { impl_->stop(); }

boost::system::error_code PeerTransport::start() { return impl_->start(); }

void PeerTransport::send(PeerPacket packet) { impl_->send(std::move(packet)); }

void PeerTransport::add_peer(PeerAddress address) { impl_->add_peer(std::move(address)); }

void PeerTransport::stop() { impl_->stop(); }

void PeerTransport::on_link_down(std::function<void(ServerId peer)> down) {
  impl_->link_down = std::move(down);
}

bool PeerTransport::connected(ServerId peer) const { return impl_->up_links.contains(peer); }

void PeerTransport::on_drained(std::function<void(ServerId peer)> drained) {
  impl_->drained = std::move(drained);
}

uint64_t PeerTransport::queued_bytes(ServerId peer) const {
  auto it = impl_->up_links.find(peer);
  return it == impl_->up_links.end() ? 0 : it->second->queued_bytes;
}

}  // namespace zkd::net
