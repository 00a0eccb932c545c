#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A live Apache ZooKeeper 3.8 ensemble migrated to zkd and back under load.

Usage:
  test_mixed_migration.py [--zkd-bin PATH] [unittest args]

The acceptance run of zkd.peerProtocol=apache (mixed_ensemble.py): three
Apache QuorumPeerMain servers on one zoo.cfg that also says
zkd.peerProtocol=apache (Apache ignores it) serve a write load while they are
replaced by zkd one at a time, and then by Apache again:

  * the load: three writers, each a kazoo client given all three servers
    (writer k tries server k first), each creating numbered nodes under
    /load/wK and setting the data of older ones, one operation at a time,
    paced; every acknowledged write (path, value) and the time of every
    success is recorded, and so is every write whose outcome is unknown
    (connection lost, no reply in time);
  * a migration step: SIGTERM one server, wipe its dataDir (myid kept),
    start the other kind on the same zoo.cfg, wait until it serves (srvr
    says leader or follower) and the ensemble has one leader; followers are
    replaced first, the highest id first, so that zkd gets to lead Apache
    followers;
  * between two migration steps the current leader is SIGKILLed, a new one
    awaited, and the killed server restarted (same kind, dataDir kept): zkd
    both follows Apache leaders and leads Apache followers along the way;
  * after every step the test waits until some write succeeds again;
  * first, as the baseline, Apache's own rolling restart of the same
    ensemble (stop/start each server in turn, followers first, no kind
    change), under the same load.

At the end every acknowledged write must be there with its latest
acknowledged value (or the value of a later write whose outcome is unknown),
read through every server after a sync(); the test prints a table of the
steps: the leader after each, the longest write gap of the ensemble (no
writer succeeded) and of the worst single writer, and how the restarted
server synced (Apache: "Getting a diff/snapshot from leader", "Truncating
log"; zkd: "received the leader's snapshot", else DIFF), with the longest
gap of Apache's rolling restart beside.

Every wait polls with a deadline; the only sleeps pace the load and the
polling. On failure the table so far and the servers' logs are printed and
their directory kept (ZK_CONFORMANCE_KEEP=1 keeps it always).

Exits 77 (skip) when kazoo, Apache ZooKeeper or java is missing.
"""

import bisect
import logging
import os
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import mixed_ensemble  # noqa: E402
import servers  # noqa: E402

try:
    from kazoo.client import KazooClient
    from kazoo.exceptions import NodeExistsError, NoNodeError
    from kazoo.retry import KazooRetry
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()

SERVERS = 3
# Election and sync, JVM start included.
QUORUM_TIMEOUT_S = 30.0
# A restarted or replaced server serving, and a write succeeding after a step.
STEP_TIMEOUT_S = 30.0
RESUME_TIMEOUT_S = 20.0
CONNECT_TIMEOUT_S = 15.0
OP_TIMEOUT_S = 8.0
# kazoo asks for this; the servers grant at most 20 ticks (4 s).
SESSION_TIMEOUT_S = 10.0
# Each writer's pause between two operations (pacing, not synchronisation).
PACE_S = 0.02
WRITERS = 3
READ_BATCH = 200


class Writer(threading.Thread):
    """One client writing /load/w<k>: odd operations create the next
    numbered node, even ones set the data of an older node."""

    def __init__(self, k, hosts, load):
        super().__init__(name=f"writer-{k}", daemon=True)
        self.k = k
        self.base = f"/load/w{k}"
        self.load = load
        self.client = KazooClient(
            hosts=hosts, timeout=SESSION_TIMEOUT_S, randomize_hosts=False,
            connection_retry=KazooRetry(max_tries=-1, delay=0.05, backoff=1.5, max_delay=0.5))
        # path -> (last acknowledged value, values of later writes whose
        # outcome is unknown); only paths with an acknowledged write.
        self.acked = {}
        self.unknown = {}  # path -> values of writes with no known outcome
        self.successes = []  # monotonic times
        self.failures = {}  # exception name -> count
        self.ops = 0

    def path(self, n):
        return f"{self.base}/n-{n:06d}"

    def run(self):
        i = 0
        while not self.load.stopping.is_set():
            i += 1
            value = f"w{self.k}:{i}".encode()
            if i % 2:
                path = self.path(i // 2)
                result = self.client.create_async(path, value)
            else:
                path = self.path(i // 4)  # created long ago (or never: NoNode)
                result = self.client.set_async(path, value)
            self.ops += 1
            try:
                result.get(timeout=OP_TIMEOUT_S)
            except (NoNodeError, NodeExistsError):
                pass  # a definite answer: not applied
            except Exception as e:  # noqa: BLE001 - KazooException, KazooTimeoutError, ...
                # Applied or not: the node may hold this value later.
                self.unknown.setdefault(path, []).append(value)
                name = type(e).__name__
                self.failures[name] = self.failures.get(name, 0) + 1
            else:
                self.acked[path] = value
                self.unknown.pop(path, None)
                self.load.success(self, time.monotonic())
            # Pacing the load, not synchronisation.
            time.sleep(PACE_S)

    def stop(self):
        try:
            self.client.stop()
            self.client.close()
        except Exception:  # noqa: BLE001 - cleanup only
            pass


class Load:
    """WRITERS writers over the ensemble; success times merged."""

    def __init__(self, ensemble):
        self.ensemble = ensemble
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.times = []  # every success, all writers, in order
        self.writers = []
        ids = ensemble.ids()
        for k in range(WRITERS):
            order = ids[k % len(ids):] + ids[:k % len(ids)]
            hosts = ",".join(ensemble.connect_string(i) for i in order)
            self.writers.append(Writer(k, hosts, self))

    def success(self, writer, when):
        with self.lock:
            self.times.append(when)
            writer.successes.append(when)

    def start(self):
        for w in self.writers:
            w.client.start(timeout=CONNECT_TIMEOUT_S)
        setup = self.writers[0].client
        setup.ensure_path("/load")
        for w in self.writers:
            setup.ensure_path(w.base)
        for w in self.writers:
            w.start()

    def stop(self):
        self.stopping.set()
        for w in self.writers:
            w.join(timeout=OP_TIMEOUT_S + 5)
        for w in self.writers:
            w.stop()

    def last_success(self):
        with self.lock:
            return self.times[-1] if self.times else None

    @staticmethod
    def longest_gap(times, start, end):
        """The longest stretch with no success that overlaps [start, end]:
        from the last success before `start` through every success up to
        `end`, and on to the first one after it (or `end` itself) unless
        `end` is a success."""
        i = bisect.bisect_right(times, start)
        points = [times[i - 1] if i else start]
        j = i
        while j < len(times) and times[j] <= end:
            points.append(times[j])
            j += 1
        if points[-1] < end:
            points.append(times[j] if j < len(times) else end)
        return max((b - a for a, b in zip(points, points[1:])), default=0.0)


class Step:
    def __init__(self, phase, name, start):
        self.phase = phase
        self.name = name
        self.start = start
        self.ready = None  # the ensemble has one leader again
        self.resumed = None  # the first write success after `ready`
        self.leader = None
        self.kinds = None
        self.sync = "-"
        self.gap = None
        self.worst_writer_gap = None


class MixedMigrationTest(unittest.TestCase):

    def setUp(self):
        self.steps = []
        self.load = None
        # kazoo logs every dropped connection; hundreds are expected here.
        kazoo_log = logging.getLogger("kazoo")
        self.addCleanup(kazoo_log.setLevel, kazoo_log.level)
        kazoo_log.setLevel(logging.CRITICAL)

    # -- the ensemble ---------------------------------------------------------

    def leader(self):
        return self.mixed.wait_for_leader(QUORUM_TIMEOUT_S)

    def kinds(self):
        return "".join("Z" if self.mixed.node(i).kind == "zkd" else "A" for i in self.mixed.ids())

    def how_synced(self, myid, mark):
        """How server `myid` caught up, from what it logged since `mark`."""
        text = self.mixed.log_since(myid, mark)
        if self.mixed.node(myid).kind == "zkd":
            return "SNAP" if "received the leader's snapshot" in text else "DIFF"
        found = [word for needle, word in (("Getting a snapshot from leader", "SNAP"),
                                           ("Truncating log", "TRUNC"),
                                           ("Getting a diff from the leader", "DIFF"))
                 if needle in text]
        return "+".join(found) or "?"

    def step(self, phase, name, action):
        """Runs `action` (which returns the id of the server it restarted,
        or None), then waits for one leader and a write success."""
        step = Step(phase, name, time.monotonic())
        self.steps.append(step)
        restarted, mark = action()
        step.leader = self.leader()
        step.ready = time.monotonic()
        step.kinds = self.kinds()
        if restarted is not None:
            step.sync = self.how_synced(restarted, mark)

        def resumed():
            last = self.load.last_success()
            return last if last is not None and last > step.ready else None

        step.resumed = self.mixed.wait_for(f"a write success after step '{name}'", resumed,
                                           RESUME_TIMEOUT_S)
        return step

    def replace(self, myid, kind):
        """SIGTERM, wipe, start as `kind`; waits until it serves."""
        def action():
            self.mixed.stop(myid)
            self.mixed.wipe(myid)
            self.mixed.set_kind(myid, kind)
            mark = self.mixed.log_mark(myid)
            self.mixed.start(myid)
            self.mixed.wait_serving(myid, STEP_TIMEOUT_S)
            return myid, mark
        return action

    def kill_leader(self, leader):
        """SIGKILL the leader, await a new one, restart it (same kind)."""
        def action():
            self.mixed.kill(leader)
            self.leader()
            mark = self.mixed.log_mark(leader)
            self.mixed.start(leader)
            self.mixed.wait_serving(leader, STEP_TIMEOUT_S)
            return leader, mark
        return action

    def restart(self, myid):
        """SIGTERM and start again (same kind, dataDir kept)."""
        def action():
            self.mixed.stop(myid)
            mark = self.mixed.log_mark(myid)
            self.mixed.start(myid)
            self.mixed.wait_serving(myid, STEP_TIMEOUT_S)
            return myid, mark
        return action

    def migrate_all(self, phase, kind):
        """Replaces every server by one of `kind`, one at a time, killing
        the leader between two replacements."""
        todo = [i for i in self.mixed.ids() if self.mixed.node(i).kind != kind]
        while todo:
            leader = self.leader()
            followers = [i for i in todo if i != leader]
            myid = max(followers) if followers else leader
            old = self.mixed.node(myid).kind
            todo.remove(myid)
            self.step(phase, f"server {myid} {old} -> {kind}", self.replace(myid, kind))
            if todo or phase == "to zkd":
                leader = self.leader()
                self.step(phase, f"kill leader {leader} ({self.mixed.node(leader).kind}), "
                          f"restart", self.kill_leader(leader))

    def rolling_restart(self, phase):
        leader = self.leader()
        for myid in [i for i in self.mixed.ids() if i != leader] + [leader]:
            self.step(phase, f"restart server {myid} ({self.mixed.node(myid).kind})",
                      self.restart(myid))

    # -- the checks -------------------------------------------------------------

    def verify(self):
        """Every acknowledged write, through every server after a sync."""
        expected = {}  # path -> acceptable values
        for w in self.load.writers:
            for path, value in w.acked.items():
                expected[path] = {value, *w.unknown.get(path, [])}
        self.assertTrue(expected, "no write was acknowledged")
        paths = sorted(expected)
        for myid in self.mixed.ids():
            node = self.mixed.node(myid)
            client = KazooClient(hosts=node.hostport, timeout=SESSION_TIMEOUT_S)
            try:
                client.start(timeout=CONNECT_TIMEOUT_S)
                client.sync_async("/load").get(timeout=OP_TIMEOUT_S)
                missing, wrong = [], []
                for start in range(0, len(paths), READ_BATCH):
                    batch = paths[start:start + READ_BATCH]
                    pending = [client.get_async(p) for p in batch]
                    for path, result in zip(batch, pending):
                        try:
                            data = result.get(timeout=OP_TIMEOUT_S)[0]
                        except NoNodeError:
                            missing.append(path)
                            continue
                        if data not in expected[path]:
                            wrong.append((path, data, sorted(expected[path])))
            finally:
                client.stop()
                client.close()
            self.assertEqual(
                (missing, wrong), ([], []),
                f"through {node.name}: {len(missing)} of {len(paths)} acknowledged nodes "
                f"missing (first {missing[:5]}), {len(wrong)} with another value than the "
                f"last acknowledged (first {wrong[:3]})")
        return len(paths)

    def table(self):
        times = self.load.times if self.load else []
        lines = [f"{'phase':<16} {'step':<40} {'kinds':<5} {'leader after':<16} "
                 f"{'gap (any)':>9} {'gap (worst writer)':>18} {'sync':>5}"]
        for s in self.steps:
            end = s.resumed or time.monotonic()
            s.gap = Load.longest_gap(times, s.start, end) if times else None
            if self.load:
                s.worst_writer_gap = max(Load.longest_gap(w.successes, s.start, end)
                                         for w in self.load.writers if w.successes)
            leader = (f"{s.leader} ({'zkd' if s.kinds[s.leader - 1] == 'Z' else 'apache'})"
                      if s.leader and s.kinds else "-")
            gap = f"{s.gap:.2f}s" if s.gap is not None else "-"
            worst = f"{s.worst_writer_gap:.2f}s" if s.worst_writer_gap is not None else "-"
            if s.resumed is None:
                gap, worst = "FAILED", "FAILED"
            lines.append(f"{s.phase:<16} {s.name:<40} {s.kinds or '?':<5} {leader:<16} "
                         f"{gap:>9} {worst:>18} {s.sync:>5}")
        return "\n".join(lines)

    def summary(self, began, checked):
        def longest(steps, field):
            values = [getattr(s, field) for s in steps if getattr(s, field) is not None]
            return f"{max(values):.2f}s" if values else "-"

        migration = [s for s in self.steps if s.phase != "Apache rolling"]
        rolling = [s for s in self.steps if s.phase == "Apache rolling"]
        lines = [f"longest write gap: migration {longest(migration, 'gap')} (worst writer "
                 f"{longest(migration, 'worst_writer_gap')}), Apache rolling restart "
                 f"{longest(rolling, 'gap')} (worst writer "
                 f"{longest(rolling, 'worst_writer_gap')})"]
        if self.load:
            lines.append(f"writes: {sum(w.ops for w in self.load.writers)} sent, "
                         f"{len(self.load.times)} acknowledged, "
                         f"{sum(len(w.acked) for w in self.load.writers)} nodes with an "
                         f"acknowledged value; unknown outcomes by writer "
                         f"{[w.failures for w in self.load.writers]}")
        lines.append(f"{checked} nodes verified through every server" if checked is not None
                     else "not verified")
        lines.append(f"{time.monotonic() - began:.0f}s in all")
        return "\n".join(lines)

    # -- the run ----------------------------------------------------------------

    def test_rolling_migration_to_zkd_and_back_under_load(self):
        began = time.monotonic()
        with mixed_ensemble.MixedEnsemble(["apache"] * SERVERS, ARGS.zkd_bin) as ensemble:
            self.mixed = ensemble
            ensemble.start_all()
            first = self.leader()
            self.load = Load(ensemble)
            passed = False
            try:
                self.load.start()
                for w in self.load.writers:
                    ensemble.wait_for(f"a first success of writer {w.k}",
                                      lambda w=w: w.successes, RESUME_TIMEOUT_S)
                print(f"\nall-Apache ensemble, leader server {first}; load running",
                      flush=True)
                self.rolling_restart("Apache rolling")
                self.migrate_all("to zkd", "zkd")
                self.migrate_all("back to Apache", "apache")
                after_last = self.steps[-1].resumed
                for w in self.load.writers:
                    ensemble.wait_for(f"a success of writer {w.k} after the last step",
                                      lambda w=w: w.successes and w.successes[-1] > after_last,
                                      RESUME_TIMEOUT_S)
                self.load.stop()
                checked = self.verify()
                passed = True
            finally:
                if self.load:
                    self.load.stop()
                print(self.table(), flush=True)
                print(self.summary(began, checked if passed else None), flush=True)
                if not passed:
                    ensemble.mark_failed()

            mixed_steps = [s for s in self.steps if s.kinds and "Z" in s.kinds and "A" in s.kinds]
            self.assertTrue(any(s.kinds[s.leader - 1] == "Z" for s in mixed_steps),
                            "zkd never led Apache followers\n" + self.table())
            self.assertTrue(any(s.kinds[s.leader - 1] == "A" for s in mixed_steps),
                            "zkd never followed an Apache leader\n" + self.table())


def main():
    module = sys.modules[__name__]
    rest = servers.parse_arguments(module)
    if ARGS.server != "zkd":
        servers.skip("the migration always runs zkd and Apache servers; --server is unused")
    if KazooClient is None:
        servers.skip("kazoo is not installed (apt-get install python3-kazoo)")
    if not servers.apache_available():
        servers.skip(f"Apache ZooKeeper not installed ({servers.APACHE_JAR} / java missing)")
    servers.server_from_args(ARGS)  # exits with an error without a zkd binary
    program = unittest.main(module=module, argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
