// SPDX-License-Identifier: Apache-2.0
// A zkd server: serves the ZooKeeper 3.8 client protocol on the configured
// client port, durably, either standalone or as one replica of a Zab
// ensemble (zoo.cfg with server.N lines; replication.cc, below).
//
// It owns the state machine (zkd::tree::Database), the session tracker, the
// client listener and the storage threads, and implements
// net::ConnectionHandler: the connect handshake (§2.3 of docs/wire-protocol.md),
// every request (§3, §4), session expiry on a tickTime timer (§2.4) and the
// four-letter words (§12).
//
// The way of a write (docs/design.md): the state thread prepares it (zxid = last
// prepared + 1, time = this machine's wall clock), hands the encoded txn to
// the log thread (log_thread.h: group commit) and parks the reply in the
// ReplyPipeline. When the log thread reports "durable up to N", the state
// thread applies the parked txns <= N in order, sends their notifications,
// then their replies, then the requests that waited behind them. Nothing is
// applied, so nothing is visible, before it is on disk; createSession,
// closeSession (client's and expiry's) and error txns take the same way.
// Replies leave in request order per connection; `sync` waits for every txn
// prepared before it. Every `snapCount`-ish txns the log is rolled and a
// fuzzy snapshot is walked in chunks on the state thread and written by the
// snapshot thread, which then purges old files (autopurge, on by default).
//
// In an ensemble (config.replicated()), writes are ordered by the leader: a
// client's write becomes a WriteRequest (write_request.h) that this server
// proposes if it leads, or forwards to the leader through the Zab core
// (zkd/zab, docs/zab.md) otherwise. Every replica applies the txns the core
// hands out as committed, in order; the server a request came from finds its
// own requests among them (session and xid, FIFO per server) and answers.
// The ReplyPipeline then orders by "tickets" (this server's writes and syncs
// numbered as they arrive) instead of zxids. Sessions are global: created and
// closed by txns; the leader expires them from its own clients' activity and
// the touches followers report every tick. A replica that is not part of a
// serving quorum closes its client connections and refuses new ones; 4lw
// still answer.
//
// Threads: the io_context's single thread is the state thread: it owns the
// Database, the tracker, the pipeline and every connection. The log thread
// owns the TxnLogWriter; the snapshot thread (a one-thread pool in the
// SnapshotService, snapshot_service.h) owns the SnapshotWriter of the
// snapshot in progress and runs purges. Both hand results back with
// asio::post to the io_context.
//
// Threading and lifetime: construct, open_storage(), start(), stop() and
// destroy on the io_context's thread (open_storage() before the io_context
// runs); the server must outlive io_context::run(), because its connections
// and storage threads call back into it until they have ended; stop() joins
// the storage threads.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "zkd/admin/admin_endpoints.h"
#include "zkd/net/client_connection.h"
#include "zkd/net/client_listener.h"
#include "zkd/net/peer_transport.h"
#include "zkd/server/client_state.h"
#include "zkd/server/clocks.h"
#include "zkd/server/config.h"
#include "zkd/server/container_manager.h"
#include "zkd/server/four_letter_whitelist.h"
#include "zkd/server/log_thread.h"
#include "zkd/server/recovery.h"
#include "zkd/server/reply_pipeline.h"
#include "zkd/server/server_stats.h"
#include "zkd/server/session_credentials.h"
#include "zkd/server/session_tracker.h"
#include "zkd/server/snapshot_service.h"
#include "zkd/server/status_view.h"
#include "zkd/server/write_request.h"
#include "zkd/storage/env.h"
#include "zkd/storage/status.h"
#include "zkd/storage/txn_log.h"
#include "zkd/tree/database.h"
#include "zkd/zab/zab.h"

namespace zkd::server {

class Server final : public net::ConnectionHandler {
 public:
  // Exit status after the txn log failed while serving (disk full, I/O error).
  static constexpr int kExitLogFailure = 4;

  Server(boost::asio::io_context& io, ServerConfig config,
         storage::Env& env = storage::posix_env());
  ~Server() override;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Recovers the state from dataDir/dataLogDir (snapshot + log replay), reads
  // or creates the session key, opens the log and starts the storage threads.
  // Must succeed before start(); an error (corrupt log, unreadable files)
  // names the file and what to do.
  storage::Status open_storage();
  // Binds the client port and starts serving; a bind error is returned.
  boost::system::error_code start();
  // The address the client port is bound to.
  boost::asio::ip::tcp::endpoint endpoint() const;
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

  // Whether this server takes clients: standalone always; a replica while
  // it is part of a serving quorum (and its tree has not diverged).
  bool serving() const;
  // A replica whose tree digest differed from its leader's: it takes no
  // client, though its four-letter words still answer.
  bool diverged() const;
  // What the four-letter words, the admin server and the metrics read.
  const StatusView& view() const { return view_; }

  // net::ConnectionHandler
  void opened(const std::shared_ptr<net::ClientConnection>& connection) override;
  std::string four_letter_word(net::ClientConnection& connection, std::string_view word,
                               std::string_view argument) override;
  void frame(net::ClientConnection& connection, std::string_view payload) override;
  void closed(net::ClientConnection& connection) override;

 private:
  using SessionId = tree::SessionId;

  // What finishes a prepared write once it is durable and applied.
  struct PendingWrite {
    enum class Kind {
      kReply,          // a client's write (or an error txn): reply to it
      kCreateSession,  // the connect handshake: send the ConnectResponse
      kCloseSession,   // a client's closeSession: reply, then close
      kExpiry,         // the server's own (expiry, container manager): nobody to answer
      kSync,           // ensemble: a sync, answered once the leader's point is applied
    };
    Kind kind = Kind::kReply;
    tree::Txn txn;
    int32_t xid = 0;
    zk::wire::OpCode op = zk::wire::OpCode::kError;
    std::optional<zk::wire::Error> err;  // error txns made by the server: the reply's err
    int64_t started_ms = 0;              // steady clock, for latency
    std::string payload;                 // kSync: the request, answered when released
  };
  // A request (RequestHeader + body) waiting behind earlier ones of its connection.
  struct PendingRequest {
    std::string payload;
    int64_t started_ms = 0;
  };
  using Pipeline = ReplyPipeline<PendingWrite, PendingRequest>;
  // How a request reaches handle_request().
  enum class Arrival {
    kNew,       // just read from the connection
    kInTurn,    // it waited behind earlier requests of its connection and is next
    kReleased,  // a sync whose barrier has passed: answer it now
  };
  struct Replication;

  // handshake and sessions (server.cc)
  void handle_connect(ClientState& client, std::string_view payload);
  void expire_due_sessions();
  void schedule_tick();
  void end_session(SessionId session);
  // The container manager (container_manager.h): every check interval the
  // leader (or standalone server) deletes the sweep candidates.
  void schedule_container_check();
  void check_containers();
  // Every session in the tree gets its whole timeout from now (after
  // recovery, and on a replica that starts to lead).
  void touch_all_sessions();

  void complete_create_session(ClientState* client, const PendingWrite& write);

  // the durable write path (durable_writes.cc)
  int64_t next_zxid() { return ++last_prepared_zxid_; }
  // A client's write (or the server's own: expiry) on its way: standalone,
  // prepared here and handed to the log; in an ensemble, proposed or
  // forwarded (replication.cc). `write` parks what finishes it.
  void submit_write(net::ConnectionId connection, PendingWrite write, const WriteRequest& request);
  // Hands a prepared txn to the log and parks what finishes it.
  void submit(net::ConnectionId connection, PendingWrite write);
  void on_log_batch(const LogBatch& batch);
  // Applies and answers whatever the disk has released, in order.
  void drain();
  // Answers a write whose txn is applied (`response`: its result).
  void finish_write(net::ConnectionId connection, PendingWrite& write,
                    const tree::Response& response);
  ClientState* find_client(net::ConnectionId connection);
  // Closes every client connection (shutdown, or a replica leaving its quorum).
  void close_all_clients();

  // the ensemble (replication.cc); used only when config_.replicated()
  bool replicated() const { return replication_ != nullptr; }
  // `records`: the log after the snapshot at `snapshot_zxid`, replayed.
  storage::Status open_replica(std::vector<storage::LogRecord> records, int64_t snapshot_zxid);
  boost::system::error_code start_replica();
  void stop_replica();
  void replicate_write(net::ConnectionId connection, PendingWrite write,
                       const WriteRequest& request);
  void replicate_sync(ClientState& client, std::string payload, int64_t started_ms);
  void on_replica_tick();
  // Closes every client connection and forgets the writes in flight (the
  // replica stopped serving, or its leader changed).
  void drop_clients();
  void finish_replicated_write(net::ConnectionId connection, uint64_t ticket, PendingWrite& write);
  void fail_replica(const std::string& why);

  // requests (request_dispatch.cc)
  void handle_request(ClientState& client, std::string_view payload, Arrival arrival,
                      int64_t started_ms);
  void answer_write(ClientState& client, int32_t xid, zk::wire::OpCode op, std::string_view body,
                    int64_t started_ms);
  void answer_with_error_txn(ClientState& client, int32_t xid, zk::wire::OpCode op,
                             zk::wire::Error err, int64_t started_ms);
  void answer_close_session(ClientState& client, int32_t xid, int64_t started_ms);
  // setWatches (101) or setWatches2 (105, `op`).
  void answer_set_watches(ClientState& client, int32_t xid, zk::wire::OpCode op,
                          std::string_view body, int64_t started_ms);
  void answer_auth(ClientState& client, int32_t xid, std::string_view body);
  void answer_get_ephemerals(ClientState& client, int32_t xid, std::string_view body,
                             int64_t started_ms);
  void answer_who_am_i(ClientState& client, int32_t xid, int64_t started_ms);
  // Sends ReplyHeader + body and records the cons statistics.
  void reply(ClientState& client, int32_t xid, int64_t zxid, zk::wire::Error err,
             std::string_view body, std::string_view op_tag, int64_t started_ms);
  void send(ClientState& client, std::string frame);
  // Sends each notification whose watcher may read the node now; `zxid` goes
  // into their headers (client_frames.h: the firing txn's, or kNoZxid).
  void deliver(const std::vector<tree::Notification>& notifications, int64_t zxid);

  // Client connections' options: jute.maxbuffer and the read gate
  // (globalOutstandingLimit, over_outstanding_limit()).
  net::ConnectionOptions connection_options() const;
  bool over_outstanding_limit() const;

  boost::asio::io_context& io_;
  ServerConfig config_;
  FourLetterWhitelist whitelist_;
  tree::Database db_;
  SessionTracker tracker_;
  SessionIdGenerator session_ids_;
  SessionPasswords passwords_;
  std::shared_ptr<net::ReadGate> read_gate_;
  std::shared_ptr<net::ClientListener> listener_;
  std::unique_ptr<admin::AdminEndpoints> admin_;  // set by start()
  boost::asio::steady_timer tick_timer_;
  bool stopped_ = false;
  int exit_status_ = 0;
  std::function<void()> on_stop_;

  // Storage (owned by the state thread unless stated).
  storage::Env& env_;
  StorageLayout layout_;
  std::unique_ptr<LogThread> log_;
  int64_t last_prepared_zxid_ = 0;  // the last zxid handed to the log
  int64_t durable_zxid_ = 0;        // the log thread's last report
  Pipeline pipeline_;
  // Snapshots and purges, with the snapshot thread; walks db_, rolls log_.
  SnapshotService snapshots_;
  ContainerManager containers_;
  boost::asio::steady_timer container_timer_;

  std::unique_ptr<Replication> replication_;  // set in an ensemble

  std::unordered_map<net::ConnectionId, ClientState> clients_;
  std::unordered_map<SessionId, net::ConnectionId> session_owner_;

  ServerStats stats_;
  StatusView view_;  // reads the members above
};

// A connection's ip id (authentication.h): its peer's address as Java's
// getHostAddress writes it.
std::string peer_ip_id(const net::ClientConnection& connection);

}  // namespace zkd::server
