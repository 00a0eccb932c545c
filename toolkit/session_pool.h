// SPDX-License-Identifier: Apache-2.0
// SessionPool: `sessions` zk::client sessions spread evenly over the servers
// of a connect string, run on `threads` io_context threads of the pool's own.
// The part of a load generator that is not its workload: zkbench's engine
// sits on it, and so does zklab's Load (zklab/load/load.h).
//
// Spread: session i's connect string is the address list rotated to start at
// addresses[i % n] (shuffle off), so the sessions are spread evenly and a
// session fails over to the next address. Session i runs on thread i % threads.
//
// Tasks: spawn() runs a coroutine on a session's thread and counts it until it
// returns; wait_idle() waits until none runs. An exception escaping a task is
// a bug and ends the process.
//
// Threads: connect(), close(), wait_idle() and the destructor are called from
// one thread (the owner's); spawn() from any thread, client() and executor()
// from any thread once connect() returned.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "libzk/client/client.h"

namespace zk::toolkit {

struct SessionPoolOptions {
  std::vector<std::string> addresses;  // "host:port" each; at least one
  int sessions = 8;
  int threads = 1;
  std::chrono::milliseconds session_timeout{30000};   // requested
  std::chrono::milliseconds connect_deadline{20000};  // per session
  std::chrono::milliseconds reconnect_backoff{20};    // zk::client::ClientOptions
  // TLS (zk::client::ClientOptions::tls_context); null: plaintext.
  std::shared_ptr<boost::asio::ssl::context> tls_context;
  bool tls_verify_host = true;
  std::optional<zk::client::SaslOptions> sasl;  // ClientOptions::sasl
};

// The connect string of session `i`: `addresses` rotated to start at i % n.
std::string session_hosts(const std::vector<std::string>& addresses, size_t i);

class SessionPool {
 public:
  using Clock = std::chrono::steady_clock;

  explicit SessionPool(SessionPoolOptions options);
  // Abandons sessions still open (close() first to end them cleanly), lets
  // the threads run out of work (up to a few seconds) and joins them.
  ~SessionPool();
  SessionPool(const SessionPool&) = delete;
  SessionPool& operator=(const SessionPool&) = delete;

  // Opens every session, in parallel. Empty on success, else why not
  // ("session 3 (host:port,...): connect: CONNECTIONLOSS").
  std::string connect();

  size_t size() const;
  const SessionPoolOptions& options() const;
  // Session i's client (connect() must have succeeded).
  const std::shared_ptr<zk::client::Client>& client(size_t i) const;
  // The executor session i's client and tasks run on.
  boost::asio::any_io_executor executor(size_t i) const;
  // The number of io threads: options().threads, at least 1.
  size_t threads() const;
  // The thread (0..threads()-1) session i runs on.
  size_t thread_of(size_t i) const;

  // Runs `task` on session i's thread, counted until it returns.
  void spawn(size_t i, zk::client::Task<void> task);
  // Waits until no spawned task runs, or until `until`; true in the first case.
  bool wait_idle(Clock::time_point until) const;
  // Closes every session (closeSession, in parallel) and waits, up to
  // `until`, until every task (the closes included) has returned. A closing
  // session fails what it still has queued with CLOSING. Idempotent.
  bool close(Clock::time_point until);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// True for the errors after which a session can never succeed again
// (SESSIONEXPIRED, CLOSING, AUTHFAILED): whoever drives it stops.
bool session_over(zk::client::Error e);

// Creates `path` holding `data`; NODEEXISTS counts as success.
zk::client::Task<zk::client::Status> create_if_missing(std::shared_ptr<zk::client::Client> client,
                                                       std::string path, zk::wire::Buffer data);

}  // namespace zk::toolkit
