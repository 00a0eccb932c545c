// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/chroot.h"

namespace zk::client {

std::string Chroot::prefix(std::string_view client_path) const {
  if (root_.empty()) return std::string(client_path);
  if (client_path == "/") return root_;
  std::string out;
  out.reserve(root_.size() + client_path.size());
  out.append(root_).append(client_path);
  return out;
}

std::string Chroot::strip(std::string_view server_path) const {
  if (root_.empty()) return std::string(server_path);
  if (server_path.substr(0, root_.size()) != root_) return std::string(server_path);
  if (server_path.size() == root_.size()) return "/";
  if (server_path[root_.size()] != '/') return std::string(server_path);  // "/app2" vs "/app"
  return std::string(server_path.substr(root_.size()));
}

}  // namespace zk::client
