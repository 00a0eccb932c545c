// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/recovery.h"

#include <future>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "zkd/failpoint/points.h"
#include "zkd/log/log.h"
#include "zkd/server/snapshot_install.h"
#include "zkd/storage/durable_file.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/zab/types.h"

namespace zkd::server {

namespace {
constexpr std::string_view kSessionKeyName = "session.key";

StatusOr<SessionPasswords::Key> read_session_key(storage::Env& env, const std::string& path) {
  auto bytes = env.read_file(path);
  if (!bytes.ok()) return bytes.status();
  auto key = SessionPasswords::decode_key(*bytes);
  if (!key) {
    return Status::corruption(path + ": the session key must be exactly 16 bytes, found " +
                              std::to_string(bytes->size()) +
                              "; restore it from a backup, or remove it (every session "
                              "password then becomes invalid)");
  }
  return *key;
}

}  // namespace

StorageLayout storage_layout(const ServerConfig& config) {
  auto log_dir = config.data_log_dir.empty() ? config.data_dir : config.data_log_dir;
  return StorageLayout{(config.data_dir / "version-2").string(), (log_dir / "version-2").string()};
}

bool session_key_exists(storage::Env& env, const std::string& data_dir,
                        const std::string& snap_dir) {
  return env.file_exists(data_dir + "/" + std::string(kSessionKeyName)) ||
         env.file_exists(snap_dir + "/" + std::string(kSessionKeyName));
}

StatusOr<SessionPasswords::Key> load_or_create_session_key(storage::Env& env,
                                                           const std::string& data_dir,
                                                           const std::string& snap_dir) {
  const std::string path = data_dir + "/" + std::string(kSessionKeyName);
  if (env.file_exists(path)) return read_session_key(env, path);
  const std::string old_path = snap_dir + "/" + std::string(kSessionKeyName);
  std::optional<SessionPasswords::Key> key;
  if (env.file_exists(old_path)) {
    auto old_key = read_session_key(env, old_path);
    if (!old_key.ok()) return old_key.status();
    key = *old_key;
  } else {
    key = SessionPasswords::random_key([&env] { return env.secure_random(); });
    if (failpoint::kSessionKeyBeforeWrite.fail()) {
      return Status::error(failpoint::kSessionKeyBeforeWrite.error_message());
    }
  }
  if (Status s = env.create_dirs(data_dir); !s.ok()) return s;
  if (Status s = storage::write_file_durably(env, data_dir, kSessionKeyName,
                                             SessionPasswords::encode_key(*key));
      !s.ok()) {
    return s;
  }
  return *key;
}

StatusOr<Recovered> recover(storage::Env& env, const StorageLayout& layout, tree::Database& db,
                            std::vector<storage::LogRecord>* replayed_records) {
  if (replayed_records != nullptr) replayed_records->clear();
  for (const auto& dir : {layout.snap_dir, layout.log_dir}) {
    if (auto s = env.create_dirs(dir); !s.ok()) return s;
  }
  // A snapshot install a crash interrupted is finished or forgotten first.
  if (auto s = settle_snapshot_install(env, layout); !s.ok()) return s;
  Recovered out;
  storage::Clock& clock = env.clock();
  const auto ms_since = [&clock](int64_t started_ms) { return clock.steady_ms() - started_ms; };
  const int64_t started = clock.steady_ms();
  auto loaded = storage::read_latest_snapshot(env, layout.snap_dir);
  if (!loaded.ok()) return loaded.status();
  out.skipped_snapshots = std::move(loaded->skipped);
  if (loaded->snapshot) out.snapshot_zxid = loaded->snapshot->zxid;
  // The log is read (checked, split into records, a torn tail cut) on a
  // second thread while the snapshot is loaded: the two touch different
  // files, and reading is half the time of the replay.
  auto log_read = std::async(std::launch::async, [&env, &layout, after = out.snapshot_zxid] {
    return storage::read_txn_log(env, layout.log_dir, after);
  });
  if (loaded->snapshot) {
    const auto& snapshot = *loaded->snapshot;
    if (Status loaded_tree = db.load_snapshot(snapshot.payload); !loaded_tree.ok()) {
      std::string error = layout.snap_dir + "/" + snapshot.name +
                          ": checksum intact but the tree refuses it: " + loaded_tree.message() +
                          "; move the file aside to recover from an older snapshot";
      // What the log reading did meanwhile is said too: it is no less done.
      if (auto log = log_read.get(); log.ok() && !log->repaired.empty()) {
        error += " (the log was read meanwhile: " + log->repaired + ")";
      }
      return Status::corruption(error);
    }
    out.from_snapshot = true;
    out.snapshot_name = snapshot.name;
    if (auto [text, version] = db.config_node(); version != 0) out.snapshot_config = text;
  }
  out.snapshot_ms = ms_since(started);
  const int64_t log_started = clock.steady_ms();
  auto log = log_read.get();
  if (!log.ok()) return log.status();
  // The log must continue the snapshot without a hole: a hole means the
  // snapshot is not the one the log was written after (a newer one was
  // skipped and the log before it is gone) or txns were lost.
  // Most logged txns of a growing tree are creates: room for as many
  // znodes as txns (the index of a snapshot's tree has a quarter more).
  db.reserve_more_nodes(log->records.size());
  int64_t previous = out.snapshot_zxid;
  for (const auto& record : log->records) {
    if (!zab::follows(previous, record.zxid)) {
      return Status::corruption(
          layout.log_dir + ": the txn log has a hole: after zxid " + net::hex(previous) +
          (previous == out.snapshot_zxid
               ? " (" + (out.from_snapshot ? out.snapshot_name : std::string("an empty tree")) + ")"
               : std::string()) +
          " it holds " + net::hex(record.zxid) +
          "; the txns between them are missing. Restore this server's data from a replica "
          "(move version-2 aside; a replica of an ensemble then rejoins empty and is sent "
          "everything)");
    }
    previous = record.zxid;
    tree::Txn txn;
    if (!tree::read_txn(record.txn, txn) || txn.header.zxid != record.zxid) {
      return Status::corruption(
          layout.log_dir + ": the txn logged with zxid " + net::hex(record.zxid) +
          " does not decode; the log is damaged (inspect it with `zkd dump-log`)");
    }
    db.apply(txn);
    ++out.replayed;
  }
  out.log_ms = ms_since(log_started);
  out.repaired = std::move(log->repaired);
  out.tail = std::move(log->tail);
  if (replayed_records != nullptr) *replayed_records = std::move(log->records);
  return out;
}

Status write_snapshot_now(storage::Env& env, const std::string& snap_dir,
                          const tree::Database& db) {
  auto cursor = db.begin_snapshot();
  auto writer = storage::SnapshotWriter::create(env, snap_dir, cursor->zxid());
  if (!writer.ok()) return writer.status();
  for (;;) {
    std::string chunk = cursor->next_chunk(4096);
    if (chunk.empty()) break;
    if (auto s = (*writer)->append(chunk); !s.ok()) {
      (*writer)->abandon();
      return s;
    }
  }
  return (*writer)->finish();
}

}  // namespace zkd::server
