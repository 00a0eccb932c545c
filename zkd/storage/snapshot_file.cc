// SPDX-License-Identifier: Apache-2.0
// Snapshot files and purge (docs/storage-format.md).
#include "zkd/storage/snapshot_file.h"

#include <algorithm>
#include <functional>

#include "zkd/failpoint/points.h"
#include "zkd/storage/coding.h"
#include "zkd/storage/crc32c.h"
#include "zkd/storage/file_names.h"
#include "zkd/storage/snapshot_compression.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

constexpr std::string_view kMagic = "zkdsnap1";
constexpr std::string_view kEndMagic = "zkdsnend";
// 1: the payload as written; 2: compressed blocks (the header's reserved
// word says how). Uncompressed files stay version 1, which zkd 0.1 reads.
constexpr uint32_t kVersion = 1;
constexpr uint32_t kCompressedVersion = 2;
constexpr size_t kHeaderSize = 24;   // magic, version, reserved, zxid
constexpr size_t kTrailerSize = 20;  // payload length, masked crc, end magic
constexpr std::string_view kPrefix = "snapshot.";
constexpr std::string_view kTempSuffix = ".tmp";
// A big snapshot is synced as it is written (SnapshotWriter::append).
constexpr uint64_t kSyncEvery = 8ull << 20;

class Writer final : public SnapshotWriter {
 public:
  Writer(Env& env, std::string dir, int64_t zxid, std::unique_ptr<WritableFile> file,
         SnapshotCompression compression)
      : compression_(compression),
        env_(env),
        dir_(std::move(dir)),
        temp_path_(file_names::join(dir_, file_names::with_zxid(kPrefix, zxid, kTempSuffix))),
        final_path_(file_names::join(dir_, snapshot_name(zxid))),
        file_(std::move(file)) {}
  ~Writer() override {
    if (!finished_) abandon();
  }

  Status write_header(int64_t zxid) {
    std::string header(kMagic);
    const bool compressed = compression_ != SnapshotCompression::kNone;
    coding::put_u32(header, compressed ? kCompressedVersion : kVersion);
    coding::put_u32(header, static_cast<uint32_t>(compression_));
    coding::put_i64(header, zxid);
    return write(header);
  }

  Status append(std::string_view chunk) override {
    if (file_ == nullptr) return Status::error("append to finished snapshot " + temp_path_);
    std::string block;
    if (compression_ != SnapshotCompression::kNone) {
      block = compress_block(compression_, chunk);
      chunk = block;
    }
    if (Status s = write(chunk); !s.ok()) return s;
    payload_size_ += chunk.size();
    unsynced_ += chunk.size();
    if (unsynced_ >= kSyncEvery) {
      unsynced_ = 0;
      return file_->sync();
    }
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
    if (failpoint::kSnapshotBeforeRename.fail()) {
      return Status::error(failpoint::kSnapshotBeforeRename.error_message());
    }
    if (Status s = env_.rename_file(temp_path_, final_path_); !s.ok()) return s;
    finished_ = true;
    failpoint::kSnapshotRenamed.hit();
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

  const SnapshotCompression compression_;
  Env& env_;
  const std::string dir_;
  const std::string temp_path_;
  const std::string final_path_;
  std::unique_ptr<WritableFile> file_;  // null once finished or abandoned
  uint32_t crc_ = 0;                    // of every byte written so far
  uint64_t payload_size_ = 0;
  uint64_t unsynced_ = 0;  // bytes appended since the last sync
  bool finished_ = false;  // renamed, or abandoned
};

// Exactly the bytes [offset, offset + n) of the file being checked
// (n ≤ kCheckChunk, offset + n ≤ its size), or an error when they cannot be
// read. The view stays valid until the next call.
using ReadRange = std::function<StatusOr<std::string_view>(uint64_t offset, size_t n)>;

// The most a check reads at once (and so holds) of the file.
constexpr size_t kCheckChunk = size_t{1} << 20;

// The one definition of a valid snapshot (docs/storage-format.md): why the
// `size`-byte file that `read` returns is not one (empty when it is).
// `name_zxid`: the zxid in the file name, if it has the final form. An error
// only when reading fails.
StatusOr<std::string> invalid_reason(uint64_t size, const ReadRange& read,
                                     std::optional<int64_t> name_zxid) {
  if (size < kHeaderSize + kTrailerSize) {
    return "cut short (" + std::to_string(size) + " bytes, a snapshot has at least " +
           std::to_string(kHeaderSize + kTrailerSize) + ")";
  }
  auto head_view = read(0, kHeaderSize);
  if (!head_view.ok()) return head_view.status();
  const std::string head(*head_view);
  if (head.substr(0, kMagic.size()) != kMagic)
    return std::string("not a snapshot file (bad magic)");
  const uint32_t version = coding::get_u32(head.data() + kMagic.size());
  const uint32_t compression = coding::get_u32(head.data() + kMagic.size() + 4);
  const bool known = version == kVersion ? compression == 0
                     : version == kCompressedVersion
                         ? compression == static_cast<uint32_t>(SnapshotCompression::kSnappy) ||
                               compression == static_cast<uint32_t>(SnapshotCompression::kGzip)
                         : false;
  if (!known) {
    return "unsupported format version " + std::to_string(version) + " with compression " +
           std::to_string(compression) + " (this zkd reads 1, and 2 with snappy or gz)";
  }
  auto trailer_view = read(size - kTrailerSize, kTrailerSize);
  if (!trailer_view.ok()) return trailer_view.status();
  const std::string trailer(*trailer_view);
  if (trailer.substr(kTrailerSize - kEndMagic.size()) != kEndMagic) {
    return std::string("cut short or overwritten (no end marker)");
  }
  const uint64_t payload_size = coding::get_u64(trailer.data());
  if (payload_size != size - kHeaderSize - kTrailerSize) {
    return "trailer says " + std::to_string(payload_size) + " payload bytes but the file holds " +
           std::to_string(size - kHeaderSize - kTrailerSize);
  }
  const uint64_t checked_size = size - kTrailerSize + 8;  // up to the stored checksum
  uint32_t actual = 0;
  for (uint64_t offset = 0; offset < checked_size;) {
    auto piece =
        read(offset, static_cast<size_t>(std::min<uint64_t>(kCheckChunk, checked_size - offset)));
    if (!piece.ok()) return piece.status();
    actual = crc32c::extend(actual, *piece);
    offset += piece->size();
  }
  const uint32_t stored = crc32c::unmask(coding::get_u32(trailer.data() + 8));
  if (stored != actual) return std::string("checksum mismatch");
  const int64_t zxid = coding::get_i64(head.data() + 16);
  if (name_zxid && *name_zxid != zxid) {
    return "header zxid " + std::to_string(zxid) + " differs from the name's " +
           std::to_string(*name_zxid);
  }
  return std::string();
}

StatusOr<Snapshot> read_snapshot(Env& env, const std::string& path, bool with_path) {
  const std::string name(file_names::base_name(path));
  auto view = env.view_file(path);
  if (!view.ok()) return view.status();
  const std::string_view bytes = (*view)->bytes();
  auto why = invalid_reason(
      bytes.size(),
      [&](uint64_t offset, size_t n) -> StatusOr<std::string_view> {
        return bytes.substr(offset, n);
      },
      file_names::parse_zxid(name, kPrefix));
  if (!why.ok()) return why.status();
  if (!why->empty()) return Status::corruption((with_path ? path : name) + ": " + *why);
  Snapshot snapshot;
  snapshot.zxid = coding::get_i64(bytes.data() + 16);
  snapshot.name = name;
  // A view: a snapshot can be hundreds of MB, so no copy unless compressed.
  snapshot.payload = bytes.substr(kHeaderSize, bytes.size() - kHeaderSize - kTrailerSize);
  const auto compression =
      static_cast<SnapshotCompression>(coding::get_u32(bytes.data() + kMagic.size() + 4));
  if (compression != SnapshotCompression::kNone) {
    auto raw = decompress_blocks(compression, snapshot.payload, with_path ? path : name);
    if (!raw.ok()) return raw.status();
    snapshot.decompressed = std::make_unique<std::string>(std::move(*raw));
    snapshot.payload = *snapshot.decompressed;
  }
  snapshot.file = std::move(*view);
  return snapshot;
}

// Why snapshot file `path`, open as `file`, is not valid; reads it kCheckChunk
// bytes at a time.
StatusOr<std::string> check_snapshot(ReadableFile& file, const std::string& path,
                                     std::optional<int64_t> name_zxid) {
  std::string buffer;
  return invalid_reason(
      file.size(),
      [&](uint64_t offset, size_t n) -> StatusOr<std::string_view> {
        buffer.resize(std::max(buffer.size(), n));
        auto got = file.read(offset, n, buffer.data());
        if (!got.ok()) return got.status();
        if (*got != n) {
          return Status::error("read " + path + ": ended at " + std::to_string(offset + *got) +
                               " bytes, it had " + std::to_string(file.size()) + " when opened");
        }
        return std::string_view(buffer.data(), n);
      },
      name_zxid);
}

}  // namespace

StatusOr<std::unique_ptr<SnapshotWriter>> SnapshotWriter::create(Env& env, const std::string& dir,
                                                                 int64_t zxid,
                                                                 SnapshotCompression compression) {
  if (Status s = env.create_dirs(dir); !s.ok()) return s;
  const std::string temp = file_names::join(dir, file_names::with_zxid(kPrefix, zxid, kTempSuffix));
  auto file = env.new_writable_file(temp, 0);
  if (!file.ok()) return file.status();
  auto writer = std::make_unique<Writer>(env, dir, zxid, std::move(*file), compression);
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

StatusOr<bool> SnapshotChecks::valid(Env& env, const std::string& dir, const std::string& name) {
  const std::string path = file_names::join(dir, name);
  auto file = env.open_readable_file(path);
  if (!file.ok()) return file.status();
  const uint64_t size = (*file)->size();
  if (auto known = verdicts_.find(name); known != verdicts_.end() && known->second.size == size) {
    return known->second.valid;
  }
  auto why = check_snapshot(**file, path, file_names::parse_zxid(name, kPrefix));
  if (!why.ok()) return why.status();
  verdicts_[name] = Verdict{size, why->empty()};
  return why->empty();
}

void SnapshotChecks::keep_only(const std::vector<SnapshotName>& present) {
  std::map<std::string, Verdict> kept;
  for (const SnapshotName& snapshot : present) {
    if (auto known = verdicts_.find(snapshot.name); known != verdicts_.end()) {
      kept.insert(*known);
    }
  }
  verdicts_ = std::move(kept);
}

StatusOr<std::vector<std::string>> purge(Env& env, const std::string& snap_dir,
                                         const std::string& log_dir, int retain) {
  SnapshotChecks checks;
  return purge(env, snap_dir, log_dir, retain, checks);
}

StatusOr<std::vector<std::string>> purge(Env& env, const std::string& snap_dir,
                                         const std::string& log_dir, int retain,
                                         SnapshotChecks& checks) {
  std::vector<std::string> removed;
  if (!env.file_exists(snap_dir)) return removed;
  auto snapshots = list_snapshots(env, snap_dir);
  if (!snapshots.ok()) return snapshots.status();
  checks.keep_only(*snapshots);

  // The newest `retain` valid snapshots are kept; `oldest_kept` indexes the
  // oldest of them in the newest-first list.
  const size_t want = static_cast<size_t>(std::max(retain, 1));
  size_t valid = 0;
  size_t oldest_kept = 0;
  int64_t newest_kept_zxid = 0;
  for (size_t i = 0; i < snapshots->size() && valid < want; ++i) {
    const SnapshotName& snap = (*snapshots)[i];
    auto ok = checks.valid(env, snap_dir, snap.name);
    if (!ok.ok() || !*ok) continue;  // unreadable counts as invalid
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
