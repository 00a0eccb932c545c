// SPDX-License-Identifier: Apache-2.0
// Telling the service manager how zkd is doing (systemd's sd_notify: the unit
// dist/zkd.service is Type=notify). zkd calls notify_ready once it has
// recovered its data and its client port listens, notify_stopping when it
// begins to shut down, and notify_status for the line `systemctl status`
// shows. Each sends one datagram to $NOTIFY_SOCKET and does nothing when zkd
// was not started by a service manager (no $NOTIFY_SOCKET); a failure to send
// is ignored, as it must not stop the server. The one place zkd touches
// libsystemd.
#pragma once

#include <string_view>

namespace zkd {

// READY=1 with STATUS=<status>.
void notify_ready(std::string_view status);
// STOPPING=1 with STATUS=<status>.
void notify_stopping(std::string_view status);
// STATUS=<status> alone.
void notify_status(std::string_view status);

}  // namespace zkd
