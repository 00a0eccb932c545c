// SPDX-License-Identifier: Apache-2.0
// The real time (clock.h): the system and steady clocks, timers on an
// io_context's steady_timer, and the kernel's random source. posix_env()
// hands these out; the real network and the logger take them as defaults
// when they are handed no other.
#pragma once

#include <cstdint>
#include <memory>

#include "zkd/clock/clock.h"

namespace boost::asio {
class io_context;
}

namespace zkd {

// std::chrono's system_clock and steady_clock. Lives for the whole process.
Clock& real_clock();
// A timer that fires on the thread running `io`.
std::unique_ptr<Timer> new_real_timer(boost::asio::io_context& io);
// 64 bits from std::random_device (getrandom on Linux).
uint64_t real_secure_random();

}  // namespace zkd
