// SPDX-License-Identifier: Apache-2.0
#include "zklab/relay/relay_control.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <exception>
#include <list>

namespace zk::lab {

namespace asio = boost::asio;
using asio::as_tuple;
using asio::use_awaitable;
using tcp = asio::ip::tcp;

namespace {

void rethrow(std::exception_ptr e) {
  if (e) std::rethrow_exception(e);
}

// Reads one line (without "\n") from `socket` into `line`; false at the end
// of the stream, on an error, or for a line longer than kMaxControlLine.
asio::awaitable<bool> read_line(tcp::socket& socket, std::string& buffer, std::string& line) {
  auto [ec, n] = co_await asio::async_read_until(
      socket, asio::dynamic_buffer(buffer, kMaxControlLine + 1), '\n', as_tuple(use_awaitable));
  if (ec) co_return false;
  line = buffer.substr(0, n - 1);
  buffer.erase(0, n);
  co_return true;
}

}  // namespace

struct RelayControl::State {
  State(asio::io_context& context, Relay& r, std::function<void(const std::string&)> l)
      : io(context), relay(r), log(std::move(l)), acceptor(context) {}

  std::string answer(const std::string& request) {
    if (request == "get") return "ok " + format_faults(relay.faults());
    if (request.starts_with("set ")) {
      auto faults = parse_faults(std::string_view(request).substr(4));
      if (!faults) return "error cannot parse the faults: " + request.substr(4);
      if (*faults != relay.faults()) {
        relay.set_faults(*faults);
        log("faults now " + describe_faults(relay.faults()));
      }
      return "ok " + format_faults(relay.faults());
    }
    return "error unknown request (get, set <faults>)";
  }

  static asio::awaitable<void> accept(std::shared_ptr<State> s) {
    while (!s->stopped) {
      auto [ec, socket] = co_await s->acceptor.async_accept(as_tuple(use_awaitable));
      if (s->stopped || ec == asio::error::operation_aborted) co_return;
      if (ec) continue;
      auto client = std::make_shared<tcp::socket>(std::move(socket));
      std::erase_if(s->clients, [](const auto& weak) { return weak.expired(); });
      s->clients.push_back(client);
      asio::co_spawn(s->io, serve(s, client), rethrow);
    }
  }

  static asio::awaitable<void> serve(std::shared_ptr<State> s,
                                     std::shared_ptr<tcp::socket> client) {
    std::string buffer;
    std::string request;
    while (!s->stopped && co_await read_line(*client, buffer, request)) {
      if (s->stopped) co_return;
      const std::string reply = s->answer(request) + "\n";
      auto [ec, n] =
          co_await asio::async_write(*client, asio::buffer(reply), as_tuple(use_awaitable));
      if (ec) break;
    }
    boost::system::error_code ignored;
    client->close(ignored);
  }

  asio::io_context& io;
  Relay& relay;
  std::function<void(const std::string&)> log;
  tcp::acceptor acceptor;
  std::list<std::weak_ptr<tcp::socket>> clients;
  bool stopped = false;
};

RelayControl::RelayControl(asio::io_context& io, Relay& relay,
                           std::function<void(const std::string&)> log)
    : state_(std::make_shared<State>(io, relay, std::move(log))) {}

RelayControl::~RelayControl() { stop(); }

std::string RelayControl::start() {
  State& s = *state_;
  if (s.stopped || s.acceptor.is_open()) return "the control port was opened before";
  const tcp::endpoint endpoint(asio::ip::address_v4::loopback(), 0);
  boost::system::error_code ec;
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return "cannot listen on 127.0.0.1: " + ec.message();
  asio::co_spawn(s.io, State::accept(state_), rethrow);
  return {};
}

uint16_t RelayControl::port() const { return state_->acceptor.local_endpoint().port(); }

void RelayControl::stop() {
  State& s = *state_;
  if (s.stopped) return;
  s.stopped = true;
  boost::system::error_code ignored;
  s.acceptor.close(ignored);
  for (const auto& weak : s.clients) {
    if (auto client = weak.lock()) client->close(ignored);
  }
  s.clients.clear();
}

namespace {

// One request, one answer line, within `deadline`; nothing (and `error`) else.
std::optional<std::string> call(uint16_t port, const std::string& request,
                                std::chrono::milliseconds deadline, std::string& error) {
  std::optional<std::string> answer;  // outlives the io_context and the coroutine
  error.clear();
  asio::io_context io(1);
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        tcp::socket socket(io);
        auto [connect_ec] = co_await socket.async_connect(
            tcp::endpoint(asio::ip::address_v4::loopback(), port), as_tuple(use_awaitable));
        if (connect_ec) {
          error = "cannot connect to the relay daemon on 127.0.0.1:" + std::to_string(port) + ": " +
                  connect_ec.message();
          co_return;
        }
        const std::string line = request + "\n";
        auto [write_ec, n] =
            co_await asio::async_write(socket, asio::buffer(line), as_tuple(use_awaitable));
        std::string buffer, reply;
        if (write_ec || !co_await read_line(socket, buffer, reply)) {
          error = "the relay daemon on 127.0.0.1:" + std::to_string(port) + " did not answer";
          co_return;
        }
        answer = reply;
      },
      rethrow);
  io.run_for(deadline);
  if (!answer && error.empty()) {
    error = "no answer from the relay daemon on 127.0.0.1:" + std::to_string(port) + " within " +
            std::to_string(deadline.count()) + " ms";
  }
  return answer;
}

std::optional<NetworkFaults> faults_answer(const std::optional<std::string>& answer,
                                           std::string& error) {
  if (!answer) return std::nullopt;
  if (answer->starts_with("ok ")) {
    if (auto faults = parse_faults(std::string_view(*answer).substr(3))) return faults;
  }
  error = "the relay daemon answered: " + *answer;
  return std::nullopt;
}

}  // namespace

std::optional<NetworkFaults> control_get(uint16_t port, std::chrono::milliseconds deadline,
                                         std::string& error) {
  return faults_answer(call(port, "get", deadline, error), error);
}

std::optional<NetworkFaults> control_set(uint16_t port, const NetworkFaults& faults,
                                         std::chrono::milliseconds deadline, std::string& error) {
  auto now = faults_answer(call(port, "set " + format_faults(faults), deadline, error), error);
  if (now && *now != faults) {
    error = "the relay daemon applied " + format_faults(*now) + ", not " + format_faults(faults);
    return std::nullopt;
  }
  return now;
}

}  // namespace zk::lab
