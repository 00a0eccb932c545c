// SPDX-License-Identifier: Apache-2.0
// zkd: a ZooKeeper-compatible server, standalone or one replica of an ensemble
// (zoo.cfg with server.N lines and dataDir/myid, as Apache), durable.
//
//   zkd --config zoo.cfg      (or: zkd zoo.cfg, as Apache's zkServer.sh passes it)
//   zkd dump-log | dump-snapshot | failpoints | import | export | restore ...
//                             the other commands (tool_commands.h)
//
// Exit status of the server: 0 after a clean shutdown (SIGTERM/SIGINT), 1
// when the configuration or the client port is unusable, 2 for bad
// arguments or a bad ZKD_FAILPOINTS (zkd/failpoint/failpoint.h), 3 when the
// data cannot be recovered at start-up (a corrupt txn log or snapshot, an
// unreadable data dir: the message names the file and offset and what to
// do), 4 when the txn log failed while serving (disk full, I/O error). The
// dump commands exit 0, or 1 when the file is unreadable or holds a bad
// record. import, export and restore exit as zkd/migrate/migrate_commands.h
// says.
//
// Under systemd (dist/zkd.service, Type=notify) the server sends READY=1 once
// its data is recovered and the client port listens, and STOPPING=1 when it
// begins to shut down (service_notify.h).
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "libzk/version/version.h"
#include "zkd/failpoint/failpoint.h"
#include "zkd/log/log.h"
#include "zkd/migrate/adopt_apache.h"
#include "zkd/server/config.h"
#include "zkd/server/data_dir_lock.h"
#include "zkd/server/jvm_properties.h"
#include "zkd/server/security_setup.h"
#include "zkd/server/server.h"
#include "zkd/server/version.h"
#include "zkd/service_notify.h"
#include "zkd/storage/env.h"
#include "zkd/tool_commands.h"
#include "zkd/tree/acl_check.h"

namespace {

constexpr int kExitBadArguments = 2;
constexpr int kExitStorageUnrecoverable = 3;

// The environment variable's value, "" when unset.
std::string_view environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string_view() : std::string_view(value);
}

int serve(const std::string& config_path, const std::string& jaas_option) {
  using zkd::net::log_error;
  using zkd::net::log_info;
  using zkd::net::log_warn;

  auto loaded = zkd::server::load_config(config_path);
  for (const auto& w : loaded.warnings) log_warn(w);
  if (!loaded.config) {
    log_error("invalid configuration: ", loaded.error.message());
    return 1;
  }
  zkd::server::apply_jvm_properties(*loaded.config, environment("SERVER_JVMFLAGS"),
                                    environment("JVMFLAGS"));
  if (auto prepared = zkd::server::prepare_directories(*loaded.config); !prepared.ok()) {
    log_error(prepared.message());
    return 1;
  }
  // A server of an Apache ensemble replaced by zkd on its own disk: its data
  // is taken over, Apache's files kept beside (docs/migration.md).
  auto adopted = zkd::migrate::adopt_apache_data(zkd::storage::posix_env(), *loaded.config,
                                                 [](const std::string& step) { log_info(step); });
  if (!adopted.ok()) {
    log_error("cannot take over Apache ZooKeeper's data: ", adopted.status().message());
    return 1;
  }
  if (*adopted) {
    const zkd::migrate::ImportSummary& s = **adopted;
    log_info("took over Apache ZooKeeper's data: ", s.znodes, " znodes, ", s.sessions,
             " sessions, last zxid ", zkd::net::hex(s.zxid), " (from ", s.snapshot, " and ", s.txns,
             " txns); Apache's files are kept in version-2", zkd::migrate::kAdoptedSuffix);
  }
  auto data_dir_lock = zkd::server::lock_data_dir(loaded.config->data_dir);
  if (!data_dir_lock.ok()) {
    log_error(data_dir_lock.status().message());
    return 1;
  }
  const std::string jaas =
      zkd::server::jaas_path(jaas_option, environment("SERVER_JVMFLAGS"), environment("JVMFLAGS"));
  auto security =
      zkd::server::open_security(*loaded.config, jaas, zkd::storage::posix_env().clock());
  if (!security.ok()) {
    log_error("invalid configuration: ", security.status().message());
    return 1;
  }
  if (loaded.config->skip_acl) {
    zkd::tree::skip_acl_checks();
    log_warn("skipACL=yes: no ACL is checked; every client may read, change and delete every node");
  }
  if (security->sasl) {
    log_info("SASL ", security->sasl->settings().mechanism_name(), " set up from ", jaas);
  }
  log_info("zkd ", zkd::server::full_version(), " starting (",
           loaded.config->replicated() ? "replica " + std::to_string(loaded.config->my_id)
                                       : std::string("standalone"),
           ") with ", config_path);

  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  // The server's random draws come from one seed, drawn here.
  zkd::storage::Env& env = zkd::storage::posix_env();
  zkd::server::Server server(io, *loaded.config, *std::move(security), env, env.secure_random());
  // A server that stops by itself (its log failed) ends the signal wait too.
  server.on_stop([&signals] { signals.cancel(); });
  zkd::notify_status("recovering the data in " + loaded.config->data_dir.string());
  if (auto status = server.open_storage(); !status.ok()) {
    if (status.kind() == zkd::Status::Kind::kConfig) {
      log_error("invalid configuration: ", status.message());
      return 1;
    }
    log_error("cannot recover the data: ", status.message());
    return kExitStorageUnrecoverable;
  }
  if (auto ec = server.start()) {
    log_error("cannot listen on client port ", loaded.config->client_port,
              " (or the peer port): ", ec.message());
    return 1;
  }
  // Ready once the loop runs: the data is recovered and the client port listens.
  boost::asio::post(io, [port = loaded.config->client_port] {
    zkd::notify_ready("listening on client port " + std::to_string(port));
  });
  bool stopping = false;
  const auto begin_stopping = [&stopping](const std::string& why) {
    if (!stopping) zkd::notify_stopping(why);
    stopping = true;
  };
  signals.async_wait([&](const boost::system::error_code& ec, int signal_number) {
    if (ec) return;  // cancelled: the server is already stopping
    log_info("received signal ", signal_number, ", shutting down");
    begin_stopping("shutting down (signal " + std::to_string(signal_number) + ")");
    server.stop();
  });
  io.run();
  begin_stopping(server.exit_status() == 0 ? "shutting down" : "the txn log failed; stopping");
  server.stop();
  log_info("zkd stopped");
  return server.exit_status();
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  // Every log line, the server's and the tools', is stamped by the Env's clock.
  zkd::net::set_log_clock(zkd::storage::posix_env().clock());
  CLI::App app{"zkd: a ZooKeeper-compatible coordination server", "zkd"};
  std::string config_option;
  std::string config_positional;
  app.add_option("-c,--config", config_option, "zoo.cfg to read")->check(CLI::ExistingFile);
  app.add_option("config", config_positional, "zoo.cfg to read (as zkServer.sh passes it)")
      ->check(CLI::ExistingFile);
  std::string jaas_option;
  app.add_option("--jaas", jaas_option,
                 "the JAAS file whose Server section sets up SASL (default: "
                 "-Djava.security.auth.login.config in SERVER_JVMFLAGS or JVMFLAGS)")
      ->check(CLI::ExistingFile);
  app.set_version_flag("--version", zk::version_line("zkd"));
  app.require_subcommand(0, 1);

  const zkd::ToolCommand failpoints = zkd::add_failpoints_command(app);
  const zkd::ToolCommand tools[] = {zkd::add_dump_log_command(app),
                                    zkd::add_dump_snapshot_command(app),
                                    failpoints,
                                    zkd::add_import_command(app),
                                    zkd::add_export_command(app),
                                    zkd::add_restore_command(app)};
  try {
    app.parse(argc, argv);
    bool dumping = false;
    for (const zkd::ToolCommand& tool : tools) dumping = dumping || tool.command->parsed();
    if (dumping && (!config_option.empty() || !config_positional.empty())) {
      throw CLI::ValidationError(
          "the dump, list, import, export and restore commands take no server configuration "
          "file (import, export and restore: --config after the command)");
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
    return kExitBadArguments;
  }
  if (failpoints.command->parsed()) return failpoints.run();
  if (std::string why = zkd::failpoint::arm_from_environment(); !why.empty()) {
    std::cerr << "zkd: " << why << "\n";
    return kExitBadArguments;
  }
  try {
    for (const zkd::ToolCommand& tool : tools) {
      if (tool.command->parsed()) return tool.run();
    }
    return serve(config_option.empty() ? config_positional : config_option, jaas_option);
  } catch (const std::exception& e) {
    zkd::net::log_error("fatal: ", e.what());
    return 1;
  }
}
