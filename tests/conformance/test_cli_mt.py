#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The Apache ZooKeeper C client shell `cli_mt` (Debian zookeeper-bin) against a server.

Usage: test_cli_mt.py [--server zkd|apache] [--zkd-bin PATH] [--cli-mt PATH] [unittest args]

cli_mt reads one command per line on stdin and prints results from the C
client's completion callbacks (asynchronously, on stderr). The driver sends
one command, then reads output lines with a deadline until that command's
completion has been printed, so every assertion is on what a user sees.
Watch events (lines starting "Watcher ") may appear at any point and are
collected separately.

The C client reads a fixed 41-byte ConnectResponse frame (with the readOnly
byte), so merely connecting already checks that part of the handshake.

Exits 77 (skip) when cli_mt is not installed.
"""

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402

CLI_MT_CANDIDATES = ("/usr/lib/zookeeper/bin/cli_mt", "/usr/bin/cli_mt")
LINE_TIMEOUT = 10.0
EVENT_TIMEOUT = 10.0

ARGS = None
SERVER = None

STAT_RE = {
    "czxid": re.compile(r"^\tczxid=([0-9a-f]+)$"),
    "mzxid": re.compile(r"^\tmzxid=([0-9a-f]+)$"),
    "version": re.compile(r"^\tversion=([0-9a-f]+)\taversion=([0-9a-f]+)$"),
    "ephemeralOwner": re.compile(r"^\tephemeralOwner = ([0-9a-f]+)$"),
}


def find_cli_mt():
    for path in ((ARGS.cli_mt,) if ARGS and ARGS.cli_mt else ()) + CLI_MT_CANDIDATES:
        if path and os.access(path, os.X_OK):
            return path
    return shutil.which("cli_mt")


class CliMt:
    """One cli_mt process connected to the server."""

    def __init__(self, hostport):
        self.proc = subprocess.Popen(
            [find_cli_mt(), "-h", hostport],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self.lines = queue.Queue()
        self.events = queue.Queue()  # "Watcher ..." lines other than session events
        self.output = []  # everything, for failure messages
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        line = self.expect(r"^Got a new session id: 0x([0-9a-f]+)$", timeout=15.0)
        self.session_id = int(line.group(1), 16)

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.output.append(line)
            if line.startswith("Watcher ") and not line.startswith("Watcher SESSION_EVENT"):
                self.events.put(line)
            else:
                self.lines.put(line)
        self.lines.put(None)  # EOF

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=5)
        self._reader.join(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def send(self, command):
        self.proc.stdin.write((command + "\n").encode())
        self.proc.stdin.flush()

    def _next_line(self, deadline, waiting_for):
        remaining = deadline - time.monotonic()
        try:
            line = self.lines.get(timeout=max(0.0, remaining))
        except queue.Empty:
            raise AssertionError(
                f"cli_mt: no line matching {waiting_for!r} within the deadline; output so far:\n"
                + "\n".join(self.output[-30:])
            ) from None
        if line is None:
            raise AssertionError(f"cli_mt exited while waiting for {waiting_for!r}:\n"
                                 + "\n".join(self.output[-30:]))
        return line

    def expect(self, pattern, timeout=LINE_TIMEOUT):
        """Skip lines until one matches `pattern`; return the match."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = regex.match(self._next_line(deadline, pattern))
            if m:
                return m

    def read_stat(self):
        """Parse a dumpStat block ("null" when the call failed)."""
        deadline = time.monotonic() + LINE_TIMEOUT
        stat = {}
        while True:
            line = self._next_line(deadline, "stat block")
            if line == "null":
                return None
            for key, regex in STAT_RE.items():
                m = regex.match(line)
                if m and key == "version":
                    stat["version"], stat["aversion"] = int(m.group(1), 16), int(m.group(2), 16)
                elif m:
                    stat[key] = int(m.group(1), 16)
            if "ephemeralOwner" in stat:
                return stat

    # -- commands -------------------------------------------------------------

    def create(self, path, flags="", create2=False):
        """Returns (rc, created name or None[, stat])."""
        self.send(f"{'create2' if create2 else 'create'} {'+' + flags + ' ' if flags else ''}{path}")
        rc = int(self.expect(rf"^\[{re.escape(path)}\]: rc = (-?\d+)$").group(1))
        name = self.expect(r"^\tname = (.*)$").group(1) if rc == 0 else None
        if create2:
            return rc, name, self.read_stat() if rc == 0 else None
        return rc, name

    def get(self, path):
        """Returns (rc, value bytes or None, stat or None)."""
        self.send(f"get {path}")
        rc = int(self.expect(rf"^{re.escape(path)}: rc = (-?\d+)$").group(1))
        value = None
        if rc == 0:
            length = int(self.expect(r"^ value_len = (\d+)$").group(1))
            # The value is written raw, then "\nStat:\n".
            deadline = time.monotonic() + LINE_TIMEOUT
            parts = []
            while True:
                line = self._next_line(deadline, "Stat:")
                if line == "Stat:":
                    break
                parts.append(line)
            value = "\n".join(parts).encode()
            if len(value) != length:
                raise AssertionError(f"value_len {length} but value {value!r}")
        else:
            self.expect(r"^Stat:$")
        return rc, value, self.read_stat()

    def set(self, path, data):
        self.send(f"set {path} {data}")
        rc = int(self.expect(rf"^{re.escape(path)}: rc = (-?\d+) Stat:$").group(1))
        return rc, self.read_stat()

    def ls(self, path, with_stat=False):
        """Returns (rc, sorted children[, stat])."""
        self.send(f"{'ls2' if with_stat else 'ls'} {path}")
        rc = int(self.expect(rf"^{re.escape(path)}: rc = (-?\d+)$").group(1))
        deadline = time.monotonic() + LINE_TIMEOUT
        children = []
        while True:
            line = self._next_line(deadline, "time = ")
            if line.startswith("time = "):
                break
            if line.startswith("\t"):
                children.append(line[1:])
        children.sort()
        if with_stat:
            return rc, children, self.read_stat()
        return rc, children

    def delete(self, path):
        self.send(f"delete {path}")
        return int(self.expect(rf"^{re.escape(path)}: rc = (-?\d+)$").group(1))

    def sync(self, path):
        self.send(f"sync {path}")
        rc = int(self.expect(rf"^\[{re.escape(path)}\]: rc = (-?\d+)$").group(1))
        name = self.expect(r"^\tname = (.*)$").group(1) if rc == 0 else None
        return rc, name

    def exists(self, path, own_watcher=False):
        """cli_mt's exists/wexists are synchronous and print only errors.

        A following `sync /` acts as a barrier: whatever exists printed comes
        before the sync's completion.
        """
        self.send(f"{'wexists' if own_watcher else 'exists'} {path}")
        self.send("sync /")
        deadline = time.monotonic() + LINE_TIMEOUT
        rc = 0
        error = re.compile(rf"^Error (-?\d+) for {re.escape(path)}$")
        while True:
            line = self._next_line(deadline, "[/]: rc = 0")
            m = error.match(line)
            if m:
                rc = int(m.group(1))
            if line == "[/]: rc = 0":
                self.expect(r"^\tname = /$")
                return rc

    def barrier(self):
        """Round trip on this session: events sent before it have been printed."""
        rc, name = self.sync("/")
        if (rc, name) != (0, "/"):
            raise AssertionError(f"sync / gave {(rc, name)}")

    def wait_event(self, timeout=EVENT_TIMEOUT):
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no watch event printed within the deadline; output:\n"
                                 + "\n".join(self.output[-30:])) from None

    def pending_events(self):
        out = []
        while not self.events.empty():
            out.append(self.events.get_nowait())
        return out

    def quit(self):
        self.send("quit")
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            raise AssertionError("cli_mt did not exit after quit") from None


def event(kind, path):
    return f"Watcher {kind} state = CONNECTED_STATE for path {path}"


class CliMtTest(unittest.TestCase):
    def cli(self):
        c = CliMt(SERVER.hostport)
        self.addCleanup(c.close)
        return c

    def test_connect_prints_session_id(self):
        a, b = self.cli(), self.cli()
        self.assertNotEqual(a.session_id, 0)
        self.assertNotEqual(a.session_id, b.session_id)

    def test_create_get_set_delete(self):
        c = self.cli()
        self.assertEqual(c.create("/cli-basic"), (0, "/cli-basic"))
        rc, value, stat = c.get("/cli-basic")
        self.assertEqual((rc, value), (0, b"new"))  # cli_mt always creates with "new"
        self.assertEqual((stat["version"], stat["aversion"], stat["ephemeralOwner"]), (0, 0, 0))
        self.assertEqual(stat["czxid"], stat["mzxid"])
        rc, set_stat = c.set("/cli-basic", "hello world")
        self.assertEqual(rc, 0)
        self.assertEqual(set_stat["version"], 1)
        self.assertEqual(set_stat["czxid"], stat["czxid"])
        self.assertGreater(set_stat["mzxid"], stat["mzxid"])
        self.assertEqual(c.get("/cli-basic")[:2], (0, b"hello world"))
        self.assertEqual(c.delete("/cli-basic"), 0)
        self.assertEqual(c.get("/cli-basic"), (-101, None, None))
        self.assertEqual(c.delete("/cli-basic"), -101)

    def test_error_codes(self):
        c = self.cli()
        self.assertEqual(c.create("/cli-err"), (0, "/cli-err"))
        self.assertEqual(c.create("/cli-err"), (-110, None))  # ZNODEEXISTS
        self.assertEqual(c.create("/cli-missing/child"), (-101, None))  # ZNONODE
        self.assertEqual(c.create("/cli-err/child"), (0, "/cli-err/child"))
        self.assertEqual(c.delete("/cli-err"), -111)  # ZNOTEMPTY
        self.assertEqual(c.create("/cli-err-eph", "e"), (0, "/cli-err-eph"))
        self.assertEqual(c.create("/cli-err-eph/child"), (-108, None))  # ZNOCHILDRENFOREPHEMERALS
        self.assertEqual(c.set("/cli-missing", "x"), (-101, None))
        self.assertEqual(c.ls("/cli-missing"), (-101, []))
        self.assertEqual(c.exists("/cli-missing"), -101)
        self.assertEqual(c.exists("/cli-err"), 0)

    def test_sequential_and_ephemeral(self):
        c = self.cli()
        self.assertEqual(c.create("/cli-seq"), (0, "/cli-seq"))
        self.assertEqual(c.create("/cli-seq/n-", "s"), (0, "/cli-seq/n-0000000000"))
        self.assertEqual(c.create("/cli-seq/n-", "s"), (0, "/cli-seq/n-0000000001"))
        rc, name, stat = c.create("/cli-seq/e-", "es", create2=True)
        self.assertEqual((rc, name), (0, "/cli-seq/e-0000000002"))
        self.assertEqual(stat["ephemeralOwner"], c.session_id)
        rc, name, stat = c.create("/cli-seq/p", create2=True)
        self.assertEqual((rc, name, stat["ephemeralOwner"], stat["version"]), (0, "/cli-seq/p", 0, 0))
        self.assertEqual(stat["czxid"], stat["mzxid"])
        self.assertEqual(
            c.ls("/cli-seq"),
            (0, ["e-0000000002", "n-0000000000", "n-0000000001", "p"]),
        )

    def test_ls_root_and_ls2(self):
        c = self.cli()
        rc, children = c.ls("/")
        self.assertEqual(rc, 0)
        self.assertIn("zookeeper", children)
        self.assertEqual(c.ls("/zookeeper", with_stat=True)[:2], (0, ["config", "quota"]))
        self.assertEqual(c.create("/cli-ls2"), (0, "/cli-ls2"))
        rc, children, stat = c.ls("/cli-ls2", with_stat=True)
        self.assertEqual((rc, children, stat["version"]), (0, [], 0))

    def test_sync_echoes_path(self):
        c = self.cli()
        self.assertEqual(c.sync("/"), (0, "/"))
        self.assertEqual(c.sync("/cli-not-there"), (0, "/cli-not-there"))

    def test_watches_fire_once(self):
        watcher, writer = self.cli(), self.cli()
        self.assertEqual(writer.create("/cli-w"), (0, "/cli-w"))
        # get sets a data watch
        self.assertEqual(watcher.get("/cli-w")[0], 0)
        self.assertEqual(writer.set("/cli-w", "1")[0], 0)
        self.assertEqual(watcher.wait_event(), event("CHANGED_EVENT", "/cli-w"))
        self.assertEqual(writer.set("/cli-w", "2")[0], 0)
        watcher.barrier()
        self.assertEqual(watcher.pending_events(), [], "data watch fired twice")
        # ls sets a child watch
        self.assertEqual(watcher.ls("/cli-w"), (0, []))
        self.assertEqual(writer.create("/cli-w/c"), (0, "/cli-w/c"))
        self.assertEqual(watcher.wait_event(), event("CHILD_EVENT", "/cli-w"))
        self.assertEqual(writer.delete("/cli-w/c"), 0)
        watcher.barrier()
        self.assertEqual(watcher.pending_events(), [], "child watch fired twice")
        # wexists on a missing node
        self.assertEqual(watcher.exists("/cli-w-new", own_watcher=True), -101)
        self.assertEqual(writer.create("/cli-w-new"), (0, "/cli-w-new"))
        self.assertEqual(watcher.wait_event(), event("CREATED_EVENT", "/cli-w-new"))
        # exists on a present node, then delete
        self.assertEqual(watcher.exists("/cli-w-new"), 0)
        self.assertEqual(writer.delete("/cli-w-new"), 0)
        self.assertEqual(watcher.wait_event(), event("DELETED_EVENT", "/cli-w-new"))
        watcher.barrier()
        self.assertEqual(watcher.pending_events(), [])

    def test_own_write_event_printed_before_reply(self):
        c = self.cli()
        self.assertEqual(c.create("/cli-own"), (0, "/cli-own"))
        self.assertEqual(c.get("/cli-own")[0], 0)
        self.assertEqual(c.set("/cli-own", "x")[0], 0)
        # The notification frame precedes the setData reply on the wire, and
        # the C client delivers it first.
        self.assertEqual(c.pending_events(), [event("CHANGED_EVENT", "/cli-own")])

    def test_ephemeral_removed_when_client_quits(self):
        owner, observer = self.cli(), self.cli()
        self.assertEqual(owner.create("/cli-eph", "e"), (0, "/cli-eph"))
        rc, value, stat = observer.get("/cli-eph")  # sets a data watch
        self.assertEqual((rc, stat["ephemeralOwner"]), (0, owner.session_id))
        self.assertEqual(owner.quit(), 0)
        self.assertEqual(observer.wait_event(), event("DELETED_EVENT", "/cli-eph"))
        self.assertEqual(observer.get("/cli-eph"), (-101, None, None))


def main():
    def require_cli_mt():
        if not find_cli_mt():
            servers.skip("cli_mt not installed (apt-get install zookeeper-bin)")

    return servers.test_main(
        __name__,
        lambda parser: parser.add_argument("--cli-mt", help="path of cli_mt (default: search)"),
        require_cli_mt)


if __name__ == "__main__":
    sys.exit(main())
