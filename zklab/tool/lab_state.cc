// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_state.h"

#include <algorithm>
#include <fstream>
#include <random>

#include "zklab/process/node_config.h"
#include "zklab/process/node_ports.h"
#include "zklab/relay/relay_links.h"
#include "zklab/tool/lab_membership.h"
#include "zklab/tool/lab_sasl.h"
#include "zklab/tool/lab_tls.h"

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

// One relay of a lab and who uses it: node `dialer`'s zoo.cfg names its port
// as node `dialed`'s quorum (or election) port.
struct PlannedRelay {
  RelayLink link;
  int dialer = 0;
  int dialed = 0;
  bool election = false;
};

// The relays of every pair (a < b), in relay.links order, without ports. Of
// zkd's own protocol: b dials a's quorum port. Of Apache's: b dials a's
// quorum and election ports and a dials b's (a learner dials its leader
// whatever their ids; a smaller id pokes a larger one's election port, which
// then dials back to the port the hello names: the relay b names for a's).
std::vector<PlannedRelay> plan_relays(int nodes, bool apache_protocol) {
  std::vector<PlannedRelay> relays;
  for (int a = 1; a <= nodes; ++a) {
    for (int b = a + 1; b <= nodes; ++b) {
      relays.push_back({{a, b, 0, 0}, b, a, false});
      if (!apache_protocol) continue;
      relays.push_back({{a, b, 0, 0}, b, a, true});
      relays.push_back({{a, b, 0, 0}, a, b, false});
      relays.push_back({{a, b, 0, 0}, a, b, true});
    }
  }
  return relays;
}

// Ports for the nodes and the relays: fixed from `base`, or free loopback
// ports reserved in `held` (pick_node_ports gives distinct ports four at a
// time: the entries past the nodes' are the relays'). False when there are
// not enough.
bool pick_ports(int nodes, uint16_t base, std::vector<NodePorts>& node_ports,
                std::vector<PlannedRelay>& relays, std::vector<PortReservation>& held) {
  std::vector<uint16_t> relay_ports;
  if (base != 0) {
    node_ports = fixed_ports(nodes, base);
    for (size_t k = 0; k < relays.size() && base + 300 + k <= 65535; ++k) {
      relay_ports.push_back(static_cast<uint16_t>(base + 300 + k));
    }
    for (size_t i = 0; i < node_ports.size(); ++i) {
      const size_t admin = base + 300 + relays.size() + i;
      if (admin > 65535) return false;
      node_ports[i].admin = static_cast<uint16_t>(admin);
    }
  } else {
    node_ports = pick_node_ports(nodes + static_cast<int>((relays.size() + 3) / 4), held);
    for (size_t i = static_cast<size_t>(nodes); i < node_ports.size(); ++i) {
      const NodePorts& spare = node_ports[i];
      for (uint16_t p : {spare.client, spare.quorum, spare.election, spare.admin}) {
        relay_ports.push_back(p);
      }
    }
    if (node_ports.size() >= static_cast<size_t>(nodes)) {
      node_ports.resize(static_cast<size_t>(nodes));
    }
  }
  if (node_ports.size() != static_cast<size_t>(nodes) || relay_ports.size() < relays.size()) {
    return false;
  }
  for (size_t k = 0; k < relays.size(); ++k) {
    PlannedRelay& r = relays[k];
    const NodePorts& dialed = node_ports[static_cast<size_t>(r.dialed - 1)];
    r.link.listen = relay_ports[k];
    r.link.target = r.election ? dialed.election : dialed.quorum;
  }
  // The poke into a larger id's election port: its hello names the relay
  // the larger id dials back through.
  for (PlannedRelay& r : relays) {
    if (!r.election || r.dialed != r.link.b) continue;
    for (const PlannedRelay& back : relays) {
      if (back.election && back.dialer == r.dialed && back.dialed == r.dialer) {
        r.link.hello_port = back.link.listen;
      }
    }
  }
  return true;
}

// Node `id`'s server lines: every node's real ports, except those `id`
// dials through a relay (relays: plan_relays'), named with the relay's port.
// Without client ports in a TLS lab (they would be plaintext ports).
std::string server_lines(int id, int voters, const std::vector<NodePorts>& ports,
                         const std::vector<PlannedRelay>& relays, bool tls) {
  std::string out;
  for (int j = 1; j <= static_cast<int>(ports.size()); ++j) {
    NodePorts named = ports[static_cast<size_t>(j - 1)];
    if (tls) named.client = 0;
    for (const auto& r : relays) {
      if (r.dialer != id || r.dialed != j) continue;
      (r.election ? named.election : named.quorum) = r.link.listen;
    }
    out += server_line(j, named, j > voters) + "\n";
  }
  return out;
}

// The lines of a lab of Apache's peer protocol, which zkd speaks with
// zkd.peerProtocol=apache (an Apache server ignores the key: it becomes a
// system property nothing reads).
std::string apache_protocol_config() {
  return "zkd.peerProtocol=apache\n"
         // An Apache leader syncs a learner from its committed log or with a
         // SNAP, never from its txn log files: the paths the conformance
         // suite runs with zkd learners (tests/conformance/mixed_ensemble.py).
         "snapshotSizeFactor=-1\n"
         // Every client of a lab comes from 127.0.0.1; Apache allows 60 an address.
         "maxClientCnxns=0\n";
}

// 16 random bytes: the session-password key every node shares.
std::string random_session_key() {
  std::random_device random;
  std::string key;
  while (key.size() < 16) {
    const auto word = random();
    for (int i = 0; i < 4 && key.size() < 16; ++i)
      key.push_back(static_cast<char>(word >> (8 * i)));
  }
  return key;
}

}  // namespace

std::filesystem::path lab_directory(const std::filesystem::path& spelled) {
  std::error_code ec;
  auto path = std::filesystem::weakly_canonical(std::filesystem::absolute(spelled), ec);
  if (ec) path = std::filesystem::absolute(spelled).lexically_normal();
  // "/lab/" names "/lab": its last component is the empty name after the '/'.
  if (!path.has_filename() && path.has_parent_path() && path != path.root_path()) {
    path = path.parent_path();
  }
  return path;
}

std::string LabNode::address() const { return "127.0.0.1:" + std::to_string(client_port); }

std::string write_lab(const std::filesystem::path& dir, const LabLayout& layout,
                      std::vector<PortReservation>& held) {
  const int nodes = layout.voters + layout.observers;
  const bool apache = layout.apache_protocol();
  if (apache && static_cast<int>(layout.kinds.size()) != nodes) {
    return "--kinds names " + std::to_string(layout.kinds.size()) + " kind(s) for " +
           std::to_string(nodes) + " node(s): one per node, in id order";
  }
  if (apache && (layout.tls || layout.sasl)) {
    return "a lab of Apache's peer protocol (--kinds) has no TLS or SASL between peers "
           "(zkd.peerProtocol=apache does not support them yet)";
  }
  std::vector<NodePorts> ports;
  std::vector<PlannedRelay> relays = plan_relays(nodes, apache);
  if (!pick_ports(nodes, layout.base_port, ports, relays, held)) {
    return layout.base_port != 0 ? "the ports from --base-port run past 65535"
                                 : "cannot find free loopback ports";
  }
  if (layout.direct) relays.clear();  // no relay.links: a lab without relays
  const std::string session_key = random_session_key();
  if (layout.tls) {
    if (auto error = write_lab_tls(dir, nodes); !error.empty()) return error;
  }
  if (layout.sasl) {
    if (auto error = write_lab_sasl(dir); !error.empty()) return error;
  }
  for (int id = 1; id <= nodes; ++id) {
    const auto node = node_dir(std::filesystem::absolute(dir), id);
    const auto data = node / "data";
    std::error_code ec;
    std::filesystem::create_directories(data / "version-2", ec);
    if (ec) return "cannot create " + (data / "version-2").string() + ": " + ec.message();
    std::ofstream myid(data / "myid", std::ios::trunc);
    myid << id << "\n";
    myid.close();
    std::ofstream key(data / "session.key", std::ios::trunc | std::ios::binary);
    key << session_key;
    key.close();
    std::filesystem::permissions(
        data / "session.key",
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ec);
    std::ofstream kind(node / "kind", std::ios::trunc);
    kind << flavour_name(apache ? layout.kinds[static_cast<size_t>(id - 1)] : Flavour::kZkd)
         << "\n";
    kind.close();
    std::ofstream cfg(node / "zoo.cfg", std::ios::trunc);
    cfg << "tickTime=" << layout.tick_time_ms << "\n"
        << "initLimit=10\n"
        << "syncLimit=5\n"
        << "dataDir=" << data.string() << "\n"
        << "4lw.commands.whitelist=*\n"
        // Every node on one host: each admin server on a loopback port of
        // its own, not on the shared 0.0.0.0:8080. An Apache node's JVM
        // turns its admin server off (flavour.h): 3.8 has no snapshot command.
        << lab_admin_config(ports[static_cast<size_t>(id - 1)].admin)
        << (id > layout.voters ? "peerType=observer\n" : "")
        // One voter is still an ensemble (of one), not a standalone server.
        << (layout.voters == 1 ? "standaloneEnabled=false\n" : "")
        << (layout.tls ? lab_tls_config(dir, id, ports[static_cast<size_t>(id - 1)].client) : "")
        << (layout.sasl ? lab_sasl_config() : "")
        // Not in a lab of Apache's protocol: an Apache server with reconfig
        // takes its leader's server lines (the leader's view of the relays).
        << lab_reconfig_config(!apache) << (apache ? apache_protocol_config() : "")
        << server_lines(id, layout.voters, ports, relays, layout.tls);
    for (const auto& line : layout.settings) cfg << line << "\n";
    cfg.close();
    if (!myid || !key || !kind || !cfg || ec) {
      return "cannot write the configuration in " + node.string();
    }
  }
  if (layout.direct) return {};
  std::vector<RelayLink> links;
  for (const auto& r : relays) links.push_back(r.link);
  return write_relay_links(std::filesystem::absolute(dir), links);
}

std::string lab_admin_config(uint16_t port) {
  return "admin.serverAddress=127.0.0.1\nadmin.serverPort=" + std::to_string(port) + "\n";
}

std::optional<std::vector<LabNode>> read_lab(const std::filesystem::path& dir) {
  std::vector<LabNode> nodes;
  std::error_code ec;
  const bool sasl = std::filesystem::exists(lab_jaas(dir), ec);
  for (int id = 1;; ++id) {
    LabNode node;
    node.id = id;
    node.dir = node_dir(dir, id);
    const std::optional<NodeConfig> config = read_node_config(node.config(), id);
    if (!config) break;
    if (sasl) node.jaas = lab_jaas(dir);
    node.client_port = config->client_port;
    node.quorum_port = config->quorum_port;
    node.election_port = config->election_port;
    node.admin_port = config->admin_port;
    node.observer = config->observer;
    node.secure = config->secure;
    node.apache_protocol = config->apache_protocol;
    if (std::ifstream kind(node.kind_file()); kind) {
      std::string name;
      kind >> name;
      node.kind = parse_flavour(name).value_or(Flavour::kZkd);
    }
    nodes.push_back(node);
  }
  if (nodes.empty()) return std::nullopt;
  return nodes;
}

std::vector<int> node_ids(const std::vector<LabNode>& nodes) {
  std::vector<int> ids;
  for (const auto& n : nodes) ids.push_back(n.id);
  return ids;
}

std::string connect_string(const std::vector<LabNode>& nodes) {
  std::string out;
  for (const auto& n : nodes) out += (out.empty() ? "" : ",") + n.address();
  return out;
}

std::optional<pid_t> read_pid(const LabNode& node) { return read_pid_file(node.pid_file()); }

bool write_kind(const LabNode& node, Flavour kind) {
  const auto temp = node.dir / "kind.tmp";
  std::ofstream out(temp, std::ios::trunc);
  out << flavour_name(kind) << "\n";
  out.close();
  std::error_code ec;
  if (out) std::filesystem::rename(temp, node.kind_file(), ec);
  return out && !ec;
}

bool LabLayout::apache_protocol() const { return !kinds.empty(); }

bool write_pid(const LabNode& node, pid_t pid) {
  std::ofstream out(node.pid_file(), std::ios::trunc);
  out << pid << "\n";
  out.close();
  return static_cast<bool>(out);
}

}  // namespace zk::lab
