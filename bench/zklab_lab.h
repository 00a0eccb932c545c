// SPDX-License-Identifier: Apache-2.0
// ZklabLab: a lab made by `zklab up` (zklab/README.md), its peers talking
// through zklab's relay daemon unless `direct`, driven with the calls a
// benchmark makes of zk::lab::Ensemble (addresses, leader, kill, wipe,
// restart, znode counts, pids, logs), so that a benchmark written for an
// Ensemble measures the same scenario through the relays.
//
// Every zklab command is a child process of the zklab binary given, waited
// for (its output appended to <temp>/zklab.log). The lab lives in a fresh
// <temp>/lab, <temp> = $TMPDIR (or /tmp)/<prefix>_XXXXXX; the destructor runs
// `zklab down` and removes <temp> unless keep_directory() was called.
// Threading: one object from one thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zk::bench {

struct ZklabLabOptions {
  std::string zklab;  // the zklab executable; required
  std::string zkd;    // the zkd executable; required
  int voters = 3;
  int tick_time_ms = 200;
  bool direct = false;                // `up --direct`: no relays
  std::vector<std::string> settings;  // KEY=VALUE, each an `up --set`
  std::string temp_dir_prefix = "zklab_lab";
  // Every zklab command's deadline (its --timeout too).
  std::chrono::seconds command_deadline{300};
};

class ZklabLab {
 public:
  // Runs `zklab up` and returns the lab once the command succeeded (every
  // node serves); otherwise nothing, with the reason in `error`.
  static std::unique_ptr<ZklabLab> start(const ZklabLabOptions& options, std::string& error);
  ~ZklabLab();
  ZklabLab(const ZklabLab&) = delete;
  ZklabLab& operator=(const ZklabLab&) = delete;

  std::vector<int> ids() const;
  // "127.0.0.1:<client port>" of node `id`.
  std::string address(int id) const;
  // The node that says Mode: leader, polled until the deadline.
  std::optional<int> leader(std::chrono::milliseconds deadline);
  // `zklab kill <id>`: true once it succeeded.
  bool kill(int id);
  // Removes everything in node `id`'s dataDir but myid and session.key (as
  // an operator resyncs a node). Empty on success, else why not.
  std::string wipe_data(int id);
  // `zklab start <id>`, which waits until the node serves (the deadline is
  // the command's --timeout). Empty on success, else why not.
  std::string restart(int id, std::chrono::milliseconds deadline);
  // Its mntr zk_znode_count; -1 when it does not answer.
  int64_t znode_count(int id) const;
  // The pid its zkd.pid names (-1: none).
  pid_t pid(int id) const;
  std::filesystem::path log_path(int id) const;
  // The relay daemon's pid (-1: none, as in a direct lab).
  pid_t relay_pid() const;
  const std::filesystem::path& directory() const { return lab_; }
  void keep_directory() { keep_ = true; }

 private:
  ZklabLab(ZklabLabOptions options, std::filesystem::path temp);
  // Runs zklab with `args` after the global options; empty when it exited 0.
  std::string run(const std::vector<std::string>& args,
                  std::optional<std::chrono::seconds> timeout = std::nullopt) const;

  ZklabLabOptions options_;
  std::filesystem::path temp_;
  std::filesystem::path lab_;  // temp_/lab
  std::vector<uint16_t> client_ports_;
  bool up_ = false;
  bool keep_ = false;
};

}  // namespace zk::bench
