// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_membership.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "libzk/client/sync_client.h"
#include "toolkit/client_security.h"
#include "toolkit/poll_until.h"
#include "zklab/process/node_ports.h"
#include "zklab/tool/node_spec.h"

namespace zk::lab {
namespace {

// base64(SHA-1("super:zklab")), the digest form of kLabSuperUser.
constexpr const char* kLabSuperDigest = "super:qWfM6utqmhg5Bx2FRw7X3ZgYi3U=";

// The ids /zookeeper/config `text` names: server.<id>=...
std::set<int> member_ids(const std::string& text) {
  std::set<int> ids;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("server.", 0) != 0) continue;
    ids.insert(std::atoi(line.c_str() + 7));
  }
  return ids;
}

// node's zoo.cfg for joining: `template_cfg` (another node's) without its
// server lines (and the dynamicConfigFile naming them), peerType, dataDir
// and admin server, then its own dataDir,
// admin server, peerType and the server lines of `members` and itself.
std::string joining_config(const std::filesystem::path& template_cfg, const LabNode& node,
                           const std::vector<LabNode>& nodes, const std::set<int>& members,
                           bool observer) {
  std::ifstream in(template_cfg);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.rfind("server.", 0) == 0 || line.rfind("peerType=", 0) == 0 ||
        line.rfind("dataDir=", 0) == 0 || line.rfind("standaloneEnabled=", 0) == 0 ||
        line.rfind("dynamicConfigFile=", 0) == 0 || line.rfind("admin.", 0) == 0) {
      continue;
    }
    out += line + "\n";
  }
  out += "dataDir=" + (node.dir / "data").string() + "\n";
  out += node.admin_port != 0 ? lab_admin_config(node.admin_port) : "admin.enableServer=false\n";
  out += "standaloneEnabled=false\n";
  if (observer) out += "peerType=observer\n";
  for (const LabNode& n : nodes) {
    if (members.contains(n.id) && n.id != node.id) out += lab_server_line(n, n.observer) + "\n";
  }
  return out + lab_server_line(node, observer) + "\n";
}

bool copy_into(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::error_code ec;
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
  return !ec;
}

// A session on any node of the lab but those in `leaving` (a node that
// leaves closes its clients, answer and all), with the lab clients'
// security; null when none takes one by ctx.deadline.
std::unique_ptr<zk::client::SyncClient> lab_session(const LabContext& ctx,
                                                    const std::vector<LabNode>& nodes,
                                                    const std::set<int>& leaving = {}) {
  std::vector<LabNode> staying;
  for (const LabNode& n : nodes) {
    if (!leaving.contains(n.id)) staying.push_back(n);
  }
  if (staying.empty()) staying = nodes;
  zk::client::ClientOptions options;
  toolkit::apply_client_security(nodes.front().client, options);
  auto client = std::make_unique<zk::client::SyncClient>(options);
  if (!client->connect(connect_string(staying), std::chrono::milliseconds(10000), ctx.deadline)) {
    return nullptr;
  }
  return client;
}

// The ids a reconfig's leaving list names ("2,3").
std::set<int> leaving_ids(const std::string& leaving) {
  std::set<int> ids;
  std::istringstream in(leaving);
  std::string id;
  while (std::getline(in, id, ',')) ids.insert(std::atoi(id.c_str()));
  return ids;
}

// The membership text any node gives now; empty when none answers.
std::string current_config(const LabContext& ctx, const std::vector<LabNode>& nodes) {
  auto client = lab_session(ctx, nodes);
  if (!client || !client->sync("/zookeeper/config").ok()) return {};
  auto got = client->get_data("/zookeeper/config");
  return got.ok() ? got->data.value_or("") : std::string();
}

}  // namespace

std::vector<int> lab_member_ids(const LabContext& ctx, const std::vector<LabNode>& nodes) {
  const std::set<int> ids = member_ids(current_config(ctx, nodes));
  return {ids.begin(), ids.end()};
}

namespace {

// False, with why on ctx.err, for a lab without reconfiguration (one of
// Apache's peer protocol, lab_state.h).
bool reconfigurable(const LabContext& ctx, const std::vector<LabNode>& nodes) {
  if (nodes.empty() || !nodes.front().apache_protocol) return true;
  ctx.err << "zklab: the lab in " << ctx.dir.string()
          << " speaks Apache's peer protocol (up --kinds) and has no reconfiguration: an Apache "
             "server with it would take its leader's server lines, which name the leader's "
             "relays\n";
  return false;
}

}  // namespace

std::string lab_reconfig_config(bool enabled) {
  return std::string(enabled ? "reconfigEnabled=true\n" : "") +
         "DigestAuthenticationProvider.superDigest=" + kLabSuperDigest + "\n";
}

std::string lab_server_line(const LabNode& node, bool observer) {
  NodePorts ports;
  ports.client = node.secure ? 0 : node.client_port;
  ports.quorum = node.quorum_port;
  ports.election = node.election_port;
  return server_line(node.id, ports, observer);
}

ReconfigOutcome reconfigure(const LabContext& ctx, const std::vector<LabNode>& nodes,
                            const zk::wire::ReconfigRequest& request) {
  auto client = lab_session(ctx, nodes, leaving_ids(request.leaving));
  if (!client) return {false, "no node takes a session"};
  if (!client->add_auth("digest", std::string(kLabSuperUser)).ok()) {
    return {false, "the superuser's digest is refused"};
  }
  auto done = client->reconfig(request);
  if (!done.ok()) return {false, std::string(zk::wire::error_name(done.error()))};
  return {true, done->data.value_or("")};
}

ReconfigOutcome reconfigure_until(const LabContext& ctx, const std::vector<LabNode>& nodes,
                                  const zk::wire::ReconfigRequest& request,
                                  const std::function<bool()>& done) {
  ReconfigOutcome last;
  toolkit::poll_until(
      [&] {
        last = reconfigure(ctx, nodes, request);
        if (!last.ok && done()) last = {true, current_config(ctx, nodes)};
        return last.ok;
      },
      ctx.deadline, std::chrono::milliseconds(200));  // a retry's pace
  return last;
}

LabExit lab_add(const LabContext& ctx, bool observer, int node) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  if (!reconfigurable(ctx, *nodes)) return LabExit::kError;
  if (nodes->front().secure) {
    ctx.err << "zklab: add does not write TLS identities yet; a TLS lab cannot grow\n";
    return LabExit::kError;
  }
  const std::string config = current_config(ctx, *nodes);
  if (config.empty()) {
    ctx.err << "zklab: no node answers with the configuration\n";
    return LabExit::kError;
  }
  const std::set<int> members = member_ids(config);
  const int id = node != 0 ? node : static_cast<int>(nodes->size()) + 1;
  if (members.contains(id)) {
    ctx.err << "zklab: node " << id << " is a member already\n";
    return LabExit::kError;
  }
  if (id > static_cast<int>(nodes->size()) + 1 || id < 1) {
    ctx.err << "zklab: no node " << id << " to add back (the next new one is " << nodes->size() + 1
            << ")\n";
    return LabExit::kUsage;
  }
  if (id == static_cast<int>(nodes->size()) + 1) {
    // A new node: its directory, myid, the lab's session key, free ports.
    std::vector<PortReservation> held;
    const auto ports = pick_node_ports(1, held);
    if (ports.empty()) {
      ctx.err << "zklab: cannot find free loopback ports\n";
      return LabExit::kError;
    }
    LabNode fresh;
    fresh.id = id;
    fresh.dir = std::filesystem::absolute(ctx.dir) / ("n" + std::to_string(id));
    fresh.client_port = ports[0].client;
    fresh.quorum_port = ports[0].quorum;
    fresh.election_port = ports[0].election;
    fresh.admin_port = ports[0].admin;
    fresh.observer = observer;
    std::error_code ec;
    std::filesystem::create_directories(fresh.version2_dir(), ec);
    std::ofstream(fresh.dir / "data" / "myid") << id << "\n";
    std::ofstream(fresh.config()) << joining_config(nodes->front().config(), fresh, *nodes, members,
                                                    observer);
    if (ec || !copy_into(nodes->front().session_key_file(), fresh.session_key_file())) {
      ctx.err << "zklab: cannot write " << fresh.dir.string() << "\n";
      return LabExit::kError;
    }
    held.clear();  // the node binds them now
    if (const auto started = lab_node(ctx, NodeAction::kStart, std::to_string(id), false);
        started != LabExit::kOk) {
      return started;
    }
    nodes->push_back(fresh);
  } else if ((*nodes)[static_cast<size_t>(id - 1)].observer != observer) {
    ctx.err << "zklab: node " << id << " was " << (observer ? "a participant" : "an observer")
            << "; add it back as one (zkd does not change a server's part yet)\n";
    return LabExit::kUsage;
  }
  zk::wire::ReconfigRequest request;
  request.joining = lab_server_line((*nodes)[static_cast<size_t>(id - 1)], observer);
  const ReconfigOutcome done = reconfigure_until(
      ctx, *nodes, request, [&] { return member_ids(current_config(ctx, *nodes)).contains(id); });
  if (!done.ok) {
    ctx.err << "zklab: reconfig adding node " << id << ": " << done.text << "\n";
    return LabExit::kError;
  }
  ctx.out << "node " << id << " added" << (observer ? " as an observer" : "") << ":\n"
          << done.text << "\n";
  if (auto error = wait_serving(ctx, *nodes, {id}, false); !error.empty()) {
    ctx.err << "zklab: node " << id << " does not serve: " << error << "\n";
    return LabExit::kError;
  }
  return LabExit::kOk;
}

LabExit lab_remove(const LabContext& ctx, const std::string& spec) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  if (!reconfigurable(ctx, *nodes)) return LabExit::kError;
  const auto id = resolve_node(lab_status(*nodes), spec, RandomAmong::kAlive, ctx.err);
  if (!id) return LabExit::kUsage;
  zk::wire::ReconfigRequest request;
  request.leaving = std::to_string(*id);
  const ReconfigOutcome done = reconfigure(ctx, *nodes, request);
  if (!done.ok) {
    // Removing the leader: the answer is often lost with the old epoch.
    const std::string config = current_config(ctx, *nodes);
    if (config.empty() || member_ids(config).contains(*id)) {
      ctx.err << "zklab: reconfig removing node " << *id << ": " << done.text << "\n";
      return LabExit::kError;
    }
    ctx.out << "node " << *id << " removed (the answer was lost: " << done.text << "):\n"
            << config << "\n";
  } else {
    ctx.out << "node " << *id << " removed:\n" << done.text << "\n";
  }
  ctx.out << "it follows without a vote now; stop it with `zklab stop " << *id
          << "`, or add it back with `zklab add --node " << *id << "`\n";
  return LabExit::kOk;
}

LabExit lab_reconfig(const LabContext& ctx, const zk::wire::ReconfigRequest& request) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  if (!reconfigurable(ctx, *nodes)) return LabExit::kError;
  const ReconfigOutcome done = reconfigure(ctx, *nodes, request);
  if (!done.ok) {
    ctx.err << "zklab: reconfig: " << done.text << "\n";
    return LabExit::kError;
  }
  ctx.out << done.text << "\n";
  return LabExit::kOk;
}

}  // namespace zk::lab
