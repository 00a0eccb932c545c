// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_files/apache_format.h"

#include <zlib.h>

#include <charconv>
#include <cstdio>

namespace zkd::apache {
namespace {

std::optional<int64_t> parse_hex(std::string_view text) {
  if (text.empty() || text.size() > 16) return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return static_cast<int64_t>(value);
}

}  // namespace

std::optional<ApacheFileName> parse_file_name(std::string_view name) {
  ApacheFileName out;
  std::string_view rest;
  if (name.starts_with("snapshot.")) {
    out.kind = ApacheFileName::Kind::kSnapshot;
    rest = name.substr(9);
    if (rest.ends_with(".gz")) {
      out.compression = Compression::kGzip;
      rest.remove_suffix(3);
    } else if (rest.ends_with(".snappy")) {
      out.compression = Compression::kSnappy;
      rest.remove_suffix(7);
    }
  } else if (name.starts_with("log.")) {
    out.kind = ApacheFileName::Kind::kLog;
    rest = name.substr(4);
  } else {
    return std::nullopt;
  }
  auto zxid = parse_hex(rest);
  if (!zxid) return std::nullopt;
  out.zxid = *zxid;
  return out;
}

std::string snapshot_file_name(int64_t zxid) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "snapshot.%llx", static_cast<unsigned long long>(zxid));
  return buf;
}

uint32_t adler32(uint32_t running, std::string_view bytes) {
  uLong sum = running;
  // zlib takes lengths as uInt: feed big inputs in pieces.
  while (!bytes.empty()) {
    const size_t n = std::min<size_t>(bytes.size(), 1u << 30);
    sum = ::adler32(sum, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(n));
    bytes.remove_prefix(n);
  }
  return static_cast<uint32_t>(sum);
}

}  // namespace zkd::apache
