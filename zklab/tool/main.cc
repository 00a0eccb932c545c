// SPDX-License-Identifier: Apache-2.0
// zklab: local zkd ensembles that outlive the command. Adds every subcommand
// (lab_cli.h), parses the command line (CLI11), prepares what the chosen one
// needs (the zkd to start, the lab lock) and runs it; exit codes: 0 ok, 1
// error (no lab, a node that did not come up, ...), 2 bad arguments.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <optional>
#include <vector>

#include "libzk/version/version.h"
#include "zklab/process/zkd_lookup.h"
#include "zklab/tool/lab_cli.h"
#include "zklab/tool/lab_commands.h"
#include "zklab/tool/lab_lock.h"
#include "zklab/tool/lab_state.h"

namespace {

using zk::lab::LabCommand;
using zk::lab::LabExit;

// The zkd of the build tree, tried when neither --zkd nor $ZKLAB_ZKD names
// one and none is beside zklab (zkd_lookup.h).
#ifndef ZKD_BINARY
#define ZKD_BINARY ""
#endif

int run(int argc, char** argv) {
  CLI::App app{"zklab: local zkd ensembles (daemons that outlive zklab)", "zklab"};
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version", zk::version_line("zklab"));
  std::string dir = zk::lab::kDefaultLabDir;
  const char* env_zkd = std::getenv("ZKLAB_ZKD");
  std::string zkd = env_zkd != nullptr ? env_zkd : "";
  int timeout_s = 30;
  app.add_option("--dir", dir, "the lab directory (default .lab/zklab)")->type_name("DIR");
  app.add_option("--zkd", zkd,
                 "the zkd executable (default $ZKLAB_ZKD, else the zkd beside zklab, the "
                 "build tree's, or zkd on PATH)")
      ->type_name("PATH");
  app.add_option("--timeout", timeout_s, "deadline of every wait, in seconds (default 30)")
      ->type_name("S")
      ->check(CLI::Range(1, 3600));
  app.footer(
      "\nNODE: an id, or leader, follower (the first by id), random.\n"
      "Exit codes: 0 ok, 1 error (no lab, a node did not come up in time, ...), 2 bad "
      "arguments.");

  std::vector<LabCommand> commands;
  const auto add = [&commands](std::vector<LabCommand> more) {
    for (auto& c : more) commands.push_back(std::move(c));
  };
  add({zk::lab::add_up_command(app), zk::lab::add_status_command(app),
       zk::lab::add_down_command(app)});
  add(zk::lab::add_node_commands(app));
  add({zk::lab::add_logs_command(app)});
  add(zk::lab::add_network_commands(app));
  add({zk::lab::add_failover_command(app), zk::lab::add_roll_command(app),
       zk::lab::add_transfer_command(app), zk::lab::add_migrate_command(app),
       zk::lab::add_check_command(app)});
  add(zk::lab::add_membership_commands(app));
  add({zk::lab::add_backup_command(app), zk::lab::add_restore_command(app)});
  add({zk::lab::add_relay_daemon_command(app)});

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << zk::version_line("zklab") << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    // The usage of the subcommand at fault, else zklab's.
    const auto parsed = app.get_subcommands();
    std::cerr << "zklab: " << e.what() << "\n"
              << (parsed.empty() ? app.help() : parsed.front()->help());
    return static_cast<int>(LabExit::kUsage);
  }
  // CLI11 requires exactly one subcommand, so one of them parsed.
  const auto parsed = std::find_if(commands.begin(), commands.end(),
                                   [](const LabCommand& c) { return c.command->parsed(); });
  if (parsed == commands.end()) return static_cast<int>(LabExit::kUsage);
  const LabCommand& chosen = *parsed;
  if (chosen.starts_zkd) {
    auto found = zk::lab::find_zkd(zk::lab::this_process_search(zkd, ZKD_BINARY));
    if (found.path.empty()) {
      std::cerr << "zklab: " << found.error << "\n";
      return static_cast<int>(LabExit::kError);
    }
    zkd = found.path;
  }
  // One path for the lab however --dir spells it (its daemons are found by it).
  zk::lab::LabContext ctx{zk::lab::lab_directory(dir), zkd, std::chrono::seconds(timeout_s),
                          std::cout, std::cerr};
  // A command that changes an existing lab (or creates one) holds its lock;
  // on a missing lab the others say there is none.
  std::optional<zk::lab::LabLock> lock;
  if (chosen.changes_lab && (chosen.creates_lab || std::filesystem::exists(ctx.dir))) {
    lock.emplace(ctx.dir, ctx.deadline);
    if (!lock->locked()) {
      std::cerr << "zklab: " << lock->error() << "\n";
      return static_cast<int>(LabExit::kError);
    }
  }
  const LabExit code = chosen.run(ctx);
  // The command found an argument it cannot use (and said which): its usage.
  if (code == LabExit::kUsage) std::cerr << chosen.command->help();
  return static_cast<int>(code);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "zklab: internal error: " << e.what() << "\n";
    return static_cast<int>(LabExit::kError);
  }
}
