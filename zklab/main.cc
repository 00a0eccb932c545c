// zklab: local zkd ensembles that outlive the command. Parses the command
// line (CLI11), then runs one command of lab_commands.h; exit codes: 0 ok,
// 1 error (no lab, a node that did not come up, ...), 2 bad arguments.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "zklab/lab_commands.h"

namespace {

using zk::lab::LabExit;
using zk::lab::NodeAction;

// The zkd used when neither --zkd nor $ZKLAB_ZKD names one.
#ifndef ZKD_BINARY
#define ZKD_BINARY "zkd"
#endif

int run(int argc, char** argv) {
  CLI::App app{"zklab: local zkd ensembles (daemons that outlive zklab)", "zklab"};
  app.require_subcommand(1);
  app.fallthrough();
  std::string dir = zk::lab::kDefaultLabDir;
  const char* env_zkd = std::getenv("ZKLAB_ZKD");
  std::string zkd = env_zkd != nullptr && *env_zkd != '\0' ? env_zkd : ZKD_BINARY;
  int timeout_s = 30;
  app.add_option("--dir", dir, "the lab directory (default .lab/zklab)")->type_name("DIR");
  app.add_option("--zkd", zkd, "the zkd executable (default $ZKLAB_ZKD, else the built one)")
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

  bool json = false;
  auto* status = app.add_subcommand("status", "every node: pid, port, role, zxid, connections");
  status->add_flag("--json", json, "one JSON object");

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "zklab: " << e.what() << "\n" << app.help();
    return static_cast<int>(LabExit::kUsage);
  }
  layout.base_port = static_cast<uint16_t>(base_port);
  zk::lab::LabContext ctx{dir, zkd, std::chrono::seconds(timeout_s), std::cout, std::cerr};
  LabExit code = LabExit::kOk;
  if (up->parsed()) {
    code = zk::lab::lab_up(ctx, layout);
  } else if (status->parsed()) {
    code = zk::lab::lab_status_command(ctx, json);
  } else if (down->parsed()) {
    code = zk::lab::lab_down(ctx, wipe);
  } else if (logs->parsed()) {
    code = zk::lab::lab_logs(ctx, node, lines, follow);
  } else {
    for (const auto& [sub, action] : node_commands) {
      if (sub->parsed()) code = zk::lab::lab_node(ctx, action, node, !no_wait);
    }
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
