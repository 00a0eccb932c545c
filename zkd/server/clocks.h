// SPDX-License-Identifier: Apache-2.0
// The clocks the server reads: the wall clock for txn times and the times
// the four-letter words print, the steady clock for session expiry, latency
// and uptime.
#pragma once

#include <cstdint>

namespace zkd::server {

int64_t wall_clock_ms();
int64_t steady_clock_ms();

}  // namespace zkd::server
