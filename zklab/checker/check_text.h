// SPDX-License-Identifier: Apache-2.0
// Text shared by describe (check_verdict.h) and the findings of
// check_sequential, private to zk::lab::checker; defined in check_verdict.cc.
#pragma once

#include <cstdint>
#include <string>

#include "zklab/checker/check_history.h"

namespace zk::lab::check::detail {

// "<outcome> [<invoked>, <completed>]": "ok", "failed" or "unknown", then the
// times in seconds since origin_ns ("1.203117 s"); the completion is "?" when
// the outcome is kUnknown or complete_ns is kNever.
std::string interval(int64_t invoke_ns, int64_t complete_ns, Outcome outcome, int64_t origin_ns);

}  // namespace zk::lab::check::detail
