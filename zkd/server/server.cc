// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/server.h"

#include <malloc.h>

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <utility>

#include "zkd/log/log.h"
#include "zkd/server/database_options.h"
#include "zkd/server/keeper_words.h"
#include "zkd/server/log_thread.h"

namespace zkd::server {

namespace asio = boost::asio;
using net::hex;
using net::log_error;
using net::log_info;
using net::log_warn;

namespace {
// The `n`th seed derived from the server's (SplitMix64's finaliser), so that
// each part draws its own sequence.
uint64_t derived_seed(uint64_t seed, uint64_t n) {
  uint64_t z = seed + n * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

Server::Server(asio::io_context& io, ServerConfig config, Security security, storage::Env& env,
               uint64_t seed)
    : io_(io),
      config_(std::move(config)),
      security_(std::move(security)),
      env_(env),
      seed_(seed),
      layout_(storage_layout(config_)),
      db_(database_options(config_, env_.clock().wall_ms())),
      clients_(stats_, env_.clock()),
      snapshots_(io, env_, db_, snapshot_options(config_, derived_seed(seed_, 1)),
                 [this] { writes_.log().roll(); }),
      writes_(db_, clients_, snapshots_, stats_, service_,
              WritePath::Limits{.outstanding = config_.global_outstanding_limit,
                                .request_throttle = config_.request_throttle_limit},
              env_.clock(), audit_),
      sessions_(io, env_, sessions_options(config_), db_, clients_, writes_,
                [this] {
                  // In an ensemble only the serving leader decides.
                  if (!replication_) return true;
                  const zab::Status& status = replication_->host().status();
                  return status.serving && status.role == zab::Role::kLeading;
                }),
      read_only_(config_.read_only_mode && config_.replicated(), config_.tick_time_ms),
      view_(StatusView::Sources{
          .config = config_,
          .db = db_,
          .clients = clients_.all(),
          .tracker = sessions_.tracker(),
          .snapshots = snapshots_,
          .stats = stats_,
          .writes_pending = [this] { return writes_.pending(); },
          .connection_drop_probability = [this] { return service_.connection_drop_probability(); },
          .client_port = [this] { return endpoint().port(); },
          .replica = [this]() -> const ReplicaHost* {
            return replication_ ? &replication_->host() : nullptr;
          },
          .read_only = read_only_,
          .yield_leadership = [this] { return yield_leadership(); },
          .keeper_word =
              [this](std::string_view word) {
                return keeper_word(word, KeeperWordParts{.env = env_,
                                                         .layout = layout_,
                                                         .db = db_,
                                                         .snapshots = snapshots_,
                                                         .writes = writes_,
                                                         .replication = replication_.get()});
              },
          .clock = env_.clock()}),
      service_(ClientService::Parts{.config = config_,
                                    .security = security_,
                                    .db = db_,
                                    .clients = clients_,
                                    .sessions = sessions_,
                                    .writes = writes_,
                                    .view = view_,
                                    .stats = stats_,
                                    .read_only = read_only_,
                                    .audit = audit_,
                                    .clock = env_.clock(),
                                    .seed = derived_seed(seed_, 3)}),
      backup_(OnlineBackup::Parts{.io = io_,
                                  .config = config_,
                                  .env = env_,
                                  .layout = layout_,
                                  .db = db_,
                                  .writes = writes_,
                                  .snapshots = snapshots_,
                                  .clients = clients_,
                                  .sessions = sessions_}),
      broadcast_(BroadcastGenerator::Parts{
          .db = db_, .writes = writes_, .clock = env_.clock(), .timer = env_.new_timer(io_)}) {
  stats_.started_steady_ms = env_.clock().steady_ms();
  listener_ = std::make_shared<net::ClientListener>(io_, service_, config_.max_client_cnxns,
                                                    config_.max_cnxns, connection_options(false));
}

std::string Server::yield_leadership() {
  if (!replication_) return "Failed to yield leadership: a standalone server has none\n";
  const zab::Status& status = replication_->host().status();
  if (status.role != zab::Role::kLeading || !status.serving) {
    return "Failed to yield leadership: this server is not the serving leader\n";
  }
  // After the answer is queued: the hand-over drops every connection.
  asio::post(io_, [this] {
    if (replication_ && !stopped_) replication_->transfer(0);
  });
  return "Sent yield leadership request to leader.\n";
}

net::ConnectionOptions Server::connection_options(bool secure_port) const {
  net::ConnectionOptions options;
  options.max_frame = config_.jute_max_buffer;
  options.read_gate = writes_.read_gate();
  // The handshake deadlines run on the Env's time, as every other deadline.
  options.new_timer = [this] { return env_.new_timer(io_); };
  if (secure_port || config_.port_unification) {
    options.tls = security_.client_tls;
    options.tls_optional = !secure_port;
  }
  return options;
}

admin::AdminOptions Server::admin_options() const {
  return admin::AdminOptions{
      .admin_enabled = config_.admin_enabled,
      .admin_address = config_.admin_address,
      .admin_port = config_.admin_port,
      .admin_command_url = config_.admin_command_url,
      .idle_timeout_ms = config_.admin_idle_timeout_ms,
      .admin_tls = security_.admin_tls,
      .https_only = config_.admin_force_https,
      .prometheus = config_.prometheus_enabled(),
      .metrics_host = config_.metrics_http_host,
      .metrics_port = config_.metrics_http_port,
      .metrics_provider_class = config_.metrics_provider_class,
      .backup = {.snapshot_enabled = config_.admin_snapshot_enabled,
                 .restore_enabled = config_.admin_restore_enabled,
                 .rate_limiter_interval = config_.admin_rate_limiter_interval,
                 .steady_ms = [this] { return env_.clock().steady_ms(); }},
      .broadcast_enabled = config_.admin_broadcast_enabled,
  };
}

std::pair<std::shared_ptr<net::ClientListener>, boost::system::error_code> Server::bind_listener(
    const std::string& address, uint16_t port, bool secure_port) {
  auto listener = std::make_shared<net::ClientListener>(
      io_, service_, config_.max_client_cnxns, config_.max_cnxns, connection_options(secure_port));
  boost::system::error_code ec;
  if (!address.empty()) {
    auto ip = asio::ip::make_address(address, ec);
    if (!ec) ec = listener->listen(asio::ip::tcp::endpoint(ip, port));
    return {listener, ec};
  }
  ec = listener->listen(asio::ip::tcp::endpoint(asio::ip::tcp::v6(), port));
  if (ec) {
    // No IPv6 on this host: every IPv4 address.
    listener =
        std::make_shared<net::ClientListener>(io_, service_, config_.max_client_cnxns,
                                              config_.max_cnxns, connection_options(secure_port));
    ec = listener->listen(asio::ip::tcp::endpoint(asio::ip::tcp::v4(), port));
  }
  return {listener, ec};
}

std::optional<asio::ip::tcp::endpoint> Server::admin_endpoint() const {
  return admin_ ? admin_->admin_endpoint() : std::nullopt;
}

std::optional<asio::ip::tcp::endpoint> Server::metrics_endpoint() const {
  return admin_ ? admin_->metrics_endpoint() : std::nullopt;
}

Server::~Server() { stop(); }

Status Server::open_storage() {
  const bool gssapi = security_.sasl && security_.sasl->settings().mechanism ==
                                            sasl::SaslSettings::Mechanism::kGssapi;
  if (Status s = audit_.open(config_, env_.clock(),
                             server_user(gssapi ? security_.sasl->settings().principal : ""));
      !s.ok()) {
    return s;
  }
  Status status = recover_and_open();
  if (!status.ok()) audit_.start_failed();
  return status;
}

Status Server::recover_and_open() {
  std::vector<storage::LogRecord> records;
  auto recovered = recover(env_, layout_, db_, config_.replicated() ? &records : nullptr);
  if (!recovered.ok()) return recovered.status();
  for (const auto& why : recovered->skipped_snapshots) {
    log_warn("skipped snapshot ", why);
  }
  if (!recovered->repaired.empty()) log_warn("txn log repaired: ", recovered->repaired);
  // Apache's start-up figures (ZKDatabase.loadDataBase, FileTxnSnapLog).
  Metrics& m = stats_.metrics;
  m.dbinittime.record(recovered->snapshot_ms + recovered->log_ms);
  m.startup_snap_load_time.record(recovered->snapshot_ms);
  if (recovered->from_snapshot || recovered->replayed > 0) {
    m.startup_txns_loaded.record(static_cast<int64_t>(recovered->replayed));
    m.startup_txns_load_time.record(recovered->log_ms);
  }
  if (recovered->from_snapshot) {
    log_info("loaded ", layout_.snap_dir, "/", recovered->snapshot_name, " in ",
             recovered->snapshot_ms, " ms and replayed ", recovered->replayed, " txns from ",
             layout_.log_dir, " in ", recovered->log_ms, " ms; last zxid ", hex(db_.last_zxid()));
  } else {
    log_info("no snapshot in ", layout_.snap_dir, "; replayed ", recovered->replayed, " txns from ",
             layout_.log_dir, " in ", recovered->log_ms, " ms; last zxid ", hex(db_.last_zxid()));
    // Like Apache's initial snapshot.0: recovery then always starts from one.
    if (auto s = write_snapshot_now(env_, layout_.snap_dir, db_); !s.ok()) return s;
  }
  const std::string data_dir = config_.data_dir.string();
  if (config_.apache_peer_protocol) {
    // Sessions move between zkd and Apache servers: Apache's passwords.
    sessions_.use_apache_passwords();
  } else if (config_.replicated() && !session_key_exists(env_, data_dir, layout_.snap_dir)) {
    // Every replica must derive the same passwords; see ensemble_session_key().
    sessions_.set_password_key(ensemble_session_key(), server_list_session_key(config_));
  } else {
    auto key = load_or_create_session_key(env_, data_dir, layout_.snap_dir);
    if (!key.ok()) return key.status();
    sessions_.set_password_key(*key);
  }

  storage::LogOptions options;
  options.dir = layout_.log_dir;
  options.preallocate = static_cast<uint64_t>(config_.pre_alloc_size_kb) * 1024;
  options.force_sync = config_.force_sync;
  if (!config_.force_sync) {
    log_warn("forceSync=no: the txn log is never fsynced; acknowledged writes MAY BE LOST if ",
             "the machine loses power or crashes");
  }
  auto writer = storage::TxnLogWriter::open(env_, options, recovered->tail);
  if (!writer.ok()) return writer.status();
  auto report = [this](LogBatch batch) {
    asio::post(io_, [this, batch = std::move(batch)] {
      if (stopped_) return;
      if (auto status = writes_.logged(batch); !status.ok()) {
        fail("the txn log failed: " + status.message() +
             "; stopping (writes already acknowledged are safe, pending ones are not)");
      }
    });
  };
  std::unique_ptr<ServerLog> log =
      make_log_ ? make_log_(std::move(*writer), std::move(report))
                : std::make_unique<LogThread>(std::move(*writer), env_.clock(), std::move(report));
  writes_.open(std::move(log), std::max(db_.last_zxid(), recovered->tail.last_zxid));
  snapshots_.open();
  if (config_.replicated()) {
    auto replica = Replication::open(
        Replication::Parts{
            .io = io_,
            .config = config_,
            .security = security_,
            .env = env_,
            .layout = layout_,
            .db = db_,
            .clients = clients_,
            .sessions = sessions_,
            .writes = writes_,
            .snapshots = snapshots_,
            .fail =
                [this](const std::string& why) {
                  fail(why + "; stopping (writes already acknowledged are safe on a quorum)");
                },
            .serving = [this] { service_.serving(); },
            .read_only = read_only_,
            .read_only_started = [this] { service_.read_only_started(); },
            .seed = derived_seed(seed_, 2),
            .make_links = make_links_},
        std::move(records), recovered->snapshot_zxid, recovered->snapshot_config);
    if (!replica.ok()) return replica.status();
    replication_ = std::move(*replica);
  }
  // Recovery read every logged txn into the heap (a million: about 200 MB,
  // in the reading thread's arena) and has freed all but Zab's window;
  // glibc keeps freed memory, so give it back now that start-up is done.
  ::malloc_trim(0);

  // Restored sessions get their whole timeout from now (Apache): a client
  // that reconnects in time keeps its session and ephemerals.
  sessions_.touch_all(env_.clock().steady_ms());
  if (!db_.sessions().empty()) {
    log_info("restored ", db_.sessions().size(), " sessions; each expires unless resumed within ",
             "its timeout");
  }
  return {};
}

boost::system::error_code Server::start(Listeners listeners) {
  boost::system::error_code ec = start_serving(listeners);
  if (ec) {
    audit_.start_failed();
  } else {
    audit_.started();
  }
  return ec;
}

boost::system::error_code Server::start_serving(Listeners listeners) {
  if (listeners == Listeners::kNone) {
    listener_.reset();
  } else if (config_.plaintext_clients) {
    auto [listener, ec] = bind_listener(config_.client_port_address, config_.client_port, false);
    listener_ = std::move(listener);
    if (ec) return ec;
  } else {
    listener_.reset();
  }
  if (listeners == Listeners::kBind && config_.secure_client_port != 0) {
    auto [secure, secure_ec] =
        bind_listener(config_.secure_client_port_address, config_.secure_client_port, true);
    if (secure_ec) return secure_ec;
    secure_listener_ = std::move(secure);
  }
  if (replication_) {
    if (auto replica_ec = replication_->start()) return replica_ec;
  }
  if (listener_) listener_->start();
  if (secure_listener_) secure_listener_->start();
  admin::AdminOptions options = admin_options();
  options.insecure_admin = [this] { ++stats_.metrics.insecure_admin_count; };
  admin_ = std::make_unique<admin::AdminEndpoints>(
      io_, view_,
      admin::AdminServices{
          .access = &backup_, .backup = &backup_, .shedder = &service_, .broadcast = &broadcast_},
      std::move(options));
  admin_->start();
  sessions_.start();
  snapshots_.start();
  if (listener_ || secure_listener_) {
    log_info("serving clients on ", endpoint(), listener_ ? "" : " (TLS only)", " (tickTime ",
             config_.tick_time_ms, " ms, session timeout ", config_.min_session_timeout_ms, "..",
             config_.max_session_timeout_ms, " ms)");
  }
  if (listener_ && secure_listener_) {
    log_info("serving TLS clients on ", secure_listener_->local_endpoint());
  }
  return {};
}

asio::ip::tcp::endpoint Server::endpoint() const {
  if (listener_) return listener_->local_endpoint();
  return secure_listener_ ? secure_listener_->local_endpoint() : asio::ip::tcp::endpoint();
}

std::optional<asio::ip::tcp::endpoint> Server::secure_endpoint() const {
  if (!secure_listener_) return std::nullopt;
  return secure_listener_->local_endpoint();
}

void Server::stop() {
  if (stopped_) return;
  stopped_ = true;
  audit_.stopping();
  if (listener_) listener_->stop();
  if (secure_listener_) secure_listener_->stop();
  if (admin_) admin_->stop();
  backup_.stop();
  broadcast_.stop();
  sessions_.stop();
  if (replication_) replication_->stop();
  clients_.close_all();
  // What was handed to the log becomes durable (and is replayed at the next
  // start) but is not applied or answered any more.
  writes_.stop();
  snapshots_.stop();
  if (on_stop_) std::exchange(on_stop_, nullptr)();
}

void Server::fail(const std::string& message) {
  log_error(message);
  exit_status_ = kExitLogFailure;
  stop();
}

}  // namespace zkd::server
