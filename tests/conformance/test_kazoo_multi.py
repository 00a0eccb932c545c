#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""kazoo (python3-kazoo 2.8) transactions (multi, opcode 14) against a server.

Usage:
  test_kazoo_multi.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

The same assertions hold for zkd and for Apache ZooKeeper 3.8.0 (run with
--server apache to check the test itself):

  * a committed transaction returns one result per operation (path, Stat,
    True) and leaves all of its changes in the tree, stamped with one zxid;
  * a failed transaction returns RolledBackError for the operations before
    the failing one, that one's error, RuntimeInconsistency after it, and
    leaves the tree (data, Stats, children) as it was;
  * sequential creates in a transaction are numbered from the parent's
    counter, and a rolled-back one does not advance it;
  * an ephemeral created in a transaction disappears when its session closes;
  * watches set before a transaction fire once per touched node after it
    commits (data, exists and child watches), and none fire when it fails;
  * check() passes with the current version and fails the transaction with
    BadVersionError / NoNodeError otherwise;
  * a transaction of 1,000 operations commits whole at one zxid, and one
    whose last of 1,000 operations fails changes nothing.

Exits 77 (skip) when kazoo is not installed.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402
import test_kazoo  # noqa: E402  (EventSink, kazoo_client, stop_quietly)

try:
    from kazoo.exceptions import (BadVersionError, NodeExistsError, NoNodeError,
                                  RolledBackError, RuntimeInconsistency)
    from kazoo.protocol.states import EventType
except ImportError:
    EventType = None

ARGS = None  # parsed command line, set in main()


def commit(transaction):
    """Commits a kazoo transaction; its results, or an error after the deadline."""
    return transaction.commit_async().get(timeout=test_kazoo.OP_TIMEOUT)


class TransactionTest(servers.ClassServerTest):
    """One server for the class; each test under its own top-level path."""

    def setUp(self):
        self.clients = []

    def tearDown(self):
        test_kazoo.stop_quietly(*self.clients)

    def client(self):
        c = test_kazoo.kazoo_client(self.server.hostport)
        self.clients.append(c)
        return c

    def snapshot(self, zk, root):
        """{path: (data, stat)} of `root` and all its descendants."""
        out = {}
        todo = [root]
        while todo:
            path = todo.pop()
            out[path] = zk.get(path)
            todo.extend(f"{path}/{child}" for child in zk.get_children(path))
        return out

    def assert_results(self, results, expected_types):
        self.assertEqual([type(r) for r in results], expected_types, results)

    # -- committed -----------------------------------------------------------

    def test_committed_transaction_results_and_tree(self):
        zk = self.client()
        zk.create("/tx-ok", b"")
        zk.create("/tx-ok/old", b"o")
        zk.create("/tx-ok/gone", b"g")
        t = zk.transaction()
        t.create("/tx-ok/new", b"n")
        t.set_data("/tx-ok/old", b"o2", version=0)
        t.check("/tx-ok/old", 1)  # sees the setData before it
        t.delete("/tx-ok/gone", version=0)
        t.create("/tx-ok/new/child", b"c")  # sees the create before it
        results = commit(t)

        self.assertEqual(len(results), 5, results)
        self.assertEqual(results[0], "/tx-ok/new")
        set_stat = results[1]
        self.assertEqual((set_stat.version, set_stat.dataLength), (1, 2))
        self.assertEqual(results[2:], [True, True, "/tx-ok/new/child"])

        self.assertEqual(sorted(zk.get_children("/tx-ok")), ["new", "old"])
        self.assertIsNone(zk.exists("/tx-ok/gone"))
        old_data, old_stat = zk.get("/tx-ok/old")
        self.assertEqual((old_data, old_stat), (b"o2", set_stat))
        new_data, new_stat = zk.get("/tx-ok/new")
        self.assertEqual((new_data, new_stat.numChildren), (b"n", 1))
        child_data, child_stat = zk.get("/tx-ok/new/child")
        self.assertEqual(child_data, b"c")
        parent = zk.exists("/tx-ok")
        # One transaction, one zxid on every node it touched.
        zxid = new_stat.czxid
        self.assertEqual(
            (old_stat.mzxid, child_stat.czxid, new_stat.pzxid, parent.pzxid),
            (zxid, zxid, zxid, zxid))
        self.assertGreater(zxid, old_stat.czxid)
        # 3 children created, 1 deleted.
        self.assertEqual((parent.cversion, parent.numChildren), (4, 2))

    def test_empty_transaction_commits(self):
        zk = self.client()
        self.assertEqual(commit(zk.transaction()), [])

    # -- failed ----------------------------------------------------------------

    def test_failed_transaction_leaves_tree_unchanged(self):
        zk = self.client()
        zk.create("/tx-fail", b"p")
        zk.create("/tx-fail/a", b"a")
        zk.set("/tx-fail/a", b"a1")
        before = self.snapshot(zk, "/tx-fail")

        t = zk.transaction()
        t.create("/tx-fail/b", b"b")
        t.set_data("/tx-fail/a", b"changed")
        t.check("/tx-fail/a", 1)  # the setData above made it 2
        t.delete("/tx-fail/a")
        results = commit(t)
        self.assert_results(results, [RolledBackError, RolledBackError, BadVersionError,
                                      RuntimeInconsistency])
        self.assertEqual(self.snapshot(zk, "/tx-fail"), before)

    def test_a_thousand_operations(self):
        zk = self.client()
        zk.create("/tx-big", b"")
        t = zk.transaction()
        for i in range(1000):
            t.create(f"/tx-big/n{i:04d}", b"v" * 20)
        results = commit(t)
        self.assertEqual(results, [f"/tx-big/n{i:04d}" for i in range(1000)])
        self.assertEqual(zk.exists("/tx-big").numChildren, 1000)
        zxids = {zk.exists(f"/tx-big/n{i:04d}").czxid for i in (0, 499, 999)}
        self.assertEqual(len(zxids), 1, "one transaction, one zxid")

        before = self.snapshot(zk, "/tx-big")
        t = zk.transaction()
        for i in range(999):
            t.set_data(f"/tx-big/n{i:04d}", b"changed")
        t.check("/tx-big/n0000", 7)  # fails: every other operation rolls back
        results = commit(t)
        self.assert_results(results, [RolledBackError] * 999 + [BadVersionError])
        self.assertEqual(self.snapshot(zk, "/tx-big"), before)

    def test_failing_first_operation(self):
        zk = self.client()
        zk.create("/tx-first", b"")
        zk.create("/tx-first/x", b"")
        before = self.snapshot(zk, "/tx-first")
        cases = [
            (lambda t: t.delete("/tx-first/missing"), NoNodeError),
            (lambda t: t.create("/tx-first/x", b""), NodeExistsError),
            (lambda t: t.set_data("/tx-first/x", b"", version=3), BadVersionError),
        ]
        for first, error in cases:
            with self.subTest(error=error.__name__):
                t = zk.transaction()
                first(t)
                t.create("/tx-first/y", b"")
                t.set_data("/tx-first", b"changed")
                self.assert_results(commit(t),
                                    [error, RuntimeInconsistency, RuntimeInconsistency])
                self.assertEqual(self.snapshot(zk, "/tx-first"), before)

    # -- sequential and ephemeral ----------------------------------------------

    def test_sequential_create_in_transaction(self):
        zk = self.client()
        zk.create("/tx-seq", b"")
        t = zk.transaction()
        t.create("/tx-seq/n-", b"", sequence=True)
        t.create("/tx-seq/plain", b"")
        t.create("/tx-seq/n-", b"", sequence=True)
        self.assertEqual(commit(t),
                         ["/tx-seq/n-0000000000", "/tx-seq/plain", "/tx-seq/n-0000000002"])
        self.assertEqual(sorted(zk.get_children("/tx-seq")),
                         ["n-0000000000", "n-0000000002", "plain"])

        # A rolled-back sequential create does not advance the counter.
        t = zk.transaction()
        t.create("/tx-seq/n-", b"", sequence=True)
        t.delete("/tx-seq/missing")
        self.assert_results(commit(t), [RolledBackError, NoNodeError])
        self.assertEqual(zk.create("/tx-seq/n-", b"", sequence=True), "/tx-seq/n-0000000003")

    def test_ephemeral_create_in_transaction_gone_after_close(self):
        owner, observer = self.client(), self.client()
        observer.create("/tx-eph", b"")
        t = owner.transaction()
        t.create("/tx-eph/e", b"", ephemeral=True)
        t.create("/tx-eph/es-", b"", ephemeral=True, sequence=True)
        t.create("/tx-eph/p", b"")
        self.assertEqual(commit(t), ["/tx-eph/e", "/tx-eph/es-0000000001", "/tx-eph/p"])
        session = owner.client_id[0]
        self.assertEqual(observer.exists("/tx-eph/e").ephemeralOwner, session)
        self.assertEqual(observer.exists("/tx-eph/es-0000000001").ephemeralOwner, session)
        self.assertEqual(observer.exists("/tx-eph/p").ephemeralOwner, 0)

        sink = test_kazoo.EventSink(observer)
        observer.exists("/tx-eph/e", watch=sink.watcher)
        owner.stop()
        self.assertEqual(sink.wait(), (EventType.DELETED, "/tx-eph/e"))
        self.assertEqual(observer.get_children("/tx-eph"), ["p"])

    # -- watches ----------------------------------------------------------------

    def test_watches_fire_once_per_touched_node_after_commit(self):
        watcher, writer = self.client(), self.client()
        writer.create("/tx-w", b"")
        writer.create("/tx-w/d", b"0")
        writer.create("/tx-w/del", b"")
        sink = test_kazoo.EventSink(watcher)
        watcher.get("/tx-w/d", watch=sink.watcher)
        watcher.get("/tx-w/del", watch=sink.watcher)
        self.assertIsNone(watcher.exists("/tx-w/new", watch=sink.watcher))
        self.assertEqual(sorted(watcher.get_children("/tx-w", watch=sink.watcher)), ["d", "del"])

        t = writer.transaction()
        t.set_data("/tx-w/d", b"1")
        t.set_data("/tx-w/d", b"2")  # same node again: no second event
        t.create("/tx-w/new", b"")
        t.create("/tx-w/new2", b"")  # same parent again: no second child event
        t.delete("/tx-w/del")
        commit(t)
        watcher.exists("/")  # read barrier: the events precede this reply
        self.assertEqual(sink.drain(), [
            (EventType.CHANGED, "/tx-w/d"),
            (EventType.CREATED, "/tx-w/new"),
            (EventType.CHILD, "/tx-w"),
            (EventType.DELETED, "/tx-w/del"),
        ])

        # The watches were one-shot: a further transaction fires nothing.
        t = writer.transaction()
        t.set_data("/tx-w/d", b"3")
        t.delete("/tx-w/new2")
        commit(t)
        watcher.exists("/")
        self.assertEqual(sink.drain(), [])

    def test_failed_transaction_fires_no_watches(self):
        watcher, writer = self.client(), self.client()
        writer.create("/tx-wf", b"")
        writer.create("/tx-wf/d", b"")
        sink = test_kazoo.EventSink(watcher)
        watcher.get("/tx-wf/d", watch=sink.watcher)
        watcher.get_children("/tx-wf", watch=sink.watcher)
        t = writer.transaction()
        t.set_data("/tx-wf/d", b"x")
        t.create("/tx-wf/n", b"")
        t.check("/tx-wf/d", 0)  # version is 1 after the setData above
        self.assert_results(commit(t), [RolledBackError, RolledBackError, BadVersionError])
        watcher.exists("/")
        self.assertEqual(sink.drain(), [])
        # Still armed: a later change fires them.
        writer.set("/tx-wf/d", b"y")
        self.assertEqual(sink.wait(), (EventType.CHANGED, "/tx-wf/d"))

    # -- check --------------------------------------------------------------------

    def test_check_in_transaction(self):
        zk = self.client()
        zk.create("/tx-check", b"")
        zk.set("/tx-check", b"v1")
        t = zk.transaction()
        t.check("/tx-check", 1)
        t.check("/tx-check", -1)  # any version
        t.create("/tx-check/c", b"")
        self.assertEqual(commit(t), [True, True, "/tx-check/c"])

        for path, version, error in (("/tx-check", 0, BadVersionError),
                                     ("/tx-check/missing", 0, NoNodeError),
                                     ("/tx-check/missing", -1, NoNodeError)):
            with self.subTest(path=path, version=version):
                t = zk.transaction()
                t.create("/tx-check/d", b"")
                t.check(path, version)
                self.assert_results(commit(t), [RolledBackError, error])
                self.assertIsNone(zk.exists("/tx-check/d"))


def main():
    return servers.unittest_main(sys.modules[__name__], EventType is not None)


if __name__ == "__main__":
    sys.exit(main())
