#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Containers and TTL nodes made by Apache's Java CLI (zkCli.sh 3.8) against a server.

Usage:
  test_zkcli_containers.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

The nodes are made by an unmodified client, `zkCli.sh -server HOST:PORT
create -c PATH` (createContainer, opcode 19) and `create -t TTL PATH`
(createTTL, opcode 21); a raw session (zkwire) adds and removes children and
watches. The same assertions hold for zkd and for Apache ZooKeeper 3.8.0
(run with --server apache):

  * both kinds show ephemeralOwner 0;
  * a container goes once its last child went, a container with a child
    stays;
  * a TTL node goes once its TTL passed, a TTL node with a child stays (it
    is made with its child by a createTTL sub-op of a multi, which answers
    as create2).

The server runs with extendedTypesEnabled=true and a container check every
100 ms (zkd: zoo.cfg znode.container.checkIntervalMs; Apache reads it only
as the JVM property of that name, passed with -D). Removals are awaited as
NodeDeleted events, each with a deadline; nothing is timed.

Exits 77 (skip) when zkCli.sh (Debian's `zookeeper` package) is missing.
"""

import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402
import zkwire as w  # noqa: E402

ZKCLI = servers.ZKCLI
CHECK_INTERVAL_MS = 100
REMOVAL_DEADLINE_S = 20  # many check intervals and one TTL
EVENT_NODE_DELETED = 2
OP_CREATE_TTL = 21
ARGS = None


class ContainerServer(servers.Server):
    """A server whose container manager checks every CHECK_INTERVAL_MS."""

    def __init__(self, kind, **kwargs):
        extra = {"extendedTypesEnabled": "true"}
        if kind == "zkd":
            extra["znode.container.checkIntervalMs"] = str(CHECK_INTERVAL_MS)
        super().__init__(kind, extra_config=extra, **kwargs)

    def _command(self):
        command = super()._command()
        if self.kind == "apache":  # JVM flags go before -cp
            command[1:1] = [f"-Dznode.container.checkIntervalMs={CHECK_INTERVAL_MS}"]
        return command


zkcli = servers.zkcli


class ZkCliContainerTest(unittest.TestCase):
    def setUp(self):
        kwargs = {"zkd_bin": ARGS.zkd_bin} if ARGS.server == "zkd" else {}
        self.server = ContainerServer(ARGS.server, **kwargs).start()
        self.session = w.Session(self.server.host, self.server.port)

    def tearDown(self):
        self.session.close()
        self.server.stop()  # ZK_CONFORMANCE_KEEP=1 keeps its directory and log

    def cli_create(self, *args):
        out = zkcli(self.server, "create", *args)
        self.assertIn(f"Created {args[-1]}", out)

    def watch(self, path):
        """exists with a watch; the node's Stat."""
        reply = self.session.exists(path, watch=True)
        self.assertEqual(reply.err, 0, path)
        return reply.body.stat()

    def exists(self, path):
        return self.session.exists(path).err == 0

    def wait_deleted(self, path):
        deadline = time.monotonic() + REMOVAL_DEADLINE_S
        while True:
            for event in self.session.events:
                if event.type == EVENT_NODE_DELETED and event.path == path:
                    return
            left = deadline - time.monotonic()
            if left <= 0:
                self.fail(f"{path} not deleted within {REMOVAL_DEADLINE_S}s")
            try:
                reply = self.session.read_reply(timeout=left)
            except w.Timeout:
                continue
            if reply.xid == w.XID_NOTIFICATION:
                self.session.events.append(w.Event(reply))

    def test_container_goes_after_its_last_child(self):
        self.cli_create("-c", "/c")
        self.cli_create("-c", "/busy")
        self.assertEqual(self.session.create("/busy/x").err, 0)
        self.assertEqual(self.session.create("/c/child").err, 0)
        self.assertEqual(self.watch("/c")["ephemeralOwner"], 0)
        self.assertEqual(self.session.delete("/c/child").err, 0)
        self.wait_deleted("/c")
        self.assertFalse(self.exists("/c"))
        self.assertTrue(self.exists("/busy"))  # the sweep that took /c looked at it too

    def test_ttl_node_goes_after_its_ttl(self):
        # A TTL node born with a child (one multi, so the child is there
        # before any check can find it expired).
        kept = (w.ustring("/kept") + w.buffer(b"") + w.acl_vector(w.OPEN_ACL_UNSAFE) + w.int32(5)
                + w.int64(1))
        child = w.ustring("/kept/x") + w.buffer(b"") + w.acl_vector(w.OPEN_ACL_UNSAFE) + w.int32(0)
        reply = self.session.multi([(OP_CREATE_TTL, kept), (w.OP_CREATE, child)])
        self.assertEqual([(r.type, r.err) for r in w.multi_response(reply.body)],
                         [(w.OP_CREATE2, 0), (w.OP_CREATE, 0)])
        self.cli_create("-t", "500", "/t")
        self.assertEqual(self.watch("/t")["ephemeralOwner"], 0)
        self.wait_deleted("/t")
        self.assertFalse(self.exists("/t"))
        self.assertTrue(self.exists("/kept"))  # expired, but has a child


def main():
    return servers.unittest_main(sys.modules[__name__], servers.zkcli_available(),
                                 missing=f"{ZKCLI} not installed (apt-get install zookeeper)")


if __name__ == "__main__":
    sys.exit(main())
