#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""getEphemerals, getAllChildrenNumber and whoami from Apache's Java CLI (zkCli.sh 3.8).

Usage:
  test_zkcli_reads.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

An unmodified client asks the server in one zkCli.sh session (so its
ephemerals live while it asks); the same assertions hold for zkd and for
Apache ZooKeeper 3.8.0 (--server apache):

  * getEphemerals lists the session's own ephemeral nodes (all of them, or
    those under a path prefix), not another session's;
  * getAllChildrenNumber counts every descendant of a node;
  * whoami names the connection's ip id, and the digest id once added.

Exits 77 (skip) when zkCli.sh (Debian's `zookeeper` package) is missing.
"""

import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402

ARGS = None
LIST_RE = re.compile(r"^\[(.*)\]$")


def listed(lines):
    """The entries of the last "[a, b]" line zkCli printed, as a set."""
    for line in reversed(lines):
        m = LIST_RE.match(line.strip())
        if m:
            return {x.strip() for x in m.group(1).split(",") if x.strip()}
    return None


class ZkCliReadTest(servers.ClassServerTest):

    def test_get_ephemerals_lists_the_sessions_own(self):
        # Another session's ephemeral is not listed.
        servers.zkcli_session(self.server, ["create /ge x"])
        lines = servers.zkcli_session(self.server, [
            "create -e /ge/mine1 a", "create -e /ge/mine2 b", "create -e /other c",
            "getEphemerals"])
        self.assertEqual(listed(lines), {"/ge/mine1", "/ge/mine2", "/other"}, lines)
        lines = servers.zkcli_session(self.server, [
            "create -e /ge/mine3 a", "create -e /outside b", "getEphemerals /ge"])
        self.assertEqual(listed(lines), {"/ge/mine3"}, lines)

    def test_get_all_children_number_counts_descendants(self):
        lines = servers.zkcli_session(self.server, [
            "create /gc x", "create /gc/a x", "create /gc/a/b x", "create /gc/c x",
            "getAllChildrenNumber /gc"])
        self.assertIn("3", [line.strip() for line in lines], lines)

    def test_whoami_names_the_ip_and_the_digest(self):
        lines = servers.zkcli_session(self.server, [
            "whoami", "addauth digest alice:secret", "whoami"])
        text = "\n".join(lines)
        self.assertIn("ip", text)
        self.assertIn("127.0.0.1", text)
        self.assertIn("alice", text)


def main():
    return servers.unittest_main(sys.modules[__name__], servers.zkcli_available(),
                                 missing=f"{servers.ZKCLI} not installed (apt-get install zookeeper)")


if __name__ == "__main__":
    sys.exit(main())
