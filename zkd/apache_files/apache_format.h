// SPDX-License-Identifier: Apache-2.0
// Apache ZooKeeper's data files as its 3.5-3.9 servers write them
// (docs/migration.md, "Apache's files"): names, file headers and the Adler-32
// seal. What zkd import reads and zkd export writes; zkd's own files are
// different (docs/storage-format.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zkd::apache {

// FileHeader: i32 magic, i32 version (2), i64 dbid; 16 bytes.
inline constexpr int32_t kSnapshotMagic = 0x5A4B534E;  // "ZKSN"
inline constexpr int32_t kLogMagic = 0x5A4B4C47;       // "ZKLG"
inline constexpr int32_t kFormatVersion = 2;
inline constexpr int64_t kSnapshotDbId = -1;
inline constexpr size_t kFileHeaderSize = 16;
// A log entry ends with this byte; a missing one marks a torn entry.
inline constexpr char kLogEntryEnd = 'B';

// How a snapshot file is compressed, from its name's suffix (Apache's
// snapshot.compression.method: none, gz, snappy).
enum class Compression { kNone, kGzip, kSnappy };

// A data file's kind and zxid, from its name: `snapshot.<hex>` (with `.gz` or
// `.snappy`) or `log.<hex>`; hex lowercase or upper, no 0x, no padding
// needed. nullopt for any other name (acceptedEpoch, zkd's own files, ...).
struct ApacheFileName {
  enum class Kind { kSnapshot, kLog } kind = Kind::kSnapshot;
  int64_t zxid = 0;
  Compression compression = Compression::kNone;
};
std::optional<ApacheFileName> parse_file_name(std::string_view name);
// `snapshot.<zxid in lowercase hex>`, as Apache names an uncompressed one.
std::string snapshot_file_name(int64_t zxid);

// Adler-32 as Java's java.util.zip.Adler32 computes it, continued from
// `running` (1 for a fresh checksum).
uint32_t adler32(uint32_t running, std::string_view bytes);

}  // namespace zkd::apache
