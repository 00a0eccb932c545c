// SPDX-License-Identifier: Apache-2.0
// zkd's commands other than serving, each added to the command line by one
// call, as every zk tool adds its subcommands:
//
//   zkd dump-log FILE [--json]        print the records of one txn log segment
//   zkd dump-snapshot FILE [--json]   print one snapshot: zxid, sessions, tree
//   zkd failpoints                    list the failpoints ZKD_FAILPOINTS can arm
//   zkd import APACHE_DATA_DIR --config zoo.cfg [--log-dir DIR]
//   zkd export --config zoo.cfg OUT_DIR
//   zkd restore --config zoo.cfg SNAPSHOT_FILE [--zxid HEX]
//
// `run` is called once the command line parsed into `command`; it owns the
// values the options parse into and returns the exit status (dumps: 0, or 1
// for an unreadable file or a bad record; import, export and restore as
// zkd/migrate/migrate_commands.h says). Exceptions are left to the caller.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace zkd {

struct ToolCommand {
  CLI::App* command = nullptr;
  std::function<int()> run;
};

ToolCommand add_dump_log_command(CLI::App& app);
ToolCommand add_dump_snapshot_command(CLI::App& app);
ToolCommand add_failpoints_command(CLI::App& app);
ToolCommand add_import_command(CLI::App& app);
ToolCommand add_export_command(CLI::App& app);
ToolCommand add_restore_command(CLI::App& app);

}  // namespace zkd
