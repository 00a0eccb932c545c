// SPDX-License-Identifier: Apache-2.0
// Ensemble: a replicated ZooKeeper ensemble of N processes on this machine,
// for process tests, benchmarks and zklab. Two flavours read the same
// Apache-format zoo.cfg: zkd (the binary the caller names) and Apache
// ZooKeeper 3.8 (java QuorumPeerMain with Debian's jars), so the same test or
// benchmark can run against either.
//
// Layout: a fresh directory <temp>/<temp_dir_prefix>_XXXXXX holding one
// directory per node, node<id>/, each with zoo.cfg, data/ (the dataDir, with
// myid) and zkd.log (the process's stdout and stderr, whatever the flavour).
// Every node listens on 127.0.0.1 only, on three free ports: client, quorum
// and election, reserved while the Ensemble lives (port_reservation.h), so a
// node started again finds them free. Each node's zoo.cfg lists every node as
//   server.<id>=127.0.0.1:<quorum>:<election>[:observer];127.0.0.1:<client>
// (zkd carries all peer traffic on the quorum port and ignores the election
// port) plus tickTime, initLimit, syncLimit, dataDir, clientPort,
// clientPortAddress, maxClientCnxns, 4lw.commands.whitelist=* and, on an
// observer, peerType=observer.
//
// Roles are read from `srvr` (see server_status.h): a node serves once it
// says Mode: leader/follower/observer; a quorum member outside a serving
// quorum says it is not serving. Every wait takes a deadline; waits poll srvr
// every few tens of milliseconds, since a mode change has no other signal.
//
// Ownership: the destructor SIGKILLs every node and removes the directory
// (unless keep_directory() was called).
// Threading: use one Ensemble from one thread (clients of the ensemble may
// run on any thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "zklab/process/flavour.h"
#include "zklab/process/port_reservation.h"
#include "zklab/process/server_status.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab {

// Flavour (zkd or Apache) and how Apache is started are in flavour.h.

struct EnsembleOptions {
  Flavour flavour = Flavour::kZkd;
  std::string zkd_binary;  // kZkd: the zkd executable; required
  // kApache: the java executable; empty: `java` on PATH, else /usr/bin/java.
  std::string java;
  // kApache: the class path; empty: Debian's /usr/share/java/zookeeper.jar
  // (its manifest names its dependencies), plus slf4j-simple.jar when
  // installed so that Apache's log reaches zkd.log.
  std::string apache_classpath;
  // kApache: JVM flags before the class path. The default favours start-up
  // speed and a small footprint (C1 only, serial GC, small heap), and turns
  // off the admin server (it would bind :8080 on every node).
  std::vector<std::string> java_flags = default_apache_java_flags();
  int voters = 3;     // ids 1..voters (3 or 5 make sense)
  int observers = 0;  // ids voters+1..voters+observers
  // Servers to add later with reconfig: ids after the observers, written
  // (their zoo.cfg names the members and every spare, as a participant) but
  // not started, and absent from the members' zoo.cfg. start_spare().
  int spares = 0;
  int tick_time_ms = 200;
  int init_limit = 10;  // ticks
  int sync_limit = 5;   // ticks
  // Unset: the server's default (20 ticks, i.e. 4 s at 200 ms ticks). Set
  // higher by default so that client sessions outlive an election.
  std::optional<int> max_session_timeout_ms = 60000;
  // maxClientCnxns of every node: connections per client IP, and every
  // client of a test or benchmark comes from 127.0.0.1 (0: no limit).
  int max_client_cnxns = 60;
  bool force_sync = true;  // false writes forceSync=no
  // kZkd: every node runs its admin server on a loopback port of its own
  // (admin_port()); otherwise none does.
  bool admin_servers = false;
  std::vector<std::string> extra_lines;  // appended to every node's zoo.cfg verbatim
  std::vector<std::string> environment;  // NAME=VALUE added to every node's environment
  std::string temp_dir_prefix = "zk_ensemble";
  // start(): until every node serves and exactly one leads.
  std::chrono::milliseconds start_deadline{45000};
};

class Ensemble;

struct EnsembleStart {
  std::unique_ptr<Ensemble> ensemble;  // set when every node served in time
  std::string error;                   // otherwise: why, with the nodes' logs
};

class Ensemble {
 public:
  // Writes every node's directory, starts all nodes and waits (start
  // deadline) until every node serves with exactly one leader. Fails at once
  // when a node exits or runs standalone (a server that does not replicate).
  static EnsembleStart start(const EnsembleOptions& options);

  ~Ensemble();
  Ensemble(const Ensemble&) = delete;
  Ensemble& operator=(const Ensemble&) = delete;

  Flavour flavour() const { return flavour_; }
  // Nodes, voters and observers; their ids are 1..size().
  int size() const { return static_cast<int>(nodes_.size()); }
  std::vector<int> ids() const;
  int voters() const { return voters_; }
  bool is_observer(int id) const { return id > voters_ && id <= voters_ + observers_; }
  // Starts the next spare (EnsembleOptions::spares), whose id is size() + 1
  // from then on; returns at once. Empty on success, else why not.
  std::string start_spare();
  // "server.<id>=..." naming spare `id` as its zoo.cfg does (for reconfig).
  std::string spare_line(int id) const;
  // The process of node `id` (1..size()): pid, client port, signal, wait for
  // exit. Prefer kill()/restart() below to its kill()/restart(): the node's
  // restart() waits for a standalone-style readiness that a quorum member
  // may not show.
  ZkdProcess& node(int id);
  const ZkdProcess& node(int id) const;

  // Node `id`'s admin server port (EnsembleOptions::admin_servers); 0
  // without one.
  uint16_t admin_port(int id) const;
  // "127.0.0.1:<client port>" of node `id`.
  std::string address(int id) const;
  // Every node's address, comma separated (a client connect string).
  std::string connect_string() const;
  // The addresses of these nodes only, in this order.
  std::string connect_string(const std::vector<int>& ids) const;
  // The ensemble's directory (node<id>/ below it).
  const std::filesystem::path& directory() const { return dir_; }
  // Leave the directory in place when destroyed (to look at it).
  void keep_directory() { keep_dir_ = true; }

  // What node `id` answers to srvr now (kUnreachable when it does not answer
  // within `deadline`).
  ServerMode mode(int id, std::chrono::milliseconds deadline = std::chrono::seconds(2)) const;
  // Node `id`'s mntr figures now; empty when it does not answer.
  std::map<std::string, std::string> mntr(int id) const;
  // Its zk_znode_count now; -1 when it does not answer.
  int64_t znode_count(int id) const;

  // Waits until exactly one node says Mode: leader and that node is not in
  // `exclude`; its id, or nothing at the deadline.
  std::optional<int> wait_for_leader(std::chrono::milliseconds deadline,
                                     const std::set<int>& exclude = {});
  // wait_for_leader with nothing excluded: the current leader.
  std::optional<int> leader(std::chrono::milliseconds deadline = std::chrono::seconds(15)) {
    return wait_for_leader(deadline);
  }
  // Waits until node `id` serves (leader, follower or observer). Empty on
  // success, else why not (with the node's log when it exited).
  std::string wait_serving(int id, std::chrono::milliseconds deadline);
  // Waits until every node that runs at the call serves and exactly one of
  // them leads (nodes killed before are left out). Empty on success, else why
  // not: each node's last mode, or the log of a node that exited meanwhile,
  // or a node running standalone.
  std::string wait_all_serving(std::chrono::milliseconds deadline);

  // SIGKILLs node `id` and waits (deadline) until it is gone; true if it is.
  bool kill(int id, std::chrono::milliseconds deadline = std::chrono::seconds(10));
  // Starts node `id` again, once it has exited, on the same zoo.cfg, ports and
  // data dir; returns at once. Empty on success, else why not.
  std::string respawn(int id);
  // respawn(id), then wait_serving(id, deadline).
  std::string restart(int id, std::chrono::milliseconds deadline);
  // Empties node `id`'s dataDir except myid; the node must not run. Empty on
  // success, else why not.
  std::string wipe_data(int id);

  // The end of every node's log, headed by its id and mode: for failure messages.
  std::string logs(size_t bytes_per_node = 3000) const;

 private:
  Ensemble() = default;
  // Every node's mode now.
  std::map<int, ServerMode> modes() const;
  // "1: leader, 2: follower, 3: unreachable".
  std::string describe(const std::map<int, ServerMode>& modes) const;

  Flavour flavour_ = Flavour::kZkd;
  int voters_ = 0;
  int observers_ = 0;
  std::map<int, ZkdOptions> spares_;  // not started yet, by id
  std::map<int, std::string> spare_lines_;
  std::map<int, uint16_t> admin_ports_;  // by id, with admin_servers
  std::filesystem::path dir_;
  bool keep_dir_ = false;
  std::vector<std::unique_ptr<ZkdProcess>> nodes_;  // node id i at index i-1
  std::vector<PortReservation> port_holds_;         // every node's ports, held between runs
};

}  // namespace zk::lab
