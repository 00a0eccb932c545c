// SPDX-License-Identifier: Apache-2.0
// zklab: local zkd ensembles that outlive the command. Parses the command
// line (CLI11), then runs one command of lab_commands.h; exit codes: 0 ok,
// 1 error (no lab, a node that did not come up, ...), 2 bad arguments.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <optional>

#include "libzk/version/version.h"
#include "zklab/process/zkd_lookup.h"
#include "zklab/tool/lab_check.h"
#include "zklab/tool/lab_commands.h"
#include "zklab/tool/lab_failover.h"
#include "zklab/tool/lab_lock.h"
#include "zklab/tool/lab_membership.h"
#include "zklab/tool/lab_network.h"
#include "zklab/tool/lab_roll.h"
#include "zklab/tool/lab_state.h"
#include "zklab/tool/lab_transfer.h"

namespace {

using zk::lab::LabExit;
using zk::lab::NodeAction;

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

  zk::lab::LabLayout layout;
  int base_port = 0;
  auto* up =
      app.add_subcommand("up", "write the lab (if new), start every node, wait for a leader");
  up->add_option("-n,--nodes", layout.voters, "voters (default 3)")->check(CLI::Range(1, 255));
  up->add_option("--observers", layout.observers, "observers (default 0)")
      ->check(CLI::Range(0, 254));
  up->add_option("--base-port", base_port,
                 "client ports P.., peer ports P+100.. (default: free ports)")
      ->check(CLI::Range(1024, 65000));
  up->add_option("--tick-ms", layout.tick_time_ms, "tickTime in ms (default 200)")
      ->check(CLI::Range(10, 60000));
  up->add_flag("--direct", layout.direct,
               "peers connect directly, as Apache's do (no relays: no network faults)");
  up->add_flag("--sasl", layout.sasl,
               "clients (zklab's too) and peers must authenticate with SASL DIGEST-MD5 (users "
               "in DIR/jaas.conf)");
  up->add_option("--set", layout.settings,
                 "KEY=VALUE appended to every node's zoo.cfg (repeatable), e.g. "
                 "zkd.quorumSync=true")
      ->type_name("KEY=VALUE")
      ->check([](const std::string& line) -> std::string {
        const auto eq = line.find('=');
        if (eq == 0 || eq == std::string::npos || line.find('\n') != std::string::npos) {
          return "'" + line + "' is not KEY=VALUE";
        }
        return {};
      });
  up->add_flag("--tls", layout.tls,
               "everything over TLS: a CA of the lab's own in DIR/tls, clients (zklab's too) "
               "and peers");

  bool json = false;
  auto* status = app.add_subcommand("status", "every node: pid, port, role, zxid, connections");
  status->add_flag("--json", json, "one JSON object");
  bool watch = false;
  status->add_flag("--watch", watch, "again every second, until interrupted");

  bool wipe = false;
  auto* down = app.add_subcommand("down", "stop every node (SIGTERM, then SIGKILL); keeps data");
  down->add_flag("--wipe", wipe, "then remove the lab directory");

  std::string node;
  bool no_wait = false;
  const std::vector<std::pair<const char*, NodeAction>> actions = {
      {"start", NodeAction::kStart},     {"stop", NodeAction::kStop},
      {"restart", NodeAction::kRestart}, {"kill", NodeAction::kKill},
      {"pause", NodeAction::kPause},     {"resume", NodeAction::kResume}};
  const std::map<std::string, const char*> action_help = {
      {"start", "start a node that is down; wait until it serves"},
      {"stop", "SIGTERM a node and wait until it exits"},
      {"restart", "stop, then start a node"},
      {"kill", "SIGKILL a node"},
      {"pause", "SIGSTOP a node"},
      {"resume", "SIGCONT a paused node"}};
  std::map<CLI::App*, NodeAction> node_commands;
  for (const auto& [name, action] : actions) {
    auto* sub = app.add_subcommand(name, action_help.at(name));
    sub->add_option("NODE", node, "id, leader, follower or random")->required();
    if (action == NodeAction::kStart || action == NodeAction::kRestart) {
      sub->add_flag("--no-wait", no_wait, "do not wait until it serves");
    }
    node_commands[sub] = action;
  }

  int lines = 20;
  bool follow = false;
  auto* logs = app.add_subcommand("logs", "the end of a node's zkd.log");
  logs->add_option("NODE", node, "id, leader, follower or random")->required();
  logs->add_option("-n,--lines", lines, "lines (default 20)")->check(CLI::Range(1, 1000000));
  logs->add_flag("-f,--follow", follow, "then print what is appended, until interrupted");

  std::vector<std::string> groups;
  auto* partition = app.add_subcommand(
      "partition", "cut the peer links between groups of nodes (\"1,2\" \"3\"); replaces cuts");
  partition->add_option("GROUPS", groups, "node ids, comma separated, one argument per group")
      ->required();
  auto* isolate = app.add_subcommand("isolate", "cut every peer link of a node; replaces cuts");
  isolate->add_option("NODE", node, "id, leader, follower or random")->required();
  std::string delay;
  auto* slow = app.add_subcommand("slow", "delay every peer link of a node (0 removes)");
  slow->add_option("NODE", node, "id, leader, follower or random")->required();
  slow->add_option("DELAY", delay, "e.g. 50ms, 1s (0 removes the delay)")->required();
  auto* heal = app.add_subcommand("heal", "remove every cut and delay");

  zk::lab::FailoverOptions failover_options;
  double failover_duration_s = 8, kill_at_s = 2, restart_at_s = 4;
  std::string csv, svg;
  auto* failover = app.add_subcommand(
      "failover",
      "kill, pause or isolate the leader under load, undo it, record and plot the timeline");
  failover
      ->add_option("--fault", failover_options.fault,
                   "what strikes the leader: kill (SIGKILL, then start), pause (SIGSTOP, then "
                   "SIGCONT) or isolate (its peer links cut, then healed); default kill")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, zk::lab::FailoverFault>{
              {"kill", zk::lab::FailoverFault::kKill},
              {"pause", zk::lab::FailoverFault::kPause},
              {"isolate", zk::lab::FailoverFault::kIsolate}},
          CLI::ignore_case));
  failover->add_option("--clients", failover_options.load.clients, "sessions (default 8)")
      ->check(CLI::Range(1, 1000));
  failover->add_option("--reads", failover_options.load.read_ratio, "share of reads (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  failover
      ->add_option("--in-flight", failover_options.load.in_flight,
                   "requests in flight per session (default 1)")
      ->check(CLI::Range(1, 1000));
  failover
      ->add_option("--value-bytes", failover_options.load.value_bytes,
                   "bytes per setData (default 100)")
      ->check(CLI::Range(0, 1 << 20));
  failover->add_option("--duration", failover_duration_s, "seconds (default 8)")
      ->check(CLI::Range(1.0, 3600.0));
  failover->add_option("--kill-at", kill_at_s, "when the fault strikes, in seconds (default 2)")
      ->check(CLI::Range(0.0, 3600.0));
  failover->add_option("--restart-at", restart_at_s, "when it is undone, in seconds (default 4)")
      ->check(CLI::Range(0.0, 3600.0));
  failover->add_option("--csv", csv, "the timeline (default LAB/failover.csv)")->type_name("FILE");
  failover->add_option("--svg", svg, "the plot (default LAB/failover.svg)")->type_name("FILE");

  zk::lab::RollOptions roll_options;
  double settle_s = 1;
  std::string roll_csv, roll_svg;
  auto* roll = app.add_subcommand(
      "roll",
      "restart every node in turn under load, the leader last; record the longest write gap");
  roll->add_flag("--kill", roll_options.kill,
                 "SIGKILL and start each node (a plain restart) instead of SIGTERM and start");
  bool no_transfer = false;
  roll->add_flag("--no-transfer", no_transfer,
                 "restart the leader as it leads, without handing its leadership over first");
  roll->add_option("--settle", settle_s,
                   "seconds of load before the first restart, between two and after (default 1)")
      ->check(CLI::Range(0.0, 3600.0));
  // The load options roll and transfer share.
  const auto add_load_options = [](CLI::App* sub, zk::lab::ExperimentLoad& load) {
    sub->add_option("--clients", load.clients, "sessions (default 8)")->check(CLI::Range(1, 1000));
    sub->add_option("--reads", load.read_ratio, "share of reads (default 0.5)")
        ->check(CLI::Range(0.0, 1.0));
    sub->add_option("--in-flight", load.in_flight, "requests in flight per session (default 1)")
        ->check(CLI::Range(1, 1000));
    sub->add_option("--value-bytes", load.value_bytes, "bytes per setData (default 100)")
        ->check(CLI::Range(0, 1 << 20));
  };
  add_load_options(roll, roll_options.load);
  roll->add_option("--csv", roll_csv, "the timeline (default LAB/roll.csv)")->type_name("FILE");
  roll->add_option("--svg", roll_svg, "the plot (default LAB/roll.svg)")->type_name("FILE");

  zk::lab::TransferOptions transfer_options;
  double transfer_settle_s = 1;
  std::string transfer_csv, transfer_svg;
  auto* transfer = app.add_subcommand(
      "transfer",
      "the leader hands leadership to its most up-to-date follower under load (ydld); record the "
      "longest write gap");
  transfer
      ->add_option("--settle", transfer_settle_s,
                   "seconds of load before the transfer and after (default 1)")
      ->check(CLI::Range(0.0, 3600.0));
  add_load_options(transfer, transfer_options.load);
  transfer->add_option("--csv", transfer_csv, "the timeline (default LAB/transfer.csv)")
      ->type_name("FILE");
  transfer->add_option("--svg", transfer_svg, "the plot (default LAB/transfer.svg)")
      ->type_name("FILE");

  bool add_observer = false;
  int add_node = 0;
  auto* add = app.add_subcommand(
      "add", "a new node (or a removed one) joins the ensemble by reconfig, and serves");
  add->add_flag("--observer", add_observer, "as an observer (default: a participant)");
  add->add_option("--node", add_node, "add back node N, removed before (default: a new node)")
      ->check(CLI::Range(1, 255));
  std::string remove_node;
  auto* remove = app.add_subcommand(
      "remove", "take a node out of the ensemble by reconfig (it keeps running, serving no one)");
  remove->add_option("NODE", remove_node, "the node")->required();
  zk::wire::ReconfigRequest reconfig_request;
  auto* reconfig = app.add_subcommand(
      "reconfig", "send a reconfig request as the lab's superuser; print the new configuration");
  reconfig
      ->add_option("--add", reconfig_request.joining,
                   "servers joining: server.N=host:quorumPort:electionPort[:observer][;client],...")
      ->type_name("LINES");
  reconfig->add_option("--remove", reconfig_request.leaving, "ids leaving: N,...")
      ->type_name("IDS");
  reconfig->add_option("--members", reconfig_request.new_members, "the whole new membership")
      ->type_name("LINES");
  reconfig->add_option("--from", reconfig_request.from_config,
                       "the configuration version it applies to (default any)");

  zk::lab::CheckOptions check_options;
  std::string nemesis;
  double check_duration_s = 10;
  std::string history;
  auto* check = app.add_subcommand(
      "check", "clients read, write, cas and create under faults; check the history");
  check->add_option("--nemesis", nemesis,
                    "faults, comma separated: " + zk::lab::nemesis_names() + " (default none)");
  check->add_option("--duration", check_duration_s, "seconds of load and faults (default 10)")
      ->check(CLI::Range(1.0, 3600.0));
  check->add_option("--seed", check_options.seed, "random seed (default: a random one, printed)");
  check->add_option("--clients", check_options.clients, "sessions (default 6)")
      ->check(CLI::Range(1, 100));
  check->add_option("--registers", check_options.registers, "registers (default 3)")
      ->check(CLI::Range(1, 100));
  check->add_option("--history", history, "write the history to FILE")->type_name("FILE");

  std::string relay_dir;
  auto* relay = app.add_subcommand("relay-daemon", "")->group("");  // hidden: started by up
  relay->add_option("LAB", relay_dir)->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << zk::version_line("zklab") << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "zklab: " << e.what() << "\n" << app.help();
    return static_cast<int>(LabExit::kUsage);
  }
  layout.base_port = static_cast<uint16_t>(base_port);
  const auto seconds = [](double s) {
    return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
  };
  failover_options.duration = seconds(failover_duration_s);
  failover_options.kill_at = seconds(kill_at_s);
  failover_options.restart_at = seconds(restart_at_s);
  roll_options.settle = seconds(settle_s);
  roll_options.transfer = !no_transfer;
  transfer_options.settle = seconds(transfer_settle_s);
  transfer_options.csv = transfer_csv;
  transfer_options.svg = transfer_svg;
  roll_options.csv = roll_csv;
  roll_options.svg = roll_svg;
  failover_options.csv = csv;
  failover_options.svg = svg;
  if (failover->parsed() && !(kill_at_s < restart_at_s && restart_at_s < failover_duration_s)) {
    std::cerr << "zklab: failover needs --kill-at < --restart-at < --duration\n"
              << failover->help();
    return static_cast<int>(LabExit::kUsage);
  }
  check_options.duration = seconds(check_duration_s);
  check_options.history = history;
  for (size_t at = 0; check->parsed() && !nemesis.empty();) {
    const size_t comma = std::min(nemesis.find(',', at), nemesis.size());
    const auto word = nemesis.substr(at, comma - at);
    auto n = zk::lab::parse_nemesis(word);
    if (!n) {
      std::cerr << "zklab: unknown nemesis '" << word << "' (" << zk::lab::nemesis_names() << ")\n"
                << check->help();
      return static_cast<int>(LabExit::kUsage);
    }
    check_options.nemesis.push_back(*n);
    if (comma == nemesis.size()) break;
    at = comma + 1;
  }
  // The commands that start zkd processes look for the zkd to start.
  bool starts_zkd =
      up->parsed() || failover->parsed() || roll->parsed() || check->parsed() || add->parsed();
  for (const auto& [sub, action] : node_commands) {
    starts_zkd |= sub->parsed() && (action == NodeAction::kStart || action == NodeAction::kRestart);
  }
  if (starts_zkd) {
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
  LabExit code = LabExit::kOk;
  // Commands that only look, and the relay daemon (which its `up` starts while
  // holding the lock), take no lock; every other command changes the lab. Only
  // `up` creates a missing lab directory (the others then say there is no lab).
  std::optional<zk::lab::LabLock> lock;
  const bool changes = !status->parsed() && !logs->parsed() && !relay->parsed();
  if (changes && (up->parsed() || std::filesystem::exists(ctx.dir))) {
    lock.emplace(ctx.dir, ctx.deadline);
    if (!lock->locked()) {
      std::cerr << "zklab: " << lock->error() << "\n";
      return static_cast<int>(LabExit::kError);
    }
  }
  if (up->parsed()) {
    code = zk::lab::lab_up(ctx, layout);
  } else if (status->parsed()) {
    code = zk::lab::lab_status_command(ctx, json, watch);
  } else if (down->parsed()) {
    code = zk::lab::lab_down(ctx, wipe);
  } else if (partition->parsed()) {
    code = zk::lab::lab_partition(ctx, groups);
  } else if (isolate->parsed()) {
    code = zk::lab::lab_isolate(ctx, node);
  } else if (slow->parsed()) {
    code = zk::lab::lab_slow(ctx, node, delay);
  } else if (heal->parsed()) {
    code = zk::lab::lab_heal(ctx);
  } else if (failover->parsed()) {
    code = zk::lab::lab_failover(ctx, failover_options);
  } else if (roll->parsed()) {
    code = zk::lab::lab_roll(ctx, roll_options);
  } else if (transfer->parsed()) {
    code = zk::lab::lab_transfer(ctx, transfer_options);
  } else if (check->parsed()) {
    code = zk::lab::lab_check(ctx, check_options);
  } else if (add->parsed()) {
    code = zk::lab::lab_add(ctx, add_observer, add_node);
  } else if (remove->parsed()) {
    code = zk::lab::lab_remove(ctx, remove_node);
  } else if (reconfig->parsed()) {
    if (reconfig_request.joining.empty() && reconfig_request.leaving.empty() &&
        reconfig_request.new_members.empty()) {
      std::cerr << "zklab: reconfig needs --add, --remove or --members\n" << reconfig->help();
      return static_cast<int>(LabExit::kUsage);
    }
    code = zk::lab::lab_reconfig(ctx, reconfig_request);
  } else if (relay->parsed()) {
    code = zk::lab::run_relay_daemon(relay_dir);
  } else if (logs->parsed()) {
    code = zk::lab::lab_logs(ctx, node, lines, follow);
  } else {
    for (const auto& [sub, action] : node_commands) {
      if (sub->parsed()) code = zk::lab::lab_node(ctx, action, node, !no_wait);
    }
  }
  if (code == LabExit::kUsage) {
    // The command found an argument it cannot use (and said which): its usage.
    for (auto* sub : app.get_subcommands()) std::cerr << sub->help();
  }
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
