// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/online_backup.h"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <utility>

#include "libzk/wire/protocol.h"
#include "zkd/apache_files/apache_snapshot.h"
#include "zkd/log/log.h"
#include "zkd/server/authentication.h"
#include "zkd/server/database_options.h"
#include "zkd/server/snapshot_install.h"
#include "zkd/tree/acl_check.h"
#include "zkd/tree/auth_ids.h"

namespace zkd::server {

using net::hex;
using net::log_error;
using net::log_info;

struct OnlineBackup::Pending {
  tree::LoadedSnapshot state;
  std::function<void(Restored)> done;
  int64_t deadline_ms = 0;
};

namespace {

constexpr std::chrono::milliseconds kDrainPoll{5};

// The ip id of the request's address, as a client connection's (Java's
// text for IPv6); "" when it does not parse.
std::string ip_id(const std::string& peer) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(peer, ec);
  if (ec) return {};
  if (address.is_v6()) return ipv6_host_address(address.to_v6().to_bytes());
  return address.to_string();
}

}  // namespace

OnlineBackup::OnlineBackup(Parts parts)
    : parts_(parts), drain_timer_(parts_.env.new_timer(parts_.io)) {}

void OnlineBackup::stop() {
  drain_timer_->cancel();
  if (pending_) parts_.writes.hold(false);
  pending_.reset();
}

admin::AdminAccess OnlineBackup::check_root_all(const admin::AdminCaller& caller) const {
  std::vector<zk::wire::Id> ids;
  if (caller.scheme == tree::kDigestScheme) {
    auto digest =
        authenticate(zk::wire::AuthPacket{0, caller.scheme, caller.auth}, "", parts_.config.digest);
    if (digest) ids = *std::move(digest);
  } else if (caller.scheme == tree::kIpScheme) {
    if (std::string ip = ip_id(caller.peer_ip); !ip.empty()) {
      ids.push_back({std::string(tree::kIpScheme), ip});
    }
  } else if (caller.scheme == tree::kX509Scheme && !caller.x509_subject.empty()) {
    if (caller.x509_subject == parts_.config.x509_super_user) {
      ids.push_back({std::string(tree::kSuperScheme), caller.x509_subject});
    }
    ids.push_back({std::string(tree::kX509Scheme), caller.x509_subject});
  }
  if (ids.empty()) return admin::AdminAccess::kNotAuthenticated;
  tree::AuthIds auth;
  for (const auto& id : ids) auth.add(id);
  const tree::Node* root = parts_.db.tree().find("/");
  for (int32_t bit = 1; bit <= zk::wire::perms::kAll; bit <<= 1) {
    if (root == nullptr || !tree::permitted(root->acl(), bit, auth)) {
      return admin::AdminAccess::kNotAuthorized;
    }
  }
  return admin::AdminAccess::kGranted;
}

admin::BackupService::Snapshot OnlineBackup::snapshot() {
  Snapshot out;
  out.zxid = parts_.db.last_zxid();
  Status s = apache::write_apache_snapshot(parts_.db.tree(), parts_.db.session_table(),
                                           [&out](std::string_view bytes) {
                                             out.bytes.append(bytes);
                                             return Status();
                                           },
                                           {});
  if (!s.ok()) out.error = s.message();
  return out;
}

void OnlineBackup::restore(std::string bytes, std::function<void(Restored)> done) {
  if (parts_.config.replicated()) {
    done({-1,
          "an ensemble member is not restored online: stop every server and restore each from "
          "the same file with zkd restore (docs/quorum-loss-recovery.md)"});
    return;
  }
  if (pending_) {
    done({-1, "a restore is in progress"});
    return;
  }
  auto loaded = apache::read_apache_snapshot(bytes, "the restore request's snapshot",
                                             parts_.db.tree().extended_types(), {});
  if (!loaded.ok()) {
    done({-1, loaded.status().message()});
    return;
  }
  pending_ = std::make_shared<Pending>(Pending{
      *std::move(loaded), std::move(done), parts_.env.clock().steady_ms() + kDrainTimeout.count()});
  parts_.writes.hold(true);
  wait_for_drain(pending_);
}

void OnlineBackup::wait_for_drain(std::shared_ptr<Pending> pending) {
  if (pending != pending_) return;  // stopped
  if (parts_.writes.pending() == 0) {
    Restored restored = replace_state(*pending);
    pending_.reset();
    parts_.writes.hold(false);
    pending->done(std::move(restored));
    return;
  }
  if (parts_.env.clock().steady_ms() > pending->deadline_ms) {
    pending_.reset();
    parts_.writes.hold(false);
    pending->done({-1, "the writes in flight did not finish within " +
                           std::to_string(kDrainTimeout.count()) + " ms; nothing was restored"});
    return;
  }
  drain_timer_->arm(kDrainPoll, [this, pending] { wait_for_drain(pending); });
}

admin::BackupService::Restored OnlineBackup::replace_state(Pending& pending) {
  // A 3.9 file records its zxid; a 3.8 or zkd one does not, and its newest
  // node's zxid is the best bound known.
  const int64_t zxid =
      std::max({parts_.db.last_zxid(), pending.state.zxid, tree::newest_zxid(pending.state.tree)});
  pending.state.zxid = zxid;
  pending.state.walked = zxid;
  tree::Database restored(database_options(parts_.config, parts_.env.clock().wall_ms()));
  restored.load(std::move(pending.state));
  parts_.snapshots.abandon();
  // The new state is durable before the old log goes (snapshot_install.h).
  if (Status s = stage_snapshot_install(parts_.env, parts_.layout, restored); !s.ok()) {
    return {-1, "cannot write the restored state: " + s.message() + "; nothing was restored"};
  }
  Status s = parts_.writes.restart_at(zxid);
  if (s.ok()) s = finish_snapshot_install(parts_.env, parts_.layout, zxid);
  if (!s.ok()) {
    log_error("restore: ", s.message(), "; the restored state is staged and replaces the old ",
              "one when zkd restarts");
    return {-1,
            "cannot replace the txn log: " + s.message() + "; restart zkd to finish the restore"};
  }
  parts_.db = std::move(restored);
  parts_.sessions.state_replaced(parts_.env.clock().steady_ms());
  parts_.clients.close_all();
  log_info("restored a snapshot of ", parts_.db.counts().znodes, " znodes and ",
           parts_.db.sessions().size(), " sessions; last zxid ", hex(zxid));
  return {zxid, ""};
}

}  // namespace zkd::server
