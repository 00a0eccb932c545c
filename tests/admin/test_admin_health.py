#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The probes' endpoints of zkd's admin server (docs/probes.md), against real
zkd processes:

  * standalone: GET /readyz and /livez answer 200 "ok", without admin auth;
    POST is refused (405); ruok still says imok;
  * a 3-node zklab lab: with two nodes stopped, the survivor's /readyz answers
    503 with a one-line reason and its /livez 200 (and ruok still imok, as on
    Apache); once one of them is started again, /readyz is 200 again.

Every wait polls the endpoint until a deadline; none sleeps to synchronise.

Run: test_admin_health.py --zkd-bin build/zkd/zkd   (ZKLAB_BIN: zklab, for the lab)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from admin_util import admin_config, http_get, servers

ARGS = None
DEADLINE_S = 30.0  # for every state a server must reach
POLL_S = 0.05


def wait_for(port, path, status):
    """Polls GET `path` until it answers `status`; returns the last (status,
    body), an error text in place of the status when the request failed."""
    until = time.monotonic() + DEADLINE_S
    last = None
    while True:
        try:
            got, _, body = http_get(port, path)
            last = (got, body)
        except OSError as e:
            last = (f"request failed: {e}", "")
        if last[0] == status or time.monotonic() >= until:
            return last
        time.sleep(POLL_S)


class StandaloneTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.port = servers.free_loopback_port()
        # The probes send no Authorization header, as kubelet's do not.
        cls.server = servers.server_from_args(ARGS, extra_config=admin_config(cls.port)).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_ready_and_live(self):
        for path in ("/readyz", "/livez"):
            with self.subTest(path=path):
                status, headers, body = http_get(self.port, path)
                self.assertEqual((status, body), (200, "ok\n"))
                self.assertTrue(headers["content-type"].startswith("text/plain"))

    def test_head_is_answered_and_post_refused(self):
        status, _, _ = http_get(self.port, "/readyz", method="HEAD")
        self.assertEqual(status, 200)
        status, _, _ = http_get(self.port, "/readyz", method="POST")
        self.assertEqual(status, 405)

    def test_only_the_two_paths(self):
        for path in ("/readyz/", "/ready", "/healthz"):
            with self.subTest(path=path):
                self.assertEqual(http_get(self.port, path)[0], 404)
        for path in ("/commands/readyz", "/commands/livez"):
            with self.subTest(path=path):
                # Not commands: Apache's JSON answer to an unknown command.
                self.assertNotEqual(http_get(self.port, path)[2], "ok\n")

    def test_ruok_unchanged(self):
        self.assertEqual(self.server.four_letter_word("ruok"), "imok")


class EnsembleTest(unittest.TestCase):
    def setUp(self):
        self.zklab = os.environ.get("ZKLAB_BIN", "")
        if not os.access(self.zklab, os.X_OK):
            self.skipTest("ZKLAB_BIN does not name the zklab binary")
        self.dir = tempfile.mkdtemp(prefix="zk_admin_health_")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.lab("up", "--nodes", "3")
        self.addCleanup(subprocess.run, [self.zklab, "--dir", self.dir, "down"],
                        capture_output=True)
        status = json.loads(self.lab("status", "--json"))
        self.admin = {node["id"]: node["admin_port"] for node in status["nodes"]}
        self.client = {node["id"]: node["client_port"] for node in status["nodes"]}
        self.assertTrue(all(self.admin.values()), f"every node has an admin port: {status}")

    def lab(self, *args):
        env = dict(os.environ)
        if ARGS is not None and ARGS.zkd_bin:
            env["ZKLAB_ZKD"] = ARGS.zkd_bin
        elif os.environ.get("ZKD_BIN"):
            env["ZKLAB_ZKD"] = os.environ["ZKD_BIN"]
        done = subprocess.run([self.zklab, "--dir", self.dir, *args], capture_output=True,
                              text=True, env=env, timeout=120)
        self.assertEqual(done.returncode, 0, f"zklab {' '.join(args)}: {done.stderr}")
        return done.stdout

    def test_not_ready_out_of_quorum_ready_when_back(self):
        for node, port in self.admin.items():
            self.assertEqual(wait_for(port, "/readyz", 200), (200, "ok\n"), f"node {node}")
        survivor = self.admin[1]
        self.lab("stop", "2")
        self.lab("stop", "3")

        status, body = wait_for(survivor, "/readyz", 503)
        self.assertEqual(status, 503, body)
        self.assertEqual(body.count("\n"), 1, f"one line: {body!r}")
        self.assertRegex(body, r"^(no quorum|not synced with a leader) \(\w+\)\n$")
        self.assertEqual(http_get(survivor, "/livez")[::2], (200, "ok\n"))
        # ruok cannot tell: imok out of quorum, on Apache and zkd alike.
        self.assertEqual(
            servers.four_letter_word("127.0.0.1", self.client[1], "ruok"), "imok")

        self.lab("start", "2")
        self.assertEqual(wait_for(survivor, "/readyz", 200), (200, "ok\n"))
        self.assertEqual(wait_for(self.admin[2], "/readyz", 200), (200, "ok\n"))


if __name__ == "__main__":
    sys.exit(servers.unittest_main(sys.modules[__name__], True))
