// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/replication.h"
#include "zkd/server/reconfig.h"
#include "zkd/server/replica_membership.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <utility>

#include "zkd/log/log.h"
#include "zkd/server/apache_peer_links.h"
#include "zkd/server/database_options.h"
#include "zkd/server/dynamic_config_file.h"
#include "zkd/server/membership.h"
#include "zkd/server/quorum_sasl.h"

namespace zkd::server {

namespace asio = boost::asio;
using net::hex;
using net::log_error;
using net::log_info;
using net::log_warn;

namespace {

// Core ticks per silence limit (and at most this many per tickTime).
constexpr int kTicksPerLimit = 10;
// Apache's finalizeWait and the pace of vote resends.
constexpr std::chrono::milliseconds kElectionWait{200};

// Whole ticks in `ms`, at least one.
int ticks_in(int64_t ms, std::chrono::milliseconds tick) {
  return static_cast<int>(std::max<int64_t>(1, ms / tick.count()));
}

}  // namespace

ReplicaTiming replica_timing(const ServerConfig& config) {
  const int64_t tick_time = config.tick_time_ms;
  const int64_t silence = config.peer_silence_ms();
  ReplicaTiming t;
  t.tick = std::chrono::milliseconds(
      std::max<int64_t>(1, std::min(tick_time, silence) / kTicksPerLimit));
  t.config.id = config.my_id;
  for (const auto& [id, server] : config.quorum_servers) {
    (server.observer ? t.config.observers : t.config.voters).push_back(id);
  }
  t.config.quorum_sync = config.quorum_sync;
  t.config.finalize_ticks = ticks_in(kElectionWait.count(), t.tick);
  t.config.vote_resend_ticks = t.config.finalize_ticks;
  t.config.init_limit = ticks_in(config.init_limit.value_or(10) * tick_time, t.tick);
  t.config.sync_limit = ticks_in(silence, t.tick);
  // A leader building a Snap's state is silent meanwhile: it says so first,
  // and its learners then allow it Apache's syncLimit x tickTime.
  t.config.busy_limit = ticks_in(config.sync_limit.value_or(5) * tick_time, t.tick);
  t.touch_report_ticks = ticks_in(tick_time / 2, t.tick);
  return t;
}

SessionPasswords::Key ensemble_session_key() {
  constexpr SessionPasswords::Key kFixed = {0x7a6b2d656e73656dULL, 0x626c652d6b657921ULL};
  return {siphash24(kFixed, "ensemble-0"), siphash24(kFixed, "ensemble-1")};
}

SessionPasswords::Key server_list_session_key(const ServerConfig& config) {
  std::string servers;
  for (const auto& [id, server] : config.quorum_servers) {
    servers += std::to_string(id) + "=" + server.host + ":" + std::to_string(server.quorum_port) +
               ":" + std::to_string(server.election_port) + "\n";
  }
  constexpr SessionPasswords::Key kFixed = {0x7a6b2d656e73656dULL, 0x626c652d6b657921ULL};
  return {siphash24(kFixed, "0" + servers), siphash24(kFixed, "1" + servers)};
}

StatusOr<std::unique_ptr<Replication>> Replication::open(Parts parts,
                                                         std::vector<storage::LogRecord> records,
                                                         int64_t snapshot_zxid,
                                                         const std::string& snapshot_config) {
  ReplicaTiming timing = replica_timing(parts.config);
  // The version of the configuration file (a dynamic file's), unless the
  // snapshot or the log holds a later reconfiguration.
  timing.config.membership_version = parts.config.config_version;
  if (auto status = take_snapshot_membership(timing.config, snapshot_config); !status.ok()) {
    return status;
  }
  take_logged_membership(timing.config, records);
  if (auto why = zab::validate(timing.config); !why.empty()) {
    return Status::config("ensemble configuration: " + why);
  }
  const tree::Database& db = parts.db;
  const int64_t last = records.empty() ? db.last_zxid() : records.back().zxid;
  auto boot = replica_bootstrap(parts.env, parts.layout.snap_dir, std::move(records), snapshot_zxid,
                                db.last_zxid(), timing.config.commit_window,
                                static_cast<uint32_t>(parts.seed));
  if (!boot.ok()) return boot.status();
  log_info("replica ", parts.config.my_id, " of ", timing.config.voters.size(), " voters; epochs ",
           boot->hard_state.accepted_epoch, "/", boot->hard_state.current_epoch, ", last zxid ",
           hex(last), "; a silent peer is given up after ",
           timing.config.sync_limit * timing.tick.count(), " ms, core tick ", timing.tick.count(),
           " ms");
  return std::make_unique<Replication>(std::move(parts), std::move(timing), std::move(*boot));
}

Replication::Replication(Parts parts, ReplicaTiming timing, zab::Bootstrap boot)
    : parts_(std::move(parts)),
      tick_(timing.tick),
      touch_report_ticks_(static_cast<uint64_t>(timing.touch_report_ticks)),
      host_(std::move(timing.config), std::move(boot),
            ReplicaHost::Storage{parts_.env, parts_.layout,
                                 database_options(parts_.config, parts_.env.clock().wall_ms())},
            parts_.db, parts_.writes.log(), *this),
      tick_timer_(parts_.env.new_timer(parts_.io)),
      dynamic_version_(parts_.config.config_version) {
  parts_.writes.replicate(host_);
  host_.record_metrics_in(parts_.clients.metrics(), [this](int64_t session) {
    return parts_.clients.owner(session) != nullptr;
  });
}

std::unique_ptr<net::PeerLinks> Replication::tcp_links(std::vector<net::PeerAddress> peers,
                                                       net::PeerLinks::Receive receive) const {
  if (parts_.config.apache_peer_protocol) {
    log_info("peer links: Apache ZooKeeper's protocol (zkd.peerProtocol=apache)");
    // An Apache learner's client came back: alive while its session is, and
    // touched, as Apache's leader does (LearnerHandler's REVALIDATE).
    auto revalidate = [this](int64_t session, int32_t timeout_ms) {
      if (!parts_.db.session_exists(session)) return false;
      parts_.sessions.track(session, timeout_ms, parts_.env.clock().steady_ms());
      return true;
    };
    return apache_peer_links(parts_.io, parts_.config, std::move(peers), std::move(receive),
                             parts_.env, parts_.db, std::move(revalidate),
                             [this] { return host_.status().epoch; });
  }
  net::PeerTransportOptions options;
  // The links' deadlines and back-off run on the Env's time.
  options.clock = &parts_.env.clock();
  options.new_timer = [&env = parts_.env, &io = parts_.io] { return env.new_timer(io); };
  const ServerConfig& config = parts_.config;
  const Security& security = parts_.security;
  if (config.ssl_quorum || config.quorum_port_unification) {
    options.tls_server = security.quorum_tls_server;
    // Without sslQuorum (a unified port during a move to TLS) this server
    // dials in plaintext and accepts both.
    options.tls_client = config.ssl_quorum ? security.quorum_tls_client : nullptr;
    options.tls_optional = config.quorum_port_unification;
    options.verify_host = config.quorum_verify_host;
    options.verify_client_host =
        config.quorum_verify_client_host.value_or(config.quorum_verify_host);
    log_info("peer links: ", config.ssl_quorum ? "TLS" : "plaintext",
             config.quorum_port_unification ? ", accepting TLS and plaintext peers" : "",
             " (sslQuorum, portUnification)");
  }
  set_quorum_sasl(config, security, options);
  options.listen_on_all_ips = config.quorum_listen_on_all_ips;
  if (options.sasl_server) {
    log_info("peer links: quorum SASL (", security.quorum_sasl_server->settings().mechanism_name(),
             ")", options.sasl_required_by_acceptor ? ", required of peers that dial" : "",
             options.sasl_required_by_dialer ? ", required of peers dialed" : "");
  }
  return std::make_unique<net::PeerTransport>(parts_.io, parts_.config.my_id, std::move(peers),
                                              std::move(receive), options);
}

boost::system::error_code Replication::start() {
  // Apache's backward compatibility: zoo.cfg with its own server lines is
  // kept as zoo.cfg.bak before a reconfiguration rewrites it.
  const ServerConfig& config = parts_.config;
  if (config.reconfig_enabled && config.dynamic_config_file.empty() && !config.source.empty()) {
    if (Status s = back_up_static_config(parts_.env, config.source); !s.ok()) {
      log_error("cannot back zoo.cfg up: ", s.message());
    }
  }
  // Not serving until its first election ends: the read-only grace runs.
  parts_.read_only.quorum_lost(parts_.env.clock().steady_ms());
  net::PeerLinks::Receive receive = [this](net::PeerPacket packet) {
    host_.receive(std::move(packet.message), std::move(packet.attachment));
  };
  transport_ = parts_.make_links
                   ? parts_.make_links(parts_.config.my_id, known_peers(), std::move(receive))
                   : tcp_links(known_peers(), std::move(receive));
  transport_->on_link_down([this](zab::ServerId peer) { host_.link_down(peer); });
  // A snapshot streamed to a learner goes on as its link drains.
  transport_->on_drained([this](zab::ServerId) { host_.pump(); });
  if (auto ec = transport_->start()) return ec;
  host_.start();
  tick();
  return {};
}

bool Replication::request_leadership() {
  if (parts_.config.apache_peer_protocol) return false;
  return host_.request_leadership();
}

zab::Error Replication::transfer(zab::ServerId to) {
  const zab::Error err = host_.transfer(to);
  if (err == zab::Error::kOk) {
    log_info("leadership transfer", to != 0 ? " to server " + std::to_string(to) : std::string(),
             " under way: writes wait until the follower has every proposal");
  } else {
    log_warn("cannot transfer leadership: ", zab::to_string(err));
  }
  return err;
}

void Replication::stop() {
  stopped_ = true;
  host_.stop();
  tick_timer_->cancel();
  if (transport_) transport_->stop();
}

void Replication::tick() {
  if (stopped_) return;
  ++ticks_;
  const zab::Status& status = host_.status();
  if (ticks_ % touch_report_ticks_ == 0 && status.serving && status.role != zab::Role::kLeading) {
    WriteRequest touch;
    touch.kind = WriteRequest::Kind::kTouch;
    touch.touches = parts_.sessions.take_used();
    if (!touch.touches.empty()) host_.write(touch);
  }
  if (parts_.read_only.tick(parts_.env.clock().steady_ms())) {
    log_info("read-only mode: no quorum for the grace; serving reads to read-only clients");
    parts_.read_only_started();
  }
  host_.tick();
  tick_timer_->arm(tick_, [this] { tick(); });
}

void Replication::drop_clients() {
  // Apache shuts its ZooKeeperServer down: every client reconnects
  // (possibly elsewhere) and retries; writes in flight are lost.
  parts_.clients.close_all();
  parts_.writes.drop();
  parts_.sessions.clear_used();
}

// --- what the replica host hands back ---

void Replication::send(zab::Message message, std::string attachment) {
  transport_->send(net::PeerPacket{std::move(message), std::move(attachment)});
}

uint64_t Replication::queued_bytes(zab::ServerId peer) { return transport_->queued_bytes(peer); }

void Replication::logged(int64_t zxid) { parts_.snapshots.logged(zxid); }

void Replication::abandon_snapshot() { parts_.snapshots.abandon(); }

void Replication::applying(const tree::Txn& txn) {
  if (txn.header.type != zk::wire::OpCode::kCloseSession) return;
  const int64_t session = txn.header.session_id;
  // The session's own connection gets no frame (§2.4): close it before the
  // txn fires watches, unless it asked for the close itself.
  ClientState* owner = parts_.clients.owner(session);
  if (owner == nullptr || !owner->close_requested) {
    if (owner != nullptr) ClientRegistry::close(*owner);
    parts_.clients.unbind(session);
  }
  parts_.sessions.forget(session);
}

std::vector<net::PeerAddress> Replication::known_peers() const {
  QuorumServers servers = parts_.config.quorum_servers;
  if (auto tree = parse_membership_text(parts_.db.config_node().first)) {
    for (auto& [id, server] : tree->first) servers.try_emplace(id, std::move(server));
  }
  std::vector<net::PeerAddress> peers;
  for (const auto& [id, server] : servers) {
    peers.push_back(net::PeerAddress{id, server.host, server.quorum_port, server.election_port});
  }
  return peers;
}

void Replication::applied(tree::Txn txn, tree::ApplyResult result) {
  parts_.clients.deliver_fired(result.notifications, txn.header.zxid);
  if (txn.header.type == zk::wire::OpCode::kReconfig && transport_) {
    log_info("configuration version ", hex(txn.header.zxid),
             " committed: ", parts_.db.config_node().first);
    write_tree_membership();
    for (net::PeerAddress& peer : known_peers()) transport_->add_peer(std::move(peer));
  }
  if (txn.header.type == zk::wire::OpCode::kCreateSession) {
    const auto& body = std::get<tree::CreateSessionTxn>(txn.body);
    parts_.sessions.track(txn.header.session_id, body.timeout_ms, parts_.env.clock().steady_ms());
  }
  parts_.writes.applied(txn, result);
}

void Replication::touched(const std::vector<std::pair<int64_t, int32_t>>& touches) {
  const int64_t now = parts_.env.clock().steady_ms();
  for (const auto& [session, timeout] : touches) {
    if (parts_.db.session_exists(session)) parts_.sessions.track(session, timeout, now);
  }
}

void Replication::write_dynamic_config(const QuorumServers& servers, int64_t version) {
  const ServerConfig& config = parts_.config;
  if (!config.reconfig_enabled || config.source.empty() || version <= dynamic_version_) return;
  const Status s =
      server::write_dynamic_config(parts_.env, config.source, servers, version, config.my_id);
  if (s.ok()) {
    dynamic_version_ = version;
    log_info("configuration version ", hex(version), " written to ",
             dynamic_file_path(config.source, version).string(), "; ", config.source.string(),
             " points at it");
  } else {
    log_error("cannot write configuration version ", hex(version), ": ", s.message());
  }
}

void Replication::take_established_version() {
  // Apache 3.8 without reconfigEnabled keeps "version=0" (asked of it).
  if (!parts_.config.reconfig_enabled) return;
  const zab::Config& core = host_.core().config();
  const auto [text, tree_version] = parts_.db.config_node();
  if (core.membership_version <= tree_version) return;
  const auto tree = parse_membership_text(text);
  if (!tree) return;
  // The tree's lines (the configuration file's) of the servers the core's
  // membership names: a joining server's file names itself too.
  QuorumServers servers;
  const auto take = [&](zab::ServerId id, bool observer) {
    const auto it = tree->first.find(id);
    if (it == tree->first.end()) return false;
    servers[id] = it->second;
    servers[id].observer = observer;
    return true;
  };
  for (zab::ServerId id : core.voters) {
    if (!take(id, false)) return;
  }
  for (zab::ServerId id : core.observers) {
    if (!take(id, true)) return;
  }
  parts_.db.set_config_node({membership_text(servers, core.membership_version),
                             core.membership_version, parts_.env.clock().wall_ms()});
}

void Replication::write_tree_membership() {
  if (auto tree = parse_membership_text(parts_.db.config_node().first)) {
    write_dynamic_config(tree->first, tree->second);
  }
}

void Replication::state_replaced(bool installed) {
  // A leader's snapshot holds its committed membership, which may be newer
  // than any this server wrote (Apache writes what it learns at sync).
  if (installed) write_tree_membership();
  // The sessions of the new state (a leader's snapshot, or the log cut back)
  // are known from now, each with its whole timeout, as after recovery: a
  // follower resumes only sessions it tracks, and one resynced by a SNAP
  // tracked none of the sessions the snapshot holds, so it told their
  // clients they had expired while the leader still kept them.
  parts_.sessions.touch_all(parts_.env.clock().steady_ms());
}

void Replication::status_changed(const zab::Status& old, const zab::Status& now) {
  if (old.serving && !(now.serving && now.leader == old.leader)) drop_clients();
  if (old.serving && !now.serving) parts_.read_only.quorum_lost(parts_.env.clock().steady_ms());
  if (now.serving && !old.serving) parts_.read_only.quorum_back();
  if (now.serving && now.role == zab::Role::kLeading && !old.serving) {
    // Every session gets its whole timeout from now, as after a restart.
    parts_.sessions.touch_all(parts_.env.clock().steady_ms());
  }
  if (now.serving && !old.serving) {
    // Synced: the tree's membership is committed (Apache writes what the
    // leader's UPTODATE brings). A write lost to a crash, or that failed,
    // is made now.
    take_established_version();
    write_tree_membership();
  }
  if (now.serving && !old.serving) {
    // Not from inside the host's step: the held handshakes may write.
    asio::post(parts_.io, [this] {
      if (!stopped_ && host_.status().serving) parts_.serving();
    });
  }
  // The status carries the epoch once leader and followers agreed on it (0
  // before): an operator reads "not yet agreed", not an epoch 0.
  log_info("now ", replica_mode(now.role), now.serving ? " (serving)" : "", ", leader ", now.leader,
           ", epoch ", now.epoch > 0 ? std::to_string(now.epoch) : std::string("not yet agreed"),
           ", last zxid ", hex(host_.core().last_zxid()));
}

void Replication::diverged() { drop_clients(); }

void Replication::failed(const std::string& why) { parts_.fail(why); }

void Replication::settled() {
  if (!stopped_) parts_.writes.drain();
}

}  // namespace zkd::server
