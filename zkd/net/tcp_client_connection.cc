// SPDX-License-Identifier: Apache-2.0
#include "zkd/net/tcp_client_connection.h"

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <tuple>
#include <utility>
#include <vector>

#include "zkd/log/log.h"
#include "zkd/net/four_letter_word.h"
#include "zkd/net/tls_context.h"
#include "zkd/net/tls_detect.h"

namespace zkd::net {

namespace asio = boost::asio;
using asio::as_tuple;
using asio::use_awaitable;

struct TcpClientConnection::TlsLayer {
  TlsLayer(tcp::socket& socket, std::shared_ptr<asio::ssl::context> ctx)
      : context(std::move(ctx)), stream(socket, *context) {}
  std::shared_ptr<asio::ssl::context> context;  // kept while the stream uses it
  asio::ssl::stream<tcp::socket&> stream;
};

namespace {
// The socket's peer, or an empty endpoint (logged) when it cannot be read.
boost::asio::ip::tcp::endpoint peer_of(const boost::asio::ip::tcp::socket& socket,
                                       ConnectionId id) {
  boost::system::error_code ec;
  auto remote = socket.remote_endpoint(ec);
  if (ec) log_warn("connection ", id, ": cannot read the peer address: ", ec.message());
  return unmapped(remote);
}
}  // namespace

TcpClientConnection::~TcpClientConnection() = default;

TcpClientConnection::TcpClientConnection(tcp::socket socket, ConnectionId id,
                                         ConnectionHandler& handler, ConnectionOptions options,
                                         ConnectionLimiter::Slot slot)
    : ClientConnection(id, peer_of(socket, id)),
      socket_(std::move(socket)),
      handler_(handler),
      options_(options),
      slot_(std::move(slot)),
      writer_wakeup_(socket_.get_executor()),
      reader_wakeup_(socket_.get_executor()),
      handshake_timer_(options_.new_timer()) {}

void TcpClientConnection::start() {
  auto self = std::static_pointer_cast<TcpClientConnection>(shared_from_this());
  coroutines_running_ = 2;
  asio::co_spawn(socket_.get_executor(), read_loop(),
                 [self](std::exception_ptr e) { self->coroutine_ended("reader", e); });
  asio::co_spawn(socket_.get_executor(), write_loop(),
                 [self](std::exception_ptr e) { self->coroutine_ended("writer", e); });
  arm_handshake_timer(options_.handshake_timeout, "no session handshake within the timeout");
}

void TcpClientConnection::arm_handshake_timer(std::chrono::milliseconds within, std::string why) {
  // Re-arming drops the call armed before (clock.h); so do cancel(), when
  // the connection is established or closed, and the timer's destruction.
  handshake_timer_->arm(within,
                        [self = std::static_pointer_cast<TcpClientConnection>(shared_from_this()),
                         why = std::move(why)] {
                          if (!self->established_ && self->state_ == State::kOpen) {
                            log_info("closing connection from ", self->remote_text(), ": ", why);
                            self->handler_.handshake_expired(*self);
                            self->close();
                          }
                        });
}

void TcpClientConnection::hold_handshake(std::chrono::milliseconds within, std::string why) {
  if (state_ != State::kOpen || established_) return;
  arm_handshake_timer(within, std::move(why));
}

void TcpClientConnection::send(std::string bytes) {
  if (state_ != State::kOpen) return;
  unsent_bytes_ += bytes.size();
  queue_.push_back(std::move(bytes));
  ++packets_sent_;
  writer_wakeup_.notify();
  // An answer may have left this connection with nothing in process.
  if (options_.read_gate) options_.read_gate->recheck(id());
}

void TcpClientConnection::close_after_flush() {
  if (state_ != State::kOpen) return;
  state_ = State::kDraining;
  handshake_timer_->cancel();
  writer_wakeup_.notify();
}

void TcpClientConnection::close() {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  queue_.clear();
  handshake_timer_->cancel();
  writer_wakeup_.notify();
  reader_wakeup_.notify();
  boost::system::error_code ec;
  socket_.shutdown(tcp::socket::shutdown_both, ec);  // fails harmlessly if the peer already left
  socket_.close(ec);
  if (ec) log_warn("connection from ", remote_text(), ": close failed: ", ec.message());
  slot_.release();
}

void TcpClientConnection::mark_established() {
  established_ = true;
  handshake_timer_->cancel();
}

void TcpClientConnection::resume_reading() { reader_wakeup_.notify(); }

asio::awaitable<bool> TcpClientConnection::begin_tls() {
  const FirstByte first = co_await peek_first_byte(socket_);
  if (first == FirstByte::kGone || state_ != State::kOpen) co_return false;
  if (first == FirstByte::kOther) {
    if (options_.tls_optional) co_return true;  // plaintext on a unified port
    log_info("closing connection from ", remote_text(), ": plaintext on the TLS port");
    co_return false;
  }
  options_.tls->reload_if_changed();
  tls_ = std::make_unique<TlsLayer>(socket_, options_.tls->context());
  handler_.tls_handshake_started(*this);
  auto [handshake_ec] = co_await tls_->stream.async_handshake(asio::ssl::stream_base::server,
                                                              as_tuple(use_awaitable));
  if (handshake_ec) {
    if (state_ == State::kOpen) {
      log_warn("TLS handshake with ", remote_text(), " failed: ", handshake_ec.message());
    }
    co_return false;
  }
  peer_subject_ = x509_subject(SSL_get0_peer_certificate(tls_->stream.native_handle()));
  handler_.secured(*this);
  co_return state_ == State::kOpen;
}

asio::awaitable<void> TcpClientConnection::read_loop() {
  if (options_.tls && !co_await begin_tls()) {
    if (state_ == State::kOpen) close();
    co_return;
  }
  std::array<char, 64 * 1024> chunk;
  while (state_ == State::kOpen) {
    if (gate_closed()) {
      // Back-pressure: read nothing more until the server is under its limit.
      options_.read_gate->park(id(), weak_from_this());
      handler_.throttled(*this);
      co_await reader_wakeup_.wait();  // resume_reading() or close(); the loop re-checks
      continue;
    }
    if (output_backlogged()) {
      // The client does not read its answers: take no more requests until
      // the writer has sent them.
      reader_waits_for_writer_ = true;
      co_await reader_wakeup_.wait();  // the writer, or close(); the loop re-checks
      continue;
    }
    if (turn_ended_) {
      // Let the other connections' frames go first: one connection's flood
      // of pipelined requests delays another's single one by a turn at most.
      turn_ended_ = false;
      asio::post(socket_.get_executor(),
                 [self = shared_from_this(), this] { reader_wakeup_.notify(); });
      co_await reader_wakeup_.wait();  // behind what was ready meanwhile
      continue;
    }
    if (input_held_) {
      input_held_ = false;
      if (!consume_input()) break;
      continue;
    }
    std::tuple<boost::system::error_code, size_t> got;
    if (tls_) {
      got = co_await tls_->stream.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    } else {
      got = co_await socket_.async_read_some(asio::buffer(chunk), as_tuple(use_awaitable));
    }
    auto [ec, n] = got;
    if (ec) {
      read_failed(ec);
      break;
    }
    if (state_ != State::kOpen) break;
    input_.append(chunk.data(), n);
    if (!consume_input()) break;
  }
  // A draining connection still has replies to write: the writer closes it.
  if (state_ == State::kOpen) close();
}

void TcpClientConnection::read_failed(const boost::system::error_code& ec) {
  if (state_ != State::kOpen) return;  // we closed it
  // A TLS peer that closes without close_notify has simply left.
  if (ec == asio::error::eof || ec == asio::error::connection_reset ||
      ec == asio::ssl::error::stream_truncated) {
    handler_.dropped_by_peer(*this);
  } else {
    log_info("connection from ", remote_text(), " failed: ", ec.message());
  }
}

bool TcpClientConnection::handle_fresh_bytes() {
  if (input_.size() < 4) return false;
  std::string_view first(input_.data(), 4);
  if (is_telnet_close(first)) {
    close();
    return false;
  }
  if (is_four_letter_word(first)) {
    size_t arg_size = four_letter_argument_size(first);
    if (input_.size() < 4 + arg_size) return false;
    std::string word(first);
    std::string text =
        handler_.four_letter_word(*this, word, std::string_view(input_).substr(4, arg_size));
    send(std::move(text));
    close_after_flush();
    return false;
  }
  fresh_ = false;
  return true;
}

bool TcpClientConnection::consume_input() {
  if (fresh_ && !handle_fresh_bytes()) return state_ == State::kOpen;
  size_t offset = 0;
  int taken = 0;
  while (state_ == State::kOpen) {
    if (gate_closed() || output_backlogged()) {
      input_held_ = true;
      break;
    }
    if (taken == kFramesPerTurn) {
      input_held_ = true;
      turn_ended_ = true;
      break;
    }
    auto frame = zk::wire::next_frame(std::string_view(input_).substr(offset), options_.max_frame);
    if (frame.status == zk::wire::FrameStatus::kNeedMore) break;
    if (frame.status == zk::wire::FrameStatus::kBadLength) {
      log_warn("closing connection from ", remote_text(), ": bad frame length ", frame.length);
      close();
      return false;
    }
    ++packets_received_;
    // The payload points into input_, which nothing changes during the call.
    handler_.frame(*this, frame.payload);
    offset += frame.consumed;
    ++taken;
  }
  input_.erase(0, offset);
  return state_ == State::kOpen;
}

asio::awaitable<void> TcpClientConnection::write_loop() {
  std::vector<std::string> batch;
  std::vector<asio::const_buffer> buffers;
  while (state_ != State::kClosed) {
    if (queue_.empty()) {
      if (state_ == State::kDraining) {
        close();
        break;
      }
      co_await writer_wakeup_.wait();  // send(), a close; the loop re-checks state
      continue;
    }
    batch.clear();
    buffers.clear();
    while (!queue_.empty()) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    if (tls_ && batch.size() > 1) {
      // One TLS record per write_some: join the batch so it goes out whole.
      std::string joined;
      for (const auto& b : batch) joined += b;
      batch.assign(1, std::move(joined));
    }
    for (const auto& b : batch) buffers.emplace_back(asio::buffer(b));
    std::tuple<boost::system::error_code, size_t> written;
    if (tls_) {
      written = co_await asio::async_write(tls_->stream, buffers, as_tuple(use_awaitable));
    } else {
      written = co_await asio::async_write(socket_, buffers, as_tuple(use_awaitable));
    }
    auto [ec, n] = written;
    for (const auto& b : batch) unsent_bytes_ -= b.size();
    if (reader_waits_for_writer_ && !output_backlogged()) {
      reader_waits_for_writer_ = false;
      reader_wakeup_.notify();
    }
    if (ec) {
      // A peer that leaves while we flush our last answer is not news.
      if (state_ == State::kOpen) {
        log_info("connection from ", remote_text(), ": write failed: ", ec.message());
      }
      close();
      break;
    }
  }
}

void TcpClientConnection::coroutine_ended(std::string_view which, std::exception_ptr error) {
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      log_error("connection from ", remote_text(), ": ", which, " failed: ", e.what());
    } catch (...) {
      log_error("connection from ", remote_text(), ": ", which, " failed with an unknown error");
    }
    close();
  }
  if (--coroutines_running_ > 0) {
    // The other coroutine must notice: a finished writer means the socket is
    // closed (wakes the reader); a finished reader either closed it or left a
    // draining writer to finish.
    return;
  }
  if (!closed_reported_) {
    closed_reported_ = true;
    close();
    handler_.closed(*this);
  }
}

}  // namespace zkd::net
