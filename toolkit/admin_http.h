// SPDX-License-Identifier: Apache-2.0
// One HTTP/1.1 request to a server's admin port, and its whole answer: what
// zkctl's backup and restore verbs and zklab's send (Apache 3.9's snapshot
// and restore commands; docs/backup-and-restore.md). Plain HTTP only.
//
// Blocking, on a private io_context; the whole exchange (connect, send,
// read) must end within `timeout` or it fails. Never throws.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace zk::toolkit {

struct AdminHttpReply {
  unsigned status = 0;                         // 0: no answer (see error)
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::string error;  // why there is no answer: "" when status > 0
};

struct AdminHttpRequest {
  std::string host;
  uint16_t port = 8080;
  std::string method = "GET";  // GET or POST
  std::string target;          // "/commands/snapshot?streaming=true"
  std::string authorization;   // the Authorization header; "" for none
  std::string body;            // POST: sent as application/octet-stream
  std::chrono::milliseconds timeout{600000};
};

AdminHttpReply admin_http(const AdminHttpRequest& request);

}  // namespace zk::toolkit
