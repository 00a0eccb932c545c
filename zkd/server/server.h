// SPDX-License-Identifier: Apache-2.0
// A zkd server: serves the ZooKeeper 3.8 client protocol on the configured
// client port, durably, either standalone or as one replica of a Zab
// ensemble (zoo.cfg with server.N lines).
//
// The Server assembles the parts (docs/design.md, "The parts")
// and runs their lifecycle: recovery (recovery.h), then the client listener
// and the admin endpoints, then the timers; stop() undoes it. The parts:
//   - ClientService (client_service.h): connections, the connect handshake,
//     each request, the four-letter words;
//   - ClientRegistry (client_registry.h): the open connections, who owns
//     which session, what is sent to them;
//   - Sessions (sessions.h): deadlines, ids, passwords, expiry and the
//     container manager;
//   - WritePath (write_path.h): a write from its request to its answer, with
//     the log thread (log_thread.h) and the reply order (reply_pipeline.h);
//   - SnapshotService (snapshot_service.h): fuzzy snapshots and purges;
//   - Replication (replication.h): in an ensemble, the replica host and the
//     peer transport;
//   - StatusView (status_view.h): what the four-letter words, the admin
//     server and the metrics read;
//   - OnlineBackup (online_backup.h): the admin snapshot and restore.
//
// Threads: the io_context's single thread is the state thread: it owns the
// Database and every part above. The log thread owns the TxnLogWriter; the
// snapshot thread (a one-thread pool in the SnapshotService) owns the
// SnapshotWriter of the snapshot in progress and runs purges. Both hand
// results back with asio::post to the io_context.
//
// Threading and lifetime: construct, open_storage(), start(), stop() and
// destroy on the io_context's thread (open_storage() before the io_context
// runs); the server must outlive io_context::run(), because its connections
// and storage threads call back into it until they have ended; stop() joins
// the storage threads.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "zkd/admin/admin_endpoints.h"
#include "zkd/net/client_listener.h"
#include "zkd/server/audit_trail.h"
#include "zkd/server/broadcast_generator.h"
#include "zkd/server/client_registry.h"
#include "zkd/server/client_service.h"
#include "zkd/server/config.h"
#include "zkd/server/online_backup.h"
#include "zkd/server/read_only_mode.h"
#include "zkd/server/recovery.h"
#include "zkd/server/replication.h"
#include "zkd/server/security_setup.h"
#include "zkd/server/server_log.h"
#include "zkd/server/server_stats.h"
#include "zkd/server/sessions.h"
#include "zkd/server/snapshot_service.h"
#include "zkd/server/status_view.h"
#include "zkd/server/write_path.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"
#include "zkd/storage/txn_log.h"
#include "zkd/tree/database.h"

namespace zkd::server {

class Server final {
 public:
  // Exit status after the txn log failed while serving (disk full, I/O error).
  static constexpr int kExitLogFailure = 4;

  // `env` is the server's files, clocks, timers and secrets; `seed` its
  // random draws (the snapshot schedule's jitter, election timeouts), drawn
  // by main from env.secure_random(), fixed by a simulation.
  // `config` as parsed, `security` the TLS and SASL objects opened from it
  // (open_security); both stay as given for the server's life.
  Server(boost::asio::io_context& io, ServerConfig config, Security security, storage::Env& env,
         uint64_t seed);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Opens the audit log (audit.enable), recovers the state from
  // dataDir/dataLogDir (snapshot + log replay), reads or creates the session
  // key, opens the log and starts the storage threads. Must succeed before
  // start(); an error (corrupt log, unreadable files) names the file and what
  // to do. Once the audit log is open, a failure of this or of start() is
  // audited as serverStart failure, and start()'s success as serverStart.
  Status open_storage();
  // Makes the txn log from its writer and the callback its reports go to:
  // the simulator's log, written when the simulation says (server_log.h).
  using LogFactory = std::function<std::unique_ptr<ServerLog>(
      std::unique_ptr<storage::TxnLogWriter> writer, std::function<void(LogBatch)> report)>;
  // Before open_storage(): the log it opens is `make`'s instead of a
  // LogThread.
  void use_log(LogFactory make) { make_log_ = std::move(make); }
  // Before open_storage(): in an ensemble, the peer links are `make`'s (the
  // simulator's network) instead of TCP (Replication::Parts::make_links).
  using PeerLinksFactory = decltype(Replication::Parts::make_links);
  void use_peer_links(PeerLinksFactory make) { make_links_ = std::move(make); }
  // ydld: hands this leader's leadership to its most up-to-date follower;
  // the four-letter word's answer (ClickHouse Keeper's on success).
  std::string yield_leadership();
  // Where clients come from: the client ports zoo.cfg names (kBind), or
  // only connections handed to client_handler() by a transport of the
  // caller's (kNone: the simulator's and the unit tests', without sockets).
  enum class Listeners { kBind, kNone };
  // Binds the client ports (with kBind) and starts serving; a bind error is
  // returned.
  boost::system::error_code start(Listeners listeners = Listeners::kBind);
  // What serves each client connection (the ClientService): a transport
  // calls opened() with each new connection and then hands it its frames.
  net::ConnectionHandler& client_handler() { return service_; }
  // Writes waiting for the disk or the leader (the 4lw's and the metrics'
  // outstanding requests).
  size_t writes_pending() const { return writes_.pending(); }
  // In an ensemble, this server's replica, read-only: for tests that look at
  // its role, leader, epoch and serving state (replication()->host().status())
  // or its core. Null when standalone and before open_storage(); owned by the
  // server, valid until it is destroyed. Read on the state thread.
  const Replication* replication() const { return replication_.get(); }
  // The address the client port is bound to: the secure client port's when
  // the server has no plaintext port (secureClientPort alone); none (an
  // empty endpoint) when started with Listeners::kNone.
  boost::asio::ip::tcp::endpoint endpoint() const;
  // The address the secure client port is bound to, once started with one.
  std::optional<boost::asio::ip::tcp::endpoint> secure_endpoint() const;
  // Stops accepting, closes every connection, stops the timers and the
  // storage threads (txns already handed to the log are made durable first;
  // a snapshot in progress is abandoned), so that io_context::run() can return.
  void stop();
  // Called once, at the end of stop(), whoever stopped the server: its owner,
  // or the server itself when its log failed or it could not carry out what
  // its leader sent. The owner ends there whatever else keeps its io_context
  // running (zkd's signal wait), so that run() returns.
  void on_stop(std::function<void()> handler) { on_stop_ = std::move(handler); }
  // 0, or kExitLogFailure when the server stopped because the log failed.
  int exit_status() const { return exit_status_; }
  // The admin server's and the Prometheus endpoint's addresses, once
  // started; nullopt when off (admin_endpoints.h).
  std::optional<boost::asio::ip::tcp::endpoint> admin_endpoint() const;
  std::optional<boost::asio::ip::tcp::endpoint> metrics_endpoint() const;

 private:
  // open_storage() and start() but for the audit of their outcome.
  Status recover_and_open();
  boost::system::error_code start_serving(Listeners listeners);
  // Logs `message` and stops the server because it cannot go on (its log
  // failed, or it could not carry out what its leader sent); exit status
  // kExitLogFailure.
  void fail(const std::string& message);
  // Client connections' options: jute.maxbuffer, the write path's read
  // gate, and TLS on the secure port or (client.portUnification) both.
  net::ConnectionOptions connection_options(bool secure_port) const;
  // The admin server's and metrics endpoint's part of the configuration.
  admin::AdminOptions admin_options() const;
  // A listener bound to `address` ("" = every address, IPv6 or else IPv4)
  // and `port`, or the bind error.
  std::pair<std::shared_ptr<net::ClientListener>, boost::system::error_code> bind_listener(
      const std::string& address, uint16_t port, bool secure_port);

  boost::asio::io_context& io_;
  const ServerConfig config_;
  const Security security_;
  storage::Env& env_;
  uint64_t seed_;
  StorageLayout layout_;
  ServerStats stats_;
  tree::Database db_;
  ClientRegistry clients_;
  AuditTrail audit_;  // audit.enable: opened by open_storage()
  // Snapshots and purges, with the snapshot thread; walks db_, rolls the log.
  SnapshotService snapshots_;
  WritePath writes_;  // hands what it releases to service_
  Sessions sessions_;
  std::unique_ptr<Replication> replication_;  // set in an ensemble
  ReadOnlyMode read_only_;                    // replication_ drives it
  StatusView view_;                           // reads the parts above
  ClientService service_;
  OnlineBackup backup_;           // the admin snapshot and restore commands
  BroadcastGenerator broadcast_;  // the admin broadcast command
  std::shared_ptr<net::ClientListener> listener_;
  std::shared_ptr<net::ClientListener> secure_listener_;  // set by start() with secureClientPort
  std::unique_ptr<admin::AdminEndpoints> admin_;          // set by start()
  bool stopped_ = false;
  int exit_status_ = 0;
  std::function<void()> on_stop_;
  LogFactory make_log_;          // null: a LogThread
  PeerLinksFactory make_links_;  // null: a PeerTransport
};

}  // namespace zkd::server
