// SPDX-License-Identifier: Apache-2.0
#include "zkd/service_notify.h"

#include <systemd/sd-daemon.h>

#include <string>

namespace zkd {
namespace {

void notify(std::string_view state, std::string_view status) {
  std::string message(state);
  if (!message.empty()) message += "\n";
  message += "STATUS=";
  message += status;
  // 0: keep $NOTIFY_SOCKET, so that each later call still reaches the manager.
  (void)sd_notify(0, message.c_str());
}

}  // namespace

void notify_ready(std::string_view status) { notify("READY=1", status); }
void notify_stopping(std::string_view status) { notify("STOPPING=1", status); }
void notify_status(std::string_view status) { notify("", status); }

}  // namespace zkd
