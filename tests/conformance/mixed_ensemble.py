#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""One ZooKeeper ensemble made of zkd and Apache ZooKeeper 3.8 servers.

zkd speaks Apache's server-to-server protocol when its zoo.cfg says
`zkd.peerProtocol=apache`, so zkd and Apache servers (Debian's `zookeeper`
package, run as `java ... QuorumPeerMain zoo.cfg`) form one ensemble. Every
node reads the same zoo.cfg lines apart from its dataDir:

    tickTime=200 initLimit=20 syncLimit=10 (fast tests)
    server.N=127.0.0.1:<quorum port>:<election port>;127.0.0.1:<client port>
    4lw.commands.whitelist=*  admin.enableServer=false  forceSync=no
    snapshotSizeFactor=-1     (Apache's leader never syncs a learner from its
                               txn log files: a DIFF from its committed log
                               or a SNAP)
    zkd.peerProtocol=apache   (Apache turns an unknown key into a system
                               property it never reads)

MixedEnsemble(["zkd", "apache", "apache"], zkd_bin) gives server 1 to zkd,
2 and 3 to Apache; each node lives in its own directory (zoo.cfg, data/myid,
server.log) under one temporary directory, its ports picked free on
loopback (servers.free_loopback_port). Nodes are started and stopped one
by one (start, stop, kill, wipe); set_kind() turns a stopped node into the
other kind on the same zoo.cfg (a rolling migration); mode() asks `srvr`;
wait_for_leader() polls until every running node serves and exactly one
leads, wait_serving() until one node does. log_mark() and log_since() read
what a node logged after a point. Every wait has a deadline; nothing sleeps
as a means of synchronisation.

As a context manager everything is stopped at the end and the directory
removed, unless ZK_CONFORMANCE_KEEP=1 is set or the block raised (or
mark_failed() was called): then the files are kept and the nodes' log
tails printed.

Standard library only.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402

KINDS = ("zkd", "apache")
APACHE_STANDALONE_MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain"
APACHE_QUORUM_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain"

# The zoo.cfg lines every node shares, server.N lines and dataDir aside.
COMMON_CONFIG = {
    "tickTime": "200",
    "initLimit": "20",
    "syncLimit": "10",
    "4lw.commands.whitelist": "*",
    "admin.enableServer": "false",
    "forceSync": "no",
    "snapshotSizeFactor": "-1",
    "zkd.peerProtocol": "apache",
}

POLL_S = 0.1
SRVR_TIMEOUT_S = 2.0
LOG_TAIL_LINES = 40
# Log lines the harness's own polling causes (Apache logs every 4lw), left
# out of log tails.
POLLING_NOISE = "Processing srvr command"
# Lines log_tails() gathers from the whole log: zkd's peer links and role
# changes; Apache's warnings, errors and exceptions (but its startup warning
# and the "Got zxid 0x... expected 0x1" of a learner's first proposals).
ZKD_NOTABLE = re.compile(r"Z (INFO|WARN|ERROR) +(Apache peer protocol:|now )")
APACHE_NOTABLE = re.compile(r"^\d+ \[.*?\] (WARN|ERROR) (?!.*(maxCnxns is not configured|"
                            r"expected 0x1$))|^\S*Exception|^\s+at org\.apache\.zookeeper")


class EnsembleError(AssertionError):
    """A node died or the ensemble did not reach the state waited for; the
    message carries the nodes' srvr replies (and the dead node's log)."""


def apache_command(config_path):
    """The command running Apache's QuorumPeerMain on `config_path`, with
    the JVM flags and class path servers.py gives its standalone Apache."""
    template = servers.Server("apache")
    template.dir = os.path.dirname(config_path)  # config_path is <dir>/zoo.cfg
    command = template._command()
    command[command.index(APACHE_STANDALONE_MAIN)] = APACHE_QUORUM_MAIN
    return command


class Node:
    """One server of a MixedEnsemble, in its own directory."""

    def __init__(self, myid, kind, directory):
        if kind not in KINDS:
            raise ValueError(f"unknown server kind {kind!r}")
        self.myid = myid
        self.kind = kind
        self.dir = directory
        self.host = "127.0.0.1"
        self.client_port = servers.free_loopback_port()
        self.quorum_port = servers.free_loopback_port()
        self.election_port = servers.free_loopback_port()
        self.proc = None
        self._log = None

    @property
    def name(self):
        return f"server {self.myid} ({self.kind})"

    @property
    def hostport(self):
        return f"{self.host}:{self.client_port}"

    @property
    def data_dir(self):
        return os.path.join(self.dir, "data")

    @property
    def config_path(self):
        return os.path.join(self.dir, "zoo.cfg")

    @property
    def log_path(self):
        return os.path.join(self.dir, "server.log")

    @property
    def server_line(self):
        return (f"server.{self.myid}={self.host}:{self.quorum_port}:{self.election_port}"
                f";{self.host}:{self.client_port}")

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def write(self, config_lines):
        os.makedirs(self.data_dir, exist_ok=True)
        self.write_myid()
        with open(self.config_path, "w") as f:
            f.write("\n".join([f"dataDir={self.data_dir}", *config_lines]) + "\n")

    def write_myid(self):
        with open(os.path.join(self.data_dir, "myid"), "w") as f:
            f.write(f"{self.myid}\n")

    def spawn(self, zkd_bin):
        if self.kind == "zkd":
            if not zkd_bin or not os.access(zkd_bin, os.X_OK):
                raise servers.ServerError(f"zkd binary not executable: {zkd_bin!r}")
            command = [os.path.abspath(zkd_bin), "--config", self.config_path]
        else:
            command = apache_command(self.config_path)
        self._log = open(self.log_path, "ab")
        self._log.write(f"=== harness: starting {self.name} ===\n".encode())
        self._log.flush()
        try:
            self.proc = subprocess.Popen(command, cwd=self.dir, stdin=subprocess.DEVNULL,
                                         stdout=self._log, stderr=subprocess.STDOUT)
        except OSError:
            self._log.close()
            self._log = None
            raise

    def end(self, kill=False):
        """SIGTERM (then SIGKILL after servers.STOP_TIMEOUT_S), or SIGKILL at
        once; waits for the exit."""
        proc, self.proc = self.proc, None
        if proc is not None and kill and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=servers.STOP_TIMEOUT_S)
        servers.terminate(proc)
        if self._log is not None:
            self._log.close()
            self._log = None

    def srvr(self):
        """The srvr reply, or why there is none."""
        try:
            return servers.four_letter_word(self.host, self.client_port, "srvr",
                                            timeout=SRVR_TIMEOUT_S)
        except OSError as e:
            return f"no reply: {e!r}"

    def mode(self):
        """"leader", "follower" (or "observer", "standalone") while serving, else None."""
        found = re.search(r"^Mode: (\S+)", self.srvr(), re.MULTILINE)
        return found.group(1) if found else None

    def log_text(self, since=0):
        """The log from byte offset `since` (a log_size()) on."""
        try:
            with open(self.log_path, "r", errors="replace") as f:
                f.seek(since)
                return f.read()
        except OSError:
            return "(no log)"

    def log_size(self):
        try:
            return os.path.getsize(self.log_path)
        except OSError:
            return 0

    def log_tail(self, lines=LOG_TAIL_LINES, grep=None):
        """The last `lines` lines of the node's log (those containing `grep`
        if given), without the lines srvr polling causes."""
        found = [line for line in self.log_text().splitlines(keepends=True)
                 if POLLING_NOISE not in line and (grep is None or grep in line)]
        return "".join(found[-lines:])


class MixedEnsemble:
    """An ensemble of len(kinds) servers; server i+1 is of kind kinds[i]."""

    def __init__(self, kinds, zkd_bin=None, extra_config=None):
        if not kinds:
            raise ValueError("an ensemble needs servers")
        self.kinds = list(kinds)
        self.zkd_bin = zkd_bin
        self.extra_config = dict(extra_config or {})
        self.dir = None
        self.nodes = {}
        self.failed = False

    # -- set-up -------------------------------------------------------------

    def create(self):
        """Makes the directories and writes every node's zoo.cfg and myid."""
        if self.dir is not None:
            return self
        self.dir = tempfile.mkdtemp(prefix="zk-conformance-mixed-")
        for myid, kind in enumerate(self.kinds, start=1):
            self.nodes[myid] = Node(myid, kind, os.path.join(self.dir, f"node{myid}-{kind}"))
        config = {**COMMON_CONFIG, **self.extra_config}
        lines = [f"{key}={value}" for key, value in config.items()]
        lines += [node.server_line for node in self.nodes.values()]
        for node in self.nodes.values():
            node.write(lines)
        return self

    def node(self, myid):
        return self.nodes[myid]

    def ids(self, kind=None):
        return [i for i, n in self.nodes.items() if kind is None or n.kind == kind]

    def running_ids(self):
        return [i for i, n in self.nodes.items() if n.running()]

    # -- one node -------------------------------------------------------------

    def start(self, myid):
        """Starts the node (it serves once the ensemble has a leader)."""
        self.create()
        node = self.nodes[myid]
        if node.running():
            raise EnsembleError(f"{node.name} already runs")
        node.spawn(self.zkd_bin)

    def start_all(self):
        self.create()
        for myid in self.nodes:
            self.start(myid)

    def stop(self, myid):
        """SIGTERM, and waits for the exit."""
        self.nodes[myid].end(kill=False)

    def kill(self, myid):
        """SIGKILL, and waits for the exit."""
        self.nodes[myid].end(kill=True)

    def wipe(self, myid):
        """Empties the node's dataDir but for its myid (the node must not run)."""
        node = self.nodes[myid]
        if node.running():
            raise EnsembleError(f"{node.name} runs: stop it before wiping its dataDir")
        shutil.rmtree(node.data_dir, ignore_errors=True)
        os.makedirs(node.data_dir)
        node.write_myid()

    def set_kind(self, myid, kind):
        """Makes the (stopped) node a `kind` server from its next start, on
        the same zoo.cfg, ports and dataDir (wipe() it first: neither kind
        reads the other's files here)."""
        node = self.nodes[myid]
        if kind not in KINDS:
            raise ValueError(f"unknown server kind {kind!r}")
        if node.running():
            raise EnsembleError(f"{node.name} runs: stop it before changing its kind")
        node.kind = kind
        self.kinds[myid - 1] = kind

    def mode(self, myid):
        return self.nodes[myid].mode()

    def wait_serving(self, myid, timeout=30.0):
        """The node's mode once it serves as a leader or follower."""
        node = self.nodes[myid]

        def serving():
            mode = node.mode()
            return mode if mode in ("leader", "follower") else None

        return self.wait_for(f"{node.name} serving", serving, timeout)

    def log_mark(self, myid):
        """A point in the node's log, for log_since()."""
        return self.nodes[myid].log_size()

    def log_since(self, myid, mark):
        return self.nodes[myid].log_text(since=mark)

    def connect_string(self, myid):
        return self.nodes[myid].hostport

    def log_tail(self, myid, lines=LOG_TAIL_LINES, grep=None):
        return self.nodes[myid].log_tail(lines, grep)

    # -- the whole ensemble -----------------------------------------------------

    def status(self):
        """One line per node: kind, running or not, the last line of srvr."""
        out = []
        for myid, node in self.nodes.items():
            if not node.running():
                state = "not running" if node.proc is None else f"exited {node.proc.returncode}"
                out.append(f"  server {myid} ({node.kind}): {state}")
                continue
            reply = node.srvr().strip().splitlines()
            mode = [line for line in reply if line.startswith("Mode:")]
            out.append(f"  server {myid} ({node.kind}): {(mode or reply[-1:] or ['?'])[0]}")
        return "\n".join(out)

    def log_tails(self, lines=LOG_TAIL_LINES):
        """Every node's log tail, for failure messages, and the lines a tail
        may miss: zkd's last "Apache peer protocol:" and "now ..." lines (of
        a node that ran zkd at any time: set_kind()), Apache's last warnings,
        errors and exceptions."""
        out = []
        for myid, node in self.nodes.items():
            out.append(f"--- server {myid} ({node.kind}) log tail: {node.log_path} ---\n"
                       f"{node.log_tail(lines)}")
            text = node.log_text().splitlines(keepends=True)
            zkd_lines = [line for line in text if ZKD_NOTABLE.search(line)]
            if zkd_lines:
                out.append(f"--- server {myid}: zkd's 'Apache peer protocol:' and 'now' lines "
                           f"---\n{''.join(zkd_lines[-lines:])}")
            apache_lines = [line for line in text if APACHE_NOTABLE.search(line)]
            if apache_lines:
                out.append(f"--- server {myid}: Apache's warnings, errors, exceptions ---\n"
                           f"{''.join(apache_lines[-lines:])}")
        return "\n".join(out)

    def wait_for(self, what, condition, timeout):
        """condition()'s first true value, polled until `timeout` seconds
        pass; raises EnsembleError naming `what` and the nodes' status, or
        at once when a node that was started has exited."""
        deadline = time.monotonic() + timeout
        while True:
            self._check_alive()
            value = condition()
            if value:
                return value
            if time.monotonic() >= deadline:
                raise EnsembleError(f"{what}: not within {timeout:.0f}s\n{self.status()}")
            # Poll interval, not synchronisation: the deadline bounds the wait.
            time.sleep(POLL_S)

    def wait_for_leader(self, timeout=30.0):
        """The id of the leader, once every running node reports a mode and
        exactly one of them leads."""
        def leader():
            modes = {myid: self.nodes[myid].mode() for myid in self.running_ids()}
            if not modes or not all(modes.values()):
                return None
            leaders = [myid for myid, mode in modes.items() if mode == "leader"]
            return leaders[0] if len(leaders) == 1 else None

        return self.wait_for(f"one leader among servers {self.running_ids()}", leader, timeout)

    def _check_alive(self):
        for node in self.nodes.values():
            if node.proc is not None and node.proc.poll() is not None:
                raise EnsembleError(
                    f"{node.name} exited with status {node.proc.returncode}\n{self.status()}\n"
                    f"--- its log tail ---\n{node.log_tail()}")

    def mark_failed(self):
        """Keep the files and print the log tails at the end."""
        self.failed = True

    def close(self):
        for node in self.nodes.values():
            node.end()
        if self.dir is None:
            return
        if self.failed or os.environ.get("ZK_CONFORMANCE_KEEP"):
            if self.failed:
                print(self.log_tails(), file=sys.stderr)
            print(f"[mixed_ensemble] files kept in {self.dir}", file=sys.stderr)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def __enter__(self):
        return self.create()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.failed = True
        self.close()
        return False


def main():
    """Manual use: run an ensemble until Ctrl-C, e.g.
    mixed_ensemble.py --zkd-bin build/zkd/zkd zkd apache apache"""
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zkd-bin", default=os.environ.get("ZKD_BIN"))
    parser.add_argument("kinds", nargs="+", choices=KINDS)
    args = parser.parse_args()
    with MixedEnsemble(args.kinds, args.zkd_bin) as ensemble:
        ensemble.start_all()
        leader = ensemble.wait_for_leader()
        print(f"leader: server {leader}\n{ensemble.status()}\n"
              f"connect: {','.join(n.hostport for n in ensemble.nodes.values())}\n"
              f"dir: {ensemble.dir}", flush=True)
        servers.wait_until_interrupted()
    return 0


if __name__ == "__main__":
    sys.exit(main())
