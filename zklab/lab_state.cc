#include "zklab/lab_state.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "zklab/node_ports.h"

namespace zk::lab {

namespace {

std::filesystem::path node_dir(const std::filesystem::path& dir, int id) {
  return dir / ("n" + std::to_string(id));
}

std::vector<NodePorts> fixed_ports(int nodes, uint16_t base) {
  std::vector<NodePorts> ports;
  for (int i = 0; i < nodes; ++i) {
    if (base + 200 + i > 65535) return {};
    const auto at = [&](int offset) { return static_cast<uint16_t>(base + offset + i); };
    ports.push_back({at(0), at(100), at(200)});
  }
  return ports;
}

}  // namespace

std::string LabNode::address() const { return "127.0.0.1:" + std::to_string(client_port); }

std::string write_lab(const std::filesystem::path& dir, const LabLayout& layout) {
  const int nodes = layout.voters + layout.observers;
  const auto ports =
      layout.base_port != 0 ? fixed_ports(nodes, layout.base_port) : pick_node_ports(nodes);
  if (ports.size() != static_cast<size_t>(nodes)) return "cannot find free loopback ports";
  std::string servers;
  for (int id = 1; id <= nodes; ++id) {
    servers += server_line(id, ports[static_cast<size_t>(id - 1)], id > layout.voters) + "\n";
  }
  for (int id = 1; id <= nodes; ++id) {
    const auto node = node_dir(std::filesystem::absolute(dir), id);
    std::error_code ec;
    std::filesystem::create_directories(node / "data", ec);
    if (ec) return "cannot create " + (node / "data").string() + ": " + ec.message();
    std::ofstream myid(node / "data" / "myid", std::ios::trunc);
    myid << id << "\n";
    myid.close();
    std::ofstream cfg(node / "zoo.cfg", std::ios::trunc);
    cfg << "tickTime=" << layout.tick_time_ms << "\n"
        << "initLimit=10\n"
        << "syncLimit=5\n"
        << "dataDir=" << (node / "data").string() << "\n"
        << "4lw.commands.whitelist=*\n"
        << (id > layout.voters ? "peerType=observer\n" : "") << servers;
    cfg.close();
    if (!myid || !cfg) return "cannot write the configuration in " + node.string();
  }
  return {};
}

std::optional<std::vector<LabNode>> read_lab(const std::filesystem::path& dir) {
  // server.<id>=host:quorum:election[:observer];[host:]client
  static const std::regex kServerLine(
      R"(^server\.(\d+)=[^:]+:\d+:\d+(:observer|:participant)?;(?:[^:]+:)?(\d+)\s*$)");
  std::vector<LabNode> nodes;
  for (int id = 1;; ++id) {
    const auto dir_n = node_dir(dir, id);
    std::ifstream cfg(dir_n / "zoo.cfg");
    if (!cfg) break;
    LabNode node;
    node.id = id;
    node.dir = dir_n;
    std::string line;
    std::smatch m;
    while (std::getline(cfg, line)) {
      if (std::regex_match(line, m, kServerLine) && std::stoi(m[1].str()) == id) {
        node.client_port = static_cast<uint16_t>(std::stoi(m[3].str()));
        node.observer = m[2].str() == ":observer";
      }
    }
    nodes.push_back(node);
  }
  if (nodes.empty()) return std::nullopt;
  return nodes;
}

std::string connect_string(const std::vector<LabNode>& nodes) {
  std::string out;
  for (const auto& n : nodes) out += (out.empty() ? "" : ",") + n.address();
  return out;
}

std::optional<pid_t> read_pid(const LabNode& node) {
  std::ifstream in(node.pid_file());
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return std::nullopt;
  return static_cast<pid_t>(pid);
}

bool write_pid(const LabNode& node, pid_t pid) {
  std::ofstream out(node.pid_file(), std::ios::trunc);
  out << pid << "\n";
  out.close();
  return static_cast<bool>(out);
}

}  // namespace zk::lab
