// SPDX-License-Identifier: Apache-2.0
#include "zkbench/flood_clients.h"

#include <sys/resource.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <thread>

#include "libzk/wire/frame.h"
#include "libzk/wire/jute.h"
#include "zkbench/flood_wire.h"
#include "zkbench/workload.h"

namespace zk::bench::flood {

namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr auto kTick = 1ms;                // how often a schedule sends what is due
constexpr double kMaxBatchSeconds = 0.02;  // the most one write carries, in time of the schedule
constexpr auto kReopenPause = 10ms;
constexpr auto kUnanswered = 2s;  // a handshake (storm: a whole talk) not done by then is dropped
constexpr double kStormMaxRate = 2000;
constexpr double kLargeMaxBytesPerSecond = 32.0 * 1024 * 1024;
constexpr int32_t kMaxFrame = zk::wire::kMaxFieldLength + 1024;
constexpr int kValueBytes = 100;

// Reads frames off a socket; a payload stays valid until the next call.
class FrameReader {
 public:
  // The next frame's payload; nothing once the socket failed or a length was bad.
  awaitable<std::optional<std::string_view>> next(tcp::socket& socket) {
    for (;;) {
      const zk::wire::FrameView f =
          zk::wire::next_frame(std::string_view(buffer_).substr(pos_), kMaxFrame);
      if (f.status == zk::wire::FrameStatus::kFrame) {
        pos_ += f.consumed;
        co_return f.payload;
      }
      if (f.status == zk::wire::FrameStatus::kBadLength) co_return std::nullopt;
      buffer_.erase(0, pos_);
      pos_ = 0;
      boost::system::error_code ec;
      const size_t n = co_await socket.async_read_some(
          asio::buffer(chunk_), asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return std::nullopt;
      buffer_.append(chunk_.data(), n);
    }
  }

 private:
  std::string buffer_;
  size_t pos_ = 0;
  std::array<char, 64 * 1024> chunk_{};
};

// A pipelining session slot (pipeline, large): its schedule and its frames,
// kept across the sessions that fill it.
struct Lane {
  Kind kind = Kind::kPipeline;
  size_t index = 0;  // among the lanes: its server is index mod servers
  double rate = 0;
  int64_t scheduled = 0;            // requests the schedule called for so far
  std::vector<std::string> frames;  // sent in turn, each with a fresh xid
  size_t next_frame = 0;
  int32_t xid = 1;
};

}  // namespace

struct Flood::State {
  FloodPlan plan;
  std::vector<tcp::endpoint> endpoints;
  std::optional<asio::ip::address> source;
  std::array<KindCounts, kKinds> counts{};
  std::vector<std::unique_ptr<Lane>> lanes;
  std::atomic<bool> stopping{false};
  Clock::time_point started;
  int storm_open = 0;
  std::thread thread;
  // Last, so that it goes first: the coroutines it destroys refer to the above.
  asio::io_context io{1};

  KindCounts& of(Kind k) { return counts[static_cast<size_t>(k)]; }

  // A socket connected to `e` from the source; nothing when that failed
  // (counted as refused).
  awaitable<std::shared_ptr<tcp::socket>> open(const tcp::endpoint& e, KindCounts& c) {
    ++c.connections;
    auto socket = std::make_shared<tcp::socket>(io);
    boost::system::error_code ec;
    socket->open(e.protocol(), ec);
    if (!ec && source) {
#ifdef IP_BIND_ADDRESS_NO_PORT
      // The port is chosen at connect, per destination: a storm reuses ports.
      const int one = 1;
      ::setsockopt(socket->native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
#endif
      socket->bind(tcp::endpoint(*source, 0), ec);
    }
    if (!ec) co_await socket->async_connect(e, asio::redirect_error(asio::use_awaitable, ec));
    if (!ec) socket->set_option(tcp::no_delay(true), ec);
    if (ec) {
      ++c.refused;
      co_return nullptr;
    }
    co_return socket;
  }

  // Sends the handshake and reads the answer; true when a session was
  // granted (counted either way).
  awaitable<bool> handshake(tcp::socket& socket, FrameReader& reader, KindCounts& c) {
    const std::string frame = connect_frame(kFloodSessionTimeoutMs);
    boost::system::error_code ec;
    co_await asio::async_write(socket, asio::buffer(frame),
                               asio::redirect_error(asio::use_awaitable, ec));
    std::optional<std::string_view> answer;
    if (!ec) answer = co_await reader.next(socket);
    if (!answer || !granted_session(*answer)) {
      ++c.refused;
      co_return false;
    }
    ++c.sessions;
    co_return true;
  }

  awaitable<void> pause(std::chrono::milliseconds d) {
    asio::steady_timer t(io, d);
    boost::system::error_code ec;
    co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }

  // Writes what `lane`'s schedule calls for until `socket` fails or the flood stops.
  awaitable<void> write_loop(Lane& lane, std::shared_ptr<tcp::socket> socket) {
    KindCounts& c = of(lane.kind);
    const auto max_batch = std::max<int64_t>(1, static_cast<int64_t>(lane.rate * kMaxBatchSeconds));
    asio::steady_timer tick(io);
    std::string batch;
    while (!stopping.load() && socket->is_open()) {
      const auto due =
          static_cast<int64_t>(std::chrono::duration<double>(Clock::now() - started).count() *
                               lane.rate) -
          lane.scheduled;
      if (due > 0) {
        lane.scheduled += due;
        const int64_t n = std::min(due, max_batch);
        batch.clear();
        for (int64_t i = 0; i < n; ++i) {
          std::string& frame = lane.frames[lane.next_frame];
          lane.next_frame = (lane.next_frame + 1) % lane.frames.size();
          set_xid(frame, lane.xid++);
          batch += frame;
        }
        boost::system::error_code ec;
        co_await asio::async_write(*socket, asio::buffer(batch),
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec) break;
        c.sent += n;
      }
      tick.expires_after(kTick);
      boost::system::error_code ec;
      co_await tick.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    boost::system::error_code ignored;
    socket->close(ignored);
  }

  // Fills `lane` with sessions until the flood stops.
  awaitable<void> run_lane(Lane& lane) {
    KindCounts& c = of(lane.kind);
    const tcp::endpoint& e = endpoints[lane.index % endpoints.size()];
    while (!stopping.load()) {
      std::shared_ptr<tcp::socket> socket = co_await open(e, c);
      FrameReader reader;
      bool granted = false;
      if (socket) {
        asio::steady_timer guard(io, kUnanswered);
        guard.async_wait([socket](boost::system::error_code ec) {
          if (!ec) socket->close(ec);
        });
        granted = co_await handshake(*socket, reader, c);
        guard.cancel();
      }
      if (granted) {
        asio::co_spawn(io, write_loop(lane, socket), asio::detached);
        while (auto payload = co_await reader.next(*socket)) {
          ++c.answered;
          const auto error = reply_error(*payload);
          if (!error || *error != zk::wire::Error::kOk) ++c.errors;
        }
        if (!stopping.load()) ++c.closed;
        boost::system::error_code ignored;
        socket->close(ignored);
      }
      co_await pause(kReopenPause);
    }
  }

  // One storm connection, pattern `pattern` (flood_clients.h).
  awaitable<void> storm_connection(size_t server, int pattern) {
    KindCounts& c = of(Kind::kStorm);
    ++storm_open;
    std::shared_ptr<tcp::socket> socket = co_await open(endpoints[server], c);
    if (socket) {
      auto guard = std::make_shared<asio::steady_timer>(io, kUnanswered);
      guard->async_wait([socket](boost::system::error_code ec) {
        if (!ec) socket->close(ec);
      });
      co_await storm_talk(*socket, pattern, c);
      guard->cancel();
      boost::system::error_code ignored;
      if (pattern >= 2) socket->set_option(asio::socket_base::linger(true, 0), ignored);
      socket->close(ignored);
    }
    --storm_open;
  }

  awaitable<void> storm_talk(tcp::socket& socket, int pattern, KindCounts& c) {
    boost::system::error_code ec;
    if (pattern == 3) {
      const std::string frame = connect_frame(kFloodSessionTimeoutMs);
      co_await asio::async_write(socket, asio::buffer(frame),
                                 asio::redirect_error(asio::use_awaitable, ec));
      co_return;
    }
    FrameReader reader;
    if (!co_await handshake(socket, reader, c) || pattern == 2) co_return;
    std::string frames;
    int requests = 0;
    if (pattern == 0) {
      frames = get_data_frame(plan.root + "/k0");
      set_xid(frames, 1);
      ++requests;
    }
    std::string close = close_session_frame();
    set_xid(close, 2);
    frames += close;
    ++requests;
    co_await asio::async_write(socket, asio::buffer(frames),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      ++c.closed;
      co_return;
    }
    c.sent += requests;
    if (pattern == 1) co_return;
    for (int i = 0; i < requests; ++i) {
      const auto payload = co_await reader.next(socket);
      if (!payload) {
        ++c.closed;
        co_return;
      }
      ++c.answered;
      const auto error = reply_error(*payload);
      if (!error || *error != zk::wire::Error::kOk) ++c.errors;
    }
  }

  // Opens storm connections at `rate` per second until the flood stops.
  awaitable<void> run_storm(double rate) {
    asio::steady_timer tick(io);
    int64_t scheduled = 0;
    uint64_t sequence = 0;
    while (!stopping.load()) {
      const auto due = static_cast<int64_t>(
                           std::chrono::duration<double>(Clock::now() - started).count() * rate) -
                       scheduled;
      for (int64_t i = 0; i < due; ++i) {
        ++scheduled;
        if (storm_open >= kStormOpen) continue;
        const uint64_t n = sequence++;
        asio::co_spawn(io, storm_connection(n % endpoints.size(), static_cast<int>(n % 4)),
                       asio::detached);
      }
      tick.expires_after(kTick);
      boost::system::error_code ec;
      co_await tick.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
  }
};

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::kPipeline:
      return "pipeline";
    case Kind::kStorm:
      return "storm";
    case Kind::kLarge:
      return "large";
  }
  return "?";
}

std::optional<Kind> parse_kind(std::string_view name) {
  for (Kind k : kAllKinds) {
    if (kind_name(k) == name) return k;
  }
  return std::nullopt;
}

std::vector<std::string> flood_znodes(const std::string& root) {
  std::vector<std::string> out;
  for (int k = 0; k < kFloodKeys; ++k) out.push_back(root + "/k" + std::to_string(k));
  out.push_back(root + "/e");
  for (int i = 0; i < kLargeConnections; ++i) out.push_back(root + "/large" + std::to_string(i));
  return out;
}

std::array<double, kKinds> split_rate(double rate, const std::vector<Kind>& kinds,
                                      int large_bytes) {
  constexpr std::array<double, kKinds> kShares = {0.8, 0.1, 0.1};
  double chosen = 0;
  for (Kind k : kinds) chosen += kShares[static_cast<size_t>(k)];
  std::array<double, kKinds> out{};
  if (chosen <= 0) return out;
  for (Kind k : kinds) {
    const auto i = static_cast<size_t>(k);
    out[i] = rate * kShares[i] / chosen;
  }
  auto& storm = out[static_cast<size_t>(Kind::kStorm)];
  storm = std::min(storm, kStormMaxRate);
  auto& large = out[static_cast<size_t>(Kind::kLarge)];
  large = std::min(large, kLargeMaxBytesPerSecond / std::max(1, large_bytes));
  return out;
}

std::string source_problem(const std::string& source) {
  if (source.empty()) return "";
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(source, ec);
  if (ec) return "flood source " + source + ": not an address";
  asio::io_context io;
  tcp::socket probe(io);
  probe.open(address.is_v4() ? tcp::v4() : tcp::v6(), ec);
  if (!ec) probe.bind(tcp::endpoint(address, 0), ec);
  if (ec) return "flood source " + source + ": " + ec.message();
  return "";
}

Flood::Flood() = default;

Flood::~Flood() {
  if (state_) stop();
}

std::string Flood::start(const FloodPlan& plan) {
  auto s = std::make_unique<State>();
  s->plan = plan;
  boost::system::error_code ec;
  if (std::string e = source_problem(plan.source); !e.empty()) return e;
  if (!plan.source.empty()) s->source = asio::ip::make_address(plan.source, ec);
  tcp::resolver resolver(s->io);
  for (const std::string& server : plan.servers) {
    const size_t colon = server.rfind(':');
    if (colon == std::string::npos) return "server " + server + ": no port";
    auto found = resolver.resolve(server.substr(0, colon), server.substr(colon + 1), ec);
    std::optional<tcp::endpoint> chosen;
    for (const auto& entry : found) {
      const tcp::endpoint e = entry.endpoint();
      if (!s->source || e.address().is_v4() == s->source->is_v4()) {
        chosen = e;
        break;
      }
    }
    if (!chosen) {
      return "server " + server + ": " +
             (ec ? ec.message() : "no address of the flood source's family");
    }
    s->endpoints.push_back(*chosen);
  }
  if (s->endpoints.empty()) return "no server";

  const std::string value = make_value(kValueBytes);
  const std::string large_value = make_value(plan.large_bytes);
  size_t index = 0;
  auto add_lanes = [&](Kind kind, int n) {
    const double rate = plan.rates[static_cast<size_t>(kind)];
    if (rate <= 0) return;
    for (int i = 0; i < n; ++i) {
      auto lane = std::make_unique<Lane>();
      lane->kind = kind;
      lane->index = index++;
      lane->rate = rate / n;
      if (kind == Kind::kLarge) {
        lane->frames.push_back(
            set_data_frame(plan.root + "/large" + std::to_string(i), large_value));
      } else {
        // 6 getData, 3 setData, 1 create in every 10, over the keys in turn.
        for (int k = 0; k < kFloodKeys; ++k) {
          const std::string key = plan.root + "/k" + std::to_string(k);
          for (int j = 0; j < 10; ++j) {
            lane->frames.push_back(j < 6   ? get_data_frame(key)
                                   : j < 9 ? set_data_frame(key, value)
                                           : create_ephemeral_frame(plan.root + "/e/c"));
          }
        }
      }
      s->lanes.push_back(std::move(lane));
    }
  };
  add_lanes(Kind::kPipeline, kPipelineConnections);
  add_lanes(Kind::kLarge, kLargeConnections);

  s->started = Clock::now();
  for (auto& lane : s->lanes) asio::co_spawn(s->io, s->run_lane(*lane), asio::detached);
  if (const double storm = plan.rates[static_cast<size_t>(Kind::kStorm)]; storm > 0) {
    asio::co_spawn(s->io, s->run_storm(storm), asio::detached);
  }
  State* raw = s.get();
  s->thread = std::thread([raw, nice = plan.nice] {
    // Linux: a thread's own nice value; a failure leaves it at the default.
    if (nice != 0) (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), nice);
    raw->io.run();
  });
  state_ = std::move(s);
  return "";
}

FloodResult Flood::stop() {
  FloodResult r;
  if (!state_) return r;
  State& s = *state_;
  s.stopping.store(true);
  s.io.stop();
  if (s.thread.joinable()) s.thread.join();
  r.elapsed = Clock::now() - s.started;
  r.counts = s.counts;
  const double seconds = std::chrono::duration<double>(r.elapsed).count();
  for (Kind k : kAllKinds) {
    r.counts[static_cast<size_t>(k)].offered =
        static_cast<int64_t>(seconds * s.plan.rates[static_cast<size_t>(k)]);
  }
  state_.reset();
  return r;
}

}  // namespace zk::bench::flood
