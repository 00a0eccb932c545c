// SPDX-License-Identifier: Apache-2.0
// Identifiers the state machine is keyed by.
#pragma once

#include <cstdint>

namespace zkd::tree {

using SessionId = int64_t;
// Watches belong to a client connection (§9.5); the server gives each
// connection a WatcherId that is never reused while the process lives.
using WatcherId = uint64_t;

}  // namespace zkd::tree
