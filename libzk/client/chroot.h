// SPDX-License-Identifier: Apache-2.0
// Chroot: the client-side path prefix of a connect string (docs/wire-protocol.md §11.2).
// Outgoing paths are prefixed, incoming paths (created paths, watch events)
// are stripped. A value type; no threading concerns.
#pragma once

#include <string>
#include <string_view>

namespace zk::client {

class Chroot {
 public:
  // `root` is "" (no chroot) or a valid path other than "/".
  explicit Chroot(std::string root = {}) : root_(std::move(root)) {}

  // Client path -> server path: "/" becomes the chroot itself.
  std::string prefix(std::string_view client_path) const;

  // Server path -> client path: the chroot itself becomes "/"; a path outside
  // the chroot is returned unchanged (as Apache's clients do).
  std::string strip(std::string_view server_path) const;

  const std::string& root() const { return root_; }
  bool empty() const { return root_.empty(); }

 private:
  std::string root_;
};

}  // namespace zk::client
