// SPDX-License-Identifier: Apache-2.0
#include "zkd/tool_commands.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "zkd/failpoint/points.h"
#include "zkd/migrate/migrate_commands.h"
#include "zkd/server/storage_dump.h"
#include "zkd/storage/env.h"

namespace zkd {

namespace {

struct DumpFlags {
  std::string file;
  bool json = false;
};

using DumpFunction = int (*)(storage::Env&, const std::string&, bool, std::ostream&, std::ostream&);

ToolCommand add_dump_command(CLI::App& app, const char* name, const char* description,
                             const char* file_help, DumpFunction dump) {
  auto flags = std::make_shared<DumpFlags>();
  CLI::App* command = app.add_subcommand(name, description);
  command->add_option("file", flags->file, file_help)->required()->check(CLI::ExistingFile);
  command->add_flag("--json", flags->json, "one JSON object per line");
  return {command, [flags, dump] {
            return dump(storage::posix_env(), flags->file, flags->json, std::cout, std::cerr);
          }};
}

}  // namespace

ToolCommand add_dump_log_command(CLI::App& app) {
  return add_dump_command(app, "dump-log", "print the records of one txn log segment",
                          "a log.<zxid> file", server::dump_log);
}

ToolCommand add_dump_snapshot_command(CLI::App& app) {
  return add_dump_command(app, "dump-snapshot", "print one snapshot: zxid, sessions, tree",
                          "a snapshot.<zxid> file", server::dump_snapshot);
}

// One line per point: name, what it can do, where it is.
ToolCommand add_failpoints_command(CLI::App& app) {
  CLI::App* command =
      app.add_subcommand("failpoints", "list the failpoints that ZKD_FAILPOINTS can arm");
  return {command, [] {
            for (const failpoint::Point* p : failpoint::all_points()) {
              std::printf("%-32s %-12s %.*s\n", std::string(p->name()).c_str(),
                          p->can_error() ? "crash,error" : "crash",
                          static_cast<int>(p->where().size()), p->where().data());
            }
            return 0;
          }};
}

ToolCommand add_import_command(CLI::App& app) {
  struct Flags {
    std::string apache_dir, config, log_dir;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* command =
      app.add_subcommand("import", "read Apache ZooKeeper's dataDir into zoo.cfg's (zkd stopped)");
  command->add_option("apache_data_dir", flags->apache_dir, "Apache's dataDir (or its version-2)")
      ->required()
      ->check(CLI::ExistingDirectory);
  command->add_option("-c,--config", flags->config, "zoo.cfg naming the dataDir to fill")
      ->required()
      ->check(CLI::ExistingFile);
  command
      ->add_option("--log-dir", flags->log_dir,
                   "Apache's dataLogDir, when it kept its logs apart (default: apache_data_dir)")
      ->check(CLI::ExistingDirectory);
  return {command, [flags] {
            return migrate::run_import(flags->config, flags->apache_dir, flags->log_dir, std::cout,
                                       std::cerr);
          }};
}

ToolCommand add_export_command(CLI::App& app) {
  struct Flags {
    std::string config, out_dir;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* command = app.add_subcommand(
      "export", "write zoo.cfg's data as an Apache ZooKeeper dataDir (zkd stopped)");
  command->add_option("-c,--config", flags->config, "zoo.cfg naming the dataDir to read")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("out_dir", flags->out_dir, "the Apache dataDir to write")->required();
  return {command, [flags] {
            return migrate::run_export(flags->config, flags->out_dir, std::cout, std::cerr);
          }};
}

}  // namespace zkd
