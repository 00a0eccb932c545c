// SPDX-License-Identifier: Apache-2.0
// Constants and encoding of txn log segments (docs/storage-format.md).
// Internal to zkd/storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zkd::storage::log_format {

inline constexpr std::string_view kMagic = "zkdtxlog";
inline constexpr uint32_t kVersion = 1;
inline constexpr size_t kFileHeaderSize = 16;   // magic, version, reserved
inline constexpr size_t kRecordHeaderSize = 8;  // length, masked crc
inline constexpr size_t kZxidSize = 8;
// Largest txn accepted by the writer (ZooKeeper's jute.maxbuffer is ~1 MiB).
inline constexpr size_t kMaxTxnSize = (size_t{1} << 30) - kZxidSize;

inline constexpr std::string_view kSegmentPrefix = "log.";

// Appends the 16-byte file header.
void encode_file_header(std::string& out);
// Appends one record: length, masked crc32c(zxid + txn), zxid, txn.
void encode_record(std::string& out, int64_t zxid, std::string_view txn);

}  // namespace zkd::storage::log_format
