// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/snapshot_install.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

#include "zkd/net/log.h"
#include "zkd/storage/durable_file.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/storage/txn_log.h"

namespace zkd::server {

using storage::Status;

namespace {

std::string mark_path(const StorageLayout& layout) {
  return layout.snap_dir + "/" + kInstallMarkName;
}

// The zxid a mark names, or nothing for a mark that does not parse.
std::optional<int64_t> parse_mark(const std::string& text) {
  uint64_t zxid = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), zxid, 16);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return static_cast<int64_t>(zxid);
}

std::string hex_digits(int64_t zxid) {
  char buffer[16];
  const auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof buffer, static_cast<uint64_t>(zxid), 16);
  return std::string(buffer, end);
}

Status remove_log_segments(storage::Env& env, const StorageLayout& layout) {
  auto segments = storage::list_segments(env, layout.log_dir);
  if (!segments.ok()) return segments.status();
  for (const auto& segment : *segments) {
    if (Status s = env.remove_file(layout.log_dir + "/" + segment.name); !s.ok()) return s;
  }
  return segments->empty() ? Status() : env.sync_dir(layout.log_dir);
}

}  // namespace

Status begin_snapshot_install(storage::Env& env, const StorageLayout& layout, int64_t zxid) {
  return storage::write_file_durably(env, layout.snap_dir, kInstallMarkName, hex_digits(zxid));
}

Status finish_snapshot_install(storage::Env& env, const StorageLayout& layout, int64_t zxid) {
  if (Status s = storage::remove_snapshots_after(env, layout.snap_dir, zxid); !s.ok()) return s;
  if (Status s = env.remove_file(mark_path(layout)); !s.ok()) return s;
  return env.sync_dir(layout.snap_dir);
}

Status settle_snapshot_install(storage::Env& env, const StorageLayout& layout) {
  const std::string path = mark_path(layout);
  if (!env.file_exists(path)) return {};
  auto text = env.read_file(path);
  if (!text.ok()) return text.status();
  const auto zxid = parse_mark(*text);
  if (!zxid) {
    return Status::corruption(path +
                              ": not a zxid in hex; a snapshot install was interrupted. "
                              "Move the file aside if the data directory is otherwise intact");
  }
  auto snapshots = storage::list_snapshots(env, layout.snap_dir);
  if (!snapshots.ok()) return snapshots.status();
  bool written = false;
  for (const auto& snapshot : *snapshots) written = written || snapshot.zxid == *zxid;
  if (!written) {
    // Interrupted before the snapshot was durable: the old state stands.
    net::log_info("a snapshot install at ", net::hex(*zxid),
                  " was interrupted before the snapshot was written; keeping the old data");
    if (Status s = env.remove_file(path); !s.ok()) return s;
    return env.sync_dir(layout.snap_dir);
  }
  net::log_info("finishing the snapshot install at ", net::hex(*zxid),
                " a crash interrupted: its log goes");
  if (Status s = remove_log_segments(env, layout); !s.ok()) return s;
  return finish_snapshot_install(env, layout, *zxid);
}

}  // namespace zkd::server
