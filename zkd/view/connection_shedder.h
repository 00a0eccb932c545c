// SPDX-License-Identifier: Apache-2.0
// What the admin server's shed_connections command (Apache 3.10's
// ShedConnectionsCommand) asks of a running server: close about a share of
// its client connections, so that their clients move to other servers.
// zkd::server's ClientService implements it.
//
// Threading: the server's state thread.
#pragma once

namespace zkd::admin {

class ConnectionShedder {
 public:
  virtual ~ConnectionShedder() = default;
  // Closes each client connection with probability `percentage`/100 (every
  // one at 100); returns how many it closed. Precondition: 0..100.
  virtual int shed_connections(int percentage) = 0;
};

}  // namespace zkd::admin
