#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""kazoo (python3-kazoo 2.8) against a ZooKeeper-compatible server.

Usage:
  test_kazoo.py [--server zkd|apache] [--zkd-bin PATH] [--live-apache] [unittest args]

  * the fixed scenario (kazoo_scenario.py) must reproduce the golden
    transcript recorded from Apache ZooKeeper 3.8 (golden/kazoo_scenario.jsonl);
  * --live-apache also runs the scenario against a live Apache server and
    against zkd in the same run and compares the two (skipped when the
    `zookeeper` package is absent);
  * focused tests: one-shot watches, ephemeral removal on close and on
    expiry, session resumption with id+password, wrong password.

Exits 77 (skip) when kazoo is not installed.
"""

import os
import queue
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import kazoo_scenario  # noqa: E402
import servers  # noqa: E402
import zkwire  # noqa: E402

GOLDEN = os.path.join(HERE, "golden", "kazoo_scenario.jsonl")
OP_TIMEOUT = 10.0
EVENT_TIMEOUT = 10.0
# Session expiry: a 4000 ms session (tickTime 2000) is closed within about
# timeout + tickTime; allow generous slack, but never expire early.
SHORT_SESSION_MS = 4000
EXPIRY_DEADLINE_S = 20.0

ARGS = None  # parsed command line, set in main()

if kazoo_scenario.KazooClient is not None:
    from kazoo.client import KazooClient
    from kazoo.protocol.states import Callback, EventType


def new_server():
    return servers.server_from_args(ARGS)


def kazoo_client(hostport, **kwargs):
    client = KazooClient(hosts=hostport, timeout=10.0, **kwargs)
    client.start(timeout=15.0)
    return client


def stop_quietly(*clients):
    for c in clients:
        try:
            c.stop()
            c.close()
        except Exception:
            pass


class EventSink:
    """Collects watch events; drain() returns those delivered up to now."""

    def __init__(self, client):
        self.client = client
        self.q = queue.Queue()

    def watcher(self, event):
        self.q.put((event.type, event.path))

    def wait(self, timeout=EVENT_TIMEOUT):
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no watch event within {timeout}s") from None

    def drain(self):
        # The caller has just completed a read on self.client, so callbacks for
        # every notification sent before that reply are already queued; run a
        # marker behind them.
        marker = threading.Event()
        self.client.handler.dispatch_callback(Callback("watch", marker.set, ()))
        assert marker.wait(OP_TIMEOUT), "kazoo callback thread stuck"
        out = []
        while not self.q.empty():
            out.append(self.q.get_nowait())
        return out


class ScenarioTest(unittest.TestCase):
    def test_scenario_matches_golden(self):
        expected = kazoo_scenario.load_transcript(GOLDEN)
        with new_server() as server:
            actual = kazoo_scenario.scenario(server.hostport)
        diff = kazoo_scenario.diff_transcripts(expected, actual, "golden(apache)", ARGS.server)
        self.assertFalse(diff, "\n" + diff)

    def test_scenario_matches_live_apache(self):
        if not ARGS.live_apache:
            self.skipTest("live Apache comparison not requested (--live-apache)")
        if not servers.apache_available():
            self.skipTest("Apache ZooKeeper not installed")
        with servers.Server("apache") as apache:
            expected = kazoo_scenario.scenario(apache.hostport)
        with new_server() as server:
            actual = kazoo_scenario.scenario(server.hostport)
        diff = kazoo_scenario.diff_transcripts(expected, actual, "apache(live)", ARGS.server)
        self.assertFalse(diff, "\n" + diff)


class FocusedTest(unittest.TestCase):
    """Tests a kazoo user would write. One server for the class; distinct paths."""

    @classmethod
    def setUpClass(cls):
        cls.server = new_server()
        cls.server.start()
        cls.hostport = cls.server.hostport

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.clients = []

    def tearDown(self):
        stop_quietly(*self.clients)

    def client(self, **kwargs):
        c = kazoo_client(self.hostport, **kwargs)
        self.clients.append(c)
        return c

    def raw(self, **kwargs):
        s = zkwire.Session(self.server.host, self.server.port, **kwargs)
        self.addCleanup(s.close)
        return s

    # -- watches --------------------------------------------------------------

    def test_data_watch_fires_exactly_once(self):
        watcher, writer = self.client(), self.client()
        writer.create("/once-data", b"0")
        sink = EventSink(watcher)
        watcher.get("/once-data", watch=sink.watcher)
        writer.set("/once-data", b"1")
        writer.set("/once-data", b"2")
        writer.delete("/once-data")
        watcher.exists("/")  # read barrier: events must precede this reply
        self.assertEqual(sink.drain(), [(EventType.CHANGED, "/once-data")])

    def test_child_watch_fires_once_with_parent_path(self):
        watcher, writer = self.client(), self.client()
        writer.create("/once-child", b"")
        sink = EventSink(watcher)
        self.assertEqual(watcher.get_children("/once-child", watch=sink.watcher), [])
        writer.create("/once-child/a", b"")
        writer.create("/once-child/b", b"")
        writer.set("/once-child", b"data change is not a child change")
        watcher.exists("/")
        self.assertEqual(sink.drain(), [(EventType.CHILD, "/once-child")])
        self.assertEqual(sorted(watcher.get_children("/once-child")), ["a", "b"])

    def test_exists_watch_on_missing_node_fires_created(self):
        watcher, writer = self.client(), self.client()
        sink = EventSink(watcher)
        self.assertIsNone(watcher.exists("/once-missing", watch=sink.watcher))
        writer.create("/once-missing", b"x")
        self.assertEqual(sink.wait(), (EventType.CREATED, "/once-missing"))
        writer.delete("/once-missing")
        watcher.exists("/")
        self.assertEqual(sink.drain(), [])

    def test_server_sends_each_notification_once_and_before_later_replies(self):
        # kazoo hides duplicate notifications, so watch on a raw session.
        writer = self.client()
        writer.create("/wire-once", b"0")
        raw = self.raw()
        self.assertEqual(raw.get_data("/wire-once", watch=True).err, 0)
        self.assertEqual(raw.exists("/wire-once", watch=True).err, 0)
        self.assertEqual(raw.get_children("/wire-once", watch=True).err, 0)
        writer.set("/wire-once", b"1")
        writer.set("/wire-once", b"2")
        reply = raw.exists("/")  # the notification must arrive before this reply
        self.assertEqual(reply.err, 0)
        # getData and exists watches on one path: one notification per connection
        self.assertEqual([(e.type, e.path) for e in raw.events], [(3, "/wire-once")])
        raw.events.clear()
        writer.delete("/wire-once")
        raw.exists("/")
        # the child watch is still armed; deletion fires it as NodeDeleted
        self.assertEqual([(e.type, e.state, e.path) for e in raw.events], [(2, 3, "/wire-once")])

    # -- ephemerals -----------------------------------------------------------

    def test_ephemeral_gone_after_close(self):
        owner, observer = self.client(), self.client()
        owner.create("/eph-close", b"", ephemeral=True)
        stat = observer.exists("/eph-close")
        self.assertEqual(stat.ephemeralOwner, owner.client_id[0])
        sink = EventSink(observer)
        observer.exists("/eph-close", watch=sink.watcher)
        owner.stop()
        self.assertEqual(sink.wait(), (EventType.DELETED, "/eph-close"))
        self.assertIsNone(observer.exists("/eph-close"))

    def test_ephemeral_gone_after_session_expiry(self):
        observer = self.client()
        raw = self.raw(timeout_ms=SHORT_SESSION_MS)
        self.assertEqual(raw.negotiated_timeout, SHORT_SESSION_MS)
        self.assertEqual(raw.create("/eph-expiry", b"", flags=1).err, 0)
        last_packet = time.monotonic()  # the raw session stops pinging here
        sink = EventSink(observer)
        stat = observer.exists("/eph-expiry", watch=sink.watcher)
        self.assertEqual(stat.ephemeralOwner, raw.session_id)
        event = sink.wait(timeout=EXPIRY_DEADLINE_S)
        elapsed = time.monotonic() - last_packet
        self.assertEqual(event, (EventType.DELETED, "/eph-expiry"))
        self.assertGreaterEqual(elapsed, SHORT_SESSION_MS / 1000 * 0.9,
                                f"session expired after {elapsed:.2f}s, before its timeout")
        self.assertIsNone(observer.exists("/eph-expiry"))
        # The expired session's connection is closed without a reply...
        self.assertEqual(raw.expect_closed(timeout=5.0), b"")
        # ...and the session cannot be resumed.
        again = self.raw(timeout_ms=SHORT_SESSION_MS, session_id=raw.session_id, passwd=raw.passwd)
        self.assertEqual((again.negotiated_timeout, again.session_id, again.passwd),
                         (0, 0, b"\0" * 16))

    # -- sessions ---------------------------------------------------------------

    def test_session_resumption_with_id_and_password(self):
        raw = self.raw(timeout_ms=10000)
        self.assertEqual(raw.create("/resume-eph", b"r", flags=1).err, 0)
        sid, pw = raw.session_id, raw.passwd
        self.assertEqual(len(pw), 16)
        # Resume on a new connection while the old one is still open.
        resumed = self.client(client_id=(sid, pw))
        self.assertEqual(resumed.client_id, (sid, pw))
        self.assertEqual(raw.expect_closed(timeout=5.0), b"", "old connection not closed")
        data, stat = resumed.get("/resume-eph")
        self.assertEqual((data, stat.ephemeralOwner), (b"r", sid))
        resumed.create("/resume-eph2", b"", ephemeral=True)
        observer = self.client()
        self.assertEqual(observer.exists("/resume-eph2").ephemeralOwner, sid)
        resumed.stop()  # closes the session: both ephemerals go
        self.assertIsNone(observer.exists("/resume-eph"))
        self.assertIsNone(observer.exists("/resume-eph2"))

    def test_wrong_password_is_an_expired_session(self):
        raw = self.raw(timeout_ms=10000)
        self.assertEqual(raw.create("/wrongpw-eph", b"", flags=1).err, 0)
        sid, pw = raw.session_id, raw.passwd
        bad_pw = bytes(b ^ 0xFF for b in pw)
        # What the server answers (kazoo turns it into "Session has expired"):
        probe = zkwire.Session(self.server.host, self.server.port, timeout_ms=10000,
                               session_id=sid, passwd=bad_pw)
        with probe:
            self.assertEqual((probe.negotiated_timeout, probe.session_id, probe.passwd),
                             (0, 0, b"\0" * 16))
            self.assertEqual(probe.expect_closed(timeout=5.0), b"")
        # kazoo: the session is reported expired, and kazoo starts a new one.
        client = self.client(client_id=(sid, bad_pw))
        self.assertNotEqual(client.client_id[0], sid)
        # The real session is not harmed: resumable with the right password,
        # and its ephemeral is still there.
        good = self.raw(timeout_ms=10000, session_id=sid, passwd=pw)
        self.assertEqual(good.session_id, sid)
        self.assertEqual(client.exists("/wrongpw-eph").ephemeralOwner, sid)


def main():
    def live_apache(parser):
        parser.add_argument("--live-apache", action="store_true",
                            help="also compare against a live Apache server in the same run")
    return servers.unittest_main(sys.modules[__name__], kazoo_scenario.KazooClient is not None,
                                 live_apache)


if __name__ == "__main__":
    sys.exit(main())
