// SPDX-License-Identifier: Apache-2.0
// zkd: a ZooKeeper-compatible server, standalone or one replica of an ensemble
// (zoo.cfg with server.N lines and dataDir/myid, as Apache), durable.
//
//   zkd --config zoo.cfg      (or: zkd zoo.cfg, as Apache's zkServer.sh passes it)
//   zkd dump-log FILE [--json]        print the records of one txn log segment
//   zkd dump-snapshot FILE [--json]   print one snapshot: zxid, sessions, tree
//
// Exit status of the server: 0 after a clean shutdown (SIGTERM/SIGINT), 1
// when the configuration or the client port is unusable, 2 for bad
// arguments, 3 when the data cannot be recovered at start-up (a corrupt txn
// log or snapshot, an unreadable data dir: the message names the file and
// offset and what to do), 4 when the txn log failed while serving (disk full,
// I/O error). The dump commands exit 0, or 1 when the file is unreadable or
// holds a bad record.
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <exception>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "libzk/version/version.h"
#include "zkd/net/log.h"
#include "zkd/server/config.h"
#include "zkd/server/server.h"
#include "zkd/server/storage_dump.h"
#include "zkd/server/version.h"
#include "zkd/storage/env.h"

namespace {

constexpr int kExitStorageUnrecoverable = 3;

int serve(const std::string& config_path) {
  using zkd::net::log_error;
  using zkd::net::log_info;
  using zkd::net::log_warn;

  auto loaded = zkd::server::load_config(config_path);
  for (const auto& w : loaded.warnings) log_warn(w);
  if (!loaded.config) {
    log_error("invalid configuration: ", loaded.error);
    return 1;
  }
  if (auto why = zkd::server::prepare_directories(*loaded.config); !why.empty()) {
    log_error(why);
    return 1;
  }
  log_info("zkd ", zkd::server::full_version(), " starting (",
           loaded.config->replicated() ? "replica " + std::to_string(loaded.config->my_id)
                                       : std::string("standalone"),
           ") with ", config_path);

  boost::asio::io_context io;
  zkd::server::Server server(io, *loaded.config);
  if (auto status = server.open_storage(); !status.ok()) {
    log_error("cannot recover the data: ", status.message());
    return kExitStorageUnrecoverable;
  }
  if (auto ec = server.start()) {
    log_error("cannot listen on client port ", loaded.config->client_port,
              " (or the peer port): ", ec.message());
    return 1;
  }
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int signal_number) {
    if (ec) return;  // cancelled: the server is already stopping
    log_info("received signal ", signal_number, ", shutting down");
    server.stop();
  });
  io.run();
  server.stop();
  log_info("zkd stopped");
  return server.exit_status();
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"zkd: a ZooKeeper-compatible coordination server", "zkd"};
  std::string config_option;
  std::string config_positional;
  app.add_option("-c,--config", config_option, "zoo.cfg to read")->check(CLI::ExistingFile);
  app.add_option("config", config_positional, "zoo.cfg to read (as zkServer.sh passes it)")
      ->check(CLI::ExistingFile);
  app.set_version_flag("--version", zk::version_line("zkd"));
  app.require_subcommand(0, 1);

  std::string dump_file;
  bool dump_json = false;
  auto* dump_log = app.add_subcommand("dump-log", "print the records of one txn log segment");
  dump_log->add_option("file", dump_file, "a log.<zxid> file")
      ->required()
      ->check(CLI::ExistingFile);
  dump_log->add_flag("--json", dump_json, "one JSON object per line");
  auto* dump_snapshot =
      app.add_subcommand("dump-snapshot", "print one snapshot: zxid, sessions, tree");
  dump_snapshot->add_option("file", dump_file, "a snapshot.<zxid> file")
      ->required()
      ->check(CLI::ExistingFile);
  dump_snapshot->add_flag("--json", dump_json, "one JSON object per line");
  try {
    app.parse(argc, argv);
    bool dumping = dump_log->parsed() || dump_snapshot->parsed();
    if (dumping && (!config_option.empty() || !config_positional.empty())) {
      throw CLI::ValidationError("the dump commands take no configuration file");
    }
    if (!dumping && config_option.empty() == config_positional.empty()) {
      throw CLI::ValidationError("give the configuration file once: --config FILE or FILE");
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    std::cerr << app.help();
    return 2;
  }
  try {
    auto& env = zkd::storage::posix_env();
    if (dump_log->parsed()) {
      return zkd::server::dump_log(env, dump_file, dump_json, std::cout, std::cerr);
    }
    if (dump_snapshot->parsed()) {
      return zkd::server::dump_snapshot(env, dump_file, dump_json, std::cout, std::cerr);
    }
    return serve(config_option.empty() ? config_positional : config_option);
  } catch (const std::exception& e) {
    zkd::net::log_error("fatal: ", e.what());
    return 1;
  }
}
