// SPDX-License-Identifier: Apache-2.0
// Rendering of command results and failures, for people and for programs.
//
// Human mode (default): plain text on stdout, quiet on success where Unix
// tools are quiet (set, delete, deleteall, sync print nothing unless asked).
// Node data is printed as raw bytes followed by a newline. Failures are one
// line on stderr: "<context>: <command> <path>: <message> (<NAME>)".
//
// JSON mode (--json): exactly one compact JSON object per result, on one line,
// on stdout (a watch prints one object per event). Failures are also one JSON
// object on stdout: {"error":"NONODE","code":-101,"command":"get","path":"/x",
// "message":"node does not exist"} ("code" only for ZooKeeper errors), so a
// program reads a single stream and branches on the exit code.
// Node data that is valid UTF-8 is "data":"..."; other data is
// "data_base64":"..." instead (standard base64, padded) and "data" is absent;
// null data (as opposed to empty) is "data":null. Human mode prints null data
// as an empty line.
// Every object starts with "format":kJsonFormat, the version of this layout.
// Stat fields use zkCli's names; zxids and ephemeralOwner are strings in
// zkCli's hex ("0x1a"), so that 64-bit values survive readers that keep
// numbers as doubles (jq); times are integers, ms since the epoch.
#pragma once

#include <cstdint>
#include <string>

#include "libzk/wire/records.h"
#include "zkctl/command_result.h"

namespace zkctl {

enum class OutputMode { kHuman, kJson };

// The version of the JSON layout. 1 (no "format" field) had zxids and
// ephemeralOwner as numbers; 2 has them as hex strings.
inline constexpr int kJsonFormat = 2;

// zkCli's zxid notation: "0x" + lower-case hex, no padding ("0x0", "0x1a").
std::string format_zxid(int64_t zxid);

// Java Date.toString() style in the local time zone:
// "Thu Jan 01 00:00:00 UTC 1970".
std::string format_time_ms(int64_t ms_since_epoch);

// zkCli's `stat` block: eleven "name = value" lines, each ending in '\n'.
std::string format_stat_lines(const zk::wire::Stat& stat);

// What to print on stdout for a successful result; "" means nothing.
// Non-empty output always ends with '\n'.
std::string render_result(const CommandResult& result, OutputMode mode);

struct RenderedFailure {
  bool to_stdout = false;  // JSON mode: stdout; human mode: stderr
  std::string text;        // ends with '\n'
};

// `context` is what the human line starts with: "zkctl" or "FILE:LINE".
RenderedFailure render_failure(const CommandFailure& failure, OutputMode mode,
                               const std::string& context);

}  // namespace zkctl
