// SPDX-License-Identifier: Apache-2.0
#include "zkd/storage/snapshot_compression.h"

#include <snappy.h>
#include <zlib.h>

#include "zkd/storage/coding.h"

namespace zkd::storage {
namespace {

constexpr size_t kBlockHeader = 8;

}  // namespace

const char* compression_name(SnapshotCompression compression) {
  switch (compression) {
    case SnapshotCompression::kSnappy:
      return "snappy";
    case SnapshotCompression::kGzip:
      return "gz";
    case SnapshotCompression::kNone:
      break;
  }
  return "none";
}

std::string compress_block(SnapshotCompression compression, std::string_view raw) {
  std::string body;
  if (compression == SnapshotCompression::kSnappy) {
    snappy::Compress(raw.data(), raw.size(), &body);
  } else {
    uLongf size = compressBound(static_cast<uLong>(raw.size()));
    body.resize(size);
    // Level 1: most of gzip's gain on znode data at a fraction of its time.
    compress2(reinterpret_cast<Bytef*>(body.data()), &size,
              reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()), 1);
    body.resize(size);
  }
  std::string block;
  block.reserve(kBlockHeader + body.size());
  coding::put_u32(block, static_cast<uint32_t>(body.size()));
  coding::put_u32(block, static_cast<uint32_t>(raw.size()));
  block += body;
  return block;
}

StatusOr<std::string> decompress_blocks(SnapshotCompression compression, std::string_view stored,
                                        const std::string& file) {
  std::string out;
  size_t at = 0;
  while (at < stored.size()) {
    const auto damaged = [&](const char* why) {
      return Status::corruption(file + ": the " + compression_name(compression) +
                                " block at payload offset " + std::to_string(at) + " " + why);
    };
    if (stored.size() - at < kBlockHeader) return damaged("is cut short");
    const uint32_t size = coding::get_u32(stored.data() + at);
    const uint32_t raw = coding::get_u32(stored.data() + at + 4);
    if (size > stored.size() - at - kBlockHeader) return damaged("is cut short");
    const char* body = stored.data() + at + kBlockHeader;
    const size_t before = out.size();
    out.resize(before + raw);
    bool ok = false;
    if (compression == SnapshotCompression::kSnappy) {
      size_t length = 0;
      ok = snappy::GetUncompressedLength(body, size, &length) && length == raw &&
           snappy::RawUncompress(body, size, out.data() + before);
    } else {
      uLongf length = raw;
      ok = uncompress(reinterpret_cast<Bytef*>(out.data() + before), &length,
                      reinterpret_cast<const Bytef*>(body), size) == Z_OK &&
           length == raw;
    }
    if (!ok) return damaged("does not decompress");
    at += kBlockHeader + size;
  }
  return out;
}

}  // namespace zkd::storage
