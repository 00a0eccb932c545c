// SPDX-License-Identifier: Apache-2.0
// The storage layer's names for zkd::clock's interfaces (zkd/clock/clock.h):
// an Env hands out its clocks and timers as storage::Clock and
// storage::Timer (env.h), the same types as zkd::Clock and zkd::Timer.
#pragma once

#include "zkd/clock/clock.h"

namespace zkd::storage {

using Clock = zkd::Clock;
using Timer = zkd::Timer;

}  // namespace zkd::storage
