#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A zkd server in one ensemble with two Apache ZooKeeper 3.8 servers.

Usage:
  test_mixed_ensemble.py [--zkd-bin PATH] [unittest args]

Each test starts its own ensemble (mixed_ensemble.py): one zkd with
zkd.peerProtocol=apache and two of Apache's QuorumPeerMain, all on one
zoo.cfg shape. Votes order by epoch, last zxid, then the larger id, so the
zkd node's id decides who leads a fresh ensemble. Clients are kazoo, each
connected to one node alone; every operation has a deadline (OP_TIMEOUT_S),
and reads on another node than the write's come after a sync().

ZkdFollowsApacheTest: zkd is server 1 (the lowest id: an Apache server wins
every election), servers 2 and 3 are Apache.

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
     started again: it follows and serves every node;
  j. a session made on an Apache server while zkd is down and wiped (so zkd
     learns of it only from the leader's SNAP) resumes on zkd, same id, and
     still owns its ephemeral.

ZkdLeadsApacheTest: servers 1 and 2 are Apache, zkd is server 3 (the
largest id: it wins the first election) and leads Apache followers.

  e. zkd reports Mode: leader; writes through both Apache followers
     (creates, setData with and without the right version, a multi that
     commits and one that fails, an ephemeral, sequential nodes) read back
     identically, data and Stat, through every node after a sync();
  f. a session made on an Apache follower moves to the zkd leader, then to
     the other Apache follower (which revalidates it with zkd), and keeps its
     ephemeral; closing it there removes its ephemerals everywhere;
  g. an Apache follower is stopped and its dataDir wiped; 1,100 writes later
     (more than the 1,000 entries zkd's leader keeps for a DIFF) it is
     started again: zkd sends it a SNAP (zkd logs "sending server N a
     snapshot") and it serves every node;
  h. the zkd leader is SIGKILLed: an Apache server takes over, writes go on
     through both Apache servers, the restarted zkd follows the Apache leader
     and serves every acknowledged write;
  i. an Apache follower is stopped (its dataDir kept); 300 writes later it
     is started again: zkd syncs it by DIFF (Apache logs "Getting a diff from
     the leader") and it serves every node.

On failure the nodes' log tails are printed (and zkd's "Apache peer
protocol:" and "now" lines, Apache's warnings and exceptions) and their
directory is kept; ZK_CONFORMANCE_KEEP=1 keeps it always.

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
    from kazoo.exceptions import BadVersionError, KazooException, RolledBackError
    from kazoo.handlers.threading import KazooTimeoutError
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()

# Election and sync of a three-node ensemble (tickTime 200 ms), JVM start included.
QUORUM_TIMEOUT_S = 45.0
CONNECT_TIMEOUT_S = 15.0
OP_TIMEOUT_S = 10.0
# kazoo asks for this; the servers grant at most 20 ticks (4 s).
SESSION_TIMEOUT_S = 10.0
# Scenario d: more writes than Apache's committed-log window (500 txns).
CATCH_UP_WRITES = 650
# Scenario g: more writes than zkd's leader keeps in its log for a DIFF (the
# core's commit_window, 1000 entries), so that it must send a SNAP.
ZKD_CATCH_UP_WRITES = 1100
# Scenario i: fewer, so that zkd syncs the restarted follower by DIFF.
DIFF_WRITES = 300
BATCH = 100


class MixedEnsembleCase(unittest.TestCase):
    """Helpers; a subclass names its ensemble (KINDS) and its zkd node (ZKD)."""

    KINDS = None
    ZKD = None

    # -- helpers --------------------------------------------------------------

    @contextlib.contextmanager
    def ensemble(self):
        """A MixedEnsemble of KINDS, all started (not yet waited for); its
        kazoo clients (self.client) are stopped before its servers."""
        with mixed_ensemble.MixedEnsemble(self.KINDS, ARGS.zkd_bin) as ensemble:
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

    def commit(self, transaction, what):
        """A kazoo transaction's results (exceptions for a failed one)."""
        try:
            return transaction.commit_async().get(timeout=OP_TIMEOUT_S)
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
        zkd = self.ZKD
        self.assertEqual(self.mixed.node(leader).kind, "apache",
                         f"zkd (server {zkd}) leads; it should follow an Apache leader\n{status}")
        if expected is not None:
            self.assertEqual(leader, expected, f"server {expected} should lead\n{status}")
        self.assertEqual(self.mixed.mode(zkd), "follower",
                         f"zkd (server {zkd}) should report Mode: follower\n{status}")
        return leader

    def zkd_leading(self, joiner=None, mark=0):
        """Waits for one leader among the running nodes; checks that it is
        zkd and that every running Apache server follows it. With `joiner`
        (an Apache server started after its log's `mark`), fails at once
        when that server's sync with zkd threw."""
        if joiner is not None:
            def joined():
                text = self.mixed.log_since(joiner, mark)
                if "Exception when following the leader" in text:
                    lines = [line for line in text.splitlines()
                             if re.search(r"Getting a|Exception|NEWLEADER|UPTODATE|Got zxid",
                                          line)]
                    self.fail(f"server {joiner} could not sync with zkd:\n" +
                              "\n".join(lines[:12]))
                return self.mixed.mode(joiner) in ("leader", "follower")

            self.mixed.wait_for(f"server {joiner} serving", joined, QUORUM_TIMEOUT_S)
        leader = self.mixed.wait_for_leader(QUORUM_TIMEOUT_S)
        status = self.mixed.status()
        self.assertEqual(leader, self.ZKD, f"zkd (server {self.ZKD}) should lead\n{status}")
        for myid in self.mixed.running_ids():
            if myid != leader:
                self.assertEqual(self.mixed.mode(myid), "follower",
                                 f"server {myid} should follow zkd\n{status}")
        return leader

    def other_apache(self, myid):
        return next(i for i in self.mixed.ids("apache") if i != myid)

    def write_sequence(self, client, parent, numbers, via):
        self.calls(client, f"create through {via}", "create",
                   [(f"{parent}/n-{i:04d}", f"value {i} via {via}".encode()) for i in numbers])

    def tree(self, client, root, where):
        """{path: (data, Stat fields)} of `root` and everything under it, as
        `client`'s server has it after a sync(root)."""
        self.call(client, f"{where}: sync {root}", "sync", root)
        out, level = {}, [root]
        while level:
            datas = self.calls(client, f"{where}: get", "get", [(p,) for p in level])
            kids = self.calls(client, f"{where}: children", "get_children",
                              [(p,) for p in level])
            for path, (data, stat) in zip(level, datas):
                out[path] = (data, stat.version, stat.cversion, stat.aversion,
                             stat.ephemeralOwner, stat.numChildren, stat.czxid, stat.mzxid,
                             stat.pzxid, stat.dataLength)
            level = [f"{p.rstrip('/')}/{child}" for p, children in zip(level, kids)
                     for child in children]
        return out

    def assert_same_trees(self, clients, root):
        """The tree under `root` is the same, data and Stat, through every
        client of {where: client}; returns it."""
        trees = {where: self.tree(client, root, where) for where, client in clients.items()}
        first, reference = next(iter(trees.items()))
        for where, tree in trees.items():
            differ = sorted(p for p in set(tree) | set(reference)
                            if tree.get(p) != reference.get(p))
            self.assertEqual(differ, [], f"{where} and {first} disagree under {root} on "
                             f"{differ[:5]}: e.g. {[tree.get(p) for p in differ[:1]]} vs "
                             f"{[reference.get(p) for p in differ[:1]]}\n{self.mixed.status()}")
        return reference

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
                                 rf"Learner sid: {self.ZKD} .*peerLastZxid=(0x[0-9a-f]+)$", log,
                                 re.MULTILINE))
        self.assertTrue(syncs, f"server {leader} never synced zkd")
        thread, peer_last_zxid = syncs[-1].groups()
        self.assertEqual(peer_last_zxid, "0x0", "the leader did not see a wiped zkd")
        self.assertRegex(log[syncs[-1].end():], rf"\[{re.escape(thread)}\] .*Sending snapshot",
                         f"server {leader} did not send zkd a SNAP (the scenario's premise)")


class ZkdFollowsApacheTest(MixedEnsembleCase):
    KINDS = ["zkd", "apache", "apache"]
    ZKD = 1  # the zkd node's id: the lowest, so that it never wins an election

    def test_a_zkd_follows_and_serves_reads_writes_and_ephemerals(self):
        with self.ensemble():
            leader = self.leader_with_zkd_following()
            follower = self.other_apache(leader)
            self.assertEqual(self.mixed.mode(follower), "follower", self.mixed.status())

            apache = self.client(follower)
            self.call(apache, f"create /a through server {follower}", "create", "/a",
                      b"written through Apache")
            zkd = self.client(self.ZKD)
            self.assertEqual(self.read(zkd, "/a", "zkd"), b"written through Apache",
                             "/a written through an Apache follower, read through zkd")

            self.call(zkd, "create /b through zkd", "create", "/b", b"written through zkd")
            for myid in (follower, leader):
                reader = apache if myid == follower else self.client(leader)
                self.assertEqual(self.read(reader, "/b", f"server {myid}"), b"written through zkd",
                                 f"/b written through zkd, read through server {myid}")

            owner = self.client(self.ZKD)
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

    def test_k_a_reconfig_zkd_refuses_is_answered_and_the_session_goes_on(self):
        # reconfigEnabled is off: zkd refuses the request itself, and an Apache
        # leader orders no error txn for a request it never sees, so zkd
        # answers it (RECONFIGDISABLED, -123) rather than leaving the client
        # waiting. (kazoo 2.8 does not know -123: raw frames here.)
        with self.ensemble():
            self.leader_with_zkd_following()
            node = self.mixed.node(self.ZKD)
            raw = zkwire.Session(node.host, node.client_port, timeout_ms=4000)
            try:
                null = zkwire.int32(-1)
                body = null + zkwire.ustring("3") + null + zkwire.int64(-1)
                reply = raw.call(16, body, timeout=OP_TIMEOUT_S)  # reconfig
                self.assertEqual(reply.err, -123, f"reconfig through zkd: {reply!r}")
                reply = raw.create("/after-reconfig", b"1")
                self.assertEqual(reply.err, 0, f"a create after the refused reconfig: {reply!r}")
            finally:
                raw.close()

    def test_b_session_made_on_zkd_moves_to_apache_with_its_ephemeral(self):
        with self.ensemble():
            leader = self.leader_with_zkd_following()
            target = self.other_apache(leader)
            # A client that loses zkd without closing its session (a raw
            # session: kazoo would either reconnect to zkd or close it).
            node = self.mixed.node(self.ZKD)
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
            observer = self.client(self.ZKD)
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
            zkd, apache = self.client(self.ZKD), self.client(survivor)
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

            zkd_after = self.client(self.ZKD)
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
            zkd = self.client(self.ZKD)
            self.call(zkd, "create /d", "create", "/d", b"")
            self.write_sequence(zkd, "/d", range(0, 20), "zkd")
            expected = {i: f"value {i} via zkd".encode() for i in range(0, 20)}
            self.stop_client(zkd)

            self.mixed.stop(self.ZKD)
            self.mixed.wipe(self.ZKD)
            apache = self.client(leader)
            numbers = range(20, 20 + CATCH_UP_WRITES)
            self.write_sequence(apache, "/d", numbers, "apache")
            expected.update({i: f"value {i} via apache".encode() for i in numbers})

            self.mixed.start(self.ZKD)
            self.leader_with_zkd_following(expected=leader)
            self.assert_snapshot_sent(leader)
            self.assert_sequence(self.client(self.ZKD), "/d", expected,
                                 "read through the wiped zkd")

    def test_j_session_zkd_learned_from_a_snapshot_resumes_on_zkd(self):
        with self.ensemble():
            leader = self.leader_with_zkd_following()
            self.mixed.stop(self.ZKD)
            self.mixed.wipe(self.ZKD)
            home = self.other_apache(leader)
            node = self.mixed.node(home)
            raw = zkwire.Session(node.host, node.client_port, timeout_ms=4000,
                                 io_timeout=OP_TIMEOUT_S)
            session, password = raw.session_id, raw.passwd
            reply = raw.create("/j", b"owned", flags=1)  # ephemeral
            self.assertEqual(reply.err, 0, f"create ephemeral /j through server {home}: "
                             f"err {reply.err}")

            mark = self.mixed.log_mark(self.ZKD)
            self.mixed.start(self.ZKD)

            def following():
                raw.ping()  # keeps the session alive meanwhile
                return self.mixed.mode(self.ZKD) == "follower"

            self.mixed.wait_for("zkd following", following, QUORUM_TIMEOUT_S)
            self.leader_with_zkd_following(expected=leader)
            self.assertIn("received the leader's snapshot", self.mixed.log_since(self.ZKD, mark),
                          "the scenario's premise: zkd was synced by SNAP")
            raw.close()

            zkd_node = self.mixed.node(self.ZKD)
            moved = zkwire.Session(zkd_node.host, zkd_node.client_port, timeout_ms=4000,
                                   session_id=session, passwd=password, io_timeout=OP_TIMEOUT_S)
            if moved.session_id != session:
                refusals = [line for line in self.mixed.log_since(self.ZKD, mark).splitlines()
                            if "refusing to resume" in line]
                # The control: the session lives on in the Apache servers.
                back = zkwire.Session(node.host, node.client_port, timeout_ms=4000,
                                      session_id=session, passwd=password,
                                      io_timeout=OP_TIMEOUT_S)
                alive = back.session_id == session
                back.close()
                self.fail(f"session 0x{session:x} (made on server {home} while zkd was down) "
                          f"was not resumed on zkd: got 0x{moved.session_id:x}; zkd logged "
                          f"{refusals}; server {home} "
                          f"{'resumed it right after' if alive else 'did not resume it either'}")
            reply = moved.exists("/j")
            self.assertEqual(reply.err, 0, f"exists /j through zkd: err {reply.err}")
            self.assertEqual(reply.body.stat()["ephemeralOwner"], session, "/j's owner")
            moved.close_session()


class ZkdLeadsApacheTest(MixedEnsembleCase):
    KINDS = ["apache", "apache", "zkd"]
    ZKD = 3  # the largest id: zkd wins the first election

    def followers(self):
        return self.mixed.ids("apache")

    def test_e_writes_through_apache_followers_read_back_the_same_everywhere(self):
        with self.ensemble():
            self.zkd_leading()
            one, two = self.followers()
            first, second = self.client(one), self.client(two)
            where_one, where_two = f"server {one}", f"server {two}"

            self.call(first, "create /e", "create", "/e", b"root")
            self.call(first, "create /e/a", "create", "/e/a", b"a0")
            stat = self.call(first, "setData /e/a version 0", "set", "/e/a", b"a1", version=0)
            self.assertEqual(stat.version, 1, "setData /e/a through " + where_one)
            with self.assertRaises(BadVersionError, msg="setData /e/a with a stale version"):
                first.set_async("/e/a", b"stale", version=0).get(timeout=OP_TIMEOUT_S)
            self.call(second, "sync /e/a", "sync", "/e/a")
            stat = self.call(second, "setData /e/a version 1", "set", "/e/a", b"a2", version=1)
            self.assertEqual(stat.version, 2, "setData /e/a through " + where_two)
            self.call(second, "setData /e/a any version", "set", "/e/a", b"a3")

            t = second.transaction()
            t.check("/e", 0)
            t.create("/e/m1", b"m1")
            t.create("/e/m2", b"m2")
            t.set_data("/e/a", b"a4", version=3)
            t.delete("/e/m2")
            results = self.commit(t, "multi through " + where_two)
            self.assertEqual(results[1:3], ["/e/m1", "/e/m2"], f"the multi's results {results}")
            t = first.transaction()
            t.create("/e/never", b"")
            t.check("/e/a", 0)  # stale: the whole multi fails
            results = self.commit(t, "failing multi through " + where_one)
            self.assertIsInstance(results[1], BadVersionError, f"failed multi's results {results}")
            self.assertIsInstance(results[0], RolledBackError, f"failed multi's results {results}")

            owner = self.client(one)
            self.call(owner, "create ephemeral /e/eph", "create", "/e/eph", b"mine",
                      ephemeral=True)
            self.call(first, "create /e/s", "create", "/e/s", b"")
            names = []
            for i in range(6):
                client = first if i % 2 == 0 else second
                names.append(self.call(client, "create sequential /e/s/q-", "create", "/e/s/q-",
                                       f"q{i}".encode(), sequence=True))
            self.assertEqual(names, [f"/e/s/q-{i:010d}" for i in range(6)],
                             "sequential nodes made through both Apache followers")

            expected = {"/e": b"root", "/e/a": b"a4", "/e/m1": b"m1", "/e/eph": b"mine",
                        "/e/s": b""}
            expected.update({name: f"q{i}".encode() for i, name in enumerate(names)})
            clients = {where_one: first, where_two: second,
                       f"zkd (server {self.ZKD})": self.client(self.ZKD)}
            tree = self.assert_same_trees(clients, "/e")
            self.assertEqual({path: node[0] for path, node in tree.items()}, expected,
                             "the tree under /e")
            self.assertEqual(tree["/e/a"][1], 4, "/e/a's version")
            self.assertEqual(tree["/e/eph"][4], owner.client_id[0], "/e/eph's owner")
            self.assertEqual(tree["/e/m1"][6], tree["/e/a"][7],
                             "the multi's create and setData have one zxid")

    def test_f_session_made_on_apache_moves_to_zkd_then_to_the_other_apache(self):
        with self.ensemble():
            self.zkd_leading()
            home, away = self.followers()
            node = self.mixed.node(home)
            # Raw sessions: a client that loses its server without closing
            # its session (kazoo would either reconnect there or close it).
            first = zkwire.Session(node.host, node.client_port, timeout_ms=4000,
                                   io_timeout=OP_TIMEOUT_S)
            session, password = first.session_id, first.passwd
            self.assertNotEqual(session, 0, f"server {home} refused a session\n"
                                f"{self.mixed.status()}")
            reply = first.create("/moving", b"owned", flags=1)  # ephemeral
            self.assertEqual(reply.err, 0, f"create ephemeral /moving through server {home}: "
                             f"err {reply.err}")
            first.close()

            leader = self.mixed.node(self.ZKD)
            on_zkd = zkwire.Session(leader.host, leader.client_port, timeout_ms=4000,
                                    session_id=session, passwd=password, io_timeout=OP_TIMEOUT_S)
            self.assertEqual(on_zkd.session_id, session,
                             f"session 0x{session:x} made on server {home} was not resumed on "
                             f"the zkd leader: got 0x{on_zkd.session_id:x} (expired?)")
            reply = on_zkd.exists("/moving")
            self.assertEqual(reply.err, 0, f"exists /moving through zkd: err {reply.err}")
            self.assertEqual(reply.body.stat()["ephemeralOwner"], session, "/moving's owner")
            reply = on_zkd.create("/made-on-zkd", b"", flags=1)
            self.assertEqual(reply.err, 0, f"create ephemeral /made-on-zkd through zkd: "
                             f"err {reply.err}")
            on_zkd.close()

            moved = self.client(away, client_id=(session, password))
            self.assertEqual(moved.client_id[0], session,
                             f"session 0x{session:x} was not resumed on server {away}: kazoo "
                             f"got 0x{moved.client_id[0]:x} (expired?)")
            for path in ("/moving", "/made-on-zkd"):
                self.call(moved, f"sync {path}", "sync", path)
                stat = self.call(moved, f"exists {path}", "exists", path)
                self.assertIsNotNone(stat, f"{path} not seen through server {away}")
                self.assertEqual(stat.ephemeralOwner, session, f"{path}'s owner")
            watcher = self.client(home)
            moved.stop()  # closes the session on server `away`: its ephemerals go
            for myid, reader in ((home, watcher), (self.ZKD, self.client(self.ZKD))):
                for path in ("/moving", "/made-on-zkd"):
                    self.assertIsNone(self.read(reader, path, f"server {myid}"),
                                      f"{path} still seen through server {myid} after its "
                                      f"session closed on server {away}")

    def test_g_wiped_apache_follower_catches_up_from_a_zkd_snapshot(self):
        with self.ensemble():
            self.zkd_leading()
            wiped, other = self.followers()
            client = self.client(wiped)
            self.call(client, "create /g", "create", "/g", b"")
            self.write_sequence(client, "/g", range(0, 20), f"server {wiped}")
            expected = {i: f"value {i} via server {wiped}".encode() for i in range(0, 20)}
            self.stop_client(client)

            self.mixed.stop(wiped)
            self.mixed.wipe(wiped)
            writer = self.client(other)
            numbers = range(20, 20 + ZKD_CATCH_UP_WRITES)
            self.write_sequence(writer, "/g", numbers, f"server {other}")
            expected.update({i: f"value {i} via server {other}".encode() for i in numbers})

            mark, joiner_mark = self.mixed.log_mark(self.ZKD), self.mixed.log_mark(wiped)
            self.mixed.start(wiped)
            self.zkd_leading(wiped, joiner_mark)
            self.assertRegex(self.mixed.log_since(self.ZKD, mark),
                             rf"Apache peer protocol: sending server {wiped} a snapshot",
                             f"zkd did not send the wiped server {wiped} a SNAP")
            for myid in self.mixed.ids():
                reader = self.client(myid)
                self.assert_sequence(reader, "/g", expected, f"read through server {myid}")

    def test_h_zkd_leader_killed_apache_takes_over_and_zkd_follows_it(self):
        with self.ensemble():
            self.zkd_leading()
            one, two = self.followers()
            expected = {}
            zkd = self.client(self.ZKD)
            self.call(zkd, "create /h", "create", "/h", b"")
            for start, myid in ((0, one), (50, two), (100, self.ZKD)):
                client = zkd if myid == self.ZKD else self.client(myid)
                self.write_sequence(client, "/h", range(start, start + 50), f"server {myid}")
                expected.update({i: f"value {i} via server {myid}".encode()
                                 for i in range(start, start + 50)})

            self.mixed.kill(self.ZKD)
            new_leader = self.mixed.wait_for_leader(QUORUM_TIMEOUT_S)
            self.assertEqual(self.mixed.node(new_leader).kind, "apache", self.mixed.status())
            for start, myid in ((150, one), (200, two)):
                client = self.client(myid)
                self.write_sequence(client, "/h", range(start, start + 50),
                                    f"server {myid} after")
                expected.update({i: f"value {i} via server {myid} after".encode()
                                 for i in range(start, start + 50)})

            self.mixed.start(self.ZKD)
            self.leader_with_zkd_following(expected=new_leader)
            zkd_after = self.client(self.ZKD)
            self.write_sequence(zkd_after, "/h", range(250, 300), "zkd restarted")
            expected.update({i: f"value {i} via zkd restarted".encode()
                             for i in range(250, 300)})
            for myid in self.mixed.ids():
                reader = zkd_after if myid == self.ZKD else self.client(myid)
                self.assert_sequence(reader, "/h", expected, f"read through server {myid}")


    def test_i_restarted_apache_follower_catches_up_from_a_zkd_diff(self):
        with self.ensemble():
            self.zkd_leading()
            behind, other = self.followers()
            client = self.client(behind)
            self.call(client, "create /i", "create", "/i", b"")
            self.write_sequence(client, "/i", range(0, 20), f"server {behind}")
            expected = {i: f"value {i} via server {behind}".encode() for i in range(0, 20)}
            self.stop_client(client)

            self.mixed.stop(behind)
            writer = self.client(other)
            numbers = range(20, 20 + DIFF_WRITES)
            self.write_sequence(writer, "/i", numbers, f"server {other}")
            expected.update({i: f"value {i} via server {other}".encode() for i in numbers})

            mark = self.mixed.log_mark(behind)
            self.mixed.start(behind)
            self.zkd_leading(behind, mark)
            self.assertIn("Getting a diff from the leader", self.mixed.log_since(behind, mark),
                          f"zkd did not sync the restarted server {behind} by DIFF")
            for myid in self.mixed.ids():
                reader = self.client(myid)
                self.assert_sequence(reader, "/i", expected, f"read through server {myid}")


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
