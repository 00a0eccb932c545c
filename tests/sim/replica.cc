// SPDX-License-Identifier: Apache-2.0
#include "tests/sim/replica.h"

#include <algorithm>
#include <utility>

#include "zkd/server/recovery.h"
#include "zkd/server/replica_membership.h"
#include "zkd/server/snapshot_install.h"
#include "zkd/zab/types.h"

namespace zk::sim {

using zkd::zab::Entry;
using zkd::zab::Zxid;

const zkd::server::StorageLayout SimReplica::kLayout{"data/version-2", "data/version-2"};

std::string sim_server_line(zkd::zab::ServerId id, bool observer) {
  return "server." + std::to_string(id) + "=127.0.0.1:" + std::to_string(20000 + id) + ":" +
         std::to_string(30000 + id) + (observer ? ":observer" : ":participant");
}

namespace {

zkd::tree::DatabaseOptions options_of(const zkd::zab::Config& config) {
  std::string text;
  std::vector<std::pair<zkd::zab::ServerId, bool>> servers;
  for (auto v : config.voters) servers.emplace_back(v, false);
  for (auto o : config.observers) servers.emplace_back(o, true);
  std::sort(servers.begin(), servers.end());
  for (const auto& [id, observer] : servers) text += sim_server_line(id, observer) + "\n";
  zkd::tree::DatabaseOptions options;
  options.config_node = zkd::tree::DatabaseOptions::ConfigNode{text + "version=0", 0, 0};
  return options;
}

}  // namespace

SimReplica::SimReplica(zkd::zab::Config config, ReplicaObserver& observer)
    : config_(std::move(config)), db_options_(options_of(config_)), observer_(observer) {}

void SimReplica::fail(const std::string& why) const {
  throw Violation(std::to_string(config_.id) + ": " + why);
}

void SimReplica::start(uint32_t incarnation) {
  db_ = zkd::tree::Database(db_options_);
  std::vector<zkd::storage::LogRecord> records;
  auto recovered = zkd::server::recover(env_, kLayout, db_, &records);
  if (!recovered.ok()) fail("recovery failed: " + recovered.status().message());
  if (!recovered->from_snapshot) {
    if (auto s = zkd::server::write_snapshot_now(env_, kLayout.snap_dir, db_); !s.ok()) {
      fail("snapshot.0: " + s.message());
    }
  }
  // Nothing the log had made durable before the crash is missing.
  const Zxid base = recovered->from_snapshot ? recovered->snapshot_zxid : db_.last_zxid();
  for (const Entry& e : disk_.log) {
    if (e.zxid > disk_.durable || e.zxid <= base) continue;
    auto it = std::find_if(records.begin(), records.end(),
                           [&](const zkd::storage::LogRecord& r) { return r.zxid == e.zxid; });
    if (it == records.end() || fnv(it->txn) != fnv(e.payload)) {
      fail("durable " + zkd::zab::zxid_string(e.zxid) + " is not in the recovered log");
    }
  }
  disk_ = Disk{};
  disk_.base = base;
  for (const auto& r : records) disk_.log.push_back(Entry{r.zxid, r.txn});
  disk_.durable = disk_.last();
  zkd::storage::LogOptions options;
  options.dir = kLayout.log_dir;
  options.preallocate = kSegmentBytes;
  auto writer = zkd::storage::TxnLogWriter::open(env_, options, recovered->tail);
  if (!writer.ok()) fail("log writer: " + writer.status().message());
  writer_ = std::move(*writer);
  zkd::zab::Config config = config_;  // as zkd's Replication::open
  if (auto s = zkd::server::take_snapshot_membership(config, recovered->snapshot_config); !s.ok()) {
    fail(s.message());
  }
  zkd::server::take_logged_membership(config, records);
  auto boot = zkd::server::replica_bootstrap(env_, kLayout.snap_dir, std::move(records), base,
                                             db_.last_zxid(), config_.commit_window, incarnation);
  if (!boot.ok()) fail("bootstrap: " + boot.status().message());
  status_ = zkd::zab::Status{};
  host_ = std::make_unique<zkd::server::ReplicaHost>(
      config, std::move(*boot),
      zkd::server::ReplicaHost::Storage{env_, kLayout, db_options_, kStreamLimits}, db_,
      static_cast<zkd::server::ReplicaLog&>(*this),
      static_cast<zkd::server::ReplicaEvents&>(*this));
}

void SimReplica::crash() {
  host_.reset();
  writer_.reset();
  env_.drop_unsynced();
  std::erase_if(disk_.log, [&](const Entry& e) { return e.zxid > disk_.durable; });
  db_ = zkd::tree::Database(db_options_);
  status_ = zkd::zab::Status{};
}

void SimReplica::sync() {
  if (auto s = writer_->sync(); !s.ok()) fail("sync: " + s.message());
  disk_.durable = disk_.last();
  host_->persisted(disk_.durable);
}

zkd::Status SimReplica::snapshot() {
  const Zxid at = db_.last_zxid();
  auto s = zkd::server::write_snapshot_now(env_, kLayout.snap_dir, db_);
  if (!s.ok()) return s;
  disk_.base = at;
  std::erase_if(disk_.log, [&](const Entry& e) { return e.zxid <= at; });
  disk_.durable = std::max(disk_.durable, at);
  return s;
}

void SimReplica::append(int64_t zxid, zkd::zab::Payload txn) {
  if (zxid <= disk_.last()) {
    fail("append " + zkd::zab::zxid_string(zxid) + " after " + zkd::zab::zxid_string(disk_.last()));
  }
  if (auto s = writer_->append(zxid, txn); !s.ok()) fail("log append: " + s.message());
  disk_.log.push_back(Entry{zxid, txn});
  observer_.appended(*this, zxid, txn);
}

zkd::Status SimReplica::truncate_after(int64_t zxid) {
  truncate(zxid, false);
  return {};
}

zkd::Status SimReplica::clear() {
  // Only a snapshot install empties the log, once the leader's snapshot is
  // durable (snapshot_install.h): the disk holds that snapshot from now on.
  auto staged = zkd::server::staged_snapshot_install(env_, kLayout);
  if (!staged.ok() || !*staged) fail("the log is emptied outside a snapshot install");
  truncate(0, true);
  disk_ = Disk{**staged, {}, **staged};
  return {};
}

void SimReplica::truncate(Zxid after, bool whole) {
  if (auto s = writer_->truncate_after(after); !s.ok()) fail("truncate: " + s.message());
  std::erase_if(disk_.log, [&](const Entry& e) { return e.zxid > after; });
  disk_.durable = std::min(disk_.durable, disk_.last());
  observer_.truncated(*this, after, whole);
}

void SimReplica::send(zkd::zab::Message message, std::string attachment) {
  observer_.send(*this, std::move(message), std::move(attachment));
}

uint64_t SimReplica::queued_bytes(zkd::zab::ServerId peer) {
  return observer_.queued_bytes(*this, peer);
}

void SimReplica::applying(const zkd::tree::Txn& txn) { observer_.applying(*this, txn); }

void SimReplica::applied(zkd::tree::Txn txn, zkd::tree::ApplyResult) {
  observer_.applied(*this, txn);
}

void SimReplica::state_replaced(bool installed) {
  if (installed) {
    // The log was cleared and the leader's snapshot written at its zxid.
    const Zxid at = db_.last_zxid();
    disk_ = Disk{at, {}, at};
  }
  observer_.replaced(*this, installed);
}

void SimReplica::sync_done(uint64_t ticket) { observer_.sync_done(*this, ticket); }

void SimReplica::status_changed(const zkd::zab::Status&, const zkd::zab::Status& now) {
  status_ = now;
  observer_.status_changed(*this, now);
}

void SimReplica::diverged() {
  observer_.failed(*this, "its tree digest differs from its leader's");
}

void SimReplica::failed(const std::string& why) {
  observer_.failed(*this, "the replica host failed: " + why);
}

void SimReplica::follow_clock() {
  const int64_t now = observer_.now_ms();
  if (now > clock_ms_) env_.time().advance(std::chrono::milliseconds(now - clock_ms_));
  clock_ms_ = std::max(clock_ms_, now);
}

}  // namespace zk::sim
