#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Stands in for `java` when kazoo's own test harness (kazoo.testing)
starts "Apache ZooKeeper": the harness runs
`java -cp ... -D... org.apache.zookeeper.server.quorum.QuorumPeerMain zoo.cfg`;
this runs zkd (ZKD_BIN) on that zoo.cfg instead, handing the -D system
properties over as Apache's zkServer.sh would (SERVER_JVMFLAGS), so that
kazoo's unmodified test suite runs against zkd ensembles.

Mixed ensembles (test_kazoo_suite.py --server mixed) set
KAZOO_HARNESS_ZKD_IDS, e.g. "1,3": the server whose dataDir/myid is listed
runs zkd, the others the real java (KAZOO_HARNESS_JAVA) with the harness's
arguments unchanged. Every server's zoo.cfg then gets zkd.peerProtocol=apache
(Apache turns the unknown key into a system property it never reads), and,
with KAZOO_HARNESS_LOG_DIR set, each server's output is appended to
<that dir>/server<myid>-<zkd|apache>.log, which outlives the harness's own
temp dirs."""
import os
import sys

QUORUM_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
PEER_PROTOCOL_LINE = "zkd.peerProtocol=apache"


def myid_of(config_path):
    """The myid in the dataDir the harness's zoo.cfg names."""
    with open(config_path) as f:
        for line in f:
            key, _, value = line.strip().partition("=")
            if key.strip() == "dataDir":
                with open(os.path.join(value.strip(), "myid")) as m:
                    return int(m.read().strip())
    sys.exit(f"kazoo_harness_java: no dataDir in {config_path}")


def add_peer_protocol(config_path):
    # The harness rewrites zoo.cfg on every start; add the line once.
    with open(config_path) as f:
        if any(line.strip() == PEER_PROTOCOL_LINE for line in f):
            return
    with open(config_path, "a") as f:
        f.write(PEER_PROTOCOL_LINE + "\n")


def redirect_output(log_dir, myid, kind):
    os.makedirs(log_dir, exist_ok=True)
    path = os.path.join(log_dir, f"server{myid}-{kind}.log")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.write(fd, f"=== kazoo harness: starting server {myid} ({kind}) ===\n".encode())
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def main():
    args = sys.argv[1:]
    if not args or not args[-2:-1] == [QUORUM_MAIN]:
        sys.exit("kazoo_harness_java: expected ... QuorumPeerMain zoo.cfg, got %r" % args)
    config_path = args[-1]
    env = dict(os.environ)
    kind = "zkd"
    zkd_ids = env.get("KAZOO_HARNESS_ZKD_IDS")
    if zkd_ids is not None:  # a mixed ensemble
        myid = myid_of(config_path)
        if str(myid) not in zkd_ids.replace(" ", "").split(","):
            kind = "apache"
        add_peer_protocol(config_path)
        if env.get("KAZOO_HARNESS_LOG_DIR"):
            redirect_output(env["KAZOO_HARNESS_LOG_DIR"], myid, kind)
    if kind == "apache":
        java = env["KAZOO_HARNESS_JAVA"]
        os.execve(java, [java] + args, env)
    props = [a for a in args[:-2] if a.startswith("-D")]
    env["SERVER_JVMFLAGS"] = " ".join(props)
    zkd = os.environ["ZKD_BIN"]
    os.execve(zkd, [zkd, config_path], env)


if __name__ == "__main__":
    main()
