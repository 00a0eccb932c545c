// SPDX-License-Identifier: Apache-2.0
// The compressed forms of Apache's snapshots (snapshot.compression.method):
// `gz` is one gzip member (java.util.zip.GZIPOutputStream); `snappy` is
// snappy-java's stream (SnappyOutputStream): an 8-byte magic
// (0x82 "SNAPPY" 0x00), i32 version, i32 compatible version, then blocks of
// i32 length + one raw snappy block. Integers big-endian.
#pragma once

#include <string>
#include <string_view>

#include "zkd/apache_files/apache_format.h"
#include "zkd/status/status.h"

namespace zkd::apache {

// How a snapshot file's content is compressed, by its first bytes: gzip's
// magic (1f 8b), snappy-java's, else none. For a file whose name does not
// say (a snapshot streamed from Apache's admin server and saved anywhere).
Compression compression_of_content(std::string_view bytes);

// The uncompressed bytes of a snapshot file's content. Errors name `file`
// and the offset in the compressed bytes where the stream breaks.
StatusOr<std::string> decompress(Compression compression, std::string_view bytes,
                                 const std::string& file);

}  // namespace zkd::apache
