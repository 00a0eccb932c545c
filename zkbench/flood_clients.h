// SPDX-License-Identifier: Apache-2.0
// The misbehaving clients of `zkbench flood`: raw sockets (flood_wire.h) on
// one io thread of their own, each bound to a source address other than the
// measuring session's, so that per-IP limits (maxClientCnxns) meet them and
// not it. Three kinds, each open loop at its own rate from start():
//
//   pipeline: kPipelineConnections sessions, each sending its share of the
//     rate without waiting for answers (unbounded pipelining): getData,
//     setData (100 bytes) and create (ephemeral-sequential) in the
//     proportions 6:3:1 over the keys <root>/k0..k15 and the parent <root>/e;
//     answers are read and dropped.
//   storm: new connections at its rate, at most kStormOpen at a time (a
//     connection due while that many are open is not made). Connection i
//     sends a ConnectRequest and then, by i mod 4: 0 waits for the session,
//     sends getData and closeSession and reads both answers; 1 waits for the
//     session and sends closeSession; 2 waits for the session and drops the
//     socket (RST; the session lingers until it expires); 3 drops the socket
//     at once. A connection left unanswered is dropped after 2 s.
//   large: kLargeConnections sessions, each pipelining setData of
//     `large_bytes` bytes to a znode of its own, <root>/large<i>.
//
// A pipeline or large session that ends (the server closed it, or refused
// it) is opened again 10 ms later, and its schedule runs on: requests due
// while it is closed, or while a write is blocked (the server reads no
// more), are not sent; at most 20 ms worth go in one write; a handshake
// left unanswered is dropped after 2 s. Sessions ask for
// kFloodSessionTimeoutMs.
//
// Threads: start() and stop() from one thread (the owner's).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zk::bench::flood {

enum class Kind { kPipeline, kStorm, kLarge };
inline constexpr size_t kKinds = 3;
inline constexpr std::array<Kind, kKinds> kAllKinds = {Kind::kPipeline, Kind::kStorm, Kind::kLarge};

// "pipeline", "storm", "large"; parse: nothing for another name.
std::string_view kind_name(Kind k);
std::optional<Kind> parse_kind(std::string_view name);

inline constexpr int kPipelineConnections = 4;
inline constexpr int kLargeConnections = 2;
inline constexpr int kStormOpen = 200;
inline constexpr int32_t kFloodSessionTimeoutMs = 6000;
inline constexpr int kFloodKeys = 16;

// The znodes the flood works on, which must exist before start() (the
// measuring session creates them): <root>/k0..k15, <root>/e and
// <root>/large0..large1.
std::vector<std::string> flood_znodes(const std::string& root);

// What a kind did. Storm's unit is the connection: its offered are
// connections; its sent and answered count the getData and closeSession
// requests of patterns 0 and 1.
struct KindCounts {
  int64_t offered = 0;      // requests (storm: connections) the schedule called for
  int64_t sent = 0;         // requests written whole
  int64_t answered = 0;     // replies read
  int64_t errors = 0;       // replies with an error code
  int64_t connections = 0;  // TCP connections tried
  int64_t sessions = 0;     // sessions the server granted
  int64_t refused = 0;      // connections that got no session: refused, closed, timeout 0
  int64_t closed = 0;       // sessions the server closed while they were in use
};

struct FloodPlan {
  std::vector<std::string> servers;  // "host:port"; connection i goes to server i mod n
  std::string source;                // the local address to bind to; empty: the system's
  std::string root;
  std::array<double, kKinds> rates{};  // per kind (indexed by Kind): per second; 0: not run
  int large_bytes = 512 * 1024;
  // The flood thread's nice value (setpriority on that thread alone): on
  // one machine, a positive value lets the servers and the measuring
  // session run first, as they would with the flood on other machines.
  int nice = 0;
};

struct FloodResult {
  std::array<KindCounts, kKinds> counts;  // indexed by Kind
  std::chrono::nanoseconds elapsed{0};    // from start() to stop()
};

// How a flood of `rate` requests/s is shared among `kinds` (documented in
// man/zkbench.1): pipeline 80%, storm 10% (as connections/s, at most 2000),
// large 10% (at most 32 MiB/s of `large_bytes` requests); the shares of the
// kinds not chosen go to the others in proportion (pipeline alone: 100%).
std::array<double, kKinds> split_rate(double rate, const std::vector<Kind>& kinds, int large_bytes);

// Why the flood cannot connect from `source` (not an address, or not one of
// this host's); empty when it can, or when `source` is empty.
std::string source_problem(const std::string& source);

class Flood {
 public:
  Flood();
  ~Flood();  // stop()s a running flood
  Flood(const Flood&) = delete;
  Flood& operator=(const Flood&) = delete;

  // Resolves the servers, checks that `source` can be bound and starts the
  // clients. Empty on success, else why not.
  std::string start(const FloodPlan& plan);
  // Ends every client now (answers in flight are not awaited) and returns
  // what they did.
  FloodResult stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace zk::bench::flood
