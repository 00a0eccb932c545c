# SPDX-License-Identifier: Apache-2.0
"""zkctl's persistent watches and removewatches against a real server (see zk_server.py).

Environment: ZKCTL = path of the zkctl binary (required); ZKD_BIN = path of zkd
(optional; without it the test runs against Apache ZooKeeper 3.8).
Run: ZKCTL=build/zkctl/zkctl /usr/bin/python3 tests/zkctl/zkctl_watch_test.py -v
"""

import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # keep the source tree clean
# The server fixture and the zkctl runner of the process tests.
import zkctl_process_test as fixture  # noqa: E402
from zkctl_process_test import (  # noqa: E402,F401
    ERROR, OK, WATCH_TIMEOUT, setUpModule, tearDownModule, trigger_until_done, zkctl)


class PersistentWatch(unittest.TestCase):
    def ok(self, *args, **kwargs):
        r = zkctl(*args, **kwargs)
        self.assertEqual(r.returncode, OK, f"zkctl {args}: {r.stdout!r} {r.stderr!r}")
        return r

    def stream(self, *args):
        p = subprocess.Popen([fixture.ZKCTL, "-s", fixture.SERVER.address, *args],
                             stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: p.poll() is None and p.kill())
        return p


    def test_recursive_watch_streams_json_lines_of_the_subtree(self):
        self.ok("create", "/pw")
        watcher = self.stream("--json", "watch", "--persistent", "--recursive", "--count", "3",
                              "/pw", "--timeout-watch", "30000")
        code, out, err = trigger_until_done(
            self, watcher, lambda n: self.ok("create", f"/pw/c{n}"))
        self.assertEqual(code, OK, err)
        events = [json.loads(line) for line in out.splitlines()]
        self.assertEqual(len(events), 3, out)
        # Consecutive creates under /pw: NodeCreated each, never NodeChildrenChanged.
        self.assertEqual([e["event"] for e in events], ["NodeCreated"] * 3)
        first = int(events[0]["path"][len("/pw/c"):])
        self.assertEqual([e["path"] for e in events], [f"/pw/c{first + i}" for i in range(3)])

    def test_persistent_watch_sees_children_and_data_of_its_node(self):
        self.ok("create", "/pp")
        watcher = self.stream("watch", "--persistent", "--count", "2", "/pp",
                              "--timeout-watch", "30000")
        code, out, err = trigger_until_done(
            self, watcher, lambda n: self.ok("set", "/pp", str(n)))
        self.assertEqual((code, err), (OK, ""))
        self.assertEqual(out, "NodeDataChanged /pp\nNodeDataChanged /pp\n")

    def test_removewatches_in_a_script(self):
        # Line 2 sets a persistent watch and times out; it stays until line 3
        # removes it; line 4 finds nothing left to remove.
        script = ("create /rw\n"
                  "watch --persistent /rw --timeout-watch 100\n"
                  "removewatches /rw\n"
                  "removewatches -a /rw\n")
        r = zkctl("--keep-going", "-", stdin=script)
        self.assertNotEqual(r.returncode, OK)
        self.assertEqual(r.stdout, "/rw\n")
        self.assertEqual(r.stderr.count("no event within"), 1, r.stderr)
        self.assertEqual(r.stderr.count("NOWATCHER"), 1, r.stderr)

    def test_recursive_needs_persistent(self):
        r = zkctl("watch", "--recursive", "/x")
        self.assertEqual(r.returncode, 2, r.stderr)


if __name__ == "__main__":
    unittest.main()
