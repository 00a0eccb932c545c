// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_files/apache_txn_log.h"

#include <algorithm>

#include "libzk/wire/jute.h"
#include "zkd/apache_files/apache_format.h"

namespace zkd::apache {
namespace {

constexpr size_t kEntryOverhead = 8 + 4 + 1;  // checksum, length, end byte

bool only_zeros(std::string_view bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == 0; });
}

}  // namespace

StatusOr<LogSegmentRead> read_apache_log(std::string_view bytes, const std::string& file,
                                         bool last_segment,
                                         const std::function<Status(const tree::Txn&)>& visit) {
  zk::wire::Reader header(bytes);
  const int32_t magic = header.int32();
  const int32_t version = header.int32();
  if (!header.ok() || magic != kLogMagic || version != kFormatVersion) {
    return Status::corruption(file +
                              ": offset 0: not an Apache ZooKeeper txn log (no ZKLG "
                              "version 2 file header)");
  }
  LogSegmentRead out;
  size_t at = kFileHeaderSize;
  while (at < bytes.size()) {
    zk::wire::Reader r(bytes.substr(at));
    const int64_t checksum = r.int64();
    const int32_t length = r.int32();
    if (r.ok() && length == 0) break;  // the preallocated zeros
    std::string why;
    std::string_view txn_bytes;
    size_t end = bytes.size();  // where the entry ends, when it fits
    if (!r.ok() || length < 0 || static_cast<size_t>(length) + kEntryOverhead > bytes.size() - at) {
      why = "the entry is cut short";
    } else {
      end = at + static_cast<size_t>(length) + kEntryOverhead;
      txn_bytes = bytes.substr(at + 12, static_cast<size_t>(length));
      if (static_cast<uint32_t>(checksum) != adler32(1, txn_bytes)) {
        why = "the entry's checksum does not match";
      } else if (bytes[at + 12 + static_cast<size_t>(length)] != kLogEntryEnd) {
        why = "the entry does not end with 'B'";
      }
    }
    tree::Txn txn;
    if (why.empty() && !tree::read_txn(txn_bytes, txn)) why = "the txn does not decode";
    if (!why.empty()) {
      if (last_segment && only_zeros(bytes.substr(end))) {
        out.torn_tail = file + ": a torn last entry at offset " + std::to_string(at) + " (" + why +
                        ") was left out, as Apache's own start-up leaves it";
        break;
      }
      return Status::corruption(file + ": offset " + std::to_string(at) + ": " + why +
                                "; the txn log is damaged (inspect it with Apache's "
                                "zkTxnLogToolkit.sh)");
    }
    if (Status s = visit(txn); !s.ok()) return s;
    ++out.entries;
    at = end;
  }
  return out;
}

}  // namespace zkd::apache
