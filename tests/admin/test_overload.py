#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Overload protection against real servers: the connection-rate throttle
(connection_throttle_*), the large-request budget (largeRequestThreshold,
largeRequestMaxBytes), the request throttle (request_throttle_max_requests
with globalOutstandingLimit), a client that never reads its answers, and a
throttle setting zkd refuses at start-up.

Every test writes the same zoo.cfg keys for zkd and, with --live-apache, for
Apache ZooKeeper 3.8 (which turns an unknown key K into the JVM property
zookeeper.K, hence the connection_throttle_* / request_throttle_* spellings)
and checks what a user would: who gets an answer, who is cut off, what mntr
counts. Raw sockets (tests/conformance/zkwire.py) show what is on the wire;
kazoo is the well-behaved client.

Run: test_overload.py --zkd-bin build/zkd/zkd [--live-apache]
     (or ctest --test-dir build -R zkd_overload_test --output-on-failure)
"""

import concurrent.futures
import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
import unittest

import admin_util
from admin_util import create_body, flood, mntr, server_kinds, server_of_kind, servers, super_config

import zkwire  # noqa: E402 (tests/conformance, on the path admin_util sets)

try:
    from kazoo.client import KazooClient

    KAZOO = True
except ImportError:  # unittest_main reports the skip
    KAZOO = False

ARGS = None
NONODE = -101
# How long a test waits for something it expects before it fails.
DEADLINE_S = 30.0


def connect(server):
    """A connection to `server` that has sent a ConnectRequest for a new session."""
    connection = zkwire.Connection(server.host, server.port)
    connection.send(zkwire.frame(zkwire.connect_request(30000)))
    return connection


def rss_kib(pid):
    """The resident set size of process `pid` in KiB (/proc/PID/status VmRSS)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for pid {pid}")


def wait_until_steady(read, deadline_s=DEADLINE_S, polls=5, interval_s=0.2):
    """Polls `read()` until it returns the same value `polls` times in a row
    (a server that has stopped doing something); returns that value. The
    interval paces the polls, it does not synchronise: the deadline bounds the
    wait, and a value still changing at the deadline fails."""
    deadline = time.monotonic() + deadline_s
    last, same = read(), 1
    while same < polls:
        if time.monotonic() > deadline:
            raise AssertionError(f"still changing after {deadline_s}s (last {last})")
        time.sleep(interval_s)
        value = read()
        same = same + 1 if value == last else 1
        last = value
    return last


class ConnectionThrottleTest(unittest.TestCase):
    TOKENS = 5
    EXTRA = 5  # connection attempts beyond the bucket

    def test_connections_beyond_the_tokens_are_closed_unanswered(self):
        # Contract: a bucket of TOKENS that does not refill (one token per
        # ten minutes) admits the first TOKENS ConnectRequests and closes
        # every later connection without a ConnectResponse; mntr counts each
        # refusal and records the deficit at every admission.
        config = {"connection_throttle_tokens": self.TOKENS,
                  "connection_throttle_fill_time": 600000,
                  "connection_throttle_fill_count": 1}
        figures = {}
        for kind in server_kinds(ARGS):
            with self.subTest(server=kind), server_of_kind(ARGS, kind, config) as server:
                with contextlib.ExitStack() as held:
                    admitted = [held.enter_context(zkwire.Session(server.host, server.port))
                                for _ in range(self.TOKENS)]
                    self.assertEqual(len({s.session_id for s in admitted}), self.TOKENS)
                    for _ in range(self.EXTRA):
                        with connect(server) as refused:
                            self.assertEqual(refused.expect_closed(), b"")
                    # The admitted sessions are untouched by the refusals.
                    self.assertEqual(admitted[0].exists("/").err, 0)
                m = mntr(server)
                figures[kind] = {name: int(float(m[name])) for name in (
                    "connection_rejected", "cnt_connection_token_deficit",
                    "max_connection_token_deficit")}
                self.assertEqual(figures[kind], {"connection_rejected": self.EXTRA,
                                                 "cnt_connection_token_deficit": self.TOKENS,
                                                 "max_connection_token_deficit": self.TOKENS})
        # Both servers count alike.
        self.assertEqual(len(set(map(str, figures.values()))), 1, figures)

    def test_without_the_throttle_quick_connections_all_pass(self):
        # Contract: the throttle is off by default; 20 sessions opened back
        # to back all get one, and mntr counts no refusal.
        for kind in server_kinds(ARGS):
            with self.subTest(server=kind), server_of_kind(ARGS, kind) as server:
                with contextlib.ExitStack() as held:
                    sessions = [held.enter_context(zkwire.Session(server.host, server.port))
                                for _ in range(20)]
                    self.assertEqual(len({s.session_id for s in sessions}), 20)
                self.assertEqual(mntr(server)["connection_rejected"], "0")


def create_of_payload_size(path, size):
    """A create request (xid 1) of `path` whose frame payload is exactly `size` bytes."""
    header = zkwire.int32(1) + zkwire.int32(zkwire.OP_CREATE)
    data_len = size - len(header) - len(create_body(path, b""))
    payload = header + create_body(path, b"x" * data_len)
    assert len(payload) == size
    return payload


class LargeRequestTest(unittest.TestCase):
    CONFIG = {"largeRequestThreshold": 1000, "largeRequestMaxBytes": 5000}

    def test_a_request_beyond_the_budget_closes_only_its_connection(self):
        # Contract: requests above the threshold share a budget of
        # largeRequestMaxBytes; 4000 bytes fit (one at a time, again and
        # again), a 6000-byte frame alone exceeds it: its connection is
        # closed with no reply, other connections go on, mntr counts it.
        for kind in server_kinds(ARGS):
            with self.subTest(server=kind), server_of_kind(ARGS, kind, self.CONFIG) as server:
                with zkwire.Session(server.host, server.port) as other, \
                        zkwire.Session(server.host, server.port) as large:
                    self.assertEqual(large.create("/big", b"x" * 4000).err, 0)
                    self.assertEqual(large.set_data("/big", b"y" * 4000).err, 0)
                    large.send(zkwire.frame(create_of_payload_size("/too-big", 6000)))
                    self.assertEqual(large.expect_closed(), b"")
                    self.assertEqual(other.exists("/too-big").err, NONODE)
                    self.assertEqual(other.set_data("/big", b"z" * 4000).err, 0)
                    reply = other.get_data("/big")
                    self.assertEqual((reply.err, reply.body.buffer()), (0, b"z" * 4000))
                self.assertEqual(mntr(server)["large_requests_rejected"], "1")


class RequestThrottleTest(unittest.TestCase):
    # Below zkd's 32 frames a connection takes per turn: the flood's first
    # turn alone puts more requests in process than the limit before any
    # can be answered (answers come after the turn), so the gate parks it
    # however fast the log is. With 50 it parked only when the log was
    # slower than the reading (a sanitized build with the batched log: not
    # always).
    CONFIG = {"request_throttle_max_requests": 10, "globalOutstandingLimit": 100}
    FLOOD = 5000
    CALLS = 20

    def test_a_flood_neither_starves_a_polite_client_nor_loses_a_request(self):
        # Contract: while one connection pipelines FLOOD creates, a kazoo
        # client's CALLS sequential reads all answer (within a generous
        # deadline; nothing is timed), and the flood's creates all answer,
        # in order, successfully. Both count the times the throttle held
        # requests back (request_throttle_wait_count; zkd: its read gate).
        for kind in server_kinds(ARGS):
            with self.subTest(server=kind), server_of_kind(ARGS, kind, self.CONFIG) as server:
                polite = KazooClient(hosts=server.hostport, timeout=DEADLINE_S)
                polite.start(timeout=15)
                try:
                    polite.create("/polite", b"p")
                    with concurrent.futures.ThreadPoolExecutor(1) as pool:
                        flooding = pool.submit(flood, server, self.FLOOD)
                        for i in range(self.CALLS):
                            read = polite.get_async if i % 2 else polite.exists_async
                            self.assertIsNotNone(read("/polite").get(timeout=DEADLINE_S))
                        replies = flooding.result(timeout=2 * DEADLINE_S)
                    self.assertEqual(replies, [(xid, 0) for xid in range(1, self.FLOOD + 1)])
                finally:
                    polite.stop()
                    polite.close()
                self.assertGreater(int(mntr(server)["request_throttle_wait_count"]), 0)


def get_data_frames(path, count):
    """`count` pipelined getData requests of `path` (xids 1..count), one bytes object."""
    body = zkwire.int32(zkwire.OP_GETDATA) + zkwire.ustring(path) + zkwire.boolean(False)
    return b"".join(zkwire.frame(zkwire.int32(xid) + body) for xid in range(1, count + 1))


def received_from(server, connection):
    """How many requests `server` has read from `connection` (its cons line's
    recved=, found by the connection's local port)."""
    port = connection.sock.getsockname()[1]
    for line in server.four_letter_word("cons").splitlines():
        if f":{port}[" in line:
            return int(line.split("recved=", 1)[1].split(",", 1)[0])
    raise AssertionError(f"no connection from port {port} in cons")


class NeverReadingClientTest(unittest.TestCase):
    REQUESTS = 200_000
    DATA = b"d" * 1024
    # zkd's bound; Apache's growth (about 90 MiB here, more when its garbage
    # collector is late on a busy machine) is printed, not judged.
    RSS_GROWTH_KIB = 64 * 1024
    # Apache reads and answers all the requests (about 17,000 a second here)
    # before it is steady; zkd stops reading within a second.
    STEADY_DEADLINE_S = 60.0

    def test_a_client_that_never_reads_costs_bounded_memory(self):
        # Contract: a connection that pipelines REQUESTS getData of a 1 KiB
        # znode (about 220 MB of answers) and never reads them costs zkd less
        # than RSS_GROWTH_KIB of RSS once it has read all it will; another client's getData answers meanwhile and after the
        # flooding socket is closed. zkd reads only part of the requests: it
        # stops reading a connection while 1 MiB of its answers wait unsent.
        for kind in server_kinds(ARGS):
            with self.subTest(server=kind), server_of_kind(ARGS, kind) as server:
                with zkwire.Session(server.host, server.port, io_timeout=DEADLINE_S) as other:
                    self.assertEqual(other.create("/k", self.DATA).err, 0)
                    before_kib = rss_kib(server.proc.pid)
                    flooding = zkwire.Session(server.host, server.port)
                    sender = threading.Thread(target=self.send_ignoring_close,
                                              args=(flooding, get_data_frames("/k", self.REQUESTS)),
                                              daemon=True)
                    sender.start()
                    try:
                        taken = wait_until_steady(lambda: received_from(server, flooding),
                                                  self.STEADY_DEADLINE_S)
                        growth_kib = rss_kib(server.proc.pid) - before_kib
                        print(f"\n[{kind}] read {taken} of {self.REQUESTS} requests from the "
                              f"client that never reads; RSS +{growth_kib} KiB", file=sys.stderr)
                        if kind == "zkd":
                            self.assertLess(taken, self.REQUESTS)
                            self.assertLess(growth_kib, self.RSS_GROWTH_KIB)
                        self.assert_answers(other)
                    finally:
                        # Wakes the sender out of a blocked sendall.
                        flooding.sock.shutdown(socket.SHUT_RDWR)
                        flooding.close()
                        sender.join(timeout=DEADLINE_S)
                    self.assertFalse(sender.is_alive())
                    self.assert_answers(other)
                self.assertEqual(server.four_letter_word("ruok"), "imok")

    @staticmethod
    def send_ignoring_close(connection, data):
        """Sends `data` until done or the connection is shut down."""
        try:
            connection.sock.settimeout(None)
            connection.send(data)
        except OSError:
            pass

    def assert_answers(self, session):
        reply = session.get_data("/k")
        self.assertEqual((reply.err, reply.body.buffer()), (0, self.DATA))


class StartUpRefusalTest(unittest.TestCase):
    # A drop probability step of 2 is no probability.
    CONFIG = {"connection_throttle_tokens": 5, "connection_throttle_drop_increase": 2}

    def test_a_drop_increase_above_one_stops_zkd_naming_the_key(self):
        # Contract: zkd exits non-zero at start-up with a message naming the
        # key instead of serving with a nonsense throttle.
        if ARGS.server != "zkd":
            self.skipTest("zkd's start-up check")
        server = server_of_kind(ARGS, "zkd", self.CONFIG)
        try:
            done = subprocess.run([ARGS.zkd_bin, "--config", server.write_config()],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=DEADLINE_S)
        finally:
            server.stop()
        output = done.stdout.decode(errors="replace")
        self.assertNotEqual(done.returncode, 0, output)
        self.assertIn("connection_throttle_drop_increase", output)

    def test_apache_takes_the_same_setting_silently(self):
        # The divergence, pinned: Apache 3.8 reads the double unchecked
        # (its BlueThrottle caps the probability at 1) and serves.
        if "apache" not in server_kinds(ARGS):
            self.skipTest("needs --live-apache and Apache ZooKeeper")
        with server_of_kind(ARGS, "apache", self.CONFIG) as server:
            self.assertEqual(server.four_letter_word("ruok"), "imok")


class ShedConnectionsTest(unittest.TestCase):
    """zkd only: the command is Apache 3.10's, which Debian does not ship."""
    CLIENTS = 8
    SUPER = "super:super_passwd"
    PATH = "/commands/shed_connections"

    def test_shedding_every_connection_moves_the_clients_and_keeps_their_sessions(self):
        # Contract: with an identity holding ALL on /, {"percentage": 100}
        # closes every client connection and says how many; each kazoo
        # client reconnects with its session (same id), and its data is there.
        server = admin_util.zkd_with_admin(ARGS, super_config(self.SUPER)).start()
        clients = []
        try:
            for _ in range(self.CLIENTS):
                client = KazooClient(hosts=f"{server.host}:{server.port}", timeout=DEADLINE_S)
                client.start(timeout=DEADLINE_S)
                clients.append(client)
            clients[0].create("/kept", b"v")
            sessions = [client.client_id[0] for client in clients]
            lost = threading.Semaphore(0)
            for client in clients:
                client.add_listener(lambda state: state == "SUSPENDED" and lost.release())

            status, _, body = self.shed(server, {"percentage": 100})
            self.assertEqual(status, 200, body)
            answer = json.loads(body)
            self.assertEqual(answer["connections_shed"], self.CLIENTS)
            self.assertEqual(answer["percentage_requested"], 100)
            self.assertIsNone(answer["error"])
            for _ in clients:
                self.assertTrue(lost.acquire(timeout=DEADLINE_S), "a client kept its connection")
            for client, session in zip(clients, sessions):
                self.assertEqual(client.get("/kept")[0], b"v")  # waits for the reconnection
                self.assertEqual(client.client_id[0], session)
        finally:
            for client in clients:
                client.stop()
            server.stop()

    def test_refusals_say_why(self):
        # Contract: no credentials 401, a bad body 400 naming the problem,
        # GET 405, 0% sheds nothing. (Credentials without ALL on / get 403
        # by the same check as snapshot and restore: test_admin_backup.py.)
        server = admin_util.zkd_with_admin(ARGS, super_config(self.SUPER)).start()
        try:
            self.assertEqual(self.shed(server, {"percentage": 50}, auth=None)[0], 401)
            for body, error in ((b"", "Request body is required"),
                                (b"{}", "Missing required field: percentage"),
                                (b'{"percentage": 101}', "Percentage must be between 0 and 100"),
                                (b"nope", "Invalid JSON")):
                status, _, answer = admin_util.admin_request(
                    server.admin_port, "POST", self.PATH, auth="digest " + self.SUPER, body=body)
                self.assertEqual(status, 400, body)
                self.assertIn(error, json.loads(answer)["error"])
            status, _, _ = admin_util.admin_request(server.admin_port, "GET", self.PATH)
            self.assertEqual(status, 405)
            with zkwire.Session(server.host, server.port, io_timeout=DEADLINE_S) as session:
                status, _, answer = self.shed(server, {"percentage": 0})
                self.assertEqual((status, json.loads(answer)["connections_shed"]), (200, 0))
                self.assertEqual(session.get_data("/").err, 0)
        finally:
            server.stop()

    def shed(self, server, fields, auth="super"):
        auth = "digest " + self.SUPER if auth == "super" else auth
        return admin_util.admin_request(server.admin_port, "POST", self.PATH, auth=auth,
                                        body=json.dumps(fields).encode())



def add_arguments(parser):
    parser.add_argument("--live-apache", action="store_true",
                        help="also run each test against a live Apache ZooKeeper 3.8")


if __name__ == "__main__":
    sys.exit(servers.unittest_main(sys.modules[__name__], KAZOO, add_arguments))
