// SPDX-License-Identifier: Apache-2.0
// Request bodies (zk::wire records, encoded) that unit and process tests build
// again and again. Header only; needs zk::wire.
#pragma once

#include <cstdint>
#include <string>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"

namespace zk::test {

// A CreateRequest with the open ACL; `flags` as on the wire (1 ephemeral,
// 2 sequential).
inline std::string create_body(const std::string& path, const std::string& data,
                               int32_t flags = 0) {
  zk::wire::CreateRequest r;
  r.path = path;
  r.data = data;
  r.acl = zk::wire::open_acl_unsafe();
  r.flags = flags;
  return zk::wire::encode(r);
}

// A path plus watch flag (getData, exists, getChildren, ...).
inline std::string path_body(const std::string& path, bool watch = false) {
  return zk::wire::encode(zk::wire::PathWatchRequest{path, watch});
}

}  // namespace zk::test
