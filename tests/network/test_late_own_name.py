#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Start-up that waits for the network (issue 42): a server whose own name
resolves only 10 s after it starts joins its ensemble without a restart.

Three zkd processes on loopback; server 1's server.N line names it
zk-late-own-name.test, which no resolver knows at first, as a pod's own DNS
record is missing for a while after the pod starts. The test checks that:

  * server 1 keeps running, logs each failed resolution of its own name
    (name and error), and is not ready (/readyz 503), while servers 2 and 3,
    which cannot resolve it either, form a quorum and serve;
  * once the name resolves (10 s after server 1 started), server 1 listens
    on the address it names and joins as a follower, the same process, and
    /readyz says ok;
  * servers 2 and 3 run with quorumListenOnAllIPs=true: their quorum ports
    take connections on any loopback address, not only their own.

The name is made to resolve without touching the machine's /etc/hosts: the
test re-runs itself under `unshare --mount` and bind-mounts a file of its
own over /etc/hosts in that private mount namespace (the zkd processes are
its children, so they see it too), then appends the name's line to that
file. Needs root (or the right to unshare a mount namespace); exits 77
(skipped) without it, saying why.

With --peer-protocol apache the three servers speak Apache's peer protocol
(zkd.peerProtocol=apache: election and quorum ports, both retried alike).

Run: test_late_own_name.py --zkd-bin build/zkd/zkd [--peer-protocol apache]   (or ZKD_BIN)
"""

import argparse
import http.client
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402

LATE_NAME = "zk-late-own-name.test"
LATE_ADDRESS = "127.0.0.21"  # server 1's, once its name resolves
ADDRESSES = {1: LATE_NAME, 2: "127.0.0.22", 3: "127.0.0.23"}
RESOLVES_AFTER_S = 10.0  # the delay
DEADLINE_S = 40.0  # for each state to be reached
POLL_S = 0.05
INSIDE = "ZK_LATE_NAME_PRIVATE_MOUNTS"


def skip(reason):
    print(f"SKIP: {reason}", file=sys.stderr)
    sys.exit(77)


def fail(reason):
    print(f"FAIL: {reason}", file=sys.stderr)
    sys.exit(1)


def wait_until(what, condition, deadline_s=DEADLINE_S):
    """Polls condition() until it returns a true value (returned), or fails
    naming `what` at the deadline."""
    until = time.monotonic() + deadline_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= until:
            fail(f"not within {deadline_s:.0f} s: {what}")
        time.sleep(POLL_S)


def in_private_mount_namespace():
    """Re-runs this script under `unshare --mount` unless it runs there."""
    if os.environ.get(INSIDE) == "1":
        return
    if shutil.which("unshare") is None:
        skip("unshare (util-linux) is not installed")
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        skip(f"cannot unshare a mount namespace here: {probe.stderr.strip()}")
    env = dict(os.environ, **{INSIDE: "1"})
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable,
                           os.path.abspath(__file__), *sys.argv[1:]], env=env)
    sys.exit(done.returncode)


def private_hosts_file(directory):
    """A copy of /etc/hosts bind-mounted over it (in this namespace only);
    returns its path. Lines are appended in place: the mount follows the
    file's inode, so it must never be replaced by a rename."""
    path = os.path.join(directory, "hosts")
    with open("/etc/hosts") as original, open(path, "w") as copy:
        copy.write(original.read())
    mounted = subprocess.run(["mount", "--bind", path, "/etc/hosts"], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        skip(f"cannot bind-mount over /etc/hosts: {mounted.stderr.strip()}")
    return path


def resolves(name):
    try:
        socket.getaddrinfo(name, None)
        return True
    except OSError:
        return False


class Node:
    def __init__(self, zkd_bin, directory, my_id, ports, extra):
        self.id = my_id
        self.dir = os.path.join(directory, f"node{my_id}")
        self.client_port, self.admin_port = ports[my_id]["client"], ports[my_id]["admin"]
        os.makedirs(os.path.join(self.dir, "data"))
        with open(os.path.join(self.dir, "data", "myid"), "w") as f:
            f.write(f"{my_id}\n")
        lines = ["tickTime=200", "initLimit=10", "syncLimit=5",
                 f"dataDir={os.path.join(self.dir, 'data')}",
                 f"clientPort={self.client_port}", "clientPortAddress=127.0.0.1",
                 "4lw.commands.whitelist=*", "admin.serverAddress=127.0.0.1",
                 f"admin.serverPort={self.admin_port}"]
        for n, host in ADDRESSES.items():
            lines.append(f"server.{n}={host}:{ports[n]['quorum']}:{ports[n]['election']}")
        lines += [f"{k}={v}" for k, v in extra.items()]
        self.config = os.path.join(self.dir, "zoo.cfg")
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.log_path = os.path.join(self.dir, "zkd.log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([zkd_bin, "--config", self.config], cwd=self.dir,
                                     stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT)

    def log_text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def mode(self):
        """srvr's Mode, or None (not serving, not answering)."""
        try:
            reply = servers.four_letter_word("127.0.0.1", self.client_port, "srvr", timeout=2.0)
        except OSError:
            return None
        match = re.search(r"^Mode: (\S+)", reply, re.M)
        return match.group(1) if match else None

    def readyz(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.admin_port, timeout=5)
        try:
            connection.request("GET", "/readyz")
            response = connection.getresponse()
            return response.status, response.read().decode()
        except OSError as e:
            return None, str(e)
        finally:
            connection.close()

    def stop(self):
        servers.terminate(self.proc)
        self.log.close()


def run(zkd_bin, peer_protocol):
    directory = tempfile.mkdtemp(prefix="zk_late_own_name_")
    nodes = []
    try:
        hosts = private_hosts_file(directory)
        if resolves(LATE_NAME):
            fail(f"{LATE_NAME} resolves before the test made it")
        ports = {n: {k: servers.free_loopback_port()
                     for k in ("client", "admin", "quorum", "election")} for n in ADDRESSES}
        common = {"zkd.peerProtocol": peer_protocol}
        all_ips = dict(common, quorumListenOnAllIPs="true")
        started = time.monotonic()
        nodes = [Node(zkd_bin, directory, 1, ports, common),
                 Node(zkd_bin, directory, 2, ports, all_ips),
                 Node(zkd_bin, directory, 3, ports, all_ips)]
        one = nodes[0]
        pid = one.proc.pid

        def failed_resolutions():
            if one.proc.poll() is not None:
                fail(f"server 1 exited with status {one.proc.returncode}")
            return len(re.findall(rf"cannot resolve its own address {re.escape(LATE_NAME)}: \S",
                                  one.log_text()))

        wait_until("servers 2 and 3 serve without server 1",
                   lambda: {nodes[1].mode(), nodes[2].mode()} == {"leader", "follower"})
        wait_until("server 1 logs a failed resolution of its own name", failed_resolutions)
        status, body = one.readyz()
        if status != 503:
            fail(f"server 1's /readyz before it joined: {status} {body!r}")

        # quorumListenOnAllIPs: any loopback address reaches servers 2 and 3.
        for node in nodes[1:]:
            with socket.create_connection(("127.0.0.99", ports[node.id]["quorum"]), timeout=5):
                pass

        # The scenario's delay: the name appears 10 s after the server started.
        wait_until("10 s since server 1 started",
                   lambda: time.monotonic() - started >= RESOLVES_AFTER_S, RESOLVES_AFTER_S + 5)
        attempts = failed_resolutions()
        with open(hosts, "a") as f:
            f.write(f"{LATE_ADDRESS} {LATE_NAME}\n")
        if not resolves(LATE_NAME):
            fail(f"{LATE_NAME} does not resolve after the hosts line was added")

        wait_until("server 1 joins as a follower", lambda: one.mode() == "follower")
        if one.proc.pid != pid or one.proc.poll() is not None:
            fail("server 1 was restarted")
        def ready():
            answer = one.readyz()
            return answer if answer[0] == 200 else None

        status, body = wait_until("server 1's /readyz says ok", ready)
        listening = rf"listening on .*{re.escape(LATE_ADDRESS)}:{ports[1]['quorum']}\b"
        if not re.search(listening, one.log_text()):
            fail(f"server 1's log lacks a line matching {listening!r}")
        print(f"ok: server 1 failed to resolve its own name {attempts} times in "
              f"{RESOLVES_AFTER_S:.0f} s, then joined as a follower "
              f"{time.monotonic() - started:.1f} s after it started; /readyz {status} {body!r}")
        return 0
    except SystemExit:
        for node in nodes:
            print(f"--- server {node.id}'s log (end) ---\n{node.log_text()[-4000:]}",
                  file=sys.stderr)
        raise
    finally:
        for node in nodes:
            node.stop()
        shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zkd-bin", default=os.environ.get("ZKD_BIN"))
    parser.add_argument("--peer-protocol", choices=("zkd", "apache"), default="zkd")
    args = parser.parse_args()
    if not args.zkd_bin or not os.access(args.zkd_bin, os.X_OK):
        print("ERROR: no zkd binary: set ZKD_BIN or pass --zkd-bin", file=sys.stderr)
        return 2
    in_private_mount_namespace()
    return run(os.path.abspath(args.zkd_bin), args.peer_protocol)


if __name__ == "__main__":
    sys.exit(main())
