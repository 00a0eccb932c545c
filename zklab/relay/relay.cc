// SPDX-License-Identifier: Apache-2.0
#include "zklab/relay/relay.h"

#include "zklab/relay/election_hello.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <deque>
#include <exception>
#include <list>
#include <tuple>
#include <utility>

namespace zk::lab {

namespace asio = boost::asio;
using asio::as_tuple;
using asio::use_awaitable;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kReadSize = 64 * 1024;
// After an accept error other than closing (e.g. out of descriptors).
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);
// Between two connects to a target that refused (RelayOptions::refused_retry).
constexpr auto kRefusedRetryInterval = std::chrono::milliseconds(25);

struct Chunk {
  Clock::time_point due;
  std::string bytes;
};

// One direction of a connection: its reader queues chunks, its writer
// delivers them when due.
struct Pipe {
  explicit Pipe(const asio::any_io_executor& ex)
      : writer_wakeup(ex), reader_wakeup(ex), due_timer(ex) {}
  std::deque<Chunk> queue;
  size_t queued_bytes = 0;
  bool ended = false;                // the reader saw the end of its stream or an error
  asio::steady_timer writer_wakeup;  // cancelled when the queue or `ended` changes
  asio::steady_timer reader_wakeup;  // cancelled when the queue shrinks
  asio::steady_timer due_timer;      // until the next chunk is due
};

struct Connection {
  explicit Connection(tcp::socket accepted)
      : down(std::move(accepted)),
        up(down.get_executor()),
        to_up(down.get_executor()),
        to_down(down.get_executor()) {}

  Pipe& pipe(bool toward_up) { return toward_up ? to_up : to_down; }
  tcp::socket& source(bool toward_up) { return toward_up ? down : up; }
  tcp::socket& sink(bool toward_up) { return toward_up ? up : down; }

  // Closes one side only (a cut connection: the other side learns nothing);
  // the whole connection once neither side is open.
  void close_side(tcp::socket& side) {
    boost::system::error_code ignored;  // closing a closed socket is harmless here
    side.close(ignored);
    if (!down.is_open() && !up.is_open()) close();
  }

  void close() {
    if (closed) return;
    closed = true;
    boost::system::error_code ignored;
    down.close(ignored);
    up.close(ignored);
    for (Pipe* p : {&to_up, &to_down}) {
      p->writer_wakeup.cancel();
      p->reader_wakeup.cancel();
      p->due_timer.cancel();
    }
  }

  tcp::socket down;  // accepted from the dialing node
  tcp::socket up;    // to the target
  Pipe to_up;
  Pipe to_down;
  bool cut = false;  // silent for good; closed when its link is no longer cut
  bool closed = false;
  // On a link with a hello_port: the dialer's bytes held back until its
  // election hello is whole; `hello_done` once it was passed on.
  std::string hello;
  bool hello_done = false;
};

asio::awaitable<void> wait_for_wakeup(asio::steady_timer& timer) {
  timer.expires_at(Clock::time_point::max());
  co_await timer.async_wait(as_tuple(use_awaitable));  // cancelled: woken
}

// Opens `socket` (to connect it next) with the relay's socket buffer sizes;
// a socket it cannot open or size is left to async_connect (which opens it)
// and the kernel's sizes.
void open_with_small_buffers(tcp::socket& socket) {
  boost::system::error_code ignored;
  socket.open(tcp::v4(), ignored);
  socket.set_option(asio::socket_base::receive_buffer_size(Relay::kSocketBufferBytes), ignored);
  socket.set_option(asio::socket_base::send_buffer_size(Relay::kSocketBufferBytes), ignored);
}

void rethrow(std::exception_ptr e) {
  if (e) std::rethrow_exception(e);
}

}  // namespace

struct Relay::State {
  State(asio::io_context& context, std::vector<RelayLink> l, RelayOptions o)
      : io(context), links(std::move(l)), options(o), connections(links.size()) {}

  bool is_cut(size_t link) const { return faults.cut.contains({links[link].a, links[link].b}); }

  Clock::duration delay(size_t link) const {
    const auto of = [this](int node) {
      const auto it = faults.slow.find(node);
      return it == faults.slow.end() ? std::chrono::milliseconds(0) : it->second;
    };
    return of(links[link].a) + of(links[link].b);
  }

  // What a direction of a connection on `link` may hold before its reader
  // stops reading (relay.h, "Back-pressure").
  size_t queue_limit(size_t link) const {
    return delay(link) > Clock::duration::zero() ? kMaxQueuedBytes : kUndelayedQueuedBytes;
  }

  template <typename Awaitable>
  void spawn(Awaitable&& a) {
    asio::co_spawn(io, std::forward<Awaitable>(a), rethrow);
  }

  static asio::awaitable<void> accept(std::shared_ptr<State> s, size_t link);
  static asio::awaitable<void> connect(std::shared_ptr<State> s, std::shared_ptr<Connection> c,
                                       size_t link);
  static asio::awaitable<void> read(std::shared_ptr<State> s, std::shared_ptr<Connection> c,
                                    size_t link, bool toward_up);
  static asio::awaitable<void> write(std::shared_ptr<State> s, std::shared_ptr<Connection> c,
                                     bool toward_up);

  asio::io_context& io;
  std::vector<RelayLink> links;
  const RelayOptions options;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;          // one per link once started
  std::vector<std::list<std::weak_ptr<Connection>>> connections;  // per link
  NetworkFaults faults;
  RelayStats stats;
  bool stopped = false;
};

asio::awaitable<void> Relay::State::accept(std::shared_ptr<State> s, size_t link) {
  tcp::acceptor& acceptor = *s->acceptors[link];
  asio::steady_timer retry(acceptor.get_executor());
  while (!s->stopped) {
    auto [ec, socket] = co_await acceptor.async_accept(as_tuple(use_awaitable));
    if (s->stopped) co_return;
    if (ec) {
      retry.expires_after(kAcceptRetry);
      co_await retry.async_wait(as_tuple(use_awaitable));
      continue;
    }
    ++s->stats.accepted;
    auto c = std::make_shared<Connection>(std::move(socket));
    auto& list = s->connections[link];
    std::erase_if(list, [](const auto& weak) { return weak.expired(); });
    list.push_back(c);
    if (s->is_cut(link)) {
      c->cut = true;
      s->spawn(read(s, c, link, true));  // drops what it reads
    } else {
      s->spawn(connect(s, c, link));
    }
  }
}

asio::awaitable<void> Relay::State::connect(std::shared_ptr<State> s, std::shared_ptr<Connection> c,
                                            size_t link) {
  const tcp::endpoint target(asio::ip::address_v4::loopback(), s->links[link].target);
  const auto give_up = Clock::now() + s->options.refused_retry;
  open_with_small_buffers(c->up);
  auto [ec] = co_await c->up.async_connect(target, as_tuple(use_awaitable));
  asio::steady_timer retry(c->up.get_executor());
  while (ec == asio::error::connection_refused && !c->closed && !c->cut && !s->stopped &&
         Clock::now() + kRefusedRetryInterval <= give_up) {
    retry.expires_after(kRefusedRetryInterval);
    co_await retry.async_wait(as_tuple(use_awaitable));
    if (c->closed || c->cut || s->stopped) break;
    boost::system::error_code ignored;
    c->up.close(ignored);
    open_with_small_buffers(c->up);
    std::tie(ec) = co_await c->up.async_connect(target, as_tuple(use_awaitable));
  }
  if (c->closed) co_return;
  if (c->cut) {  // cut while connecting
    c->close_side(c->up);
    if (!c->closed) s->spawn(read(s, c, link, true));
    co_return;
  }
  if (ec) {
    c->close();
    co_return;
  }
  // Both hops without Nagle, as zkd's own peer sockets: otherwise small
  // proposals and acks wait for delayed ACKs (tens of ms) on the relay.
  boost::system::error_code ignored;  // a relay without it still relays
  c->down.set_option(tcp::no_delay(true), ignored);
  c->up.set_option(tcp::no_delay(true), ignored);
  for (bool toward_up : {true, false}) {
    s->spawn(read(s, c, link, toward_up));
    s->spawn(write(s, c, toward_up));
  }
}

asio::awaitable<void> Relay::State::read(std::shared_ptr<State> s, std::shared_ptr<Connection> c,
                                         size_t link, bool toward_up) {
  tcp::socket& from = c->source(toward_up);
  Pipe& pipe = c->pipe(toward_up);
  std::vector<char> buf(kReadSize);
  while (!c->closed) {
    if (!c->cut && pipe.queued_bytes >= s->queue_limit(link)) {
      co_await wait_for_wakeup(pipe.reader_wakeup);
      continue;
    }
    auto [ec, n] = co_await from.async_read_some(asio::buffer(buf), as_tuple(use_awaitable));
    if (c->closed) co_return;
    s->stats.read_bytes += n;
    if (ec) {
      if (c->cut) {
        c->close_side(from);
      } else {
        pipe.ended = true;
        pipe.writer_wakeup.cancel();
      }
      co_return;
    }
    if (c->cut) {
      s->stats.dropped_bytes += n;
      continue;
    }
    std::string chunk(buf.data(), n);
    if (toward_up && s->links[link].hello_port != 0 && !c->hello_done) {
      // The hello goes on in one chunk, as one write: Apache reads its
      // address with a single read().
      c->hello += chunk;
      HelloRewrite r = rewrite_election_hello(c->hello, s->links[link].hello_port);
      if (r.outcome == HelloRewrite::Outcome::kNeedMore) continue;
      c->hello_done = true;
      c->hello.clear();
      chunk = std::move(r.bytes);
    }
    const size_t size = chunk.size();
    pipe.queue.push_back({Clock::now() + s->delay(link), std::move(chunk)});
    pipe.queued_bytes += size;
    pipe.writer_wakeup.cancel();
  }
}

asio::awaitable<void> Relay::State::write(std::shared_ptr<State> s, std::shared_ptr<Connection> c,
                                          bool toward_up) {
  tcp::socket& to = c->sink(toward_up);
  Pipe& pipe = c->pipe(toward_up);
  while (!c->closed) {
    if (c->cut || pipe.queue.empty()) {
      if (!c->cut && pipe.ended) {
        c->close();  // everything read before the end is delivered
        co_return;
      }
      co_await wait_for_wakeup(pipe.writer_wakeup);
      continue;
    }
    if (const auto due = pipe.queue.front().due; due > Clock::now()) {
      pipe.due_timer.expires_at(due);
      co_await pipe.due_timer.async_wait(as_tuple(use_awaitable));
      if (c->closed) co_return;
      continue;  // the queue may have changed meanwhile (a cut drops it)
    }
    // Every chunk due by now, in order, in one write.
    std::vector<Chunk> batch;
    size_t batch_bytes = 0;
    const auto now = Clock::now();
    while (!pipe.queue.empty() && pipe.queue.front().due <= now) {
      batch_bytes += pipe.queue.front().bytes.size();
      batch.push_back(std::move(pipe.queue.front()));
      pipe.queue.pop_front();
    }
    pipe.queued_bytes -= batch_bytes;
    pipe.reader_wakeup.cancel();
    std::vector<asio::const_buffer> buffers;
    buffers.reserve(batch.size());
    for (const Chunk& chunk : batch) buffers.push_back(asio::buffer(chunk.bytes));
    auto [ec, n] = co_await asio::async_write(to, buffers, as_tuple(use_awaitable));
    if (c->closed) co_return;
    if (ec) {
      if (!c->cut) c->close();
      co_return;
    }
    s->stats.forwarded_bytes += n;
  }
}

Relay::Relay(asio::io_context& io, std::vector<RelayLink> links, RelayOptions options)
    : state_(std::make_shared<State>(io, std::move(links), options)) {}

Relay::~Relay() { stop(); }

std::string Relay::start() {
  State& s = *state_;
  if (s.stopped || !s.acceptors.empty()) return "the relay was started before";
  for (const auto& link : s.links) {
    auto acceptor = std::make_unique<tcp::acceptor>(s.io);
    const tcp::endpoint endpoint(asio::ip::address_v4::loopback(), link.listen);
    boost::system::error_code ec;
    acceptor->open(endpoint.protocol(), ec);
    if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    // Accepted sockets inherit the listener's buffer sizes.
    if (!ec) acceptor->set_option(asio::socket_base::receive_buffer_size(kSocketBufferBytes), ec);
    if (!ec) acceptor->set_option(asio::socket_base::send_buffer_size(kSocketBufferBytes), ec);
    if (!ec) acceptor->bind(endpoint, ec);
    if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      s.acceptors.clear();
      return "cannot listen on 127.0.0.1:" + std::to_string(link.listen) + " (link " +
             std::to_string(link.a) + "-" + std::to_string(link.b) + "): " + ec.message();
    }
    s.acceptors.push_back(std::move(acceptor));
  }
  for (size_t i = 0; i < s.links.size(); ++i) s.spawn(State::accept(state_, i));
  return {};
}

void Relay::set_faults(const NetworkFaults& faults) {
  State& s = *state_;
  s.faults = faults;
  for (size_t link = 0; link < s.links.size(); ++link) {
    const bool cut = s.is_cut(link);
    for (const auto& weak : s.connections[link]) {
      auto c = weak.lock();
      if (!c || c->closed) continue;
      if (!c->cut) {
        // The queue's limit follows the link's delay: a reader held back
        // by the old one looks again.
        for (Pipe* p : {&c->to_up, &c->to_down}) p->reader_wakeup.cancel();
      }
      if (!cut && c->cut) {
        c->close();
      } else if (cut && !c->cut) {
        c->cut = true;
        for (Pipe* p : {&c->to_up, &c->to_down}) {
          s.stats.dropped_bytes += p->queued_bytes;
          p->queue.clear();
          p->queued_bytes = 0;
          p->reader_wakeup.cancel();  // a reader held back by a full queue drops from now on
        }
      }
    }
    std::erase_if(s.connections[link], [](const auto& weak) { return weak.expired(); });
  }
}

const NetworkFaults& Relay::faults() const { return state_->faults; }

uint16_t Relay::port(size_t index) const {
  return state_->acceptors.at(index)->local_endpoint().port();
}

RelayStats Relay::stats() const { return state_->stats; }

void Relay::stop() {
  State& s = *state_;
  if (s.stopped) return;
  s.stopped = true;
  boost::system::error_code ignored;
  for (auto& acceptor : s.acceptors) acceptor->close(ignored);
  for (auto& list : s.connections) {
    for (const auto& weak : list) {
      if (auto c = weak.lock()) c->close();
    }
    list.clear();
  }
}

}  // namespace zk::lab
