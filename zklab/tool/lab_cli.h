// SPDX-License-Identifier: Apache-2.0
// zklab's subcommands, each added to the command line by one add_*_command
// call: the shape every zk tool uses (zkd/tool_commands.h, zkbench's
// scenarios). An add_* function declares its subcommand, the options and
// their checks; the values parse into storage the returned LabCommand owns,
// and `run` does the command once the command line parsed into `command`.
// Every bad argument is a CLI::ParseError raised by the parse (a check of
// CLI11, or one made when the subcommand's parse completes), so nothing runs
// on a command line zklab cannot use.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <vector>

#include "zklab/tool/lab_commands.h"

namespace zk::lab {

struct LabCommand {
  CLI::App* command = nullptr;
  // What main.cc prepares before `run`:
  bool changes_lab = true;   // the lab lock (only status, logs and the relay daemon look)
  bool creates_lab = false;  // the lock also when the lab directory is not there yet (up)
  bool starts_zkd = false;   // ctx.zkd: the zkd executable the command starts
  std::function<LabExit(const LabContext&)> run;
};

LabCommand add_up_command(CLI::App& app);
LabCommand add_status_command(CLI::App& app);
LabCommand add_down_command(CLI::App& app);
// start, stop, restart, kill, pause and resume.
std::vector<LabCommand> add_node_commands(CLI::App& app);
LabCommand add_logs_command(CLI::App& app);
// partition, isolate, slow and heal.
std::vector<LabCommand> add_network_commands(CLI::App& app);
LabCommand add_failover_command(CLI::App& app);
LabCommand add_roll_command(CLI::App& app);
LabCommand add_transfer_command(CLI::App& app);
LabCommand add_migrate_command(CLI::App& app);
LabCommand add_check_command(CLI::App& app);
// add, remove and reconfig.
std::vector<LabCommand> add_membership_commands(CLI::App& app);
LabCommand add_backup_command(CLI::App& app);
LabCommand add_restore_command(CLI::App& app);
// Hidden: the relay daemon that `up` starts.
LabCommand add_relay_daemon_command(CLI::App& app);

}  // namespace zk::lab
