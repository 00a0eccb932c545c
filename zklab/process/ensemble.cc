// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/ensemble.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "toolkit/poll_until.h"
#include "zklab/process/node_ports.h"

namespace zk::lab {

namespace {

using Clock = std::chrono::steady_clock;

// Between two rounds of srvr questions. A poll interval, not a means of
// synchronisation: every wait is bounded by its deadline.
constexpr auto kPollInterval = std::chrono::milliseconds(25);
constexpr auto kSrvrDeadline = std::chrono::milliseconds(1000);

// The argv of an Apache node (see ZkdOptions::command for "{config}").
std::vector<std::string> apache_command(const EnsembleOptions& o) {
  return zk::lab::apache_command({o.java, o.apache_classpath, o.java_flags}, "{config}");
}

}  // namespace

EnsembleStart Ensemble::start(const EnsembleOptions& options) {
  EnsembleStart result;
  if (options.voters < 1 || options.observers < 0) {
    result.error = "an ensemble needs at least one voter";
    return result;
  }
  if (options.flavour == Flavour::kZkd && options.zkd_binary.empty()) {
    result.error = "no zkd binary given";
    return result;
  }
  if (options.flavour == Flavour::kApache && options.apache_classpath.empty() &&
      !std::filesystem::exists(kDebianZookeeperJar)) {
    result.error =
        std::string("Apache ZooKeeper is not installed (no ") + kDebianZookeeperJar + ")";
    return result;
  }
  std::unique_ptr<Ensemble> e(new Ensemble());
  e->flavour_ = options.flavour;
  e->voters_ = options.voters;
  e->observers_ = options.observers;
  e->dir_ = make_temp_dir(options.temp_dir_prefix);
  if (e->dir_.empty()) {
    result.error = "cannot create a temporary directory";
    return result;
  }
  const int nodes = options.voters + options.observers;
  const int spares = std::max(0, options.spares);
  const auto ports = pick_node_ports(nodes + spares, e->port_holds_);
  if (ports.empty()) {
    result.error = "cannot find free loopback ports";
    return result;
  }

  std::vector<std::string> common = {"initLimit=" + std::to_string(options.init_limit),
                                     "syncLimit=" + std::to_string(options.sync_limit)};
  if (!options.force_sync) common.push_back("forceSync=no");
  for (int id = 1; id <= nodes; ++id) {
    const NodePorts& p = ports[static_cast<size_t>(id - 1)];
    common.push_back(server_line(id, p, id > options.voters));
  }
  common.insert(common.end(), options.extra_lines.begin(), options.extra_lines.end());
  std::vector<std::string> with_spares = common;
  for (int id = nodes + 1; id <= nodes + spares; ++id) {
    e->spare_lines_[id] = server_line(id, ports[static_cast<size_t>(id - 1)], false);
    with_spares.push_back(e->spare_lines_[id]);
  }

  for (int id = 1; id <= nodes + spares; ++id) {
    const std::filesystem::path node_dir = e->dir_ / ("node" + std::to_string(id));
    std::error_code ec;
    std::filesystem::create_directories(node_dir / "data", ec);
    std::ofstream myid(node_dir / "data" / "myid", std::ios::trunc);
    myid << id << "\n";
    myid.close();
    if (ec || !myid) {
      result.error = "cannot write " + (node_dir / "data" / "myid").string();
      return result;
    }
    ZkdOptions node;
    node.binary = options.zkd_binary;
    if (options.flavour == Flavour::kApache) node.command = apache_command(options);
    node.dir = node_dir;
    node.port = ports[static_cast<size_t>(id - 1)].client;
    node.tick_time_ms = options.tick_time_ms;
    node.max_session_timeout_ms = options.max_session_timeout_ms;
    node.max_client_cnxns = options.max_client_cnxns;
    node.extra_lines = id > nodes ? with_spares : common;
    node.environment = options.environment;
    if (id > options.voters && id <= nodes) node.extra_lines.push_back("peerType=observer");
    if (options.admin_servers && options.flavour == Flavour::kZkd) {
      const uint16_t admin = ports[static_cast<size_t>(id - 1)].admin;
      node.extra_lines.push_back("admin.serverAddress=127.0.0.1");
      node.extra_lines.push_back("admin.serverPort=" + std::to_string(admin));
      e->admin_ports_[id] = admin;
    }
    node.wait_until_ready = false;
    if (id > nodes) {
      e->spares_[id] = std::move(node);
      continue;
    }
    auto started = ZkdProcess::start(node);
    if (!started.process) {
      result.error = "node " + std::to_string(id) + ": " + started.error;
      return result;
    }
    e->nodes_.push_back(std::move(started.process));
  }
  result.error = e->wait_all_serving(options.start_deadline);
  if (!result.error.empty()) {
    result.error = flavour_name(options.flavour).data() + std::string(" ensemble of ") +
                   std::to_string(nodes) + " did not come up: " + result.error + "\n" + e->logs();
    return result;
  }
  result.ensemble = std::move(e);
  return result;
}

Ensemble::~Ensemble() {
  nodes_.clear();  // each node's destructor SIGKILLs and reaps it
  if (!keep_dir_ && !dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

std::vector<int> Ensemble::ids() const {
  std::vector<int> out;
  for (int id = 1; id <= size(); ++id) out.push_back(id);
  return out;
}

std::string Ensemble::start_spare() {
  const int id = size() + 1;
  const auto it = spares_.find(id);
  if (it == spares_.end()) return "no spare server left to start";
  auto started = ZkdProcess::start(it->second);
  if (!started.process) return "spare " + std::to_string(id) + ": " + started.error;
  spares_.erase(it);
  nodes_.push_back(std::move(started.process));
  return {};
}

std::string Ensemble::spare_line(int id) const {
  const auto it = spare_lines_.find(id);
  return it == spare_lines_.end() ? std::string() : it->second;
}

ZkdProcess& Ensemble::node(int id) { return *nodes_.at(static_cast<size_t>(id - 1)); }
const ZkdProcess& Ensemble::node(int id) const { return *nodes_.at(static_cast<size_t>(id - 1)); }

std::string Ensemble::address(int id) const { return node(id).address(); }

uint16_t Ensemble::admin_port(int id) const {
  const auto it = admin_ports_.find(id);
  return it == admin_ports_.end() ? 0 : it->second;
}

std::string Ensemble::connect_string() const { return connect_string(ids()); }

std::string Ensemble::connect_string(const std::vector<int>& ids) const {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + address(id);
  return out;
}

ServerMode Ensemble::mode(int id, std::chrono::milliseconds deadline) const {
  return server_mode(node(id).host(), node(id).port(), deadline);
}

std::map<std::string, std::string> Ensemble::mntr(int id) const {
  return zk::lab::mntr(node(id).host(), node(id).port(), kSrvrDeadline);
}

int64_t Ensemble::znode_count(int id) const {
  const auto figures = mntr(id);
  const auto it = figures.find("zk_znode_count");
  return it == figures.end() ? -1 : std::stoll(it->second);
}

std::map<int, ServerMode> Ensemble::modes() const {
  std::map<int, ServerMode> out;
  for (int id : ids()) out[id] = mode(id, kSrvrDeadline);
  return out;
}

std::string Ensemble::describe(const std::map<int, ServerMode>& modes) const {
  std::string out;
  for (const auto& [id, m] : modes) {
    out += (out.empty() ? "" : ", ") + std::to_string(id) + ": " + std::string(server_mode_name(m));
  }
  return out;
}

std::optional<int> Ensemble::wait_for_leader(std::chrono::milliseconds deadline,
                                             const std::set<int>& exclude) {
  std::optional<int> leader;
  toolkit::poll_until(
      [&] {
        std::vector<int> leaders;
        for (const auto& [id, m] : modes()) {
          if (m == ServerMode::kLeader) leaders.push_back(id);
        }
        if (leaders.size() == 1 && exclude.count(leaders.front()) == 0) leader = leaders.front();
        return leader.has_value();
      },
      deadline, kPollInterval);
  return leader;
}

std::string Ensemble::wait_serving(int id, std::chrono::milliseconds deadline) {
  const auto until = Clock::now() + deadline;
  ServerMode m = ServerMode::kUnreachable;
  while (true) {
    if (!node(id).running()) {
      return "node " + std::to_string(id) + " exited; its log:\n" + node(id).log_tail();
    }
    m = mode(id, kSrvrDeadline);
    if (m == ServerMode::kStandalone) {
      return "node " + std::to_string(id) + " runs standalone, not as an ensemble member";
    }
    if (is_serving(m)) return {};
    if (Clock::now() >= until) break;
    // Pause, but wake at once should the node die.
    node(id).wait_for_exit(kPollInterval);
  }
  return "node " + std::to_string(id) +
         " did not serve in time (last srvr: " + std::string(server_mode_name(m)) + ")";
}

std::string Ensemble::wait_all_serving(std::chrono::milliseconds deadline) {
  std::set<int> running;
  for (int id : ids()) {
    if (node(id).running()) running.insert(id);
  }
  std::map<int, ServerMode> last;
  std::string error;  // why waiting longer is pointless
  const bool done = toolkit::poll_until(
      [&] {
        last.clear();
        int leaders = 0;
        bool all = true;
        for (int id : running) {
          if (!node(id).running()) {
            error = "node " + std::to_string(id) + " exited; its log:\n" + node(id).log_tail();
            return true;
          }
          ServerMode m = last[id] = mode(id, kSrvrDeadline);
          if (m == ServerMode::kStandalone) {
            error = "node " + std::to_string(id) +
                    " runs standalone: this server does not form an ensemble";
            return true;
          }
          if (m == ServerMode::kLeader) ++leaders;
          if (!is_serving(m)) all = false;
        }
        return all && leaders == 1;
      },
      deadline, kPollInterval);
  if (done) return error;
  return "the running nodes did not all serve under exactly one leader in time (" + describe(last) +
         ")";
}

bool Ensemble::kill(int id, std::chrono::milliseconds deadline) { return node(id).kill(deadline); }

std::string Ensemble::respawn(int id) { return node(id).respawn(); }

std::string Ensemble::restart(int id, std::chrono::milliseconds deadline) {
  auto error = respawn(id);
  return error.empty() ? wait_serving(id, deadline) : error;
}

std::string Ensemble::wipe_data(int id) {
  if (node(id).running()) return "node " + std::to_string(id) + " still runs";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(node(id).data_dir(), ec)) {
    if (entry.path().filename() == "myid") continue;
    std::filesystem::remove_all(entry.path(), ec);
    if (ec) return "cannot remove " + entry.path().string() + ": " + ec.message();
  }
  return ec ? "cannot list " + node(id).data_dir().string() + ": " + ec.message() : "";
}

std::string Ensemble::logs(size_t bytes_per_node) const {
  std::string out;
  for (int id : ids()) {
    out += "---- node " + std::to_string(id) + " (" + std::string(server_mode_name(mode(id))) +
           ", " + node(id).log_path().string() + ") ----\n" + node(id).log_tail(bytes_per_node) +
           "\n";
  }
  return out;
}

}  // namespace zk::lab
