# SPDX-License-Identifier: Apache-2.0
"""TAB in zkctl's interactive shell, typed in a pseudo-terminal against a real
server (see zk_server.py) holding /hello, /help, /helpdesk and /help/child1.

Environment: ZKCTL = path of the zkctl binary (required); ZKD_BIN = path of zkd
(optional; without it the test runs against Apache ZooKeeper 3.8).
Run: ZKCTL=build/zkctl/zkctl /usr/bin/python3 tests/zkctl/zkctl_completion_test.py -v
"""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pty_session import PtySession  # noqa: E402
from zk_server import ZkServer  # noqa: E402

ZKCTL = os.path.abspath(os.environ["ZKCTL"]) if os.environ.get("ZKCTL") else ""
SERVER = None
NODES = {"/hello": "world", "/help": "manual", "/helpdesk": "desk", "/help/child1": "first"}


def setUpModule():
    global SERVER
    if not ZKCTL or not os.access(ZKCTL, os.X_OK):
        raise RuntimeError("set ZKCTL to the zkctl binary")
    SERVER = ZkServer()
    SERVER.start()
    print(f"server: {SERVER.kind()} on {SERVER.address}", file=sys.stderr)
    script = "".join(f"create {path} {data}\n" for path, data in NODES.items())
    subprocess.run([ZKCTL, "-s", SERVER.address, "-"], input=script, text=True, check=True,
                   capture_output=True, timeout=60)


def tearDownModule():
    if SERVER:
        SERVER.stop()


class Completion(unittest.TestCase):
    def setUp(self):
        home = tempfile.mkdtemp(prefix="zkctl-home-")
        env = dict(os.environ, HOME=home, TERM="dumb")
        env.pop("ZKCTL_SERVER", None)
        self.shell = PtySession(self, [ZKCTL, "-s", SERVER.address], env)
        self.prompt = f"[zk: {SERVER.address}(CONNECTED ".encode()
        self.shell.read_until(self.prompt)

    def tearDown(self):
        self.shell.send("quit")
        self.assertEqual(self.shell.wait(), 0)

    def test_unique_path_completes_fully(self):
        self.shell.type("get /hell\t\n")  # -> get /hello
        self.shell.read_until(b"world\r\n")

    def test_nested_path_lists_the_parent(self):
        self.shell.type("get /help/ch\t\n")  # -> get /help/child1
        self.shell.read_until(b"first\r\n")

    def test_ambiguous_path_lists_the_candidates(self):
        self.shell.type("ls /hel\t\t")
        self.shell.read_until(b"/helpdesk")
        listed = bytes(self.shell.transcript)
        self.assertIn(b"/hello", listed)
        self.assertIn(b"/help ", listed)
        # The line kept what was typed; one more letter and TAB extend it to
        # the common prefix /help, which `ls` then lists.
        self.shell.type("p\t\n")
        self.shell.read_until(b"child1\r\n")
        self.shell.read_until(self.prompt)

    def test_command_and_option(self):
        self.shell.type("getAc\t/hello\n")  # -> getAcl /hello
        self.shell.read_until(b"world:anyone:cdrwa\r\n")
        self.shell.type("get --st\t/help\n")  # -> get --stat /help
        self.shell.read_until(b"dataLength = 6\r\n")

    def test_missing_parent_offers_nothing_and_the_shell_goes_on(self):
        self.shell.type("get /missing/x\t\n")
        self.shell.read_until(b"(NONODE)")
        self.shell.send("get /hello")
        self.shell.read_until(b"world\r\n")


if __name__ == "__main__":
    unittest.main()
