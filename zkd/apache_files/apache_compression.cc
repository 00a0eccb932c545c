// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_files/apache_compression.h"

#include <snappy.h>
#include <zlib.h>

#include <cstdint>

namespace zkd::apache {
namespace {

constexpr std::string_view kSnappyMagic("\x82SNAPPY\0", 8);
constexpr size_t kSnappyHeaderSize = 16;  // magic, version, compatible version

Status damaged(const std::string& file, uint64_t offset, const std::string& why) {
  return Status::corruption(file + ": compressed stream damaged at offset " +
                            std::to_string(offset) + ": " + why);
}

uint32_t big_endian32(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

StatusOr<std::string> gunzip(std::string_view bytes, const std::string& file) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Status::error("zlib: inflateInit2 failed");
  std::string out;
  char buffer[1 << 16];
  int rc = Z_OK;
  size_t consumed = 0;
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0 && consumed < bytes.size()) {
      const size_t n = std::min<size_t>(bytes.size() - consumed, 1u << 30);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
      z.avail_in = static_cast<uInt>(n);
      consumed += n;
    }
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && !(rc == Z_BUF_ERROR && z.avail_in == 0 && consumed < bytes.size())) {
      const uint64_t at = consumed - z.avail_in;
      const std::string why = rc == Z_BUF_ERROR ? std::string("the stream is cut short")
                                                : std::string(z.msg ? z.msg : "inflate failed");
      inflateEnd(&z);
      return damaged(file, at, why);
    }
  }
  inflateEnd(&z);
  return out;
}

StatusOr<std::string> unsnappy(std::string_view bytes, const std::string& file) {
  if (bytes.size() < kSnappyHeaderSize || bytes.substr(0, 8) != kSnappyMagic) {
    return damaged(file, 0, "no snappy-java stream header");
  }
  std::string out;
  size_t at = kSnappyHeaderSize;
  while (at < bytes.size()) {
    if (bytes.size() - at < 4) return damaged(file, at, "a block length is cut short");
    const uint32_t length = big_endian32(bytes.substr(at, 4));
    if (length > bytes.size() - at - 4) return damaged(file, at, "a block is cut short");
    std::string_view block = bytes.substr(at + 4, length);
    size_t size = 0;
    if (!snappy::GetUncompressedLength(block.data(), block.size(), &size)) {
      return damaged(file, at, "not a snappy block");
    }
    const size_t before = out.size();
    out.resize(before + size);
    if (!snappy::RawUncompress(block.data(), block.size(), out.data() + before)) {
      return damaged(file, at, "a snappy block does not decompress");
    }
    at += 4 + length;
  }
  return out;
}

}  // namespace

Compression compression_of_content(std::string_view bytes) {
  if (bytes.starts_with("\x1f\x8b")) return Compression::kGzip;
  if (bytes.starts_with(kSnappyMagic)) return Compression::kSnappy;
  return Compression::kNone;
}

StatusOr<std::string> decompress(Compression compression, std::string_view bytes,
                                 const std::string& file) {
  switch (compression) {
    case Compression::kGzip:
      return gunzip(bytes, file);
    case Compression::kSnappy:
      return unsnappy(bytes, file);
    case Compression::kNone:
      break;
  }
  return std::string(bytes);
}

}  // namespace zkd::apache
