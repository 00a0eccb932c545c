#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""zkd's admin server and Prometheus endpoint, against a real zkd process.

Every command of Apache 3.8's admin server answers JSON carrying "command" and
"error" and the fields Apache names; the HTTP rules (400, 404, 405, oversized
requests) hold per connection; /metrics parses as the Prometheus text format
and its figures move with the tree. With --live-apache the field names of a
few commands are compared with Apache's own admin server (reported as skipped
when Apache or its Jetty dependencies are absent).

Run: test_admin_http.py --zkd-bin build/zkd/zkd [--live-apache]
"""

import socket
import sys
import unittest

from admin_util import (ApacheWithAdmin, admin_config, apache_admin_available, command,
                        http_get, parse_prometheus, raw_http, servers)

try:
    from kazoo.client import KazooClient

    KAZOO = True
except ImportError:  # unittest_main reports the skip
    KAZOO = False

ARGS = None

# Command (as asked) -> (primary name, fields besides "command" and "error").
EXPECTED = {
    "ruok": ("ruok", []),
    "srvr": ("server_stats", ["version", "read_only", "server_stats", "client_response",
                              "node_count"]),
    "stat": ("stats", ["version", "read_only", "server_stats", "client_response", "node_count",
                       "connections", "secure_connections"]),
    "mntr": ("monitor", ["version", "server_state", "znode_count", "watch_count",
                         "ephemerals_count", "approximate_data_size", "num_alive_connections",
                         "outstanding_requests", "avg_latency", "max_latency", "min_latency",
                         "packets_received", "packets_sent", "open_file_descriptor_count",
                         "max_file_descriptor_count", "global_sessions", "uptime",
                         "avg_fsynctime", "cnt_fsynctime", "sum_fsynctime"]),
    "conf": ("configuration", ["client_port", "data_dir", "data_log_dir", "tick_time",
                               "max_client_cnxns", "min_session_timeout",
                               "max_session_timeout", "server_id",
                               "client_port_listen_backlog"]),
    "cons": ("connections", ["connections", "secure_connections"]),
    "envi": ("environment", ["zookeeper.version", "host.name", "os.name", "user.dir"]),
    "dump": ("dump", ["expiry_time_to_session_ids", "session_id_to_ephemeral_paths"]),
    "wchs": ("watch_summary", ["num_connections", "num_paths", "num_total_watches"]),
    "wchc": ("watches", ["session_id_to_watched_paths"]),
    "wchp": ("watches_by_path", ["path_to_session_ids"]),
    "dirs": ("dirs", ["datadir_size", "logdir_size"]),
    "isro": ("is_read_only", ["read_only"]),
    "voting_view": ("voting_view", ["current_config"]),
    "lsnp": ("last_snapshot", ["zxid", "timestamp"]),
    "icfg": ("initial_configuration", ["initial_configuration"]),
    "gtmk": ("get_trace_mask", ["tracemask"]),
    "srst": ("stat_reset", []),
    "crst": ("connection_stat_reset", []),
    "hash": ("hash", ["digests"]),
    "zabstate": ("zabstate", ["voting", "zabstate"]),
    "obsr": ("observers", ["synced_observers", "observers"]),
    # zkd's own (ydld): a standalone server has no leadership to yield.
    "ydld": ("yield_leadership", ["yielded", "message"]),
}
# Aliases of the same commands: the answer names the primary.
ALIASES = {
    "server_stats": "server_stats", "stats": "stats", "monitor": "monitor",
    "configuration": "configuration", "config": "configuration", "connections": "connections",
    "environment": "environment", "env": "environment", "watch_summary": "watch_summary",
    "watches": "watches", "watches_by_path": "watches_by_path", "is_read_only": "is_read_only",
    "last_snapshot": "last_snapshot", "initial_configuration": "initial_configuration",
    "get_trace_mask": "get_trace_mask", "stat_reset": "stat_reset",
    "connection_stat_reset": "connection_stat_reset",
}
CONNECTION_FIELDS = ["remote_socket_address", "interest_ops", "outstanding_requests",
                     "packets_received", "packets_sent", "session_id", "last_operation",
                     "established", "session_timeout", "last_cxid", "last_zxid",
                     "last_response_time", "last_latency", "min_latency", "avg_latency",
                     "max_latency"]
PROMETHEUS_CLASS = "org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider"
# Apache's gauge names (ZooKeeperServer.registerMetrics) that zkd serves.
GAUGES = ["znode_count", "watch_count", "ephemerals_count", "approximate_data_size",
          "num_alive_connections", "outstanding_requests", "avg_latency", "max_latency",
          "min_latency", "packets_received", "packets_sent", "open_file_descriptor_count",
          "max_file_descriptor_count", "global_sessions", "local_sessions", "uptime",
          "connection_drop_probability", "auth_failed_count"]


def zkd(extra):
    return servers.server_from_args(ARGS, extra_config=extra)


def populate(client):
    """Nodes, an ephemeral and watches, so that every command has something to show."""
    client.ensure_path("/admin/a")
    client.create("/admin/e", b"x", ephemeral=True)
    client.get("/admin/a", watch=lambda event: None)
    client.get_children("/admin", watch=lambda event: None)


class AdminCommandsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.port = servers.free_loopback_port()
        cls.server = zkd(admin_config(cls.port)).start()
        cls.client = KazooClient(hosts=cls.server.hostport)
        cls.client.start(timeout=15)
        populate(cls.client)

    @classmethod
    def tearDownClass(cls):
        cls.client.stop()
        cls.client.close()
        cls.server.stop()

    def check(self, name, primary, fields):
        obj, keys = command(self.port, name)
        self.assertEqual(obj["command"], primary, name)
        self.assertIsNone(obj["error"], name)
        self.assertEqual(keys[-2:], ["command", "error"], f"{name}: Apache's order")
        for field in fields:
            self.assertIn(field, obj, f"{name}: field {field}")
        return obj

    def test_every_command_answers_with_apache_fields(self):
        for name, (primary, fields) in EXPECTED.items():
            with self.subTest(command=name):
                self.check(name, primary, fields)

    def test_aliases_name_the_primary(self):
        for name, primary in ALIASES.items():
            with self.subTest(command=name):
                self.check(name, primary, EXPECTED_BY_PRIMARY[primary])

    def test_figures_match_the_tree(self):
        obj = self.check("mntr", "monitor", [])
        self.assertGreaterEqual(obj["znode_count"], 4)  # /, /zookeeper..., /admin, /admin/a, /e
        self.assertEqual(obj["ephemerals_count"], 1)
        self.assertGreaterEqual(obj["num_alive_connections"], 1)
        self.assertIsInstance(obj["avg_latency"], float)
        self.assertEqual(obj["server_state"], "standalone")
        session = self.client.client_id[0]
        dump = self.check("dump", "dump", [])
        self.assertEqual(dump["session_id_to_ephemeral_paths"], {str(session): ["/admin/e"]})
        wchc = self.check("wchc", "watches", [])
        self.assertIn("/admin/a", wchc["session_id_to_watched_paths"][str(session)])
        wchp = self.check("wchp", "watches_by_path", [])
        self.assertEqual(wchp["path_to_session_ids"]["/admin/a"], [session])
        cons = self.check("cons", "connections", [])
        mine = [c for c in cons["connections"] if c.get("session_id") == session]
        self.assertEqual(len(mine), 1, cons)
        self.assertEqual(list(mine[0].keys()), CONNECTION_FIELDS)
        conf = self.check("conf", "configuration", [])
        self.assertEqual(conf["client_port"], self.server.port)
        self.assertTrue(conf["data_dir"].endswith("/version-2"))
        icfg = self.check("icfg", "initial_configuration", [])
        self.assertIn(f"clientPort={self.server.port}", icfg["initial_configuration"])
        srvr = self.check("srvr", "server_stats", [])
        self.assertEqual(srvr["server_stats"]["server_state"], "standalone")
        self.assertGreaterEqual(srvr["node_count"], 4)

    def test_the_four_letter_word_and_the_command_agree(self):
        text = self.server.four_letter_word("mntr")
        mntr = dict(line.split("\t", 1) for line in text.splitlines())
        obj = self.check("mntr", "monitor", [])
        for key in ("znode_count", "ephemerals_count", "approximate_data_size", "watch_count"):
            self.assertEqual(int(mntr["zk_" + key]), obj[key], key)

    def test_leader_when_standalone_is_an_error(self):
        obj, keys = command(self.port, "lead")
        self.assertEqual(keys, ["error", "command"])
        self.assertEqual(obj, {"error": "server is not initialized", "command": "leader"})

    def test_set_trace_mask(self):
        obj, keys = command(self.port, "stmk")
        self.assertEqual(keys, ["error", "command"])
        self.assertEqual(obj["error"], "setTraceMask requires long traceMask argument")
        status, _, body = http_get(self.port, "/commands/set_trace_mask?traceMask=5")
        self.assertEqual(status, 200)
        obj, _ = command(self.port, "gtmk")
        self.assertEqual(obj["tracemask"], 5)
        obj, _ = command(self.port, "stmk?traceMask=306")
        self.assertEqual(obj["tracemask"], 306)
        self.assertEqual(self.server.four_letter_word("gtmk"), "306")

    def test_stat_reset_resets(self):
        for _ in range(5):
            self.client.get("/admin/a")
        before, _ = command(self.port, "srvr")
        self.assertGreaterEqual(before["server_stats"]["packets_received"], 5)
        command(self.port, "srst")
        after, _ = command(self.port, "srvr")
        # Since the reset: at most a ping of the client's (admin requests are not packets).
        self.assertLessEqual(after["server_stats"]["packets_received"], 1)

    def test_unknown_command(self):
        obj, keys = command(self.port, "nosuch")
        self.assertEqual(keys, ["command", "error"])
        self.assertEqual(obj, {"command": "nosuch", "error": "Unknown command: nosuch"})

    def test_command_list(self):
        for path in ("/commands", "/commands/"):
            status, _, body = http_get(self.port, path)
            self.assertEqual(status, 200)
            self.assertIn('<a href="/commands/monitor">monitor</a>\n<br/>\n', body)
            names = [line for line in body.splitlines() if line.startswith("<a ")]
            # Apache 3.8's 26, 3.9's snapshot and restore, 3.10's shed_connections,
            # zkd's yield_leadership.
            self.assertEqual(len(names), 30)
            self.assertIn('<a href="/commands/shed_connections">shed_connections</a>', names)
            self.assertEqual(names, sorted(names))

    def test_json_layout_is_jacksons(self):
        status, _, body = http_get(self.port, "/commands/ruok")
        self.assertEqual(body, '{\n  "command" : "ruok",\n  "error" : null\n}')
        _, _, body = http_get(self.port, "/commands/hash")
        self.assertIn('"digests" : [ ]', body)

    def test_http_errors(self):
        status, _, _ = http_get(self.port, "/nosuch")
        self.assertEqual(status, 404)
        status, headers, _ = http_get(self.port, "/commands/ruok", method="POST")
        self.assertEqual(status, 405)
        self.assertIn("GET", headers.get("allow", ""))
        reply = raw_http(self.port, b"garbage\r\n\r\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 400"), reply[:80])
        status, headers, body = http_get(self.port, "/commands/ruok", method="HEAD")
        self.assertEqual((status, body), (200, ""))

    def test_oversized_request_closes_only_its_connection(self):
        other = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        try:
            other.sendall(b"GET /commands/ruok HTTP/1.1\r\nHost: x\r\n")  # not finished yet
            huge = b"GET /commands/ruok HTTP/1.1\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n"
            self.assertEqual(raw_http(self.port, huge), b"")  # closed, no answer
            other.sendall(b"\r\n")
            reply = b""
            while not reply.endswith(b"}"):
                chunk = other.recv(65536)
                if not chunk:
                    break
                reply += chunk
            self.assertTrue(reply.startswith(b"HTTP/1.1 200"), reply[:80])
        finally:
            other.close()
        self.assertEqual(self.server.four_letter_word("ruok"), "imok")

    def test_metrics_on_the_admin_port(self):
        status, headers, body = http_get(self.port, "/metrics")
        self.assertEqual(status, 200)
        self.assertIn("znode_count", parse_prometheus(body))


EXPECTED_BY_PRIMARY = {primary: fields for primary, fields in EXPECTED.values()}


class PrometheusTest(unittest.TestCase):
    def test_metrics_parse_and_follow_the_tree(self):
        port = servers.free_loopback_port()
        extra = {"metricsProvider.className": PROMETHEUS_CLASS,
                 "metricsProvider.httpHost": "127.0.0.1", "metricsProvider.httpPort": port,
                 "admin.enableServer": "false"}
        with zkd(extra) as server:
            status, headers, body = http_get(port, "/metrics")
            self.assertEqual(status, 200)
            self.assertTrue(headers["content-type"].startswith("text/plain; version=0.0.4"))
            before = parse_prometheus(body)
            for name in GAUGES:
                self.assertEqual(before[name]["type"], "gauge", name)
                self.assertEqual(before[name]["help"], name, name)
                self.assertIn(name, before[name]["samples"], name)
            for name in ("fsynctime", "snapshottime"):
                self.assertEqual(before[name]["type"], "summary")
                self.assertIn(name + "_count", before[name]["samples"])
                self.assertIn(name + "_sum", before[name]["samples"])
            client = KazooClient(hosts=server.hostport)
            client.start(timeout=15)
            try:
                for i in range(10):
                    client.create(f"/m{i}", b"12345")
                client.create("/eph", b"", ephemeral=True)
                after = parse_prometheus(http_get(port, "/metrics")[2])
            finally:
                client.stop()
                client.close()
            value = lambda families, name: families[name]["samples"][name]  # noqa: E731
            self.assertEqual(value(after, "znode_count"), value(before, "znode_count") + 11)
            self.assertEqual(value(after, "ephemerals_count"), 1)
            self.assertGreaterEqual(value(after, "num_alive_connections"), 1)
            self.assertGreater(value(after, "approximate_data_size"),
                               value(before, "approximate_data_size"))
            self.assertGreater(value(after, "packets_received"), 0)
            self.assertGreater(after["fsynctime"]["samples"]["fsynctime_count"], 0)
            self.assertGreater(value(after, "open_file_descriptor_count"), 0)
            status, _, _ = http_get(port, "/other")
            self.assertEqual(status, 404)

    def test_no_metrics_port_without_the_provider(self):
        port = servers.free_loopback_port()
        with zkd({"metricsProvider.httpPort": port, "admin.enableServer": "false"}) as server:
            self.assertEqual(server.four_letter_word("ruok"), "imok")
            with self.assertRaises(ConnectionRefusedError):
                http_get(port, "/metrics")

    def test_parser_rejects_broken_text(self):
        for text in ("znode_count\n", "# TYPE x gauge\ny 1\n", "# TYPE x gauge\nx one\n",
                     "# TYPE x bogus\n"):
            with self.assertRaises(AssertionError, msg=text):
                parse_prometheus(text)


class PortInUseTest(unittest.TestCase):
    def test_zkd_serves_when_the_admin_port_is_taken(self):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen(1)
            port = taken.getsockname()[1]
            with zkd(admin_config(port)) as server:
                self.assertEqual(server.four_letter_word("ruok"), "imok")
                client = KazooClient(hosts=server.hostport)
                client.start(timeout=15)
                client.create("/still-serving")
                client.stop()
                client.close()
                with open(server.log_path, errors="replace") as log:
                    self.assertIn("not starting the admin server", log.read())


class LiveApacheTest(unittest.TestCase):
    """The same commands on Apache's admin server: zkd's field names must be
    Apache's (zkd may lack fields Apache has in mntr, never the reverse)."""

    COMPARED = ["ruok", "srvr", "stat", "cons", "conf", "dump", "wchs", "wchc", "wchp", "dirs",
                "isro", "lead", "voting_view", "lsnp", "icfg", "gtmk", "srst", "crst", "hash",
                "stmk", "zabstate", "obsr", "nosuch", "envi"]

    def collect(self, server, port):
        client = KazooClient(hosts=server.hostport)
        client.start(timeout=30)
        try:
            populate(client)
            return {name: command(port, name) for name in self.COMPARED + ["mntr"]}
        finally:
            client.stop()
            client.close()

    def test_field_names_match_apache(self):
        if not ARGS.live_apache:
            self.skipTest("--live-apache not given")
        if not apache_admin_available():
            self.skipTest("Apache ZooKeeper or its servlet API jar is not installed")
        apache_port = servers.free_loopback_port()
        with ApacheWithAdmin(extra_config=admin_config(apache_port)) as apache:
            theirs = self.collect(apache, apache_port)
        zkd_port = servers.free_loopback_port()
        with zkd(admin_config(zkd_port)) as server:
            ours = self.collect(server, zkd_port)
        for name in self.COMPARED:
            with self.subTest(command=name):
                self.assertEqual(ours[name][1], theirs[name][1], f"{name}: keys in order")
                for key, value in theirs[name][0].items():
                    if isinstance(value, dict) and key not in (
                            "expiry_time_to_session_ids", "session_id_to_ephemeral_paths",
                            "session_id_to_watched_paths", "path_to_session_ids"):
                        # Jackson orders a bean's properties as reflection lists them,
                        # which varies between JVM runs: compare the names only.
                        self.assertEqual(set(ours[name][0][key]), set(value), key)
                    if isinstance(value, list) and value and isinstance(value[0], dict):
                        self.assertEqual(set(ours[name][0][key][0]), set(value[0]), key)
        zkd_own = {"txns_per_fsync", "digests_compared"}  # man/zkd.8, mntr
        missing = set(ours["mntr"][1]) - set(theirs["mntr"][1]) - zkd_own
        self.assertEqual(missing, set(), "mntr keys zkd has and Apache has not")


def add_arguments(parser):
    parser.add_argument("--live-apache", action="store_true",
                        help="also compare field names with a live Apache admin server")


if __name__ == "__main__":
    sys.exit(servers.unittest_main(sys.modules[__name__], KAZOO, add_arguments))
