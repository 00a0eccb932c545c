// SPDX-License-Identifier: Apache-2.0
// What `zklab check` prints about a history and its verdict, and the history
// written as text. Times are shown relative to `origin_ns` (the start of the
// run, steady_now_ns).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "zklab/checker/check_history.h"
#include "zklab/checker/check_verdict.h"

namespace zk::lab::check {

// One line per kind of operation with its outcomes, e.g.
//   "ops: read ok=812 failed=0 unknown=2"
// for read, write, cas and create, then
//   "ephemerals: 9 (3 sessions ended, 6 alive)".
void print_counts(std::ostream& out, const History& history);

// "verdict: ok", or "verdict: " and what failed ("NOT LINEARIZABLE",
// "INCONCLUSIVE", "SEQUENTIAL NAMES WRONG", "EPHEMERALS WRONG", comma
// separated) and the number of violations.
std::string verdict_line(const Verdict& verdict);

// Every violation: its kind and what, then its window (describe()).
void print_violations(std::ostream& out, const Verdict& verdict, int64_t origin_ns);

// The history, one item per line, times in ns since origin_ns ("never": did
// not complete):
//   register <client> <key> read|write|cas <value> <version> ok|failed|unknown <invoke> <complete>
//            <zxid of an acknowledged write or cas, else 0>
//   create <client> <parent> <sequence> ok|failed|unknown <invoke> <complete>
//   children <parent> <sequence>...
//   ephemeral <path> <session id, hex> ended|alive present|absent
//   watch <watcher> <connection> <path> <zxid>
void write_history(std::ostream& out, const History& history, int64_t origin_ns);

}  // namespace zk::lab::check
