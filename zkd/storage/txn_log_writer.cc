// SPDX-License-Identifier: Apache-2.0
// TxnLogWriter and the record encoding (docs/storage-format.md).
#include <algorithm>
#include <optional>
#include <utility>

#include "zkd/storage/coding.h"
#include "zkd/storage/crc32c.h"
#include "zkd/storage/file_names.h"
#include "zkd/storage/log_format.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {

namespace log_format {

void encode_file_header(std::string& out) {
  out.append(kMagic);
  coding::put_u32(out, kVersion);
  coding::put_u32(out, 0);
}

void encode_record(std::string& out, int64_t zxid, std::string_view txn) {
  // In place: the body (zxid, txn) follows the length and the crc, which is
  // filled in once the body is there.
  coding::put_u32(out, static_cast<uint32_t>(kZxidSize + txn.size()));
  const size_t crc_at = out.size();
  coding::put_u32(out, 0);
  const size_t body_at = out.size();
  coding::put_i64(out, zxid);
  out.append(txn);
  coding::set_u32(out, crc_at, crc32c::mask(crc32c::value(std::string_view(out).substr(body_at))));
}

}  // namespace log_format

namespace {

class Writer final : public TxnLogWriter {
 public:
  Writer(Env& env, LogOptions options, int64_t last_zxid)
      : env_(env), options_(std::move(options)), last_zxid_(last_zxid) {}
  ~Writer() override {
    if (file_ != nullptr) {
      (void)flush();
      (void)file_->close();
    }
  }

  Status resume(const std::string& segment, uint64_t offset) {
    if (offset < log_format::kFileHeaderSize) {
      return Status::error("txn log tail offset " + std::to_string(offset) + " in " + segment +
                           " is inside the file header");
    }
    auto file = env_.reopen_writable_file(file_names::join(options_.dir, segment), offset);
    if (!file.ok()) return file.status();
    file_ = std::move(*file);
    return Status();
  }

  Status append(int64_t zxid, std::string_view txn) override {
    if (!broken_.ok()) return broken_;
    if (zxid <= last_zxid_) {
      return Status::error("txn log append: zxid " + std::to_string(zxid) +
                           " is not greater than the last one, " + std::to_string(last_zxid_));
    }
    if (txn.size() > log_format::kMaxTxnSize) {
      return Status::error("txn log append: txn of " + std::to_string(txn.size()) +
                           " bytes is too big");
    }
    const uint64_t record_size = log_format::kRecordHeaderSize + log_format::kZxidSize + txn.size();
    const uint64_t size = file_ != nullptr ? file_->size() + pending_.size() : 0;
    if (file_ != nullptr && size > log_format::kFileHeaderSize &&
        size + record_size > options_.preallocate) {
      if (Status s = close_segment(); !s.ok()) return broken_ = s;
    }
    if (file_ == nullptr) {
      const std::string path = file_names::join(options_.dir, segment_name(zxid));
      if (env_.file_exists(path)) {
        return broken_ = Status::error("txn log: " + path +
                                       " already exists; refusing to overwrite it (was the "
                                       "writer opened without the tail from read_txn_log?)");
      }
      auto file = env_.new_writable_file(path, options_.preallocate);
      if (!file.ok()) return broken_ = file.status();
      file_ = std::move(*file);
      dir_dirty_ = true;
      log_format::encode_file_header(pending_);
    }
    log_format::encode_record(pending_, zxid, txn);
    last_zxid_ = zxid;
    if (pending_.size() >= kFlushBytes) {
      if (Status s = flush(); !s.ok()) return broken_ = s;
    }
    return Status();
  }

  Status sync() override {
    if (!broken_.ok()) return broken_;
    if (Status s = flush(); !s.ok()) return broken_ = s;
    if (!options_.force_sync || file_ == nullptr) return Status();
    if (Status s = sync_segment(); !s.ok()) return broken_ = s;
    ++syncs_;
    return Status();
  }

  Status roll() override {
    if (!broken_.ok()) return broken_;
    if (file_ == nullptr) return Status();
    if (Status s = close_segment(); !s.ok()) return broken_ = s;
    return Status();
  }

  uint64_t syncs() const override { return syncs_; }

  Status truncate_after(int64_t zxid) override {
    if (!broken_.ok()) return broken_;
    if (Status s = flush(); !s.ok()) return broken_ = s;
    if (zxid < last_zxid_) {
      if (Status s = cut_after(zxid); !s.ok()) return broken_ = s;
    }
    last_zxid_ = zxid;
    return Status();
  }

 private:
  // Appends write into pending_; it goes to the file in one write at sync(),
  // roll(), truncate_after(), a segment's end, and past kFlushBytes: one
  // system call for a batch of records rather than one each.
  static constexpr size_t kFlushBytes = size_t{1} << 20;

  Status flush() {
    if (pending_.empty() || file_ == nullptr) return Status();
    Status s = file_->append(pending_);
    pending_.clear();
    return s;
  }

  // truncate_after() when records above `zxid` may exist.
  Status cut_after(int64_t zxid) {
    if (file_ != nullptr) {
      Status closed = file_->close();
      file_.reset();
      if (!closed.ok()) return closed;
    }
    auto listed = list_segments(env_, options_.dir);
    if (!listed.ok()) return listed.status();
    std::vector<SegmentName>& segments = *listed;
    // Newest first: whole segments above the cut go; the first one that
    // keeps a record is cut after it.
    std::optional<std::pair<std::string, uint64_t>> cut;  // path, end of the last kept record
    while (!segments.empty() && !cut) {
      const std::string path = file_names::join(options_.dir, segments.back().name);
      if (segments.back().first_zxid <= zxid) {
        auto kept_end = end_of_records_upto(path, zxid);
        if (!kept_end.ok()) return kept_end.status();
        if (*kept_end > log_format::kFileHeaderSize) cut.emplace(path, *kept_end);
      }
      if (!cut) {
        if (Status s = env_.remove_file(path); !s.ok()) return s;
        segments.pop_back();
      }
    }
    // The removals are durable before the cut, and the cut segment's own
    // entry is (it may have been created since the last directory sync).
    if (Status s = env_.sync_dir(options_.dir); !s.ok()) return s;
    dir_dirty_ = false;
    if (!cut) return Status();  // the next append starts a new segment
    auto file = env_.reopen_writable_file(cut->first, cut->second);  // zeroes after the cut
    if (!file.ok()) return file.status();
    if (Status s = (*file)->sync(); !s.ok()) return s;
    file_ = std::move(*file);
    return Status();
  }

  // Offset just after the last record with zxid <= `zxid` in the segment at
  // `path` (the header size when there is none).
  StatusOr<uint64_t> end_of_records_upto(const std::string& path, int64_t zxid) {
    auto contents = read_segment_file(env_, path);
    if (!contents.ok()) return contents.status();
    uint64_t end = log_format::kFileHeaderSize;
    size_t kept = 0;
    for (const LogRecord& record : contents->records) {
      if (record.zxid > zxid) break;
      end += log_format::kRecordHeaderSize + log_format::kZxidSize + record.txn.size();
      ++kept;
    }
    if (!contents->status.ok() && kept == contents->records.size()) {
      return Status::error("txn log: cannot truncate after zxid " + std::to_string(zxid) + ": " +
                           contents->status.message());
    }
    return end;
  }

  Status sync_segment() {
    if (Status s = file_->sync(); !s.ok()) return s;
    if (dir_dirty_) {
      if (Status s = env_.sync_dir(options_.dir); !s.ok()) return s;
      dir_dirty_ = false;
    }
    return Status();
  }

  // Syncs (with force_sync) so that only the newest segment can ever hold
  // unsynced bytes: recovery relies on it.
  Status close_segment() {
    if (Status s = flush(); !s.ok()) return s;
    if (options_.force_sync) {
      if (Status s = sync_segment(); !s.ok()) return s;
    }
    Status s = file_->close();
    file_.reset();
    dir_dirty_ = false;
    return s;
  }

  Env& env_;
  const LogOptions options_;
  std::unique_ptr<WritableFile> file_;  // the newest segment; null before the first append
  std::string pending_;                 // appended to file_'s end, not written yet
  bool dir_dirty_ = false;              // file_ was created and the directory not synced since
  int64_t last_zxid_;
  uint64_t syncs_ = 0;
  Status broken_;  // after a failed write nothing more is written
};

}  // namespace

StatusOr<std::unique_ptr<TxnLogWriter>> TxnLogWriter::open(Env& env, const LogOptions& options,
                                                           const LogTail& tail) {
  if (Status s = env.create_dirs(options.dir); !s.ok()) return s;
  auto writer = std::make_unique<Writer>(env, options, tail.last_zxid);
  if (!tail.segment.empty()) {
    if (Status s = writer->resume(tail.segment, tail.offset); !s.ok()) return s;
  }
  return std::unique_ptr<TxnLogWriter>(std::move(writer));
}

std::string segment_name(int64_t first_zxid) {
  return file_names::with_zxid(log_format::kSegmentPrefix, first_zxid);
}

StatusOr<std::vector<SegmentName>> list_segments(Env& env, const std::string& dir) {
  auto names = env.list_dir(dir);
  if (!names.ok()) return names.status();
  std::vector<SegmentName> segments;
  for (const std::string& name : *names) {
    if (auto zxid = file_names::parse_zxid(name, log_format::kSegmentPrefix)) {
      segments.push_back({name, *zxid});
    }
  }
  std::sort(segments.begin(), segments.end(),
            [](const SegmentName& a, const SegmentName& b) { return a.first_zxid < b.first_zxid; });
  return segments;
}

}  // namespace zkd::storage
