#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 41: Debian's real Prometheus server scrapes zkd's /metrics.

zkd runs with Apache's PrometheusMetricsProvider settings (its /metrics on a
loopback port); prometheus runs with a temporary configuration scraping it
every second. After the metrics workload, figures are read back through
prometheus's HTTP API (/api/v1/query): a gauge, a counter, a summary's
quantile and its _count, and a summary set's labelled series. Every wait has
a deadline. Skips (77) when prometheus is not installed.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import servers  # noqa: E402
from metrics_workload import run_tests, run_workload  # noqa: E402

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROVIDER = "org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider"
DEADLINE_S = 60.0


def api(port, path, params):
    url = f"http://127.0.0.1:{port}{path}?{urllib.parse.urlencode(params)}"
    with urllib.request.urlopen(url, timeout=5) as reply:
        return json.load(reply)


def wait_for(what, check, deadline_s=DEADLINE_S):
    """Polls `check` (returns a value or None) until it gives a value."""
    deadline = time.monotonic() + deadline_s
    last = None
    while time.monotonic() < deadline:
        try:
            value = check()
            if value is not None:
                return value
        except OSError as e:
            last = e
        time.sleep(0.2)  # poll interval; the deadline bounds the wait
    raise AssertionError(f"{what} not seen within {deadline_s:.0f}s ({last})")


class PrometheusScrapeTest(unittest.TestCase):
    zkd_bin = None

    def setUp(self):
        self.metrics_port = servers.free_loopback_port()
        self.prometheus_port = servers.free_loopback_port()
        self.dir = tempfile.mkdtemp(prefix="zk-prometheus-")
        self.server = servers.Server("zkd", zkd_bin=self.zkd_bin, extra_config={
            "metricsProvider.className": PROVIDER,
            "metricsProvider.httpHost": "127.0.0.1",
            "metricsProvider.httpPort": self.metrics_port,
            "admin.enableServer": "false"})
        self.server.start()
        config = os.path.join(self.dir, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "scrape_configs:\n  - job_name: zkd\n    static_configs:\n"
                    f"      - targets: ['127.0.0.1:{self.metrics_port}']\n")
        self.log = open(os.path.join(self.dir, "prometheus.log"), "wb")
        self.prometheus = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}",
             f"--storage.tsdb.path={os.path.join(self.dir, 'data')}",
             f"--web.listen-address=127.0.0.1:{self.prometheus_port}"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)

    def tearDown(self):
        servers.terminate(self.prometheus)
        self.log.close()
        self.server.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def query(self, expression):
        """The value of the one series `expression` selects, or None."""
        reply = api(self.prometheus_port, "/api/v1/query", {"query": expression})
        results = reply["data"]["result"]
        return float(results[0]["value"][1]) if len(results) == 1 else None

    def target_up(self):
        reply = api(self.prometheus_port, "/api/v1/targets", {})
        targets = reply["data"]["activeTargets"]
        return True if targets and targets[0]["health"] == "up" else None

    def at_least(self, expression, value):
        found = self.query(expression)
        return found if found is not None and found >= value else None

    def test_prometheus_scrapes_zkds_metrics(self):
        wait_for("zkd's target up", self.target_up)
        created = wait_for("znode_count", lambda: self.query("znode_count"))
        run_workload(self.server.hostport)
        # 50 creates, 50 sets, 50 deletes and more: seen once a scrape followed.
        wait_for("the workload's updates", lambda: self.at_least("updatelatency_count", 150))
        # A gauge, counters, a summary's count and quantile, a summary set's member.
        self.assertGreater(self.query("znode_count"), created)  # /w and the ephemeral
        self.assertGreaterEqual(self.query("connection_request_count"), 1)
        self.assertGreater(self.query("bytes_received_count"), 0)
        self.assertIsNotNone(self.query('updatelatency{quantile="0.99"}'))
        self.assertIsNotNone(self.query('fsynctime{quantile="0.5"}'))
        self.assertGreaterEqual(self.query('write_per_namespace_count{key="w"}'), 100)
        reply = api(self.prometheus_port, "/api/v1/metadata", {"metric": "response_bytes"})
        self.assertEqual(reply["data"]["response_bytes"][0]["type"], "counter")


def main():
    run_tests(PrometheusScrapeTest, None if os.access(PROMETHEUS, os.X_OK)
              else "prometheus is not installed (Debian package prometheus)")


if __name__ == "__main__":
    main()
