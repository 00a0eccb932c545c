// SPDX-License-Identifier: Apache-2.0
#include "zkd/migrate/snapshot_bytes.h"

#include <utility>

#include "zkd/apache_files/apache_compression.h"
#include "zkd/apache_files/apache_snapshot.h"

namespace zkd::migrate {

StatusOr<tree::LoadedSnapshot> read_snapshot_bytes(
    std::string_view bytes, const std::string& path, apache::Compression compression,
    bool extended_types, const std::function<void(const std::string&)>& progress) {
  const std::string name = path.substr(path.find_last_of('/') + 1);
  std::string decompressed;
  if (compression != apache::Compression::kNone) {
    if (progress) progress("decompressing " + name);
    auto out = apache::decompress(compression, bytes, path);
    if (!out.ok()) return out.status();
    decompressed = std::move(*out);
    bytes = decompressed;
  }
  return apache::read_apache_snapshot(bytes, path, extended_types, [&](int64_t nodes) {
    if (progress) progress("reading " + name + ": " + std::to_string(nodes) + " znodes");
  });
}

}  // namespace zkd::migrate
