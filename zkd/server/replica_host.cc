// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/replica_host.h"

#include <algorithm>
#include <utility>

#include "zkd/failpoint/points.h"
#include "zkd/log/log.h"
#include "zkd/server/epoch_files.h"
#include "zkd/server/membership.h"
#include "zkd/server/reconfig.h"
#include "zkd/server/recovery.h"
#include "zkd/server/replica_membership.h"
#include "zkd/server/snapshot_install.h"
#include "zkd/storage/snapshot_file.h"

namespace zkd::server {

using net::hex;
using net::log_error;
using net::log_info;
using net::log_warn;

const char* replica_mode(zab::Role role) {
  switch (role) {
    case zab::Role::kLeading:
      return "leader";
    case zab::Role::kFollowing:
      return "follower";
    case zab::Role::kObserving:
      return "observer";
    case zab::Role::kLooking:
      break;
  }
  return "looking";
}

StatusOr<zab::Bootstrap> replica_bootstrap(storage::Env& env, const std::string& snap_dir,
                                           std::vector<storage::LogRecord> records,
                                           int64_t snapshot_zxid, int64_t applied,
                                           size_t commit_window, uint32_t incarnation) {
  auto epochs = read_epoch_files(env, snap_dir);
  if (!epochs.ok()) return epochs.status();
  zab::Bootstrap boot;
  const int64_t last = records.empty() ? applied : records.back().zxid;
  boot.hard_state.accepted_epoch = epochs->accepted_epoch;
  boot.hard_state.current_epoch = epochs->current_epoch;
  if (boot.hard_state.current_epoch == 0 && last != 0) {
    // Apache: a missing currentEpoch is the epoch of the last logged zxid,
    // and is written so (QuorumPeer.loadDataBase): the core never raises a
    // hard state it already has, so the file would otherwise stay behind.
    boot.hard_state.current_epoch = zab::epoch_of(last);
    boot.hard_state.accepted_epoch =
        std::max(boot.hard_state.accepted_epoch, boot.hard_state.current_epoch);
    auto written = write_epoch_files(
        env, snap_dir, EpochFiles{boot.hard_state.accepted_epoch, boot.hard_state.current_epoch});
    if (!written.ok()) return written;
  }
  // The core keeps commit_window entries before the applied point for DIFF,
  // and the last reconfiguration (it may not be committed: the core holds it
  // as pending; the ones before it are in the configuration, by
  // take_logged_membership).
  const size_t keep = std::min(records.size(), commit_window);
  const size_t first = std::min(records.size() - keep, last_reconfig_index(records));
  boot.base = first == 0 ? snapshot_zxid : records[first - 1].zxid;
  for (size_t i = first; i < records.size(); ++i) {
    boot.entries.push_back(zab::Entry{records[i].zxid, std::move(records[i].txn)});
  }
  boot.applied = applied;
  boot.incarnation = incarnation;
  return boot;
}

namespace {

zab::Config with_reconfiguration(zab::Config config) {
  config.membership_of = reconfig_membership;
  return config;
}

}  // namespace

ReplicaHost::ReplicaHost(zab::Config config, zab::Bootstrap boot, Storage storage,
                         tree::Database& db, ReplicaLog& log, ReplicaEvents& events)
    : core_(with_reconfiguration(std::move(config)), std::move(boot)),
      storage_(std::move(storage)),
      db_(db),
      log_(log),
      events_(events),
      outgoing_(
          storage_.stream_limits,
          [this](zab::Message m, std::string bytes) {
            events_.send(std::move(m), std::move(bytes));
          },
          [this](zab::ServerId peer) { return events_.queued_bytes(peer); }),
      incoming_(storage_.env, storage_.layout) {
  // A tree recovered from a fuzzy snapshot may be ahead of its zxid for a while.
  digests_.reset(db_.fuzzy_until());
}

void ReplicaHost::start() {
  metrics_.started(steady_ms());
  process();
}

void ReplicaHost::tick() {
  if (stopped_) return;
  core_.tick();
  process();
}

void ReplicaHost::receive(zab::Message message, std::string attachment) {
  if (stopped_) return;
  if (message.type == zab::MsgType::kLeadershipRequest) {
    const zab::Status status = core_.status();
    if (status.role != zab::Role::kLeading || message.epoch != status.epoch) return;
    log_info("server ", message.from, " asks to lead (rqld)");
    if (const zab::Error err = transfer(message.from); err != zab::Error::kOk) {
      log_warn("cannot hand leadership to server ", message.from, ": ", zab::to_string(err));
    }
    return;
  }
  if (message.type == zab::MsgType::kSnapChunk) {
    auto snap = incoming_.chunk(message, attachment);
    if (!snap.ok()) return fail("cannot stage the leader's snapshot: " + snap.status().message());
    if (!*snap) return;  // more to come
    // Whole on disk: the core may install it now.
    message = std::move(**snap);
  } else if (message.type == zab::MsgType::kSnap && attachment.empty()) {
    if (auto s = incoming_.begin(message); !s.ok()) {
      return fail("cannot stage the leader's snapshot: " + s.message());
    }
    return;  // the core gets the Snap with its last chunk
  } else if (message.type == zab::MsgType::kSnap) {
    incoming_snapshots_[message.zxid] = std::move(attachment);
  }
  core_.step(std::move(message));
  process();
}

void ReplicaHost::pump() {
  if (stopped_) return;
  process();
}

void ReplicaHost::link_down(zab::ServerId peer) {
  if (stopped_) return;
  outgoing_.drop(peer);
  if (status_.leader == peer) incoming_.abandon();
  core_.link_down(peer);
  process();
}

void ReplicaHost::persisted(int64_t zxid) {
  if (stopped_) return;
  if (status_.role != zab::Role::kLeading) metrics_.persisted(zxid, wall_ms());
  core_.persisted(zxid);
  process();
}

void ReplicaHost::write(const WriteRequest& request) {
  if (stopped_ || !status_.serving) return;
  if (status_.role == zab::Role::kLeading) {
    propose(request);
  } else if (auto err = core_.forward(encode_write_request(request)); err != zab::Error::kOk) {
    log_warn("cannot forward a write to the leader: ", zab::to_string(err));
  }
  process();
}

void ReplicaHost::sync(uint64_t ticket) {
  if (stopped_) return;
  if (auto err = core_.sync(ticket); err != zab::Error::kOk) {
    log_warn("cannot start a sync: ", zab::to_string(err));
  }
  process();
}

zab::Error ReplicaHost::transfer(zab::ServerId to) {
  if (stopped_) return zab::Error::kNotServing;
  const zab::Error err = core_.transfer(to);
  process();
  return err;
}

bool ReplicaHost::request_leadership() {
  if (stopped_) return false;
  const zab::Status status = core_.status();
  if (status.role != zab::Role::kFollowing || !status.serving || status.leader == 0) return false;
  zab::Message m;
  m.type = zab::MsgType::kLeadershipRequest;
  m.from = core_.config().id;
  m.to = status.leader;
  m.epoch = status.epoch;
  send(std::move(m));
  return true;
}

void ReplicaHost::process() {
  if (in_process_) return;
  in_process_ = true;
  while (!stopped_) {
    if (!held_writes_.empty() && core_.transferring_to() == 0) {
      // The transfer ended: abandoned (still leading: propose them) or done
      // (not leading: propose() drops them; their clients were dropped).
      for (const WriteRequest& request : std::exchange(held_writes_, {})) propose(request);
    }
    if (!core_.has_ready()) break;
    zab::Ready ready = core_.ready();
    carry_out(ready);
    if (stopped_) break;
    const std::optional<zab::Zxid> installed = ready.install_snapshot;
    const std::vector<zab::Request> requests = std::move(ready.requests);
    core_.advance(std::move(ready));
    if (installed) {
      auto members = tree_membership();
      core_.snapshot_installed(*installed,
                               members ? std::optional(std::move(members->first)) : std::nullopt,
                               members ? members->second : 0);
    }
    // 7. forwarded writes, after advance(): their proposals go in the next Ready.
    for (const zab::Request& q : requests) {
      auto request = decode_write_request(q.payload);
      if (!request) {
        log_warn("dropping an undecodable request forwarded by server ", q.from);
        continue;
      }
      propose(*request);
    }
  }
  // Snapshots streamed to learners go on after what this input sent.
  if (!stopped_ && outgoing_.streaming()) outgoing_.pump(db_);
  in_process_ = false;
  if (!stopped_) events_.settled();
}

void ReplicaHost::carry_out(zab::Ready& ready) {
  // 1. hard state, durably, before anything leaves.
  if (ready.hard_state) {
    auto status = write_epoch_files(
        storage_.env, storage_.layout.snap_dir,
        EpochFiles{ready.hard_state->accepted_epoch, ready.hard_state->current_epoch});
    if (!status.ok()) return fail("cannot write the epoch files: " + status.message());
  }
  // 2. the leader's snapshot replaces state and log, durably.
  if (ready.install_snapshot && !install_snapshot(*ready.install_snapshot)) return;
  // 3. truncation, durably; rebuild the state if it went past the cut.
  if (ready.truncate_after && !truncate(*ready.truncate_after)) return;
  // 4. append; the log reports durability later (persisted()).
  for (zab::Entry& e : ready.entries) {
    const int64_t zxid = e.zxid;
    if (status_.role != zab::Role::kLeading) {
      metrics_.proposal_received(zxid, txn_time_ms(e.payload), wall_ms());
    }
    metrics_.logging();
    log_.append(zxid, std::move(e.payload));
    events_.logged(zxid);
  }
  // 5. apply, each txn's digest sent (leader) or compared (learner).
  for (const zab::Entry& e : ready.committed) {
    metrics_.committed(e.zxid, status_.role == zab::Role::kLeading, steady_ms());
    if (!apply(e)) return;
    exchange_digest(e.zxid);
  }
  // 6. send; a Snap carries the state right after step 5.
  for (zab::Message& m : ready.messages) send(std::move(m));
  // 8. syncs.
  for (uint64_t ticket : ready.syncs_done) events_.sync_done(ticket);
  // 9. status.
  if (ready.status) set_status(*ready.status);
  if (stopped_) return;
  // 10. the leader's digests.
  for (const auto& [zxid, digest] : ready.digests) {
    if (auto m = digests_.leaders(zxid, digest)) mismatch(*m);
  }
}

bool ReplicaHost::install_snapshot(zab::Zxid zxid) {
  outgoing_.drop_all();
  auto whole = incoming_snapshots_.find(zxid);
  const bool streamed = whole == incoming_snapshots_.end();
  if (streamed && !incoming_.received(zxid)) {
    fail("the snapshot to install (" + hex(zxid) + ") never arrived");
    return false;
  }
  // The log goes only once the snapshot replacing it is durable: it may hold
  // committed txns that count toward a quorum (snapshot_install.h). A
  // streamed one is staged already, but for its seal.
  const StorageLayout& layout = storage_.layout;
  Status status;
  if (failpoint::kSnapBeforeWrite.fail()) {
    status = Status::error(failpoint::kSnapBeforeWrite.error_message());
  }
  std::string_view payload;
  if (status.ok() && streamed) {
    auto sealed = incoming_.seal();
    if (sealed.ok()) payload = *sealed;
    status = sealed.status();
  } else if (!streamed) {
    payload = whole->second;
  }
  if (!status.ok()) {
    fail("cannot install the snapshot: " + status.message());
    return false;
  }
  tree::Database db(storage_.db_options);
  if (Status loaded = db.load_snapshot(payload); !loaded.ok()) {
    incoming_.abandon();
    fail("the leader's snapshot " + hex(zxid) + " does not load: " + loaded.message());
    return false;
  }
  events_.abandon_snapshot();
  if (!streamed) status = stage_snapshot_install(storage_.env, layout, db);
  incoming_snapshots_.clear();
  if (status.ok()) status = log_.clear();
  if (status.ok()) {
    failpoint::kSnapLogCleared.hit();
    status = finish_snapshot_install(storage_.env, layout, zxid);
  }
  if (!status.ok()) {
    fail("cannot install the snapshot: " + status.message());
    return false;
  }
  failpoint::kSnapInstalled.hit();
  incoming_.abandon();  // installed: nothing is left in the staging directory
  db_ = std::move(db);
  digests_.reset(db_.fuzzy_until());
  log_info("installed the leader's snapshot at ", hex(zxid),
           streamed ? " (streamed; it may hold txns up to " + hex(db_.fuzzy_until()) + ")"
                    : std::string());
  events_.state_replaced(true);
  return true;
}

bool ReplicaHost::truncate(zab::Zxid after) {
  outgoing_.drop_all();
  events_.abandon_snapshot();
  Status status;
  if (failpoint::kTruncBeforeCut.fail()) {
    status = Status::error(failpoint::kTruncBeforeCut.error_message());
  }
  if (status.ok()) status = log_.truncate_after(after);
  if (status.ok()) {
    failpoint::kTruncLogCut.hit();
    status = storage::remove_snapshots_after(storage_.env, storage_.layout.snap_dir, after);
  }
  if (!status.ok()) {
    fail("cannot truncate the txn log: " + status.message());
    return false;
  }
  if (db_.last_zxid() > after) {
    tree::Database rebuilt(storage_.db_options);
    auto recovered = recover(storage_.env, storage_.layout, rebuilt);
    if (!recovered.ok()) {
      fail("cannot rebuild the state after truncation: " + recovered.status().message());
      return false;
    }
    db_ = std::move(rebuilt);
    digests_.reset(db_.fuzzy_until());
    events_.state_replaced(false);
  }
  log_info("truncated the txn log after ", hex(after), "; state at ", hex(db_.last_zxid()));
  return true;
}

bool ReplicaHost::apply(const zab::Entry& entry) {
  tree::Txn txn;
  if (!take_proposed(entry.zxid, txn) &&
      (!tree::read_txn(entry.payload, txn) || txn.header.zxid != entry.zxid)) {
    fail("committed txn " + hex(entry.zxid) + " does not decode");
    return false;
  }
  events_.applying(txn);
  metrics_.applied(txn.header.time_ms, wall_ms(), status_.role == zab::Role::kLeading);
  const int64_t session = txn.header.session_id;
  tree::ApplyResult result = db_.apply(txn);
  metrics_.commit_applied(session, steady_ms(), status_.role == zab::Role::kLeading);
  events_.applied(std::move(txn), std::move(result));
  return !stopped_;
}

bool ReplicaHost::take_proposed(zab::Zxid zxid, tree::Txn& txn) {
  while (!proposed_.empty() && proposed_.front().header.zxid < zxid) proposed_.pop_front();
  if (proposed_.empty() || proposed_.front().header.zxid != zxid) return false;
  txn = std::move(proposed_.front());
  proposed_.pop_front();
  return true;
}

void ReplicaHost::send(zab::Message message) {
  const bool ack_newleader = message.type == zab::MsgType::kAckNewLeader;
  if (ack_newleader) failpoint::kAckNewLeaderBeforeSend.hit();
  metrics_.sending(message.type, core_.syncing_learners());
  outgoing_.send(std::move(message), db_);
  if (ack_newleader) failpoint::kAckNewLeaderSent.hit();
}

void ReplicaHost::exchange_digest(zab::Zxid zxid) {
  const uint64_t digest = db_.digest();
  if (status_.role == zab::Role::kLeading) {
    if (++applied_since_digest_ < kDigestInterval) return;
    applied_since_digest_ = 0;
    core_.send_digest(zxid, digest);
  } else if (auto m = digests_.applied(zxid, failpoint::kDigestCompare.fail() ? ~digest : digest)) {
    mismatch(*m);
  }
}

void ReplicaHost::mismatch(const DigestCheck::Mismatch& m) {
  ++digest_mismatches_;
  if (diverged_) return;
  diverged_ = true;
  log_error("tree digest mismatch at zxid ", hex(m.zxid), ": this replica's is ", hex(m.ours),
            ", its leader's ", hex(m.leaders),
            ". Its tree has diverged from the leader's: it serves no client from now on and never "
            "leads (mntr: zk_digest_mismatches_count). Restore its data from a replica: stop it, "
            "move its version-2 aside, start it");
  events_.diverged();
}

void ReplicaHost::set_status(const zab::Status& status) {
  const zab::Status old = status_;
  status_ = status;
  metrics_.status_changed(old, status, steady_ms());
  if (status.role != zab::Role::kLeading || !status.serving) {
    db_.discard_pending();
    proposed_.clear();
  }
  if (status.role != zab::Role::kLeading) outgoing_.drop_all();
  if (status.role == zab::Role::kLooking || status.leader != old.leader) incoming_.abandon();
  if (status.role == zab::Role::kLeading && diverged_) {
    return fail(
        "this replica's tree diverged from its leader's (a tree digest mismatch) "
        "and it must not lead");
  }
  events_.status_changed(old, status);
}

void ReplicaHost::propose(const WriteRequest& request) {
  if (status_.role != zab::Role::kLeading || !status_.serving) return;
  if (request.kind == WriteRequest::Kind::kTouch) {
    events_.touched(request.touches);
    return;
  }
  if (request.kind == WriteRequest::Kind::kRevalidate) {
    ++metrics_.metrics().revalidate_count;
    events_.touched({{request.session, request.timeout_ms}});
    return;
  }
  if (core_.transferring_to() != 0) {
    held_writes_.push_back(request);
    return;
  }
  const zab::Zxid last = core_.last_zxid();
  const zab::Epoch epoch = status_.epoch;
  // The zxid propose() will assign: the next counter of the leader's epoch.
  const zab::Zxid next = zab::epoch_of(last) == epoch ? last + 1 : zab::make_zxid(epoch, 1);
  if (zab::epoch_of(last) != epoch && db_.last_zxid() != last) {
    log_warn("dropping a write: the new epoch's history is not applied yet");
    return;
  }
  const int64_t prepare_started_ms = steady_ms();
  tree::Txn txn =
      request.kind == WriteRequest::Kind::kOp && request.op == zk::wire::OpCode::kReconfig
          ? prepare_reconfig(request, next)
          : prepare_write(db_, request, next, wall_ms());
  metrics_.prepared(steady_ms() - prepare_started_ms,
                    request.kind == WriteRequest::Kind::kCloseSession);
  std::string bytes = encode_prepared_txn(txn, request);
  metrics_.proposal_size(bytes.size());
  const int64_t propose_started_ms = steady_ms();
  const zab::Proposed proposed = core_.propose(std::move(bytes));
  metrics_.metrics().proposal_process_time.record(steady_ms() - propose_started_ms);
  if (!proposed.ok()) {
    db_.discard_pending();
    log_warn("cannot propose: ", zab::to_string(proposed.error));
    return;
  }
  metrics_.proposed(proposed.zxid, steady_ms());
  if (txn.header.zxid == proposed.zxid) proposed_.push_back(std::move(txn));
}

tree::Txn ReplicaHost::prepare_reconfig(const WriteRequest& request, zab::Zxid zxid) {
  const int64_t now = wall_ms();
  const auto refuse = [&](zk::wire::Error err, const std::string& why) {
    log_info("reconfig (session ", net::hex(request.session), ") refused: ", why);
    tree::Txn txn;
    txn.header = {request.session, request.xid, zxid, now, zk::wire::OpCode::kError};
    txn.body = tree::ErrorTxn{err};
    return txn;
  };
  const auto req = decode_reconfig_request(request.body);
  if (!req) return refuse(zk::wire::Error::kMarshallingError, "the request does not decode");
  if (core_.next_membership()) {
    return refuse(zk::wire::Error::kReconfigInProgress, "another one is not committed yet");
  }
  const auto [text, version] = db_.config_node();
  const auto current = parse_membership_text(text);
  if (!current) return refuse(zk::wire::Error::kSystemError, "/zookeeper/config does not parse");
  ReconfigPlan plan = plan_reconfig(current->first, version, *req);
  if (plan.error != zk::wire::Error::kOk) return refuse(plan.error, plan.why);
  switch (core_.reconfigurable(zab_membership(plan.servers))) {
    case zab::Error::kOk:
      break;
    case zab::Error::kReconfigInProgress:
      return refuse(zk::wire::Error::kReconfigInProgress, "another one is not committed yet");
    case zab::Error::kNewConfigNoQuorum:
      return refuse(zk::wire::Error::kNewConfigNoQuorum,
                    "fewer than a majority of the new participants are in sync with the leader: "
                    "start the servers being added first");
    default:
      return refuse(zk::wire::Error::kConnectionLoss, "the leader is not serving");
  }
  log_info("reconfig (session ", net::hex(request.session), ") to version ", net::hex(zxid));
  return db_.prepare_reconfig(request.session, request.xid, membership_text(plan.servers, zxid),
                              zxid, now, request.auth);
}

std::optional<std::pair<zab::Membership, zab::Zxid>> ReplicaHost::tree_membership() const {
  const auto [text, version] = db_.config_node();
  if (version == kStaticConfigVersion) return std::nullopt;
  const auto parsed = parse_membership_text(text);
  if (!parsed) return std::nullopt;
  return std::make_pair(zab_membership(parsed->first), version);
}

void ReplicaHost::fail(const std::string& why) {
  stopped_ = true;
  events_.failed(why);
}

}  // namespace zkd::server
