#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""zkd's limits against a real zkd process: globalOutstandingLimit
(back-pressure without loss), jute.maxbuffer (incoming frames), replies larger
than a Java client's jute.maxbuffer (the server does not limit them, as
Apache's does not), and maxClientCnxns with an unmodified client (kazoo).

Run: test_limits.py --zkd-bin build/zkd/zkd [--live-apache]
"""

import os
import shutil
import sys
import unittest

from admin_util import create_body, flood, mntr, server_kinds, server_of_kind, servers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
import zkwire  # noqa: E402

try:
    from kazoo.client import KazooClient

    KAZOO = True
except ImportError:  # unittest_main reports the skip
    KAZOO = False

ARGS = None
ZKCLI = servers.ZKCLI


def zkd(extra=None):
    return servers.server_from_args(ARGS, extra_config=extra or {})


class OutstandingLimitTest(unittest.TestCase):
    COUNT = 500

    def test_flood_beyond_the_limit_loses_nothing(self):
        limit = 2
        with zkd({"globalOutstandingLimit": limit}) as server:
            replies = flood(server, self.COUNT)
            self.assertEqual(replies, [(xid, 0) for xid in range(1, self.COUNT + 1)])
            figures = mntr(server)
        # Group commit puts every write waiting for the disk into one fsync;
        # with at most `limit` writes outstanding, no fsync carries more.
        self.assertLessEqual(float(figures["txns_per_fsync"]), limit)
        self.assertGreaterEqual(int(figures["cnt_fsynctime"]), self.COUNT // limit)
        self.assertEqual(int(figures["znode_count"]) >= self.COUNT, True)

    def test_without_the_limit_the_flood_loses_nothing(self):
        # How many writes share an fsync without the limit depends on the
        # machine's speed (well above 2 on a quiet one, as few as 1.4 under
        # ASan on a busy one), so it is not asserted: only that every reply
        # comes, in order.
        with zkd() as server:
            replies = flood(server, self.COUNT)
            self.assertEqual(replies, [(xid, 0) for xid in range(1, self.COUNT + 1)])


class MaxBufferTest(unittest.TestCase):
    def test_a_frame_longer_than_jute_maxbuffer_closes_its_connection(self):
        with zkd({"jute.maxbuffer": 2000}) as server:
            with zkwire.Session(server.host, server.port) as fits:
                self.assertEqual(fits.create("/fits", b"x" * 1900).err, 0)
                with zkwire.Session(server.host, server.port) as too_long:
                    too_long.send_request(zkwire.OP_CREATE, create_body("/long", b"x" * 3000))
                    too_long.expect_closed()
                # Only that connection: the other one still works.
                self.assertEqual(fits.exists("/long").err, -101)  # NONODE
                self.assertEqual(fits.create("/after", b"y" * 1900).err, 0)

    def test_replies_are_not_limited(self):
        # Apache sends a reply of any size; a client whose jute.maxbuffer is
        # smaller (the Java client: 0xfffff) drops the connection
        # ("Packet len N is out of range!"). kazoo has no such limit.
        with zkd() as server:
            client = KazooClient(hosts=server.hostport)
            client.start(timeout=15)
            try:
                names = make_big_listing(client)
                self.assertEqual(sorted(client.get_children("/big")), names)
            finally:
                client.stop()
                client.close()

    def test_java_client_drops_a_reply_over_its_maxbuffer(self):
        if not (os.access(ZKCLI, os.X_OK) and shutil.which("java")):
            self.skipTest("zkCli.sh (Apache ZooKeeper) is not installed")
        for kind in server_kinds(ARGS):
            with self.subTest(server=kind):
                with server_of_kind(ARGS, kind) as server:
                    client = KazooClient(hosts=server.hostport)
                    client.start(timeout=30)
                    try:
                        make_big_listing(client)
                    finally:
                        client.stop()
                        client.close()
                    # The control: a small listing reaches the same client.
                    self.assertIn("[big, zookeeper]", run_zkcli(server, "ls /"))
                    # The client reads "Packet len N is out of range!" and drops
                    # the connection; zkCli reports the loss (Apache: the same).
                    out = run_zkcli(server, "ls /big")
                    self.assertIn("KeeperErrorCode = ConnectionLoss for /big", out)
                    self.assertEqual(server.four_letter_word("ruok"), "imok")


def make_big_listing(client):
    """/big with children whose names add up to more than 1 MiB."""
    names = [f"{i:04d}-" + "n" * 995 for i in range(1100)]
    client.ensure_path("/big")
    for result in [client.create_async("/big/" + name) for name in names]:
        result.get(timeout=60)
    return names


def run_zkcli(server, command):
    """zkCli.sh's output (stdout and stderr) for one command; it exits after it."""
    return servers.zkcli(server, *command.split())


class ConnectionLimitTest(unittest.TestCase):
    def check_third_refused_until_one_leaves(self, config, path):
        """Two kazoo clients fill the limit `config` sets: a third connection
        (all from 127.0.0.1) is closed unanswered; once one client leaves, an
        unmodified client gets in and writes `path`. Returns the server's log."""
        with zkd(config) as server:
            clients = [KazooClient(hosts=server.hostport) for _ in range(2)]
            for c in clients:
                c.start(timeout=15)
            try:
                with zkwire.Connection(server.host, server.port) as third:
                    third.send(zkwire.frame(zkwire.connect_request(30000)))
                    self.assertEqual(third.expect_closed(), b"")
                clients[0].stop()
                clients[0].close()
                # The slot is free again: an unmodified client gets in.
                late = KazooClient(hosts=server.hostport)
                late.start(timeout=15)
                late.create(path)
                late.stop()
                late.close()
            finally:
                for c in clients[1:]:
                    c.stop()
                    c.close()
            with open(server.log_path, errors="replace") as log:
                return log.read()

    def test_kazoo_clients_beyond_the_per_address_limit_are_refused(self):
        self.check_third_refused_until_one_leaves({"maxClientCnxns": 2}, "/late")

    def test_connections_beyond_the_total_are_refused_whatever_their_address(self):
        log = self.check_third_refused_until_one_leaves({"maxCnxns": 2, "maxClientCnxns": 0},
                                                        "/late-total")
        self.assertIn("too many connections (maxCnxns", log)


def add_arguments(parser):
    parser.add_argument("--live-apache", action="store_true",
                        help="also run zkCli.sh against a live Apache server")


if __name__ == "__main__":
    sys.exit(servers.unittest_main(sys.modules[__name__], KAZOO, add_arguments))
