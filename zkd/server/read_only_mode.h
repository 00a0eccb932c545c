// SPDX-License-Identifier: Apache-2.0
// Apache's read-only mode (readonlymode.enabled): a replica that has been
// without a serving quorum for the grace, max(2 s, tickTime) as Apache's
// QuorumPeer waits, serves the clients that connect allowing a read-only
// server (the ConnectRequest's readOnly byte, Java's canBeReadOnly): reads
// from its own tree, NOTREADONLY for every write and sync, `isro` says "ro".
// It ends when the replica serves again; its clients are closed then and
// look for a read-write server (a session created read-only is this
// server's alone: the quorum does not know it). ClientService acts on it,
// Replication drives it, StatusView reports it.
//
// Threading: the state thread.
#pragma once

#include <cstdint>
#include <optional>

namespace zkd::server {

class ReadOnlyMode {
 public:
  // Grace max(2000, tick_time_ms). Disabled: never active.
  ReadOnlyMode(bool enabled, int64_t tick_time_ms);

  bool enabled() const { return enabled_; }
  int64_t grace_ms() const { return grace_ms_; }
  // The replica has been without a serving quorum since `now_ms` (also at
  // start, before its first election).
  void quorum_lost(int64_t now_ms);
  // The replica serves: read-only mode ends.
  void quorum_back();
  // The timer's beat: starts read-only mode once the grace has passed
  // without a quorum. True only on the call that started it.
  bool tick(int64_t now_ms);
  bool active() const { return active_; }

 private:
  bool enabled_;
  int64_t grace_ms_;
  std::optional<int64_t> lost_at_ms_;
  bool active_ = false;
};

}  // namespace zkd::server
