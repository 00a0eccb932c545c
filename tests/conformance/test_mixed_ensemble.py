#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A zkd server in one ensemble with two Apache ZooKeeper 3.8 servers.

Usage:
  test_mixed_ensemble.py [--zkd-bin PATH] [unittest args]

Each test starts its own ensemble (mixed_ensemble.py): server 1 is zkd with
zkd.peerProtocol=apache, servers 2 and 3 Apache's QuorumPeerMain, all on one
zoo.cfg shape. zkd follows an Apache leader (it has the lowest id, so an
Apache server wins every election: votes order by epoch, last zxid, then the
larger id). Clients are kazoo, each connected to one node alone; every
operation has a deadline (OP_TIMEOUT_S), and reads on another node than the
write's come after a sync().

  a. all three serve, an Apache server leads, zkd follows; writes made through
     Apache are read through zkd and the other way round (zkd forwards them
     to the leader); an ephemeral of a session on zkd goes when the session
     closes;
  b. a session made on zkd moves to an Apache node (same id and password)
     and still owns its ephemeral;
  c. the Apache leader is killed (SIGKILL): the other Apache server leads,
     zkd follows it, writes through zkd go on, no acknowledged write is lost;
  d. zkd is stopped and its dataDir wiped; 600+ writes later (more than the
     leader's committed-log window of 500, and snapshotSizeFactor=-1 rules
     out a sync from its txn log files, so the leader sends a SNAP) zkd is
     started again: it follows and serves every node.

On failure the nodes' log tails are printed (zkd's "Apache peer protocol:"
lines too) and their directory is kept; ZK_CONFORMANCE_KEEP=1 keeps it always.

Exits 77 (skip) when kazoo, Apache ZooKeeper or java is missing.
"""

import contextlib
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import mixed_ensemble  # noqa: E402
import servers  # noqa: E402
import zkwire  # noqa: E402

try:
    from kazoo.client import KazooClient
    from kazoo.exceptions import KazooException
    from kazoo.handlers.threading import KazooTimeoutError
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()

KINDS = ["zkd", "apache", "apache"]
ZKD = 1  # the zkd node's id: the lowest, so that it never wins an election

# Election and sync of a three-node ensemble (tickTime 200 ms), JVM start included.
QUORUM_TIMEOUT_S = 45.0
CONNECT_TIMEOUT_S = 15.0
OP_TIMEOUT_S = 10.0
# kazoo asks for this; the servers grant at most 20 ticks (4 s).
SESSION_TIMEOUT_S = 10.0
# Scenario d: more writes than Apache's committed-log window (500 txns).
CATCH_UP_WRITES = 650
BATCH = 100


class MixedEnsembleTest(unittest.TestCase):

    # -- helpers --------------------------------------------------------------

    @contextlib.contextmanager
    def ensemble(self):
        """A MixedEnsemble of KINDS, all started (not yet waited for); its
        kazoo clients (self.client) are stopped before its servers."""
        with mixed_ensemble.MixedEnsemble(KINDS, ARGS.zkd_bin) as ensemble:
            self.mixed = ensemble
            with contextlib.ExitStack() as clients:
                self.clients = clients
                ensemble.start_all()
                yield ensemble

    def client(self, myid, **kwargs):
        """A kazoo client connected to server `myid` alone."""
        node = self.mixed.node(myid)
        client = KazooClient(hosts=node.hostport, timeout=SESSION_TIMEOUT_S, **kwargs)
        try:
            client.start(timeout=CONNECT_TIMEOUT_S)
        except KazooTimeoutError:
            self.stop_client(client)
            self.fail(f"kazoo could not connect to {node.name} within {CONNECT_TIMEOUT_S:.0f}s\n"
                      f"{self.mixed.status()}")
        self.clients.callback(self.stop_client, client)
        return client

    @staticmethod
    def stop_client(client):
        try:
            client.stop()
            client.close()
        except Exception:  # noqa: BLE001 - cleanup only
            pass

    def call(self, client, what, method, *args, **kwargs):
        """client.<method>_async(...)'s result within OP_TIMEOUT_S (kazoo's
        blocking calls have no deadline)."""
        try:
            return getattr(client, method + "_async")(*args, **kwargs).get(timeout=OP_TIMEOUT_S)
        except KazooTimeoutError:
            self.fail(f"{what}: no reply within {OP_TIMEOUT_S:.0f}s\n{self.mixed.status()}")
        except KazooException as e:
            self.fail(f"{what}: {type(e).__name__} {e}\n{self.mixed.status()}")

    def calls(self, client, what, method, argument_lists):
        """Pipelined calls (BATCH at a time); their results in order."""
        results = []
        for start in range(0, len(argument_lists), BATCH):
            pending = [getattr(client, method + "_async")(*a)
                       for a in argument_lists[start:start + BATCH]]
            for args, result in zip(argument_lists[start:], pending):
                try:
                    results.append(result.get(timeout=OP_TIMEOUT_S))
                except KazooTimeoutError:
                    self.fail(f"{what} {args[0]}: no reply within {OP_TIMEOUT_S:.0f}s\n"
                              f"{self.mixed.status()}")
                except KazooException as e:
                    self.fail(f"{what} {args[0]}: {type(e).__name__} {e}\n{self.mixed.status()}")
        return results

    def read(self, client, path, what):
        """sync(path) then get(path): the data, or None when there is no node."""
        self.call(client, f"{what}: sync {path}", "sync", path)
        stat = self.call(client, f"{what}: exists {path}", "exists", path)
        if stat is None:
            return None
        return self.call(client, f"{what}: get {path}", "get", path)[0]

    def leader_with_zkd_following(self, expected=None):
        """Waits for one leader among the running nodes; checks that it is
        an Apache server (`expected` if given) and that zkd follows."""
        leader = self.mixed.wait_for_leader(QUORUM_TIMEOUT_S)
        status = self.mixed.status()
        self.assertEqual(self.mixed.node(leader).kind, "apache",
                         f"zkd (server {ZKD}) leads; it should follow an Apache leader\n{status}")
        if expected is not None:
            self.assertEqual(leader, expected, f"server {expected} should lead\n{status}")
        self.assertEqual(self.mixed.mode(ZKD), "follower",
                         f"zkd (server {ZKD}) should report Mode: follower\n{status}")
        return leader

    def other_apache(self, myid):
        return next(i for i in self.mixed.ids("apache") if i != myid)

    def write_sequence(self, client, parent, numbers, via):
        self.calls(client, f"create through {via}", "create",
                   [(f"{parent}/n-{i:04d}", f"value {i} via {via}".encode()) for i in numbers])

    def assert_sequence(self, client, parent, expected, where):
        """Every node of `expected` ({number: data}) under `parent`, and no other."""
        self.call(client, f"{where}: sync {parent}", "sync", parent)
        children = sorted(self.call(client, f"{where}: children of {parent}", "get_children",
                                    parent))
        wanted = sorted(f"n-{i:04d}" for i in expected)
        missing = sorted(set(wanted) - set(children))
        extra = sorted(set(children) - set(wanted))
        self.assertEqual((missing, extra), ([], []),
                         f"{where}: {len(missing)} acknowledged writes missing under {parent} "
                         f"(first {missing[:5]}), {len(extra)} unexpected (first {extra[:5]})\n"
                         f"{self.mixed.status()}")
        datas = self.calls(client, f"{where}: get", "get",
                           [(f"{parent}/{name}",) for name in wanted])
        got = {int(name[2:]): data for name, (data, _) in zip(wanted, datas)}
        wrong = [i for i in expected if got[i] != expected[i]]
        self.assertEqual(wrong, [], f"{where}: wrong data under {parent} for numbers "
                         f"{wrong[:5]}: e.g. {[got[i] for i in wrong[:1]]} instead of "
                         f"{[expected[i] for i in wrong[:1]]}")

    def assert_snapshot_sent(self, leader):
        """The scenario's premise: the leader's last sync of zkd was a SNAP
        (Apache's LearnerHandler logs "Synchronizing with Learner sid: N
        ... peerLastZxid=0x..." then, in the same thread, "Sending snapshot")."""
        log = self.mixed.log_tail(leader, lines=100000)
        syncs = list(re.finditer(rf"^\S+ \[(LearnerHandler-[^\]]+)\] .*Synchronizing with "
                                 rf"Learner sid: {ZKD} .*peerLastZxid=(0x[0-9a-f]+)$", log,
                                 re.MULTILINE))
        self.assertTrue(syncs, f"server {leader} never synced zkd")
        thread, peer_last_zxid = syncs[-1].groups()
        self.assertEqual(peer_last_zxid, "0x0", "the leader did not see a wiped zkd")
        self.assertRegex(log[syncs[-1].end():], rf"\[{re.escape(thread)}\] .*Sending snapshot",
                         f"server {leader} did not send zkd a SNAP (the scenario's premise)")

    # -- scenarios ------------------------------------------------------------

    def test_a_zkd_follows_and_serves_reads_writes_and_ephemerals(self):
        with self.ensemble():
            leader = self.leader_with_zkd_following()
            follower = self.other_apache(leader)
            self.assertEqual(self.mixed.mode(follower), "follower", self.mixed.status())

            apache = self.client(follower)
            self.call(apache, f"create /a through server {follower}", "create", "/a",
                      b"written through Apache")
            zkd = self.client(ZKD)
            self.assertEqual(self.read(zkd, "/a", "zkd"), b"written through Apache",
                             "/a written through an Apache follower, read through zkd")

            self.call(zkd, "create /b through zkd", "create", "/b", b"written through zkd")
            for myid in (follower, leader):
                reader = apache if myid == follower else self.client(leader)
                self.assertEqual(self.read(reader, "/b", f"server {myid}"), b"written through zkd",
                                 f"/b written through zkd, read through server {myid}")

            owner = self.client(ZKD)
            session = owner.client_id[0]
            self.call(owner, "create ephemeral /eph through zkd", "create", "/eph", b"",
                      ephemeral=True)
            self.call(apache, "sync /eph", "sync", "/eph")
            stat = self.call(apache, "exists /eph", "exists", "/eph")
            self.assertIsNotNone(stat, "/eph made through zkd not seen through Apache")
            self.assertEqual(stat.ephemeralOwner, session,
                             f"/eph's owner 0x{stat.ephemeralOwner:x} is not the zkd session "
                             f"0x{session:x}")
            owner.stop()  # closeSession, through zkd to the leader
            for reader, where in ((apache, f"server {follower}"), (zkd, "zkd")):
                self.assertIsNone(self.read(reader, "/eph", where),
                                  f"/eph still seen through {where} after its session "
                                  f"0x{session:x} closed on zkd")

    def test_b_session_made_on_zkd_moves_to_apache_with_its_ephemeral(self):
        with self.ensemble():
            leader = self.leader_with_zkd_following()
            target = self.other_apache(leader)
            # A client that loses zkd without closing its session (a raw
            # session: kazoo would either reconnect to zkd or close it).
            node = self.mixed.node(ZKD)
            first = zkwire.Session(node.host, node.client_port, timeout_ms=4000,
                                   io_timeout=OP_TIMEOUT_S)
            session, password = first.session_id, first.passwd
            self.assertNotEqual(session, 0, f"zkd refused a session\n{self.mixed.status()}")
            reply = first.create("/moving", b"owned", flags=1)  # ephemeral
            self.assertEqual(reply.err, 0, f"create ephemeral /moving through zkd: err {reply.err}")
            first.close()

            moved = self.client(target, client_id=(session, password))
            self.assertEqual(moved.client_id[0], session,
                             f"session 0x{session:x} made on zkd was not resumed on server "
                             f"{target}: kazoo got 0x{moved.client_id[0]:x} (expired?)")
            data, stat = self.call(moved, "get /moving", "get", "/moving")
            self.assertEqual((data, stat.ephemeralOwner), (b"owned", session),
                             "the moved session's ephemeral")
            self.call(moved, "create ephemeral /moved", "create", "/moved", b"",
                      ephemeral=True)
            observer = self.client(ZKD)
            self.call(observer, "sync /moved", "sync", "/moved")
            for path in ("/moving", "/moved"):
                stat = self.call(observer, f"exists {path}", "exists", path)
                self.assertIsNotNone(stat, f"{path} not seen through zkd")
                self.assertEqual(stat.ephemeralOwner, session, f"{path}'s owner")
            moved.stop()  # closes the session: both ephemerals go
            for path in ("/moving", "/moved"):
                self.assertIsNone(self.read(observer, path, "zkd"),
                                  f"{path} still there after its session closed on server "
                                  f"{target}")

    def test_c_leader_killed_zkd_follows_the_new_one_and_loses_nothing(self):
        with self.ensemble():
            leader = self.leader_with_zkd_following()
            survivor = self.other_apache(leader)
            zkd, apache = self.client(ZKD), self.client(survivor)
            self.call(zkd, "create /c", "create", "/c", b"")
            expected = {}
            self.write_sequence(zkd, "/c", range(0, 50), "zkd")
            self.write_sequence(apache, "/c", range(50, 100), f"server {survivor}")
            expected.update({i: f"value {i} via zkd".encode() for i in range(0, 50)})
            expected.update({i: f"value {i} via server {survivor}".encode()
                             for i in range(50, 100)})

            self.mixed.kill(leader)
            new_leader = self.leader_with_zkd_following(expected=survivor)
            self.assertEqual(new_leader, survivor)

            zkd_after = self.client(ZKD)
            self.write_sequence(zkd_after, "/c", range(100, 150), "zkd after")
            expected.update({i: f"value {i} via zkd after".encode() for i in range(100, 150)})
            apache_after = self.client(survivor)
            self.write_sequence(apache_after, "/c", range(150, 200), "apache after")
            expected.update({i: f"value {i} via apache after".encode() for i in range(150, 200)})

            self.assert_sequence(zkd_after, "/c", expected, "read through zkd")
            self.assert_sequence(apache_after, "/c", expected,
                                 f"read through server {survivor}")

    def test_d_wiped_zkd_catches_up_from_a_snapshot(self):
        with self.ensemble():
            leader = self.leader_with_zkd_following()
            zkd = self.client(ZKD)
            self.call(zkd, "create /d", "create", "/d", b"")
            self.write_sequence(zkd, "/d", range(0, 20), "zkd")
            expected = {i: f"value {i} via zkd".encode() for i in range(0, 20)}
            self.stop_client(zkd)

            self.mixed.stop(ZKD)
            self.mixed.wipe(ZKD)
            apache = self.client(leader)
            numbers = range(20, 20 + CATCH_UP_WRITES)
            self.write_sequence(apache, "/d", numbers, "apache")
            expected.update({i: f"value {i} via apache".encode() for i in numbers})

            self.mixed.start(ZKD)
            self.leader_with_zkd_following(expected=leader)
            self.assert_snapshot_sent(leader)
            self.assert_sequence(self.client(ZKD), "/d", expected, "read through the wiped zkd")


def main():
    module = sys.modules[__name__]
    rest = servers.parse_arguments(module)
    if ARGS.server != "zkd":
        servers.skip("a mixed ensemble always has one zkd and Apache servers; --server is unused")
    if KazooClient is None:
        servers.skip("kazoo is not installed (apt-get install python3-kazoo)")
    if not servers.apache_available():
        servers.skip(f"Apache ZooKeeper not installed ({servers.APACHE_JAR} / java missing)")
    servers.server_from_args(ARGS)  # exits with an error without a zkd binary
    program = unittest.main(module=module, argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
