// SPDX-License-Identifier: Apache-2.0
// The running server's side of the broadcast admin command
// (zkd/view/broadcast_bench.h): the paper's Figure 7 load, made on this
// server. Its txns are setData requests of the run's session, handed to the
// write path as the server's own writes (no connection to answer), so each
// goes the way of a client's write from preparing on: proposed, logged,
// replicated, committed and applied. The run keeps `in_flight` of them
// submitted and not yet applied, topping up every millisecond; it counts
// them by the node's version, so it must be the node's only writer.
//
// Threading: the state thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "zkd/clock/clock.h"
#include "zkd/server/write_path.h"
#include "zkd/tree/database.h"
#include "zkd/view/broadcast_bench.h"

namespace zkd::server {

class BroadcastGenerator final : public admin::BroadcastBench {
 public:
  // A run with no txn applied for this long ends with an error.
  static constexpr int64_t kStallUs = 10'000'000;

  struct Parts {
    tree::Database& db;
    WritePath& writes;
    zkd::Clock& clock;
    std::unique_ptr<Timer> timer;
  };
  explicit BroadcastGenerator(Parts parts);

  void broadcast(Run run, std::function<void(Result)> done) override;
  // Drops a run under way (its `done` is not called).
  void stop();

 private:
  struct Active {
    Run run;
    std::function<void(Result)> done;
    std::string request_body;  // the setData request every txn repeats
    int32_t start_version = 0;
    int64_t submitted = 0;
    int64_t applied = 0;
    int64_t started_us = 0;
    int64_t progress_us = 0;  // when `applied` last grew
  };
  // Why this server cannot make txns of `session` now (it does not lead, or
  // the session is closed); "" when it can.
  std::string cannot_make(int64_t session) const;
  // Counts what was applied, ends the run or submits up to `in_flight`, and
  // arms the next turn.
  void turn();
  void finish(Result result);

  tree::Database& db_;
  WritePath& writes_;
  zkd::Clock& clock_;
  std::unique_ptr<Timer> timer_;
  std::optional<Active> active_;
};

}  // namespace zkd::server
