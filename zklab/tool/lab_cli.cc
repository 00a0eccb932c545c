// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_cli.h"

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "libzk/wire/records.h"
#include "zklab/tool/lab_backup.h"
#include "zklab/tool/lab_check.h"
#include "zklab/tool/lab_failover.h"
#include "zklab/tool/lab_membership.h"
#include "zklab/tool/lab_migrate.h"
#include "zklab/tool/lab_network.h"
#include "zklab/tool/lab_restore.h"
#include "zklab/tool/lab_roll.h"
#include "zklab/tool/lab_transfer.h"

namespace zk::lab {
namespace {

constexpr const char* kNodeHelp = "id, leader, follower or random";

std::chrono::milliseconds seconds(double s) {
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

// A LabCommand whose options parse into a `State` it owns.
template <typename State, typename Run>
LabCommand command_with(CLI::App* command, std::shared_ptr<State> state, Run run) {
  LabCommand c;
  c.command = command;
  c.run = [state = std::move(state), run = std::move(run)](const LabContext& ctx) {
    return run(ctx, *state);
  };
  return c;
}

// The load options of the experiments (failover, roll, transfer).
void add_load_options(CLI::App* sub, ExperimentLoad& load) {
  sub->add_option("--clients", load.clients, "sessions (default 8)")->check(CLI::Range(1, 1000));
  sub->add_option("--reads", load.read_ratio, "share of reads (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--in-flight", load.in_flight, "requests in flight per session (default 1)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--value-bytes", load.value_bytes, "bytes per setData (default 100)")
      ->check(CLI::Range(0, 1 << 20));
}

// --csv and --svg of an experiment: where its timeline and plot go.
void add_timeline_options(CLI::App* sub, const std::string& name, std::filesystem::path& csv,
                          std::filesystem::path& svg) {
  sub->add_option("--csv", csv, "the timeline (default LAB/" + name + ".csv)")->type_name("FILE");
  sub->add_option("--svg", svg, "the plot (default LAB/" + name + ".svg)")->type_name("FILE");
}

}  // namespace

LabCommand add_up_command(CLI::App& app) {
  struct State {
    LabLayout layout;
    int base_port = 0;
    std::vector<std::string> kinds;
    CLI::Option* nodes = nullptr;
  };
  auto s = std::make_shared<State>();
  auto* up =
      app.add_subcommand("up", "write the lab (if new), start every node, wait for a leader");
  s->nodes =
      up->add_option("-n,--nodes", s->layout.voters, "voters (default 3, or as many as --kinds)")
          ->check(CLI::Range(1, 255));
  up->add_option("--kinds", s->kinds,
                 "what each node runs, in id order, comma separated: zkd or apache (Apache "
                 "ZooKeeper 3.8); the lab then speaks Apache's peer protocol")
      ->delimiter(',')
      ->type_name("KIND,...")
      ->check([](const std::string& word) -> std::string {
        if (parse_flavour(word)) return {};
        return "unknown kind '" + word + "' (zkd or apache)";
      });
  up->add_option("--observers", s->layout.observers, "observers (default 0)")
      ->check(CLI::Range(0, 254));
  up->add_option("--base-port", s->base_port,
                 "client ports P.., peer ports P+100.. (default: free ports)")
      ->check(CLI::Range(1024, 65000));
  up->add_option("--tick-ms", s->layout.tick_time_ms, "tickTime in ms (default 200)")
      ->check(CLI::Range(10, 60000));
  up->add_flag("--direct", s->layout.direct,
               "peers connect directly, as Apache's do (no relays: no network faults)");
  up->add_flag("--sasl", s->layout.sasl,
               "clients (zklab's too) and peers must authenticate with SASL DIGEST-MD5 (users "
               "in DIR/jaas.conf)");
  up->add_option("--set", s->layout.settings,
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
  up->add_flag("--tls", s->layout.tls,
               "everything over TLS: a CA of the lab's own in DIR/tls, clients (zklab's too) "
               "and peers");
  up->parse_complete_callback([s] {
    if (s->kinds.empty()) return;
    const int given = static_cast<int>(s->kinds.size());
    if (s->nodes->count() == 0) s->layout.voters = given - s->layout.observers;
    if (s->layout.voters < 1 || s->layout.voters + s->layout.observers != given) {
      throw CLI::ValidationError("--kinds", "names " + std::to_string(given) +
                                                " kind(s); it needs one per node (voters and "
                                                "observers), in id order");
    }
    if (s->layout.tls || s->layout.sasl) {
      throw CLI::ValidationError(
          "--kinds", "a lab of Apache's peer protocol has no --tls or --sasl between peers yet");
    }
  });
  LabCommand c = command_with(up, s, [](const LabContext& ctx, State& st) {
    st.layout.base_port = static_cast<uint16_t>(st.base_port);
    st.layout.kinds.clear();
    for (const auto& word : st.kinds) st.layout.kinds.push_back(*parse_flavour(word));
    return lab_up(ctx, st.layout);
  });
  c.creates_lab = true;
  c.starts_zkd = true;
  return c;
}

LabCommand add_status_command(CLI::App& app) {
  struct State {
    bool json = false;
    bool watch = false;
  };
  auto s = std::make_shared<State>();
  auto* status = app.add_subcommand("status", "every node: pid, port, role, zxid, connections");
  status->add_flag("--json", s->json, "one JSON object");
  status->add_flag("--watch", s->watch, "again every second, until interrupted");
  LabCommand c = command_with(status, s, [](const LabContext& ctx, const State& st) {
    return lab_status_command(ctx, st.json, st.watch);
  });
  c.changes_lab = false;
  return c;
}

LabCommand add_down_command(CLI::App& app) {
  auto wipe = std::make_shared<bool>(false);
  auto* down = app.add_subcommand("down", "stop every node (SIGTERM, then SIGKILL); keeps data");
  down->add_flag("--wipe", *wipe, "then remove the lab directory");
  return command_with(down, wipe, [](const LabContext& ctx, bool w) { return lab_down(ctx, w); });
}

std::vector<LabCommand> add_node_commands(CLI::App& app) {
  struct Kind {
    const char* name;
    NodeAction action;
    const char* help;
  };
  static constexpr Kind kKinds[] = {
      {"start", NodeAction::kStart, "start a node that is down; wait until it serves"},
      {"stop", NodeAction::kStop, "SIGTERM a node and wait until it exits"},
      {"restart", NodeAction::kRestart, "stop, then start a node"},
      {"kill", NodeAction::kKill, "SIGKILL a node"},
      {"pause", NodeAction::kPause, "SIGSTOP a node"},
      {"resume", NodeAction::kResume, "SIGCONT a paused node"}};
  struct State {
    std::string node;
    bool no_wait = false;
  };
  std::vector<LabCommand> commands;
  for (const Kind& kind : kKinds) {
    auto s = std::make_shared<State>();
    auto* sub = app.add_subcommand(kind.name, kind.help);
    sub->add_option("NODE", s->node, kNodeHelp)->required();
    const bool starts = kind.action == NodeAction::kStart || kind.action == NodeAction::kRestart;
    if (starts) sub->add_flag("--no-wait", s->no_wait, "do not wait until it serves");
    LabCommand c = command_with(sub, s, [action = kind.action](const LabContext& ctx, State& st) {
      return lab_node(ctx, action, st.node, !st.no_wait);
    });
    c.starts_zkd = starts;
    commands.push_back(std::move(c));
  }
  return commands;
}

LabCommand add_logs_command(CLI::App& app) {
  struct State {
    std::string node;
    int lines = 20;
    bool follow = false;
  };
  auto s = std::make_shared<State>();
  auto* logs = app.add_subcommand("logs", "the end of a node's zkd.log");
  logs->add_option("NODE", s->node, kNodeHelp)->required();
  logs->add_option("-n,--lines", s->lines, "lines (default 20)")->check(CLI::Range(1, 1000000));
  logs->add_flag("-f,--follow", s->follow, "then print what is appended, until interrupted");
  LabCommand c = command_with(logs, s, [](const LabContext& ctx, const State& st) {
    return lab_logs(ctx, st.node, st.lines, st.follow);
  });
  c.changes_lab = false;
  return c;
}

std::vector<LabCommand> add_network_commands(CLI::App& app) {
  std::vector<LabCommand> commands;
  auto groups = std::make_shared<std::vector<std::string>>();
  auto* partition = app.add_subcommand(
      "partition", "cut the peer links between groups of nodes (\"1,2\" \"3\"); replaces cuts");
  partition->add_option("GROUPS", *groups, "node ids, comma separated, one argument per group")
      ->required();
  commands.push_back(command_with(partition, groups, [](const LabContext& ctx, const auto& g) {
    return lab_partition(ctx, g);
  }));

  auto isolated = std::make_shared<std::string>();
  auto* isolate = app.add_subcommand("isolate", "cut every peer link of a node; replaces cuts");
  isolate->add_option("NODE", *isolated, kNodeHelp)->required();
  commands.push_back(command_with(isolate, isolated, [](const LabContext& ctx, const auto& node) {
    return lab_isolate(ctx, node);
  }));

  struct Slow {
    std::string node;
    std::string delay;
  };
  auto slowed = std::make_shared<Slow>();
  auto* slow = app.add_subcommand("slow", "delay every peer link of a node (0 removes)");
  slow->add_option("NODE", slowed->node, kNodeHelp)->required();
  slow->add_option("DELAY", slowed->delay, "e.g. 50ms, 1s (0 removes the delay)")->required();
  commands.push_back(command_with(slow, slowed, [](const LabContext& ctx, const Slow& st) {
    return lab_slow(ctx, st.node, st.delay);
  }));

  LabCommand heal;
  heal.command = app.add_subcommand("heal", "remove every cut and delay");
  heal.run = [](const LabContext& ctx) { return lab_heal(ctx); };
  commands.push_back(std::move(heal));
  return commands;
}

LabCommand add_failover_command(CLI::App& app) {
  struct State {
    FailoverOptions options;
    double duration_s = 8, kill_at_s = 2, restart_at_s = 4;
  };
  auto s = std::make_shared<State>();
  auto* failover = app.add_subcommand(
      "failover",
      "kill, pause or isolate the leader under load, undo it, record and plot the timeline");
  failover
      ->add_option("--fault", s->options.fault,
                   "what strikes the leader: kill (SIGKILL, then start), pause (SIGSTOP, then "
                   "SIGCONT) or isolate (its peer links cut, then healed); default kill")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, FailoverFault>{{"kill", FailoverFault::kKill},
                                               {"pause", FailoverFault::kPause},
                                               {"isolate", FailoverFault::kIsolate}},
          CLI::ignore_case));
  add_load_options(failover, s->options.load);
  failover->add_option("--duration", s->duration_s, "seconds (default 8)")
      ->check(CLI::Range(1.0, 3600.0));
  failover->add_option("--kill-at", s->kill_at_s, "when the fault strikes, in seconds (default 2)")
      ->check(CLI::Range(0.0, 3600.0));
  failover->add_option("--restart-at", s->restart_at_s, "when it is undone, in seconds (default 4)")
      ->check(CLI::Range(0.0, 3600.0));
  add_timeline_options(failover, "failover", s->options.csv, s->options.svg);
  failover->parse_complete_callback([s] {
    if (!(s->kill_at_s < s->restart_at_s && s->restart_at_s < s->duration_s)) {
      throw CLI::ValidationError("failover", "needs --kill-at < --restart-at < --duration");
    }
  });
  LabCommand c = command_with(failover, s, [](const LabContext& ctx, State& st) {
    st.options.duration = seconds(st.duration_s);
    st.options.kill_at = seconds(st.kill_at_s);
    st.options.restart_at = seconds(st.restart_at_s);
    return lab_failover(ctx, st.options);
  });
  c.starts_zkd = true;
  return c;
}

LabCommand add_roll_command(CLI::App& app) {
  struct State {
    RollOptions options;
    double settle_s = 1;
    bool no_transfer = false;
  };
  auto s = std::make_shared<State>();
  auto* roll = app.add_subcommand(
      "roll",
      "restart every node in turn under load, the leader last; record the longest write gap");
  roll->add_flag("--kill", s->options.kill,
                 "SIGKILL and start each node (a plain restart) instead of SIGTERM and start");
  roll->add_flag("--no-transfer", s->no_transfer,
                 "restart the leader as it leads, without handing its leadership over first");
  roll->add_option("--settle", s->settle_s,
                   "seconds of load before the first restart, between two and after (default 1)")
      ->check(CLI::Range(0.0, 3600.0));
  add_load_options(roll, s->options.load);
  add_timeline_options(roll, "roll", s->options.csv, s->options.svg);
  LabCommand c = command_with(roll, s, [](const LabContext& ctx, State& st) {
    st.options.settle = seconds(st.settle_s);
    st.options.transfer = !st.no_transfer;
    return lab_roll(ctx, st.options);
  });
  c.starts_zkd = true;
  return c;
}

LabCommand add_transfer_command(CLI::App& app) {
  struct State {
    TransferOptions options;
    double settle_s = 1;
  };
  auto s = std::make_shared<State>();
  auto* transfer = app.add_subcommand(
      "transfer",
      "the leader hands leadership to its most up-to-date follower under load (ydld), or --to N "
      "asks to lead (rqld); record the longest write gap");
  transfer
      ->add_option("--to", s->options.to,
                   "the node that asks to lead (default: the leader "
                   "picks its most up-to-date follower)")
      ->check(CLI::Range(1, 255));
  transfer
      ->add_option("--settle", s->settle_s,
                   "seconds of load before the transfer and after (default 1)")
      ->check(CLI::Range(0.0, 3600.0));
  add_load_options(transfer, s->options.load);
  add_timeline_options(transfer, "transfer", s->options.csv, s->options.svg);
  return command_with(transfer, s, [](const LabContext& ctx, State& st) {
    st.options.settle = seconds(st.settle_s);
    return lab_transfer(ctx, st.options);
  });
}

LabCommand add_migrate_command(CLI::App& app) {
  struct State {
    MigrateOptions options;
    std::string to;
    double settle_s = 1;
  };
  auto s = std::make_shared<State>();
  auto* migrate = app.add_subcommand(
      "migrate",
      "a mixed lab's nodes, one at a time under load, the leader last: stopped, wiped, started "
      "as the other kind; record the longest write gap");
  migrate->add_option("--to", s->to, "the kind every node ends with: zkd or apache")
      ->required()
      ->check(CLI::IsMember({"zkd", "apache"}));
  migrate->add_flag("--kill-leader-between", s->options.kill_leader_between,
                    "between two steps, SIGKILL the leader and start it again");
  migrate
      ->add_option("--settle", s->settle_s,
                   "seconds of load before the first step, between two and after (default 1)")
      ->check(CLI::Range(0.0, 3600.0));
  add_load_options(migrate, s->options.load);
  add_timeline_options(migrate, "migrate", s->options.csv, s->options.svg);
  LabCommand c = command_with(migrate, s, [](const LabContext& ctx, State& st) {
    st.options.to = *parse_flavour(st.to);
    st.options.settle = seconds(st.settle_s);
    return lab_migrate(ctx, st.options);
  });
  c.starts_zkd = true;
  return c;
}

LabCommand add_check_command(CLI::App& app) {
  struct State {
    CheckOptions options;
    std::vector<std::string> nemesis;
    double duration_s = 10;
  };
  auto s = std::make_shared<State>();
  auto* check = app.add_subcommand(
      "check", "clients read, write, cas and create under faults; check the history");
  check
      ->add_option("--nemesis", s->nemesis,
                   "faults, comma separated: " + nemesis_names() + " (default none)")
      ->delimiter(',')
      ->check([](const std::string& word) -> std::string {
        if (parse_nemesis(word)) return {};
        return "unknown nemesis '" + word + "' (" + nemesis_names() + ")";
      });
  check->add_option("--duration", s->duration_s, "seconds of load and faults (default 10)")
      ->check(CLI::Range(1.0, 3600.0));
  check->add_option("--seed", s->options.seed, "random seed (default: a random one, printed)");
  check->add_option("--clients", s->options.clients, "sessions (default 6)")
      ->check(CLI::Range(1, 100));
  check->add_option("--registers", s->options.registers, "registers (default 3)")
      ->check(CLI::Range(1, 100));
  check->add_option("--history", s->options.history, "write the history to FILE")
      ->type_name("FILE");
  check
      ->add_option("--jute-maxbuffer", s->options.jute_maxbuffer,
                   "the longest reply the clients read, in bytes (default 2 MiB and 1 KiB)")
      ->type_name("BYTES")
      ->check(CLI::Range(256, 1 << 30));
  LabCommand c = command_with(check, s, [](const LabContext& ctx, State& st) {
    st.options.duration = seconds(st.duration_s);
    for (const std::string& word : st.nemesis) st.options.nemesis.push_back(*parse_nemesis(word));
    return lab_check(ctx, st.options);
  });
  c.starts_zkd = true;
  return c;
}

std::vector<LabCommand> add_membership_commands(CLI::App& app) {
  std::vector<LabCommand> commands;
  struct Add {
    bool observer = false;
    int node = 0;
  };
  auto added = std::make_shared<Add>();
  auto* add = app.add_subcommand(
      "add", "a new node (or a removed one) joins the ensemble by reconfig, and serves");
  add->add_flag("--observer", added->observer, "as an observer (default: a participant)");
  add->add_option("--node", added->node, "add back node N, removed before (default: a new node)")
      ->check(CLI::Range(1, 255));
  LabCommand add_command = command_with(add, added, [](const LabContext& ctx, const Add& st) {
    return lab_add(ctx, st.observer, st.node);
  });
  add_command.starts_zkd = true;
  commands.push_back(std::move(add_command));

  auto removed = std::make_shared<std::string>();
  auto* remove = app.add_subcommand(
      "remove", "take a node out of the ensemble by reconfig (it follows on without a vote)");
  remove->add_option("NODE", *removed, "the node")->required();
  commands.push_back(command_with(remove, removed, [](const LabContext& ctx, const auto& node) {
    return lab_remove(ctx, node);
  }));

  auto request = std::make_shared<zk::wire::ReconfigRequest>();
  auto* reconfig = app.add_subcommand(
      "reconfig", "send a reconfig request as the lab's superuser; print the new configuration");
  reconfig
      ->add_option("--add", request->joining,
                   "servers joining: server.N=host:quorumPort:electionPort[:observer][;client],...")
      ->type_name("LINES");
  reconfig->add_option("--remove", request->leaving, "ids leaving: N,...")->type_name("IDS");
  reconfig->add_option("--members", request->new_members, "the whole new membership")
      ->type_name("LINES");
  reconfig->add_option("--from", request->from_config,
                       "the configuration version it applies to (default any)");
  reconfig->parse_complete_callback([request] {
    if (request->joining.empty() && request->leaving.empty() && request->new_members.empty()) {
      throw CLI::ValidationError("reconfig", "needs --add, --remove or --members");
    }
  });
  commands.push_back(command_with(reconfig, request, [](const LabContext& ctx, const auto& r) {
    return lab_reconfig(ctx, r);
  }));
  return commands;
}

LabCommand add_backup_command(CLI::App& app) {
  auto o = std::make_shared<BackupOptions>();
  auto* backup = app.add_subcommand(
      "backup", "stream a snapshot from a node's admin server to FILE (default: the newest node)");
  backup->add_option("FILE", o->file, "where the snapshot goes (FILE.partial, then renamed)")
      ->required();
  backup->add_option("--node", o->node, "the node to ask: " + std::string(kNodeHelp))
      ->type_name("NODE");
  backup
      ->add_option("--auth", o->authorization,
                   "the Authorization header, an identity with ALL on / (default '" +
                       lab_admin_authorization() + "', the lab's superuser; '' for none)")
      ->type_name("AUTH");
  backup->add_flag("--json", o->json, "one JSON object");
  LabCommand c = command_with(backup, o, [](const LabContext& ctx, const BackupOptions& st) {
    return lab_backup(ctx, st);
  });
  c.changes_lab = false;  // it only reads
  return c;
}

LabCommand add_restore_command(CLI::App& app) {
  auto o = std::make_shared<RestoreOptions>();
  auto* restore = app.add_subcommand("restore",
                                     "replace every node's data with a snapshot FILE: stop all, "
                                     "set each dataDir aside, zkd restore, start all");
  restore->add_flag("--json", o->json, "one JSON object");
  restore->add_option("FILE", o->file, "an Apache snapshot file (zklab backup's)")
      ->required()
      ->check(CLI::ExistingFile);
  LabCommand c = command_with(restore, o, [](const LabContext& ctx, const RestoreOptions& st) {
    return lab_restore(ctx, st);
  });
  c.starts_zkd = true;
  return c;
}

LabCommand add_relay_daemon_command(CLI::App& app) {
  auto lab = std::make_shared<std::string>();
  auto* relay = app.add_subcommand("relay-daemon", "")->group("");  // hidden
  relay->add_option("LAB", *lab)->required();
  LabCommand c = command_with(
      relay, lab, [](const LabContext&, const std::string& dir) { return run_relay_daemon(dir); });
  c.changes_lab = false;  // `up` starts it while holding the lock
  return c;
}

}  // namespace zk::lab
