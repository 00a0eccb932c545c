#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Quotas set, listed and removed by Apache's Java CLI (zkCli.sh 3.8) against a server.

Usage:
  test_zkcli_quota.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

An unmodified client manages the quota: `zkCli.sh -server HOST:PORT setquota
-n|-N|-b|-B N PATH`, `listquota PATH`, `delquota PATH`; creates and sets
come from the CLI too, and a raw session (zkwire) reads the stats node. The
same assertions hold for zkd and for Apache ZooKeeper 3.8.0 (run with
--server apache):

  * setquota writes the limits text zkCli builds, and the server recounts the
    subtree into zookeeper_stats ("count=N,bytes=M", the quota path included);
  * every create / set / delete under the path moves the stats, with no
    change to the stats node's version or mzxid;
  * without enforceQuota, limits are only figures: creates beyond them work;
  * with zoo.cfg enforceQuota=true, a create or set beyond a hard limit
    (-N, -B) fails ("Quota has exceeded : PATH", QUOTAEXCEEDED -125), one
    beyond a soft limit (-n, -b) works and is logged;
  * delquota ends it all.

Exits 77 (skip) when zkCli.sh (Debian's `zookeeper` package) is missing.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402
import zkwire as w  # noqa: E402

ZKCLI = servers.ZKCLI
STATS = "/zookeeper/quota/q/zookeeper_stats"
LIMITS = "/zookeeper/quota/q/zookeeper_limits"
ERR_NONODE = -101
ERR_QUOTAEXCEEDED = -125
ARGS = None


zkcli = servers.zkcli


class QuotaTestBase(unittest.TestCase):
    ENFORCE = False

    def setUp(self):
        kwargs = {"zkd_bin": ARGS.zkd_bin} if ARGS.server == "zkd" else {}
        extra = {"enforceQuota": "true"} if self.ENFORCE else {}
        self.server = servers.Server(ARGS.server, extra_config=extra, **kwargs).start()
        self.session = w.Session(self.server.host, self.server.port)

    def tearDown(self):
        self.session.close()
        self.server.stop()  # ZK_CONFORMANCE_KEEP=1 keeps its directory and log

    def cli(self, *command):
        return zkcli(self.server, *command)

    def data_and_stat(self, path):
        reply = self.session.get_data(path)
        self.assertEqual(reply.err, 0, path)
        return reply.body.buffer(), reply.body.stat()

    def stats(self):
        return self.data_and_stat(STATS)[0].decode()

    def listquota(self):
        """The quota and stat lines of `listquota /q`."""
        out = self.cli("listquota", "/q")
        return [line for line in out.splitlines()
                if line.startswith(("Output quota", "Output stat", "quota for"))]


class SoftQuotaTest(QuotaTestBase):
    def test_setquota_listquota_delquota(self):
        self.assertIn("Created /q", self.cli("create", "/q", "ab"))
        self.cli("setquota", "-n", "2", "/q")
        self.assertEqual(self.data_and_stat(LIMITS)[0],
                         b"count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1")
        self.assertEqual(self.listquota(), [
            "Output quota for /q count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1",
            "Output stat for /q count=1,bytes=2"])
        _, stat_before = self.data_and_stat(STATS)

        # Beyond the soft limit: allowed.
        for name in ("a", "b", "c"):
            self.assertIn(f"Created /q/{name}", self.cli("create", f"/q/{name}", "xyz"))
        self.assertEqual(self.stats(), "count=4,bytes=11")
        self.assertEqual(self.session.set_data("/q/a", b"").err, 0)
        self.assertEqual(self.session.delete("/q/b").err, 0)
        self.assertEqual(self.session.create("/q/c/d", b"12345").err, 0)
        self.assertEqual(self.session.create("/qq", b"outside").err, 0)
        self.assertEqual(self.stats(), "count=4,bytes=10")
        data, stat_after = self.data_and_stat(STATS)
        self.assertEqual(stat_after["version"], stat_before["version"])
        self.assertEqual(stat_after["mzxid"], stat_before["mzxid"])
        self.assertEqual(stat_after["dataLength"], len(data))
        self.assertEqual(self.listquota(), [
            "Output quota for /q count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1",
            "Output stat for /q count=4,bytes=10"])

        # A second setquota on the same path updates the limits in place.
        self.cli("setquota", "-b", "100", "/q")
        self.assertEqual(self.data_and_stat(LIMITS)[0],
                         b"count=2,bytes=100=;byteHardLimit=-1;countHardLimit=-1")

        self.cli("delquota", "/q")
        self.assertEqual(self.listquota(), ["quota for /q does not exist."])
        self.assertEqual(self.session.exists(STATS).err, ERR_NONODE)
        self.assertIn("Created /q/e", self.cli("create", "/q/e"))


class EnforcedQuotaTest(QuotaTestBase):
    ENFORCE = True

    def test_hard_limits_fail_soft_limits_warn(self):
        self.assertIn("Created /q", self.cli("create", "/q"))
        self.cli("setquota", "-N", "2", "/q")
        self.assertIn("Created /q/a", self.cli("create", "/q/a", "x"))
        out = self.cli("create", "/q/b", "x")
        self.assertIn("Quota has exceeded : /q/b", out)
        self.assertEqual(self.session.exists("/q/b").err, ERR_NONODE)
        reply = self.session.create("/q/b")
        self.assertEqual(reply.err, ERR_QUOTAEXCEEDED)
        self.assertEqual(self.stats(), "count=2,bytes=1")

        # Byte hard limit: setData beyond it fails, within it works.
        self.cli("setquota", "-B", "4", "/q")
        self.assertEqual(self.listquota(), [
            "Output quota for /q count=-1,bytes=-1=;byteHardLimit=4;countHardLimit=2",
            "Output stat for /q count=2,bytes=1"])
        self.assertIn("Quota has exceeded : /q/a", self.cli("set", "/q/a", "12345"))
        self.assertEqual(self.session.set_data("/q/a", b"1234").err, 0)
        self.assertEqual(self.stats(), "count=2,bytes=4")

        # Room again after a delete.
        self.assertEqual(self.session.delete("/q/a").err, 0)
        self.assertEqual(self.session.create("/q/b").err, 0)

        # Soft limits only warn (in the server's log).
        self.assertIn("Created /s", self.cli("create", "/s"))
        self.cli("setquota", "-n", "1", "/s")
        self.assertEqual(self.session.create("/s/x").err, 0)
        self.assertEqual(self.data_and_stat("/zookeeper/quota/s/zookeeper_stats")[0],
                         b"count=2,bytes=0")
        with open(self.server.log_path, errors="replace") as log:
            self.assertIn("Quota exceeded: /s [current count=2, softCountLimit=1]", log.read())

        self.cli("delquota", "/q")
        self.assertIn("Created /q/c", self.cli("create", "/q/c"))


def main():
    return servers.unittest_main(sys.modules[__name__], servers.zkcli_available(),
                                 missing=f"{ZKCLI} not installed (apt-get install zookeeper)")


if __name__ == "__main__":
    sys.exit(main())
