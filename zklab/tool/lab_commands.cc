// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_commands.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <variant>
#include <vector>

#include "libzk/json/json_writer.h"
#include "toolkit/client_sasl.h"
#include "toolkit/poll_until.h"
#include "zklab/tool/lab_daemon.h"
#include "zklab/tool/lab_status.h"
#include "zklab/tool/lab_tls.h"
#include "zklab/tool/network_status.h"
#include "zklab/tool/node_spec.h"
#include "zklab/tool/relay_daemon.h"

namespace zk::lab {

namespace {

// Between two rounds of srvr questions while waiting (each wait has a deadline).
constexpr auto kPollInterval = std::chrono::milliseconds(25);
// Between two reads of a followed log.
constexpr auto kFollowInterval = std::chrono::milliseconds(200);
// Between two frames of `status --watch`.
constexpr auto kWatchInterval = std::chrono::seconds(1);
// How long status waits for the relay daemon's answer.
constexpr auto kRelayDeadline = std::chrono::seconds(1);

std::string describe(const NodeStatus& s) {
  return s.role() + (s.pid ? ", pid " + std::to_string(*s.pid) : "");
}

// Starts node `node` (which must be down) and records its pid; empty or why not.
std::string spawn_node(const LabContext& ctx, const LabNode& node, pid_t& pid) {
  std::vector<std::string> environment = ctx.zkd_environment;
  if (!node.jaas.empty()) {
    environment.push_back("SERVER_JVMFLAGS=-Djava.security.auth.login.config=" +
                          node.jaas.string());
  }
  if (node.kind == Flavour::kApache) {
    const ApacheRuntime runtime;
    if (auto missing = apache_missing(runtime); !missing.empty()) return missing;
    pid = spawn_detached(apache_command(runtime, node.config().string()), node.config(), node.log(),
                         environment);
    if (pid < 0) return "cannot start java for Apache ZooKeeper";
  } else {
    pid = spawn_daemon(ctx.zkd, node.config(), node.log(), environment);
    if (pid < 0) return "cannot start " + ctx.zkd;
  }
  if (!write_pid(node, pid)) return "cannot write " + node.pid_file().string();
  return {};
}

// SIGTERM (and SIGCONT, so that a paused node sees it), then SIGKILL at the
// deadline. True when the process is gone.
bool terminate(const LabContext& ctx, const LabNode& node, pid_t pid, bool& killed) {
  killed = false;
  ::kill(pid, SIGTERM);
  ::kill(pid, SIGCONT);
  if (wait_daemon_gone(pid, node.config(), ctx.deadline)) return true;
  killed = true;
  ::kill(pid, SIGKILL);
  return wait_daemon_gone(pid, node.config(), ctx.deadline);
}

// The node `spec` names for `action`; nothing (with a message) if none.
std::optional<int> resolve(const LabContext& ctx, const std::vector<NodeStatus>& status,
                           NodeAction action, const std::string& spec) {
  const RandomAmong among = action == NodeAction::kStart    ? RandomAmong::kDown
                            : action == NodeAction::kResume ? RandomAmong::kPaused
                                                            : RandomAmong::kAlive;
  return resolve_node(status, spec, among, ctx.err);
}

// One status report of the lab: a table or one JSON object.
LabExit print_status(const LabContext& ctx, bool json) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  const auto status = lab_status(*nodes);
  const auto network = network_status(ctx.dir, kRelayDeadline);
  if (json) {
    json::JsonWriter w;
    w.begin_object()
        .key("format")  // the version of this layout
        .number(1)
        .key("dir")
        .string(std::filesystem::absolute(ctx.dir).string())
        .key("connect_string")
        .string(connect_string(*nodes))
        .key("nodes")
        .begin_array();
    for (const auto& s : status) {
      w.begin_object().key("id").number(s.id).key("pid");
      s.pid ? w.number(*s.pid) : w.null();
      w.key("client_port").number(s.client_port).key("role").string(s.role());
      w.key("kind").string(flavour_name(s.kind));
      w.key("quorum_port").number(s.quorum_port).key("admin_port");
      s.admin_port != 0 ? w.number(s.admin_port) : w.null();
      w.key("epoch");
      s.epoch ? w.number(*s.epoch) : w.null();
      w.key("zxid");
      s.zxid.empty() ? w.null() : w.string(s.zxid);
      w.key("sessions");
      s.sessions ? w.number(*s.sessions) : w.null();
      w.key("connections");
      s.connections ? w.number(*s.connections) : w.null();
      w.key("alive").boolean(s.alive()).end_object();
    }
    w.end_array().key("network");
    write_network_json(w, network);
    w.end_object();
    ctx.out << w.str() << "\n";
    return LabExit::kOk;
  }
  ctx.out << "lab " << ctx.dir.string() << ", connect string " << connect_string(*nodes) << "\n";
  const auto figure = [](const std::optional<int64_t>& v) {
    return v ? std::to_string(*v) : std::string("-");
  };
  ctx.out << std::left << std::setw(4) << "ID" << std::setw(7) << "KIND" << std::setw(9) << "PID"
          << std::setw(19) << "PORTS" << std::setw(13) << "ROLE" << std::setw(7) << "EPOCH"
          << std::setw(20) << "ZXID" << std::setw(10) << "SESSIONS" << std::setw(7) << "CONNS"
          << "ALIVE\n";
  for (const auto& s : status) {
    ctx.out << std::setw(4) << s.id << std::setw(7) << flavour_name(s.kind) << std::setw(9)
            << (s.pid ? std::to_string(*s.pid) : "-") << std::setw(19)
            << (std::to_string(s.client_port) + "/" + std::to_string(s.quorum_port) + "/" +
                (s.admin_port != 0 ? std::to_string(s.admin_port) : "-"))
            << std::setw(13) << s.role() << std::setw(7) << figure(s.epoch) << std::setw(20)
            << (s.zxid.empty() ? "-" : s.zxid) << std::setw(10) << figure(s.sessions)
            << std::setw(7) << figure(s.connections) << (s.alive() ? "yes" : "no") << "\n";
  }
  ctx.out << "kind: zkd, or apache (Apache ZooKeeper 3.8"
          << (nodes->front().apache_protocol ? "; the lab speaks Apache's peer protocol" : "")
          << "); ports: client/peer/admin (HTTP; - for none); epoch: Zab's current epoch; "
             "sessions: live sessions of the "
             "ensemble as the node sees them\n";
  ctx.out << "network: " << describe_network(network) << "\n";
  return LabExit::kOk;
}

}  // namespace

std::string tail_lines(const std::filesystem::path& file, int lines) {
  std::ifstream in(file, std::ios::binary);
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += l + "\n";
  return out;
}

std::string wait_serving(const LabContext& ctx, const std::vector<LabNode>& nodes,
                         const std::vector<int>& ids, bool need_leader) {
  std::string last;
  std::string error;  // why waiting longer is pointless
  const bool done = toolkit::poll_until(
      [&] {
        const auto status = lab_status(nodes);
        int leaders = 0;
        bool all = true;
        last.clear();
        for (const auto& s : status) {
          if (s.serving() && s.mode == ServerMode::kLeader) ++leaders;
          last += (last.empty() ? "" : ", ") + std::to_string(s.id) + ": " + s.role();
        }
        for (int id : ids) {
          const auto& s = status[static_cast<size_t>(id - 1)];
          if (!s.alive()) {
            error = "node " + std::to_string(id) + " exited; the end of its log:\n" +
                    tail_lines(nodes[static_cast<size_t>(id - 1)].log(), 20);
            return true;
          }
          if (s.mode == ServerMode::kStandalone) {
            error = "node " + std::to_string(id) + " runs standalone, not as an ensemble member";
            return true;
          }
          if (!s.serving()) all = false;
        }
        return all && (!need_leader || leaders == 1);
      },
      ctx.deadline, kPollInterval);
  if (done) return error;
  return "not serving in time (" + last + ")";
}

namespace {

// Gives the nodes of a TLS or SASL lab what its clients connect with; false,
// with why not on ctx.err, when the lab's files cannot be used.
bool attach_client_security(const LabContext& ctx, std::vector<LabNode>& nodes) {
  if (nodes.empty()) return true;
  toolkit::ClientSecurity client;
  if (nodes.front().secure) {
    auto tls = lab_client_tls(ctx.dir);
    if (auto* error = std::get_if<std::string>(&tls)) {
      ctx.err << "zklab: the lab in " << ctx.dir.string() << " runs on TLS, but " << *error << "\n";
      return false;
    }
    client.tls_context = std::get<0>(tls);
  }
  if (!nodes.front().jaas.empty()) {
    auto sasl = toolkit::sasl_from_jaas(nodes.front().jaas.string(), "Client");
    auto* options = std::get_if<0>(&sasl);
    if (options == nullptr || !*options) {
      ctx.err << "zklab: the lab in " << ctx.dir.string() << " runs with SASL, but "
              << (options == nullptr ? std::get<std::string>(sasl)
                                     : nodes.front().jaas.string() + " has no Client section")
              << "\n";
      return false;
    }
    client.sasl = *options;
  }
  for (auto& node : nodes) node.client = client;
  return true;
}

}  // namespace

std::optional<std::vector<LabNode>> load_lab(const LabContext& ctx) {
  auto nodes = read_lab(ctx.dir);
  if (!nodes) {
    ctx.err << "zklab: no lab in " << ctx.dir.string() << " (start one with `zklab up`)\n";
    return nodes;
  }
  if (!attach_client_security(ctx, *nodes)) return std::nullopt;
  return nodes;
}

LabExit lab_up(const LabContext& ctx, const LabLayout& layout) {
  auto nodes = read_lab(ctx.dir);
  const auto runs = [&](Flavour kind) {
    if (nodes) {
      return std::any_of(nodes->begin(), nodes->end(),
                         [kind](const LabNode& n) { return n.kind == kind; });
    }
    return layout.kinds.empty()
               ? kind == Flavour::kZkd
               : std::find(layout.kinds.begin(), layout.kinds.end(), kind) != layout.kinds.end();
  };
  if (runs(Flavour::kZkd) && ::access(ctx.zkd.c_str(), X_OK) != 0) {
    ctx.err << "zklab: no zkd executable at '" << ctx.zkd << "' (use --zkd or $ZKLAB_ZKD)\n";
    return LabExit::kError;
  }
  if (runs(Flavour::kApache)) {
    if (auto missing = apache_missing(); !missing.empty()) {
      ctx.err << "zklab: " << missing << "\n";
      return LabExit::kError;
    }
  }
  std::vector<PortReservation> held;  // a fresh lab's free ports, until its nodes listen
  if (nodes) {
    for (const auto& s : lab_status(*nodes)) {
      if (s.alive()) {
        ctx.err << "zklab: a lab is already up in " << ctx.dir.string() << " (node " << s.id
                << ", pid " << *s.pid << "); run `zklab down` first\n";
        return LabExit::kError;
      }
    }
    ctx.out << "zklab: starting the existing lab in " << ctx.dir.string()
            << " again (its layout and data are kept; `zklab down --wipe` for a new one)\n";
  } else {
    if (auto error = write_lab(ctx.dir, layout, held); !error.empty()) {
      ctx.err << "zklab: " << error << "\n";
      return LabExit::kError;
    }
    nodes = read_lab(ctx.dir);
    if (!nodes) {
      ctx.err << "zklab: cannot read back the lab written in " << ctx.dir.string() << "\n";
      return LabExit::kError;
    }
  }
  if (!attach_client_security(ctx, *nodes)) return LabExit::kError;
  std::string error = start_relay_daemon(ctx.dir, ctx.deadline);
  if (!error.empty()) {
    ctx.err << "zklab: the relay daemon did not start: " << error << "\n";
    return LabExit::kError;
  }
  std::vector<int> ids;
  for (const auto& node : *nodes) {
    pid_t pid = -1;
    error = spawn_node(ctx, node, pid);
    if (!error.empty()) break;
    ids.push_back(node.id);
  }
  if (error.empty()) error = wait_serving(ctx, *nodes, ids, true);
  if (!error.empty()) {
    ctx.err << "zklab: the lab did not come up: " << error << "\nzklab: stopping it\n";
    for (const auto& node : *nodes) {
      if (auto pid = read_pid(node);
          pid && daemon_state(*pid, node.config()) != DaemonState::kGone) {
        bool killed = false;
        terminate(ctx, node, *pid, killed);
      }
    }
    std::optional<pid_t> relay;
    stop_relay_daemon(ctx.dir, ctx.deadline, relay);
    return LabExit::kError;
  }
  const bool apache_protocol = nodes->front().apache_protocol;
  for (const auto& s : lab_status(*nodes)) {
    ctx.out << "node " << s.id << " 127.0.0.1:" << s.client_port << " pid " << *s.pid << " "
            << s.role();
    if (apache_protocol) ctx.out << " " << flavour_name(s.kind);
    ctx.out << "\n";
  }
  if (auto relay = relay_daemon_pid(ctx.dir)) {
    ctx.out << "relay daemon pid " << *relay << " (peer links through relays"
            << (apache_protocol ? ", quorum and election ports, both ways" : "") << ")\n";
  } else if (apache_protocol) {
    ctx.out << "peer links direct (no relays: no network faults)\n";
  }
  if (apache_protocol) {
    ctx.out << "peer protocol: Apache ZooKeeper's (zkd.peerProtocol=apache); no reconfig\n";
  }
  ctx.out << "connect string: " << connect_string(*nodes) << "\n";
  const LabNode& first = nodes->front();
  if (first.secure || !first.jaas.empty()) {
    const auto tls = std::filesystem::absolute(ctx.dir) / "tls";
    ctx.out << (first.secure && !first.jaas.empty() ? "TLS and SASL"
                : first.secure                      ? "TLS"
                                                    : "SASL")
            << " only (clients and peers); connect with: zkctl --server " << connect_string(*nodes);
    if (first.secure) {
      ctx.out << " --tls-ca " << (tls / "ca.pem").string() << " --tls-cert "
              << (tls / "client.pem").string();
    }
    if (!first.jaas.empty()) ctx.out << " --jaas " << first.jaas.string();
    ctx.out << "\n";
  }
  return LabExit::kOk;
}

LabExit lab_status_command(const LabContext& ctx, bool json, bool watch) {
  if (!watch) return print_status(ctx, json);
  const bool terminal = ::isatty(STDOUT_FILENO) == 1;
  for (bool first = true; ctx.out; first = false) {  // until interrupted
    // Rendered whole first, so that the screen is cleared only once it is ready.
    std::ostringstream frame;
    LabContext frame_ctx{ctx.dir, ctx.zkd, ctx.deadline, frame, ctx.err};
    const LabExit code = print_status(frame_ctx, json);
    if (code != LabExit::kOk) return code;
    if (!json) ctx.out << (terminal ? "\033[H\033[2J" : first ? "" : "\n");
    ctx.out << frame.str() << std::flush;
    std::this_thread::sleep_for(kWatchInterval);
  }
  return LabExit::kOk;
}

LabExit lab_down(const LabContext& ctx, bool wipe) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  bool all_gone = true;
  // Signal every node first, then wait: the nodes stop in parallel.
  std::map<int, pid_t> stopping;
  for (const auto& node : *nodes) {
    auto pid = read_pid(node);
    if (!pid || daemon_state(*pid, node.config()) == DaemonState::kGone) continue;
    ::kill(*pid, SIGTERM);
    ::kill(*pid, SIGCONT);
    stopping[node.id] = *pid;
  }
  for (const auto& [id, pid] : stopping) {
    const LabNode& node = (*nodes)[static_cast<size_t>(id - 1)];
    bool killed = false;
    bool gone =
        wait_daemon_gone(pid, node.config(), ctx.deadline) || terminate(ctx, node, pid, killed);
    if (gone) {
      ctx.out << "stopped node " << id << " (pid " << pid << (killed ? ", SIGKILL" : "") << ")\n";
    } else {
      ctx.err << "zklab: node " << id << " (pid " << pid << ") did not exit\n";
      all_gone = false;
    }
  }
  std::optional<pid_t> relay;
  if (auto error = stop_relay_daemon(ctx.dir, ctx.deadline, relay); !error.empty()) {
    ctx.err << "zklab: " << error << "\n";
    all_gone = false;
  } else if (relay) {
    ctx.out << "stopped the relay daemon (pid " << *relay << ")\n";
  }
  if (!all_gone) return LabExit::kError;
  if (wipe) {
    std::error_code ec;
    std::filesystem::remove_all(ctx.dir, ec);
    if (ec) {
      ctx.err << "zklab: cannot remove " << ctx.dir.string() << ": " << ec.message() << "\n";
      return LabExit::kError;
    }
    ctx.out << "removed " << ctx.dir.string() << "\n";
  }
  return LabExit::kOk;
}

LabExit lab_node(const LabContext& ctx, NodeAction action, const std::string& spec, bool wait) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  const auto status = lab_status(*nodes);
  auto id = resolve(ctx, status, action, spec);
  if (!id) return LabExit::kError;
  const LabNode& node = (*nodes)[static_cast<size_t>(*id - 1)];
  const NodeStatus& s = status[static_cast<size_t>(*id - 1)];
  const std::string what = "node " + std::to_string(*id) + " (" + describe(s) + ")";

  if (action != NodeAction::kStart && action != NodeAction::kRestart && !s.alive()) {
    ctx.err << "zklab: node " << *id << " is not running\n";
    return LabExit::kError;
  }
  switch (action) {
    case NodeAction::kKill:
      ::kill(*s.pid, SIGKILL);
      if (!wait_daemon_gone(*s.pid, node.config(), ctx.deadline)) {
        ctx.err << "zklab: " << what << " did not exit after SIGKILL\n";
        return LabExit::kError;
      }
      ctx.out << "killed " << what << "\n";
      return LabExit::kOk;
    case NodeAction::kPause:
      ::kill(*s.pid, SIGSTOP);
      ctx.out << "paused " << what << "\n";
      return LabExit::kOk;
    case NodeAction::kResume:
      ::kill(*s.pid, SIGCONT);
      ctx.out << "resumed " << what << "\n";
      return LabExit::kOk;
    case NodeAction::kStop:
    case NodeAction::kRestart:
      if (s.alive()) {
        bool killed = false;
        if (!terminate(ctx, node, *s.pid, killed)) {
          ctx.err << "zklab: " << what << " did not exit\n";
          return LabExit::kError;
        }
        ctx.out << "stopped " << what << (killed ? " with SIGKILL" : "") << "\n";
      }
      if (action == NodeAction::kStop) return LabExit::kOk;
      break;
    case NodeAction::kStart:
      if (s.alive()) {
        ctx.err << "zklab: " << what << " already runs\n";
        return LabExit::kError;
      }
      break;
  }
  // Start (or the second half of restart).
  if (node.kind == Flavour::kZkd && ::access(ctx.zkd.c_str(), X_OK) != 0) {
    ctx.err << "zklab: no zkd executable at '" << ctx.zkd << "' (use --zkd or $ZKLAB_ZKD)\n";
    return LabExit::kError;
  }
  pid_t pid = -1;
  if (auto error = spawn_node(ctx, node, pid); !error.empty()) {
    ctx.err << "zklab: node " << *id << ": " << error << "\n";
    return LabExit::kError;
  }
  if (wait) {
    if (auto error = wait_serving(ctx, *nodes, {*id}, false); !error.empty()) {
      ctx.err << "zklab: node " << *id << " (pid " << pid << ") " << error << "\n";
      return LabExit::kError;
    }
  }
  const auto now = node_status(node);
  ctx.out << "started node " << *id << " (" << describe(now) << ")\n";
  return LabExit::kOk;
}

LabExit lab_logs(const LabContext& ctx, const std::string& spec, int lines, bool follow) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  auto id = resolve(ctx, lab_status(*nodes), NodeAction::kStop, spec);
  if (!id) return LabExit::kError;
  const auto log = (*nodes)[static_cast<size_t>(*id - 1)].log();
  ctx.out << tail_lines(log, lines) << std::flush;
  if (!follow) return LabExit::kOk;
  std::error_code ec;
  auto offset = std::filesystem::file_size(log, ec);
  if (ec) offset = 0;
  while (ctx.out) {  // until interrupted
    std::this_thread::sleep_for(kFollowInterval);
    const auto size = std::filesystem::file_size(log, ec);
    if (ec || size == offset) continue;
    if (size < offset) offset = 0;  // truncated
    std::ifstream in(log, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset));
    std::string chunk(size - offset, '\0');
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    ctx.out << chunk.substr(0, static_cast<size_t>(in.gcount())) << std::flush;
    offset += static_cast<uintmax_t>(in.gcount());
  }
  return LabExit::kOk;
}

}  // namespace zk::lab
