// Snapshot files and purge (docs/storage-format.md).
#include "zkd/storage/snapshot_file.h"

#include <algorithm>

#include "zkd/storage/coding.h"
#include "zkd/storage/crc32c.h"
#include "zkd/storage/file_names.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

constexpr std::string_view kMagic = "zkdsnap1";
constexpr std::string_view kEndMagic = "zkdsnend";
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderSize = 24;   // magic, version, reserved, zxid
constexpr size_t kTrailerSize = 20;  // payload length, masked crc, end magic
constexpr std::string_view kPrefix = "snapshot.";
constexpr std::string_view kTempSuffix = ".tmp";

class Writer final : public SnapshotWriter {
 public:
  Writer(Env& env, std::string dir, int64_t zxid, std::unique_ptr<WritableFile> file)
      : env_(env),
        dir_(std::move(dir)),
        temp_path_(file_names::join(dir_, file_names::with_zxid(kPrefix, zxid, kTempSuffix))),
        final_path_(file_names::join(dir_, snapshot_name(zxid))),
        file_(std::move(file)) {}
  ~Writer() override {
    if (!finished_) abandon();
  }

  Status write_header(int64_t zxid) {
    std::string header(kMagic);
    coding::put_u32(header, kVersion);
    coding::put_u32(header, 0);
    coding::put_i64(header, zxid);
    return write(header);
  }

  Status append(std::string_view chunk) override {
    if (file_ == nullptr) return Status::error("append to finished snapshot " + temp_path_);
    if (Status s = write(chunk); !s.ok()) return s;
    payload_size_ += chunk.size();
    return Status();
  }

  Status finish() override {
    if (file_ == nullptr) return Status::error("finish of finished snapshot " + temp_path_);
    std::string trailer;
    coding::put_u64(trailer, payload_size_);
    crc_ = crc32c::extend(crc_, trailer);
    coding::put_u32(trailer, crc32c::mask(crc_));
    trailer.append(kEndMagic);
    if (Status s = file_->append(trailer); !s.ok()) return s;
    if (Status s = file_->sync(); !s.ok()) return s;
    Status closed = file_->close();
    file_.reset();
    if (!closed.ok()) return closed;
    if (Status s = env_.rename_file(temp_path_, final_path_); !s.ok()) return s;
    finished_ = true;
    return env_.sync_dir(dir_);
  }

  void abandon() override {
    if (finished_) return;
    if (file_ != nullptr) (void)file_->close();
    file_.reset();
    if (env_.file_exists(temp_path_)) (void)env_.remove_file(temp_path_);
    finished_ = true;
  }

 private:
  Status write(std::string_view bytes) {
    if (Status s = file_->append(bytes); !s.ok()) return s;
    crc_ = crc32c::extend(crc_, bytes);
    return Status();
  }

  Env& env_;
  const std::string dir_;
  const std::string temp_path_;
  const std::string final_path_;
  std::unique_ptr<WritableFile> file_;  // null once finished or abandoned
  uint32_t crc_ = 0;                    // of every byte written so far
  uint64_t payload_size_ = 0;
  bool finished_ = false;  // renamed, or abandoned
};

// Why `data` is not a valid snapshot (empty when it is). `name_zxid`: the
// zxid in the file name, if it has the final form.
std::string invalid_reason(std::string_view data, std::optional<int64_t> name_zxid) {
  if (data.size() < kHeaderSize + kTrailerSize) {
    return "cut short (" + std::to_string(data.size()) + " bytes, a snapshot has at least " +
           std::to_string(kHeaderSize + kTrailerSize) + ")";
  }
  if (data.substr(0, kMagic.size()) != kMagic) return "not a snapshot file (bad magic)";
  const uint32_t version = coding::get_u32(data.data() + kMagic.size());
  if (version != kVersion) {
    return "unsupported format version " + std::to_string(version) + " (this zkd reads " +
           std::to_string(kVersion) + ")";
  }
  if (data.substr(data.size() - kEndMagic.size()) != kEndMagic) {
    return "cut short or overwritten (no end marker)";
  }
  const char* trailer = data.data() + data.size() - kTrailerSize;
  const uint64_t payload_size = coding::get_u64(trailer);
  if (payload_size != data.size() - kHeaderSize - kTrailerSize) {
    return "trailer says " + std::to_string(payload_size) + " payload bytes but the file holds " +
           std::to_string(data.size() - kHeaderSize - kTrailerSize);
  }
  const uint32_t stored = crc32c::unmask(coding::get_u32(trailer + 8));
  const uint32_t actual = crc32c::value(data.substr(0, data.size() - kTrailerSize + 8));
  if (stored != actual) return "checksum mismatch";
  const int64_t zxid = coding::get_i64(data.data() + 16);
  if (name_zxid && *name_zxid != zxid) {
    return "header zxid " + std::to_string(zxid) + " differs from the name's " +
           std::to_string(*name_zxid);
  }
  return {};
}

StatusOr<Snapshot> read_snapshot(Env& env, const std::string& path, bool with_path) {
  const std::string name(file_names::base_name(path));
  auto data = env.read_file(path);
  if (!data.ok()) return data.status();
  std::string why = invalid_reason(*data, file_names::parse_zxid(name, kPrefix));
  if (!why.empty()) return Status::error((with_path ? path : name) + ": " + why);
  Snapshot snapshot;
  snapshot.zxid = coding::get_i64(data->data() + 16);
  snapshot.name = name;
  snapshot.payload = data->substr(kHeaderSize, data->size() - kHeaderSize - kTrailerSize);
  return snapshot;
}

}  // namespace

StatusOr<std::unique_ptr<SnapshotWriter>> SnapshotWriter::create(Env& env, const std::string& dir,
                                                                 int64_t zxid) {
  if (Status s = env.create_dirs(dir); !s.ok()) return s;
  const std::string temp = file_names::join(dir, file_names::with_zxid(kPrefix, zxid, kTempSuffix));
  auto file = env.new_writable_file(temp, 0);
  if (!file.ok()) return file.status();
  auto writer = std::make_unique<Writer>(env, dir, zxid, std::move(*file));
  if (Status s = writer->write_header(zxid); !s.ok()) return s;  // ~Writer removes the file
  return std::unique_ptr<SnapshotWriter>(std::move(writer));
}

std::string snapshot_name(int64_t zxid) { return file_names::with_zxid(kPrefix, zxid); }

StatusOr<std::vector<SnapshotName>> list_snapshots(Env& env, const std::string& dir) {
  auto names = env.list_dir(dir);
  if (!names.ok()) return names.status();
  std::vector<SnapshotName> snapshots;
  for (const std::string& name : *names) {
    if (auto zxid = file_names::parse_zxid(name, kPrefix)) snapshots.push_back({name, *zxid});
  }
  std::sort(snapshots.begin(), snapshots.end(),
            [](const SnapshotName& a, const SnapshotName& b) { return a.zxid > b.zxid; });
  return snapshots;
}

Status remove_snapshots_after(Env& env, const std::string& dir, int64_t zxid) {
  if (!env.file_exists(dir)) return Status();
  auto snapshots = list_snapshots(env, dir);
  if (!snapshots.ok()) return snapshots.status();
  bool removed = false;
  for (const SnapshotName& snapshot : *snapshots) {  // newest first
    if (snapshot.zxid <= zxid) break;
    if (Status s = env.remove_file(file_names::join(dir, snapshot.name)); !s.ok()) return s;
    removed = true;
  }
  return removed ? env.sync_dir(dir) : Status();
}

StatusOr<Snapshot> read_snapshot_file(Env& env, const std::string& path) {
  return read_snapshot(env, path, true);
}

StatusOr<LoadedSnapshot> read_latest_snapshot(Env& env, const std::string& dir) {
  LoadedSnapshot out;
  if (!env.file_exists(dir)) return out;
  auto snapshots = list_snapshots(env, dir);
  if (!snapshots.ok()) return snapshots.status();
  for (const SnapshotName& candidate : *snapshots) {
    auto snapshot = read_snapshot(env, file_names::join(dir, candidate.name), false);
    if (snapshot.ok()) {
      out.snapshot = std::move(*snapshot);
      return out;
    }
    out.skipped.push_back(snapshot.status().message());
  }
  return out;
}

StatusOr<std::vector<std::string>> purge(Env& env, const std::string& snap_dir,
                                         const std::string& log_dir, int retain) {
  std::vector<std::string> removed;
  if (!env.file_exists(snap_dir)) return removed;
  auto snapshots = list_snapshots(env, snap_dir);
  if (!snapshots.ok()) return snapshots.status();

  // The newest `retain` valid snapshots are kept; `oldest_kept` indexes the
  // oldest of them in the newest-first list.
  const size_t want = static_cast<size_t>(std::max(retain, 1));
  size_t valid = 0;
  size_t oldest_kept = 0;
  int64_t newest_kept_zxid = 0;
  for (size_t i = 0; i < snapshots->size() && valid < want; ++i) {
    const SnapshotName& snap = (*snapshots)[i];
    if (!read_snapshot(env, file_names::join(snap_dir, snap.name), false).ok()) continue;
    if (valid++ == 0) newest_kept_zxid = snap.zxid;
    oldest_kept = i;
  }
  if (valid == 0) return removed;  // nothing to recover from: keep everything
  const int64_t kept_zxid = (*snapshots)[oldest_kept].zxid;

  for (size_t i = oldest_kept + 1; i < snapshots->size(); ++i) {
    const std::string& name = (*snapshots)[i].name;
    if (Status s = env.remove_file(file_names::join(snap_dir, name)); !s.ok()) return s;
    removed.push_back(name);
  }

  auto names = env.list_dir(snap_dir);
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    auto zxid = file_names::parse_zxid(name, kPrefix, kTempSuffix);
    if (!zxid || *zxid >= newest_kept_zxid) continue;
    if (Status s = env.remove_file(file_names::join(snap_dir, name)); !s.ok()) return s;
    removed.push_back(name);
  }
  if (Status s = env.sync_dir(snap_dir); !s.ok()) return s;

  if (!env.file_exists(log_dir)) return removed;
  auto segments = list_segments(env, log_dir);
  if (!segments.ok()) return segments.status();
  // Segment i holds only zxids < segment i+1's first zxid; it can go when
  // that is ≤ kept_zxid + 1.
  bool removed_segment = false;
  for (size_t i = 0; i + 1 < segments->size(); ++i) {
    const int64_t next_first = (*segments)[i + 1].first_zxid;
    if (next_first > kept_zxid && next_first - 1 != kept_zxid) break;
    const std::string& name = (*segments)[i].name;
    if (Status s = env.remove_file(file_names::join(log_dir, name)); !s.ok()) return s;
    removed.push_back(name);
    removed_segment = true;
  }
  if (removed_segment) {
    if (Status s = env.sync_dir(log_dir); !s.ok()) return s;
  }
  return removed;
}

}  // namespace zkd::storage
