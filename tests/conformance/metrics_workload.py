#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The small workload of the metrics tests (test_metrics.py,
test_prometheus_scrape.py), and mntr's names folded as Apache's metrics
are named: avg_/min_/max_/cnt_/sum_ and p50_/p95_/p99_/p999_ prefixes
dropped, a summary set's <key>_ prefix dropped (w_read_per_namespace ->
read_per_namespace)."""

import os
import re
import sys
import unittest

from kazoo.client import KazooClient

# Gauges whose own names start with a summary prefix.
_PLAIN = {"min_latency", "avg_latency", "max_latency", "max_file_descriptor_count",
          "min_client_response_size", "max_client_response_size"}
_SETS = ("read_per_namespace", "write_per_namespace")


def run_workload(hostport):
    """50 creates, watched reads, sets and deletes under /w, an ephemeral,
    a children watch and a sync, on one session."""
    zk = KazooClient(hosts=hostport)
    zk.start(timeout=15)
    try:
        zk.ensure_path("/w")
        for i in range(50):
            zk.create(f"/w/n{i}", b"x" * 100)
            zk.get(f"/w/n{i}", watch=lambda e: None)
            zk.set(f"/w/n{i}", b"y" * 10)
        zk.get_children("/w", watch=lambda e: None)
        zk.create("/w/e", b"", ephemeral=True)
        for i in range(50):
            zk.delete(f"/w/n{i}")
        zk.sync("/w")
        zk.exists("/nope")
    finally:
        zk.stop()
        zk.close()


def parse_mntr(text):
    """{key without zk_: value text}."""
    out = {}
    for line in text.splitlines():
        if line.startswith("zk_") and "\t" in line:
            key, value = line.split("\t", 1)
            out[key[3:]] = value
    return out


def fold(key):
    """The metric name an mntr key belongs to."""
    if key in _PLAIN:
        return key
    m = re.match(r"(avg|min|max|cnt|sum|p50|p95|p99|p999)_(.*)$", key)
    if m:
        key = m.group(2)
    for name in _SETS:
        if key.endswith("_" + name):
            return name
    return key


def metric_names(mntr):
    return {fold(key) for key in mntr}


def run_tests(test_class, skip_reason):
    """Runs `test_class` (its zkd_bin set from $ZKD_BIN) and exits with its
    verdict; exits as skipped (77) when `skip_reason` is not None."""
    import servers
    zkd_bin = os.environ.get("ZKD_BIN")
    if not zkd_bin:
        print("ERROR: no zkd binary: set ZKD_BIN", file=sys.stderr)
        sys.exit(2)
    if skip_reason is not None:
        servers.skip(skip_reason)
    test_class.zkd_bin = zkd_bin
    result = unittest.main(argv=[sys.argv[0]], exit=False).result
    sys.exit(0 if result.wasSuccessful() else 1)
