// SPDX-License-Identifier: Apache-2.0
#include "zkd/tool_commands.h"

#include <charconv>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

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

// A zxid as hex, with or without 0x; nothing unless all of it is hex and it
// fits a non-negative i64.
std::optional<int64_t> parse_hex_zxid(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

// The offline commands' -c/--config: a zoo.cfg that exists, required.
void add_config_option(CLI::App& command, std::string& config, const char* help) {
  command.add_option("-c,--config", config, help)->required()->check(CLI::ExistingFile);
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
  add_config_option(*command, flags->config, "zoo.cfg naming the dataDir to fill");
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
  add_config_option(*command, flags->config, "zoo.cfg naming the dataDir to read");
  command->add_option("out_dir", flags->out_dir, "the Apache dataDir to write")->required();
  return {command, [flags] {
            return migrate::run_export(flags->config, flags->out_dir, std::cout, std::cerr);
          }};
}

ToolCommand add_restore_command(CLI::App& app) {
  struct Flags {
    std::string config, snapshot_file, zxid;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* command = app.add_subcommand(
      "restore",
      "fill zoo.cfg's empty dataDir from one Apache-format snapshot file (zkd stopped; "
      "docs/quorum-loss-recovery.md)");
  command
      ->add_option("snapshot_file", flags->snapshot_file,
                   "the snapshot: zkd export's version-2/snapshot.<zxid>, Apache's, or one "
                   "streamed by Apache's /commands/snapshot")
      ->required()
      ->check(CLI::ExistingFile);
  add_config_option(*command, flags->config, "zoo.cfg naming the dataDir to fill");
  command
      ->add_option("--zxid", flags->zxid,
                   "the snapshot's last zxid in hex (default: the file's last-zxid section, "
                   "else its name snapshot.<zxid>, else the newest zxid in its tree)")
      ->check(CLI::Validator(
          [](const std::string& text) {
            return parse_hex_zxid(text) ? std::string() : "not a zxid in hex: " + text;
          },
          "HEX", "zxid"));
  return {command, [flags] {
            std::optional<int64_t> zxid;
            if (!flags->zxid.empty()) zxid = parse_hex_zxid(flags->zxid);
            return migrate::run_restore(flags->config, flags->snapshot_file, zxid, std::cout,
                                        std::cerr);
          }};
}

}  // namespace zkd
