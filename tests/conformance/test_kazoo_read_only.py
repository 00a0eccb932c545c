#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""kazoo (python3-kazoo 2.8) with read_only=True through a zkd ensemble's
loss of quorum (read-only mode, readonlymode.enabled).

Usage:
  test_kazoo_read_only.py [unittest args]     (ZKLAB_BIN, ZKD_BIN: the binaries)

On a 3-node zklab lab started with readonlymode.enabled=true, a kazoo client
with read_only=True on node 1:

  * once nodes 2 and 3 are killed, ends up CONNECTED_RO on node 1 with the
    session it had, reads what was written, and a write raises
    NotReadOnlyCallError;
  * once they are back, it is CONNECTED (read-write) again, still with the
    same session, and writes.

Apache 3.8 does not resume a session in read-only mode (docs/apache-behaviour.md);
tests/lab/read_only_test.cc compares the wire with Apache's. Exits 77 (skip)
when kazoo is not installed.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402

try:
    from kazoo.client import KazooClient
    from kazoo.exceptions import NotReadOnlyCallError
except ImportError:
    servers.skip("python3-kazoo is not installed")

DEADLINE = 30.0  # seconds, for every state the client must reach
POLL = 0.05


def wait_for_state(client, state):
    """Polls client.client_state until it is `state`; the last one seen."""
    until = time.monotonic() + DEADLINE
    while client.client_state != state and time.monotonic() < until:
        time.sleep(POLL)
    return client.client_state


class ReadOnlyModeTest(unittest.TestCase):
    def setUp(self):
        self.zklab = os.environ.get("ZKLAB_BIN", "")
        if not os.access(self.zklab, os.X_OK):
            self.fail("ZKLAB_BIN must name the zklab binary")
        self.dir = tempfile.mkdtemp(prefix="zk_kazoo_read_only_")
        self.lab("up", "--set", "readonlymode.enabled=true")
        status = self.lab("status")
        self.hosts = status.split("connect string ", 1)[1].split()[0].split(",")

    def tearDown(self):
        subprocess.run([self.zklab, "--dir", self.dir, "down"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def lab(self, *args):
        env = dict(os.environ)
        if os.environ.get("ZKD_BIN"):
            env["ZKLAB_ZKD"] = os.environ["ZKD_BIN"]
        done = subprocess.run([self.zklab, "--dir", self.dir, *args], capture_output=True,
                              text=True, env=env, timeout=120)
        self.assertEqual(done.returncode, 0, f"zklab {' '.join(args)}: {done.stderr}")
        return done.stdout

    def test_reads_through_the_outage_and_writes_again_on_the_same_session(self):
        client = KazooClient(self.hosts[0], read_only=True, timeout=20)
        client.start(timeout=DEADLINE)
        try:
            client.create("/kept", b"before")
            session = client.client_id[0]

            self.lab("kill", "2")
            self.lab("kill", "3")
            self.assertEqual(wait_for_state(client, "CONNECTED_RO"), "CONNECTED_RO")
            self.assertEqual(client.client_id[0], session)
            self.assertEqual(client.get("/kept")[0], b"before")
            with self.assertRaises(NotReadOnlyCallError):
                client.create("/refused", b"")

            self.lab("start", "2")
            self.lab("start", "3")
            self.assertEqual(wait_for_state(client, "CONNECTED"), "CONNECTED")
            self.assertEqual(client.client_id[0], session)
            client.create("/after", b"after")
            self.assertEqual(client.get("/after")[0], b"after")
        finally:
            client.stop()
            client.close()


if __name__ == "__main__":
    unittest.main()
