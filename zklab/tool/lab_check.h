// SPDX-License-Identifier: Apache-2.0
// `zklab check`: a consistency check of a running lab under faults.
// Concurrent clients (sessions spread over the nodes) read (sync, then
// getData), write and compare-and-set a few registers, create sequential
// znodes, and hold ephemerals (some of their sessions are abandoned on
// purpose); meanwhile a nemesis injects the chosen faults at random times
// (seeded) and undoes them. After `duration` the nemesis heals everything,
// waits until every node serves, and the clients take final reads. The
// history (check_history.h) is then checked (check_verdict.h).
// Printed: what the nemesis did and when, the counts, the verdict and, per
// violation, its window. Exit code kOk when the history passed, kError when
// it did not or the run could not be carried out.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zklab/tool/lab_commands.h"

namespace zk::lab {

// The faults of `zklab check`; zklab(1) says what each does.
enum class Nemesis {
  kKill,
  kPause,
  kPartition,
  kBridge,
  kCorrupt,
  kWipe,
  kCrashpoint,
  kSkew,
  kReconfig,
};

struct CheckOptions {
  std::vector<Nemesis> nemesis;  // empty: no faults
  std::chrono::milliseconds duration{10000};
  uint64_t seed = 0;  // 0: a random seed (printed)
  int clients = 6;
  int registers = 3;
  std::filesystem::path history;  // non-empty: write the history there (text, one op per line)
  // The clients' jute.maxbuffer; 0: zk::client's default. The sequential
  // creates are spread so that every listing fits (check_client.h).
  int32_t jute_maxbuffer = 0;
};

// Its word on the command line: "kill", "pause", "partition", ...
std::string_view nemesis_name(Nemesis nemesis);
// Every nemesis word, as "kill, pause, ..." (for usage and errors).
std::string nemesis_names();
// The nemesis a word names; nothing for another word.
std::optional<Nemesis> parse_nemesis(std::string_view word);

LabExit lab_check(const LabContext& ctx, const CheckOptions& options);

}  // namespace zk::lab
