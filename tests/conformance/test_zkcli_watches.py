#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Persistent watches through Apache's Java CLI zkCli.sh against a server.

Usage: test_zkcli_watches.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

zkCli.sh (Debian `zookeeper` package) reads commands from stdin when it is not
a terminal, runs them one after another and prints every watch event as a
"WatchedEvent state:... type:... path:..." line, after "WATCHER::". Events
caused by the session's own writes come before that write's reply, so one
script gives one deterministic transcript. The same expectations hold for
`--server apache`, which is how they were confirmed.

Exits 77 (skip) when zkCli.sh or Java is not installed.
"""

import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402

ZKCLI = servers.ZKCLI
EVENT_RE = re.compile(r"^WatchedEvent state:(\w+) type:(\w+) path:(\S+)$")

ARGS = None


def node_events(lines):
    """The watch events of the transcript, as "Type path", session events left out."""
    out = []
    for line in lines:
        m = EVENT_RE.match(line.strip())
        if m and m.group(2) != "None":
            out.append(f"{m.group(2)} {m.group(3)}")
    return out


class ZkCliPersistentWatchTest(servers.ClassServerTest):

    def run_script(self, commands):
        lines = servers.zkcli_session(self.server, commands)
        return lines, node_events(lines)

    def test_recursive_watch_reports_the_subtree_without_children_changed(self):
        lines, events = self.run_script([
            "create /r x",
            "addWatch -m PERSISTENT_RECURSIVE /r",
            "create /r/a y",
            "set /r/a z",
            "create /r/a/b",
            "set /r w",
            "create /rx",
            "delete /r/a/b",
        ])
        self.assertEqual(events, [
            "NodeCreated /r/a",
            "NodeDataChanged /r/a",
            "NodeCreated /r/a/b",
            "NodeDataChanged /r",
            "NodeDeleted /r/a/b",
        ], "\n".join(lines))

    def test_persistent_watch_fires_until_removed(self):
        lines, events = self.run_script([
            "addWatch -m PERSISTENT /q",
            "create /q",
            "create /q/c",
            "set /q v",
            "set /q w",
            "removewatches /q",
            "set /q after",
            "removewatches /q",
        ])
        self.assertEqual(events, [
            "NodeCreated /q",
            "NodeChildrenChanged /q",
            "NodeDataChanged /q",
            "NodeDataChanged /q",
            "PersistentWatchRemoved /q",
        ], "\n".join(lines))
        self.assertTrue(any("No such watcher for /q" in line for line in lines), "\n".join(lines))

    def test_one_event_per_change_with_overlapping_watches(self):
        lines, events = self.run_script([
            "create /o",
            "create /o/p",
            "addWatch -m PERSISTENT_RECURSIVE /o",
            "addWatch -m PERSISTENT_RECURSIVE /o/p",
            "set /o/p 1",
            "delete /o/p",
        ])
        # Two Java watchers match, but the server sends one frame per change.
        self.assertEqual(events, [
            "NodeDataChanged /o/p",
            "NodeDeleted /o/p",
        ], "\n".join(lines))


def main():
    return servers.unittest_main(sys.modules[__name__], servers.zkcli_available(),
                                 missing=f"zkCli.sh or Java is not installed ({ZKCLI})")

if __name__ == "__main__":
    sys.exit(main())
