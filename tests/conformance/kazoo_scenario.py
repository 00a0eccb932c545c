#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A fixed kazoo scenario over the core ZooKeeper API, as a normalized transcript.

Usage: kazoo_scenario.py HOST:PORT [--out FILE]

Each transcript line is a JSON object {"step", "call", "result" | "error"},
or {"step", "events"} listing the watch events delivered so far. Values that
depend on time or ids are normalized so that two correct servers give the
same transcript:

  * zxids become "z<rank>", the rank among all distinct non-zero zxids seen in
    the run (0 stays 0). Equalities (czxid == mzxid, pzxid == czxid of the
    last child) and order (mzxid grows) survive; gaps do not.
  * ctime/mtime: 0 stays 0; a plausible wall-clock time becomes "now";
    mtime is reported relative to ctime ("=ctime" when the node was never
    modified, ">=ctime" otherwise).
  * ephemeralOwner: 0, or the label of the client that owns it ("A", "B").
  * children lists are sorted (their order is unspecified).
  * watch events are listed in the order received, as [client, watch, type, path].

Watch events are collected at "drain" points: after the watching client has
done a read (so the server must already have sent any notification caused by
an earlier write), a marker is queued behind the watch callbacks and awaited
with a deadline. An event missing at its drain point is a real ordering bug.
"""

import argparse
import difflib
import json
import queue
import sys
import threading
import time

OP_TIMEOUT = 10.0
CONNECT_TIMEOUT = 15.0
WALL_CLOCK_SLACK_MS = 10 * 60 * 1000

try:
    from kazoo.client import KazooClient
    from kazoo.handlers.threading import KazooTimeoutError
    from kazoo.protocol.states import Callback
    from kazoo.security import ACL, Id
except ImportError:  # reported by callers as a skip
    KazooClient = None


class ZxidRef:
    """A zxid seen in a Stat; rendered after the run as its rank."""

    def __init__(self, value):
        self.value = value


class Recorder:
    def __init__(self):
        self.lines = []
        self.events = queue.Queue()
        self.session_labels = {}
        self.start_ms = int(time.time() * 1000)

    # -- normalization ----------------------------------------------------

    def _time(self, ms):
        if ms == 0:
            return 0
        now = int(time.time() * 1000)
        if self.start_ms - WALL_CLOCK_SLACK_MS <= ms <= now + WALL_CLOCK_SLACK_MS:
            return "now"
        return f"implausible:{ms}"

    def stat(self, st):
        if st is None:
            return None
        if st.mzxid == st.czxid:
            mtime = "=ctime" if st.mtime == st.ctime else f"!=ctime({st.mtime - st.ctime:+d}ms)"
        else:
            mtime = ">=ctime" if st.mtime >= st.ctime else "<ctime"
        owner = st.ephemeralOwner
        return {
            "czxid": ZxidRef(st.czxid),
            "mzxid": ZxidRef(st.mzxid),
            "pzxid": ZxidRef(st.pzxid),
            "ctime": self._time(st.ctime),
            "mtime": mtime,
            "version": st.version,
            "cversion": st.cversion,
            "aversion": st.aversion,
            "ephemeralOwner": 0 if owner == 0 else self.session_labels.get(owner, f"unknown:{owner:#x}"),
            "dataLength": st.dataLength,
            "numChildren": st.numChildren,
        }

    @staticmethod
    def data(value):
        if value is None:
            return None
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"hex": value.hex()}

    def value(self, v):
        """Normalize a kazoo return value."""
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, bytes):
            return self.data(v)
        if type(v).__name__ == "ZnodeStat":
            return self.stat(v)
        if type(v).__name__ == "ACL":
            return [v.perms, v.id.scheme, v.id.id]
        if isinstance(v, list):
            items = [self.value(x) for x in v]
            if all(isinstance(x, str) for x in items):
                return sorted(items)  # children lists
            return items  # ACL lists keep their order
        if isinstance(v, tuple):
            return [self.value(x) for x in v]
        return repr(v)

    # -- recording --------------------------------------------------------

    def call(self, step, client, name, *args, **kwargs):
        """Run client.<name>_async(*args) with a deadline and record the outcome."""
        label = getattr(client, "zk_label", "?")
        shown = [self.data(a) if isinstance(a, bytes) else a for a in args]
        for k, v in kwargs.items():
            if callable(v):
                v = "<watcher>"
            elif isinstance(v, list):
                v = self.value(v)
            shown.append(f"{k}={v}")
        line = {"step": step, "call": f"{label}.{name}", "args": shown}
        result = None
        try:
            result = getattr(client, name + "_async")(*args, **kwargs).get(timeout=OP_TIMEOUT)
            line["result"] = self.value(result)
        except KazooTimeoutError:
            line["error"] = "Timeout"
        except Exception as e:  # the exception class is the observable result
            line["error"] = type(e).__name__
        self.lines.append(line)
        return result

    def watcher(self, client, name):
        label = getattr(client, "zk_label", "?")

        def fn(event):
            self.events.put([label, name, event.type, event.path])

        return fn

    def drain(self, step, client, unordered=False):
        """Record all watch events delivered to `client` so far (see module doc).

        The caller has just completed a read on `client`, so the reader thread
        has already queued callbacks for every notification that preceded the
        read's reply. A marker dispatched now runs after all of them.
        unordered=True sorts the batch, for events whose relative order the
        server does not define (e.g. ephemerals removed at session close).
        """
        marker = threading.Event()
        client.handler.dispatch_callback(Callback("watch", marker.set, ()))
        if not marker.wait(OP_TIMEOUT):
            raise RuntimeError("kazoo callback thread did not run the drain marker")
        got = []
        while True:
            try:
                got.append(self.events.get_nowait())
            except queue.Empty:
                break
        if unordered:
            got.sort()
        self.lines.append({"step": step, "events": got})

    def note(self, step, **fields):
        self.lines.append({"step": step, **fields})

    # -- output -----------------------------------------------------------

    def finish(self):
        """Replace ZxidRefs by ranks; return the list of JSON-ready dicts."""
        seen = set()

        def collect(x):
            if isinstance(x, ZxidRef):
                seen.add(x.value)
            elif isinstance(x, dict):
                for v in x.values():
                    collect(v)
            elif isinstance(x, list):
                for v in x:
                    collect(v)

        collect(self.lines)
        rank = {z: f"z{i}" for i, z in enumerate(sorted(z for z in seen if z != 0), start=1)}
        rank[0] = 0

        def render(x):
            if isinstance(x, ZxidRef):
                return rank[x.value]
            if isinstance(x, dict):
                return {k: render(v) for k, v in x.items()}
            if isinstance(x, list):
                return [render(v) for v in x]
            return x

        return [render(line) for line in self.lines]


def connect(hostport, label, rec):
    client = KazooClient(hosts=hostport, timeout=10.0, connection_retry=None)
    client.start(timeout=CONNECT_TIMEOUT)
    client.zk_label = label
    rec.session_labels[client.client_id[0]] = label
    return client


def scenario(hostport):
    rec = Recorder()
    a = connect(hostport, "A", rec)
    b = connect(hostport, "B", rec)
    try:
        _run(rec, a, b)
    finally:
        for c in (a, b):
            try:
                c.stop()
                c.close()
            except Exception:
                pass
    return rec.finish()


def _run(rec, a, b):
    c = rec.call
    rec.note("sessions", distinct=a.client_id[0] != b.client_id[0],
             password_len=[len(a.client_id[1]), len(b.client_id[1])])

    # -- system nodes of a fresh server (docs/wire-protocol.md §5.1) ---------
    c("system", a, "get", "/")
    c("system", a, "get_children", "/")
    c("system", a, "get", "/zookeeper")
    c("system", a, "get_children", "/zookeeper")
    c("system", a, "get", "/zookeeper/quota")
    c("system", a, "get", "/zookeeper/config")
    c("system", a, "get_acls", "/zookeeper/config")
    c("system", a, "get_acls", "/")
    c("system", a, "exists", "/zookeeper/quota")

    # -- create / create2 ---------------------------------------------------
    c("create", a, "create", "/a", b"hello")
    c("create", a, "get", "/a")
    c("create", a, "create", "/a", b"again")  # NodeExists
    c("create", a, "create", "/nope/child", b"")  # NoNode (parent missing)
    c("create2", a, "create", "/c2", b"two", include_data=True)
    c("create2", a, "create", "/c2", b"two", include_data=True)  # NodeExists
    c("create2", a, "get", "/c2")
    c("create-empty", a, "create", "/empty", b"")
    c("create-empty", a, "get", "/empty")
    c("create-null", a, "create", "/null", None)
    c("create-null", a, "get", "/null")
    c("create-nested", a, "create", "/a/b", b"child")
    c("create-nested", a, "get", "/a")  # parent: cversion/numChildren/pzxid
    c("create-binary", a, "create", "/bin", bytes(range(256)))
    c("create-binary", a, "get", "/bin")

    # -- sequential: suffix = parent's creation counter, deletes do not count
    c("sequential", a, "create", "/seq", b"")
    c("sequential", a, "create", "/seq/n-", b"", sequence=True)
    c("sequential", a, "create", "/seq/n-", b"", sequence=True)
    c("sequential", a, "create", "/seq/plain", b"")
    c("sequential", a, "delete", "/seq/plain")
    c("sequential", a, "create", "/seq/", b"", sequence=True)  # trailing '/'
    c("sequential", a, "create", "/seq/e-", b"", ephemeral=True, sequence=True)
    c("sequential", a, "create", "/seq/c2-", b"x", sequence=True, include_data=True)
    c("sequential", a, "get_children", "/seq")
    c("sequential", a, "get", "/seq")
    c("sequential", a, "get", "/seq/e-0000000004")

    # -- ephemerals ---------------------------------------------------------
    c("ephemeral", a, "create", "/eph", b"e", ephemeral=True)
    c("ephemeral", a, "get", "/eph")
    c("ephemeral", a, "create", "/eph/child", b"")  # NoChildrenForEphemerals
    c("ephemeral", a, "create", "/eph/s-", b"", sequence=True)  # same
    c("ephemeral", a, "create", "/eph2", b"", ephemeral=True, include_data=True)

    # -- setData with version -----------------------------------------------
    c("set", a, "set", "/a", b"v1")
    c("set", a, "set", "/a", b"v2", version=1)
    c("set", a, "set", "/a", b"stale", version=1)  # BadVersion
    c("set", a, "set", "/a", b"same-bytes", version=-1)
    c("set", a, "set", "/a", b"same-bytes", version=-1)  # version still bumps
    c("set", a, "get", "/a")
    c("set", a, "set", "/missing", b"")  # NoNode
    c("set", a, "set", "/empty", None)  # empty -> null
    c("set", a, "get", "/empty")
    c("set", a, "set", "/null", b"")  # null -> empty
    c("set", a, "get", "/null")

    # -- delete with version ------------------------------------------------
    c("delete", a, "create", "/d", b"")
    c("delete", a, "create", "/d/x", b"")
    c("delete", a, "delete", "/d")  # NotEmpty
    c("delete", a, "delete", "/d/x", version=5)  # BadVersion
    c("delete", a, "set", "/d/x", b"1")
    c("delete", a, "delete", "/d/x", version=0)  # BadVersion (now 1)
    c("delete", a, "delete", "/d/x", version=1)
    c("delete", a, "get", "/d")  # cversion 2, numChildren 0, pzxid = delete's zxid
    c("delete", a, "delete", "/d")
    c("delete", a, "delete", "/d")  # NoNode
    c("delete", a, "exists", "/d")  # None

    # -- exists / getChildren / getChildren2 --------------------------------
    c("exists", a, "exists", "/a")
    c("exists", a, "exists", "/does/not/exist")
    c("children", a, "get_children", "/")
    c("children", a, "get_children", "/a/b")  # leaf: []
    c("children", a, "get_children", "/missing")  # NoNode
    c("children2", a, "get_children", "/seq", include_data=True)
    c("children2", a, "get_children", "/", include_data=True)

    # -- getACL returns what was given ---------------------------------------
    acl = [
        ACL(31, Id("world", "anyone")),
        ACL(1, Id("digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0=")),
        ACL(3, Id("ip", "127.0.0.1")),
    ]
    c("acl", a, "create", "/acl", b"", acl=acl)
    c("acl", a, "get_acls", "/acl")
    c("acl", a, "get_acls", "/a")
    c("acl", a, "get_acls", "/missing")  # NoNode

    # -- sync ---------------------------------------------------------------
    c("sync", a, "sync", "/a")
    c("sync", a, "sync", "/")
    c("sync", a, "sync", "/not-there")

    # -- invalid paths --------------------------------------------------------
    c("badpath", a, "create", "/nul\x00byte", b"")
    c("badpath", a, "create", "/ctl\x01char", b"")
    c("badpath", a, "create", "/emoji-\U0001F600", b"")
    c("badpath", a, "set", "/ctl\x01char", b"")
    c("badpath", a, "delete", "/zookeeper")
    c("badpath", a, "delete", "/")
    c("badpath", a, "delete", "/zookeeper/quota")
    c("badpath", a, "exists", "/nul\x00byte")

    # -- watches --------------------------------------------------------------
    c("watch-data", b, "create", "/w", b"0")
    c("watch-data", a, "get", "/w", watch=rec.watcher(a, "get/w"))
    c("watch-data", b, "set", "/w", b"1")
    c("watch-data", a, "exists", "/a")  # read barrier on A
    rec.drain("watch-data", a)  # CHANGED /w
    c("watch-data", b, "set", "/w", b"2")  # watch already fired: nothing
    c("watch-data", a, "exists", "/a")
    rec.drain("watch-data-once", a)

    c("watch-own-write", a, "get", "/w", watch=rec.watcher(a, "get/w"))
    c("watch-own-write", a, "set", "/w", b"3")  # notification precedes the reply
    rec.drain("watch-own-write", a)

    c("watch-exists", a, "exists", "/wnew", watch=rec.watcher(a, "exists/wnew"))
    c("watch-exists", b, "create", "/wnew", b"")
    c("watch-exists", a, "exists", "/a")
    rec.drain("watch-exists", a)  # CREATED /wnew
    c("watch-exists", a, "exists", "/wnew", watch=rec.watcher(a, "exists/wnew"))
    c("watch-exists", b, "set", "/wnew", b"changed")
    c("watch-exists", a, "exists", "/a")
    rec.drain("watch-exists-changed", a)  # CHANGED /wnew

    c("watch-child", a, "get_children", "/w", watch=rec.watcher(a, "children/w"))
    c("watch-child", b, "create", "/w/k", b"")
    c("watch-child", a, "exists", "/a")
    rec.drain("watch-child", a)  # CHILD /w
    c("watch-child", b, "delete", "/w/k")  # fired already: nothing
    c("watch-child", a, "exists", "/a")
    rec.drain("watch-child-once", a)

    c("watch-child-data", b, "create", "/w/k2", b"")
    c("watch-child-data", a, "get_children", "/w/k2", watch=rec.watcher(a, "children/w/k2"))
    c("watch-child-data", a, "get", "/w/k2", watch=rec.watcher(a, "get/w/k2"))
    c("watch-child-data", b, "set", "/w/k2", b"x")  # data watch only
    c("watch-child-data", a, "exists", "/a")
    rec.drain("watch-child-data", a)

    # delete with a child watch on the node and on its parent
    c("watch-delete", a, "get_children", "/w", watch=rec.watcher(a, "children/w"))
    c("watch-delete", a, "exists", "/w/k2", watch=rec.watcher(a, "exists/w/k2"))
    c("watch-delete", b, "delete", "/w/k2")
    c("watch-delete", a, "exists", "/a")
    rec.drain("watch-delete", a)  # DELETED /w/k2 (exists + children watchers), CHILD /w

    # watch on a node created then deleted by another client
    c("watch-missing", a, "exists", "/gone", watch=rec.watcher(a, "exists/gone"))
    c("watch-missing", b, "create", "/gone", b"")
    c("watch-missing", b, "delete", "/gone")
    c("watch-missing", a, "exists", "/a")
    rec.drain("watch-missing", a)  # CREATED only (one-shot)

    # getData on a missing node sets no watch
    c("watch-nonode", a, "get", "/later", watch=rec.watcher(a, "get/later"))  # NoNode
    c("watch-nonode", b, "create", "/later", b"")
    c("watch-nonode", a, "exists", "/a")
    rec.drain("watch-nonode", a)  # nothing

    # -- ephemerals of a closed session disappear, with watch events --------
    c("session-close", b, "create", "/beph", b"", ephemeral=True)
    c("session-close", b, "create", "/seq/b-", b"", ephemeral=True, sequence=True)
    c("session-close", a, "get", "/beph")
    c("session-close", a, "exists", "/beph", watch=rec.watcher(a, "exists/beph"))
    c("session-close", a, "get_children", "/seq", watch=rec.watcher(a, "children/seq"))
    b.stop()
    rec.note("session-close", call="B.stop", result=b.state)
    c("session-close", a, "exists", "/beph")
    rec.drain("session-close", a, unordered=True)  # DELETED /beph, CHILD /seq
    c("session-close", a, "get_children", "/seq")
    c("session-close", a, "get", "/seq")
    c("session-close", a, "get", "/eph")  # A's own ephemeral is still there

    # -- final state ----------------------------------------------------------
    c("final", a, "get", "/")
    c("final", a, "get_children", "/")
    c("final", a, "get", "/zookeeper")
    c("final", a, "get", "/w")


def transcript_text(lines):
    return "".join(json.dumps(line, sort_keys=True, ensure_ascii=True) + "\n" for line in lines)


def load_transcript(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def _line_key(line):
    return f"[{line.get('step')}] {line.get('call', 'events' if 'events' in line else '')} {line.get('args', '')}"


_MISSING = "<missing>"


def _value_diffs(e, a, where):
    """Yield (path, expected, actual) for the innermost differing values."""
    if isinstance(e, dict) and isinstance(a, dict):
        for key in sorted(set(e) | set(a)):
            yield from _value_diffs(e.get(key, _MISSING), a.get(key, _MISSING),
                                    f"{where}.{key}" if where else key)
    elif isinstance(e, list) and isinstance(a, list) and len(e) == len(a):
        for i, (ev, av) in enumerate(zip(e, a)):
            yield from _value_diffs(ev, av, f"{where}[{i}]")
    elif e != a:
        yield where, e, a


def diff_transcripts(expected, actual, expected_name="expected", actual_name="actual"):
    """Readable description of the differences; empty string when equal."""
    exp = [json.dumps(x, sort_keys=True) for x in expected]
    act = [json.dumps(x, sort_keys=True) for x in actual]
    if exp == act:
        return ""
    out = [f"transcripts differ ({expected_name}: {len(exp)} lines, {actual_name}: {len(act)} lines)"]
    matcher = difflib.SequenceMatcher(a=exp, b=act, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for n, e, a in zip(range(i1 + 1, i2 + 1), expected[i1:i2], actual[j1:j2]):
                out.append(f"- line {n}: {_line_key(e)}")
                for where, ev, av in _value_diffs(e, a, ""):
                    out.append(f"    {where}: {expected_name}={json.dumps(ev, sort_keys=True)}"
                               f"  {actual_name}={json.dumps(av, sort_keys=True)}")
            continue
        for line in expected[i1:i2]:
            out.append(f"- only in {expected_name}: {json.dumps(line, sort_keys=True)}")
        for line in actual[j1:j2]:
            out.append(f"+ only in {actual_name}: {json.dumps(line, sort_keys=True)}")
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Run the kazoo conformance scenario.")
    parser.add_argument("hostport")
    parser.add_argument("--out", help="write the transcript here instead of stdout")
    args = parser.parse_args(argv)
    if KazooClient is None:
        print("SKIP: kazoo is not installed (apt-get install python3-kazoo)")
        return 77
    text = transcript_text(scenario(args.hostport))
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
