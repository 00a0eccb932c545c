// SPDX-License-Identifier: Apache-2.0
// Compressed snapshot payloads (zoo.cfg snapshot.compression.method, as
// Apache's: gz or snappy): each piece the writer is given becomes one block,
// u32 stored length, u32 raw length, then the compressed bytes (snappy's raw
// format, or zlib's deflate stream for gz); integers little-endian, as
// everywhere in zkd's files (coding.h). The file's
// framing and checksum are those of an uncompressed one, over the blocks
// (docs/storage-format.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "zkd/status/status.h"

namespace zkd::storage {

enum class SnapshotCompression : uint32_t { kNone = 0, kSnappy = 1, kGzip = 2 };

// "none", "snappy", "gz".
const char* compression_name(SnapshotCompression compression);

// `raw` as one block. Precondition: compression is not kNone.
std::string compress_block(SnapshotCompression compression, std::string_view raw);

// The raw bytes of every block of `stored`, concatenated. A block that is
// cut short or does not decompress is corruption naming `file` and the
// block's offset in the payload.
StatusOr<std::string> decompress_blocks(SnapshotCompression compression, std::string_view stored,
                                        const std::string& file);

}  // namespace zkd::storage
