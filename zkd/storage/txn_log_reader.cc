// SPDX-License-Identifier: Apache-2.0
// read_txn_log and read_segment_file: parsing, the torn-tail rule and its
// repair (docs/storage-format.md, "Torn tail vs corruption").
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "zkd/storage/coding.h"
#include "zkd/storage/crc32c.h"
#include "zkd/storage/file_names.h"
#include "zkd/storage/log_format.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

using namespace log_format;

constexpr int64_t kNoZxid = std::numeric_limits<int64_t>::min();

struct BadRecord {
  uint64_t offset = 0;
  std::string reason;
  // A crash could have left it: nothing but zeros after it, or it runs past
  // the end of the file. Only a torn tail in the last segment is repaired.
  bool tail_like = false;
  uint64_t cut_bytes = 0;  // from `offset` to the last non-zero byte
};

struct ParsedSegment {
  std::vector<LogRecord> records;  // zxid > keep_after
  uint64_t end = 0;                // after the last whole record
  int64_t last_zxid = kNoZxid;     // of the last whole record
  size_t whole_records = 0;
  std::optional<BadRecord> bad;
};

// Offset just after the last non-zero byte (0 for an all-zero string).
uint64_t nonzero_end(std::string_view data) {
  size_t n = data.size();
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, data.data() + n - 8, 8);
    if (word != 0) break;
    n -= 8;
  }
  while (n > 0 && data[n - 1] == '\0') --n;
  return n;
}

std::string hex32(uint32_t v) {
  char buf[11];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// Checks the file header; a bad one is reported at offset 0.
std::optional<BadRecord> check_file_header(std::string_view data, uint64_t nz_end) {
  std::string expected;
  encode_file_header(expected);
  if (data.size() >= kFileHeaderSize && data.substr(0, kFileHeaderSize) == expected) {
    return std::nullopt;
  }
  BadRecord bad;
  if (data.size() >= kMagic.size() + 4 && data.substr(0, kMagic.size()) == kMagic &&
      coding::get_u32(data.data() + kMagic.size()) != kVersion) {
    bad.reason = "unsupported format version " +
                 std::to_string(coding::get_u32(data.data() + kMagic.size())) +
                 " (this zkd reads version " + std::to_string(kVersion) + ")";
    return bad;
  }
  size_t mismatch = 0;
  while (mismatch < std::min(data.size(), kFileHeaderSize) &&
         data[mismatch] == expected[mismatch]) {
    ++mismatch;
  }
  // Torn while being created: a prefix of the header, then only zeros.
  bad.tail_like = nz_end <= mismatch;
  bad.cut_bytes = nz_end;
  bad.reason = data.size() < kFileHeaderSize && bad.tail_like
                   ? "file header cut short (" + std::to_string(data.size()) + " bytes)"
                   : "not a txn log segment (bad file header)";
  return bad;
}

// `prev_zxid`: last zxid of the segment before (kNoZxid if unknown).
ParsedSegment parse_segment(std::string_view data, int64_t name_zxid, int64_t prev_zxid,
                            int64_t keep_after) {
  ParsedSegment out;
  const uint64_t nz_end = nonzero_end(data);
  auto rest_is_zero = [&](uint64_t from) { return nz_end <= from; };
  auto fail = [&](uint64_t offset, std::string reason, bool tail_like) {
    out.bad =
        BadRecord{offset, std::move(reason), tail_like, nz_end > offset ? nz_end - offset : 0};
  };

  if (auto bad = check_file_header(data, nz_end)) {
    out.bad = std::move(bad);
    return out;
  }
  const uint64_t size = data.size();
  uint64_t p = kFileHeaderSize;
  out.end = p;
  while (p < size) {
    if (size - p < kRecordHeaderSize) {
      if (rest_is_zero(p)) break;
      fail(p, "record header cut short by the end of the file", true);
      return out;
    }
    const uint32_t length = coding::get_u32(data.data() + p);
    if (length == 0) {
      if (rest_is_zero(p)) break;
      fail(p, "zero length word followed by non-zero bytes", false);
      return out;
    }
    if (length < kZxidSize) {
      fail(p, "invalid record length " + std::to_string(length),
           rest_is_zero(p + kRecordHeaderSize));
      return out;
    }
    const uint64_t record_end = p + kRecordHeaderSize + length;
    if (record_end > size) {
      fail(p,
           "record of " + std::to_string(length) + " bytes runs past the end of the file (" +
               std::to_string(size) + " bytes)",
           true);
      return out;
    }
    const std::string_view body = data.substr(p + kRecordHeaderSize, length);
    const uint32_t stored = crc32c::unmask(coding::get_u32(data.data() + p + 4));
    const uint32_t actual = crc32c::value(body);
    if (stored != actual) {
      fail(p, "checksum mismatch (stored " + hex32(stored) + ", computed " + hex32(actual) + ")",
           rest_is_zero(record_end));
      return out;
    }
    const int64_t zxid = coding::get_i64(body.data());
    const int64_t floor = out.last_zxid != kNoZxid ? out.last_zxid : prev_zxid;
    if (zxid <= floor || zxid < name_zxid) {
      fail(p,
           "zxid " + std::to_string(zxid) + " does not follow " +
               (zxid <= floor ? "the previous record's " + std::to_string(floor)
                              : "the segment name's " + std::to_string(name_zxid)),
           false);
      return out;
    }
    if (zxid > keep_after) out.records.push_back({zxid, std::string(body.substr(kZxidSize))});
    out.last_zxid = zxid;
    ++out.whole_records;
    p = record_end;
    out.end = p;
  }
  return out;
}

Status corruption(const std::string& dir, const std::string& name, const BadRecord& bad) {
  return Status::corruption(
      "corrupt txn log: " + file_names::join(dir, name) + " at offset " +
      std::to_string(bad.offset) + ": " + bad.reason +
      ". The log after this point cannot be trusted: restore this server's data "
      "from a replica, or move " +
      name + " and every later log segment out of " + dir +
      " to start from the last snapshot (the txns in them are lost).");
}

// Cuts the torn tail of the last segment. Returns the message for `repaired`.
StatusOr<std::string> repair_tail(Env& env, const std::string& dir, const std::string& name,
                                  const ParsedSegment& parsed, bool remove_segment) {
  const BadRecord& bad = *parsed.bad;
  const std::string path = file_names::join(dir, name);
  std::string message = name + ": cut torn record at offset " + std::to_string(bad.offset) + " (" +
                        std::to_string(bad.cut_bytes) + " bytes)";
  if (bad.offset == 0) {
    message = name + ": " + bad.reason;
  }
  if (remove_segment) {
    if (Status s = env.remove_file(path); !s.ok()) return s;
    if (Status s = env.sync_dir(dir); !s.ok()) return s;
    return message + "; removed the segment, which held no whole record";
  }
  auto file = env.reopen_writable_file(path, parsed.end);
  if (!file.ok()) return file.status();
  if (Status s = (*file)->sync(); !s.ok()) return s;
  if (Status s = (*file)->close(); !s.ok()) return s;
  return message;
}

StatusOr<std::string> remove_empty_segment(Env& env, const std::string& dir,
                                           const std::string& name) {
  if (Status s = env.remove_file(file_names::join(dir, name)); !s.ok()) return s;
  if (Status s = env.sync_dir(dir); !s.ok()) return s;
  return name + ": removed the segment, which held no record";
}

}  // namespace

StatusOr<RecoveredLog> read_txn_log(Env& env, const std::string& dir, int64_t after_zxid) {
  RecoveredLog out;
  if (!env.file_exists(dir)) return out;
  auto listed = list_segments(env, dir);
  if (!listed.ok()) return listed.status();
  const std::vector<SegmentName>& segments = *listed;

  // Segments whose successor starts at or before after_zxid + 1 hold nothing
  // newer than after_zxid: skip them. The last two are always read, so the
  // tail is known even when the last one turns out to be a torn stub.
  size_t first = 0;
  auto covered = [after_zxid](int64_t next_first) {
    return next_first <= after_zxid || next_first - 1 == after_zxid;
  };
  while (first + 2 < segments.size() && covered(segments[first + 1].first_zxid)) ++first;

  int64_t prev_zxid = kNoZxid;
  for (size_t i = first; i < segments.size(); ++i) {
    const SegmentName& segment = segments[i];
    const bool last = i + 1 == segments.size();
    ParsedSegment parsed;
    {  // the view goes before any repair rewrites the file
      auto view = env.view_file(file_names::join(dir, segment.name));
      if (!view.ok()) return view.status();
      parsed = parse_segment((*view)->bytes(), segment.first_zxid, prev_zxid, after_zxid);
    }
    for (LogRecord& record : parsed.records) out.records.push_back(std::move(record));
    if (parsed.bad && !(last && parsed.bad->tail_like)) {
      return corruption(dir, segment.name, *parsed.bad);
    }
    // A last segment left with no whole record (a crash just after it was
    // created) is removed, and writing resumes in the one before.
    if (last && parsed.whole_records == 0) {
      StatusOr<std::string> repaired = parsed.bad
                                           ? repair_tail(env, dir, segment.name, parsed, true)
                                           : remove_empty_segment(env, dir, segment.name);
      if (!repaired.ok()) return repaired.status();
      out.repaired = std::move(*repaired);
      break;
    }
    if (parsed.bad) {
      StatusOr<std::string> repaired = repair_tail(env, dir, segment.name, parsed, false);
      if (!repaired.ok()) return repaired.status();
      out.repaired = std::move(*repaired);
    }
    if (parsed.last_zxid != kNoZxid) prev_zxid = parsed.last_zxid;
    out.tail = LogTail{segment.name, parsed.end, prev_zxid == kNoZxid ? 0 : prev_zxid};
  }
  return out;
}

StatusOr<SegmentContents> read_segment_file(Env& env, const std::string& path) {
  auto view = env.view_file(path);
  if (!view.ok()) return view.status();
  const int64_t name_zxid =
      file_names::parse_zxid(file_names::base_name(path), kSegmentPrefix).value_or(kNoZxid);
  ParsedSegment parsed = parse_segment((*view)->bytes(), name_zxid, kNoZxid, kNoZxid);
  SegmentContents out;
  out.records = std::move(parsed.records);
  if (parsed.bad) {
    out.status = Status::corruption(path + " at offset " + std::to_string(parsed.bad->offset) +
                                    ": " + parsed.bad->reason);
  }
  return out;
}

}  // namespace zkd::storage
