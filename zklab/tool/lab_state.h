// SPDX-License-Identifier: Apache-2.0
// The state of a zklab lab, kept in its directory so that every zklab command
// (a separate process) finds the nodes the last `up` started:
//   <dir>/n<id>/zoo.cfg   the node's configuration (Apache format)
//   <dir>/n<id>/data/     its dataDir (myid in it)
//   <dir>/n<id>/zkd.log   stdout and stderr of every run, appended (an
//                         Apache node's log too)
//   <dir>/n<id>/zkd.pid   the pid of the current (or last) run (zkd, or an
//                         Apache node's java)
//   <dir>/n<id>/kind      what the node runs: "zkd" or "apache" (Apache
//                         ZooKeeper 3.8, Debian's jars: flavour.h); a node
//                         without the file (an older lab) runs zkd
//   <dir>/n<id>/data/session.key  the ensemble's session-password key
//                         (16 random bytes, the same in every node)
//   <dir>/n<id>/data.before-restore-<UTC time>/  a dataDir `zklab restore`
//                         set aside (lab_restore.h); never read again
//   <dir>/relay.links     the relays on the peer links (relay_links.h)
//   <dir>/relay.pid, relay.port, relay.log   the relay daemon (relay_daemon.h)
//   <dir>/tls/            a TLS lab's CA and identities (lab_tls.h)
//   <dir>/jaas.conf       a SASL lab's users (lab_sasl.h)
// Nothing else is recorded: the peer protocol (zkd.peerProtocol=apache in
// every zoo.cfg of a lab `up --kinds` wrote), ports and roles (voter or observer) are read back
// from the server.<id> lines of the zoo.cfg files (node <id>'s own line),
// the client port of a TLS lab from its secureClientPort line, the admin
// server's port from admin.serverPort (labs written before it have
// admin.enableServer=false: no admin server). A node `zklab
// add` wrote is read the same way; whether a node is a member now is the
// ensemble's /zookeeper/config (lab_membership.h).
//
// Peer links go through relays: of each pair of nodes a < b, b dials a, so
// node b's zoo.cfg names, as a's quorum port, the port of the relay of link
// (a, b), which forwards to a's real quorum port (the port a's own line
// names). The server lines of different nodes differ only in those ports;
// since zkd derives session passwords from the server list unless the data
// dir holds a session.key, write_lab writes one shared session.key. Labs
// written before relays (no relay.links) have direct peer links.
//
// A lab of mixed kinds (`up --kinds apache,zkd,zkd`; any --kinds) speaks
// Apache's peer protocol: zkd.peerProtocol=apache in every zoo.cfg. Then both
// peer ports carry traffic and either node of a pair may dial the other (a
// learner dials its leader; the larger id dials the smaller's election port,
// the smaller pokes the larger's, which dials back), so every pair has four
// relays: each node's zoo.cfg names, for every other node, relay ports for
// its quorum and election ports (relay_links.h). Such a lab has no
// reconfigEnabled (an Apache server with it adopts its leader's server
// lines, which name the leader's relays), no TLS and no SASL.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "toolkit/client_security.h"
#include "zklab/process/flavour.h"
#include "zklab/process/port_reservation.h"

namespace zk::lab {

// The default lab directory, relative to the current directory.
inline constexpr const char* kDefaultLabDir = ".lab/zklab";

// The lab directory `spelled` names (a --dir argument, relative to the current
// directory): absolute, with ".", ".." and symbolic links resolved as far as
// the path exists, and no trailing separator. A lab's daemons are found by
// paths inside it on their command lines, so every spelling of one lab (lab,
// $PWD/lab, a link to it) must become this one path before it is used.
std::filesystem::path lab_directory(const std::filesystem::path& spelled);

struct LabNode {
  int id = 0;
  std::filesystem::path dir;  // <lab>/n<id>
  uint16_t client_port = 0;
  uint16_t quorum_port = 0;    // its own (real) peer port, as its own server line names it
  uint16_t election_port = 0;  // the (unused) election port its own line names
  // Its admin server (HTTP on 127.0.0.1: the snapshot `zklab backup` takes);
  // 0: none. An Apache node's zoo.cfg names one too, but its JVM runs without
  // (flavour.h), so has_admin() is false for it.
  uint16_t admin_port = 0;
  bool observer = false;
  // What it runs (its `kind` file; zkd without one).
  Flavour kind = Flavour::kZkd;
  // Its zoo.cfg says zkd.peerProtocol=apache: a lab of mixed kinds.
  bool apache_protocol = false;
  // A TLS lab's node (`zklab up --tls`): client_port is its secureClientPort,
  // the only client port it has, and its peers speak TLS too.
  bool secure = false;
  // A SASL lab's node (`zklab up --sasl`; <lab>/jaas.conf exists): it reads
  // that JAAS file, and its clients and peers must authenticate (lab_sasl.h).
  std::filesystem::path jaas;  // empty: no SASL
  // What the lab's clients (zklab's own included) connect with: the TLS
  // context and SASL options, set by load_lab.
  toolkit::ClientSecurity client;

  std::filesystem::path config() const { return dir / "zoo.cfg"; }
  std::filesystem::path log() const { return dir / "zkd.log"; }
  std::filesystem::path pid_file() const { return dir / "zkd.pid"; }
  std::filesystem::path kind_file() const { return dir / "kind"; }
  // Its dataDir (myid, session.key, version-2).
  std::filesystem::path data_dir() const { return dir / "data"; }
  // Its data: logs, snapshots, epoch files (dataDir/version-2, zkd's and Apache's).
  std::filesystem::path version2_dir() const { return dir / "data" / "version-2"; }
  std::filesystem::path session_key_file() const { return dir / "data" / "session.key"; }
  // Zab's currentEpoch file (written once the node follows or leads an epoch).
  std::filesystem::path current_epoch_file() const { return version2_dir() / "currentEpoch"; }
  // "127.0.0.1:<client port>".
  std::string address() const;
  // A zkd node with an admin server.
  bool has_admin() const { return admin_port != 0 && kind == Flavour::kZkd; }
};

struct LabLayout {
  int voters = 3;
  int observers = 0;
  int tick_time_ms = 200;
  // 0: free loopback ports. Otherwise node i (1-based) listens for clients on
  // base_port+i-1, for peers on base_port+100+i-1 and names the (unused)
  // election port base_port+200+i-1; the relay of the k-th link (0-based, in
  // relay.links order) listens on base_port+300+k, and past the L relays the
  // admin servers: base_port+300+L+i-1.
  uint16_t base_port = 0;
  // Peers connect to each other directly, as Apache's do: no relays, so no
  // network faults (partition, isolate, slow), and one hop less per message.
  bool direct = false;
  // Everything over TLS, as lab_tls.h writes it: clients (zklab's own
  // included) and peers, with a CA of the lab's own.
  bool tls = false;
  // SASL everywhere, as lab_sasl.h writes it: clients must authenticate
  // (DIGEST-MD5, enforce.auth) and so must peers (quorum.auth).
  bool sasl = false;
  // KEY=VALUE lines appended to every node's zoo.cfg, after the lab's own
  // (`up --set zkd.quorumSync=true`).
  std::vector<std::string> settings;
  // What each node runs, in id order (`up --kinds`). Empty: zkd everywhere,
  // on zkd's own peer protocol. Given (even all zkd, so that `migrate` can
  // turn nodes into Apache's): Apache's peer protocol, four relays a pair.
  std::vector<Flavour> kinds;
  bool apache_protocol() const;
};

// Writes zoo.cfg, data/myid and data/session.key for every node of
// a fresh lab in `dir` (created if missing), and relay.links. Free ports it
// picks are reserved by entries appended to `held`: keep them until the nodes
// and relays listen. Empty on success, else why not.
std::string write_lab(const std::filesystem::path& dir, const LabLayout& layout,
                      std::vector<PortReservation>& held);

// The zoo.cfg lines of a node's admin server: 127.0.0.1:`port`.
std::string lab_admin_config(uint16_t port);

// The nodes of the lab in `dir`, by id, read from <dir>/n<id>/zoo.cfg;
// nothing when `dir` holds no lab (no n<id>/zoo.cfg).
std::optional<std::vector<LabNode>> read_lab(const std::filesystem::path& dir);

// The ids of `nodes`, in order.
std::vector<int> node_ids(const std::vector<LabNode>& nodes);

// Every node's address, comma separated: the client connect string.
std::string connect_string(const std::vector<LabNode>& nodes);

// The pid recorded for `node`; nothing when there is none.
std::optional<pid_t> read_pid(const LabNode& node);
// Records `pid` for `node`; false when the file cannot be written.
bool write_pid(const LabNode& node, pid_t pid);
// Records what `node` runs (its kind file, replaced whole); false when it
// cannot be written.
bool write_kind(const LabNode& node, Flavour kind);

}  // namespace zk::lab
