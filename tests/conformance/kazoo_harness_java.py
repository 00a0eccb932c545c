#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Stands in for `java` when kazoo's own test harness (kazoo.testing)
starts "Apache ZooKeeper": the harness runs
`java -cp ... -D... org.apache.zookeeper.server.quorum.QuorumPeerMain zoo.cfg`;
this runs zkd (ZKD_BIN) on that zoo.cfg instead, handing the -D system
properties over as Apache's zkServer.sh would (SERVER_JVMFLAGS), so that
kazoo's unmodified test suite runs against zkd ensembles."""
import os
import sys


def main():
    args = sys.argv[1:]
    if not args or not args[-2:-1] == ["org.apache.zookeeper.server.quorum.QuorumPeerMain"]:
        sys.exit("kazoo_harness_java: expected ... QuorumPeerMain zoo.cfg, got %r" % args)
    props = [a for a in args[:-2] if a.startswith("-D")]
    env = dict(os.environ)
    env["SERVER_JVMFLAGS"] = " ".join(props)
    zkd = os.environ["ZKD_BIN"]
    os.execve(zkd, [zkd, args[-1]], env)


if __name__ == "__main__":
    main()
