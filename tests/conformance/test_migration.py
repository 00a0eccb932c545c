#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Migration between Apache ZooKeeper 3.8 and zkd: `zkd import` and `zkd export`.

Usage:
  test_migration.py [--zkd-bin PATH] [unittest args]

For each variant of Apache's data directory, a live Apache ZooKeeper 3.8
(standalone, Debian's `zookeeper` package) is filled through kazoo with a
varied tree, every znode is recorded (data, all eleven Stat fields, ACL list)
and Apache is stopped with a session and its ephemerals still open. Then:

  * `zkd import APACHE_DATA_DIR --config ZOO_CFG` exits 0, and zkd started
    on the imported dataDir shows exactly the recorded tree;
  * `zkd export --config ZOO_CFG OUT_DIR` with zkd stopped writes an Apache
    dataDir, and Apache started on it (dataDir=OUT_DIR) shows the recorded
    tree again; a second export into OUT_DIR is refused.

Variants of the Apache data: "log" (default settings: snapshot.0 written at
start, every change only in log.1), "gz" and "snappy" (snapCount=2 and
zookeeper.snapshot.compression.method, so that Apache takes fuzzy compressed
snapshots and rolls its log while being filled), "log_dir" (a separate
dataLogDir on both sides, `zkd import --log-dir`).

`zkd restore` (docs/quorum-loss-recovery.md): the snapshot Apache writes of
its whole state when it starts again on its data, plain under its own name
and gz under another, restored into an empty dataDir, shows the recorded
tree in zkd.

Refusals: a log with a damaged record (`zkd import` exits non-zero, names the
log file and the offset, leaves no snapshot behind), and an import into a
dataDir that already holds zkd data.

The tree: nested paths (depth 6), data with all 256 byte values, null data
(kazoo sends a null buffer, length -1, for value=None), empty data, 200 KB of
data, a parent with 200 children, a non-ASCII name, sequential nodes,
digest/auth/ip ACLs and world ACLs with restricted permissions, setData'd and
setACL'd nodes, deletions (cversion and pzxid move), a container with a
child (createContainer, opcode 19, through zkwire: kazoo 2.8 cannot make
containers), a multi, failed writes (Apache logs them as error txns with a
zxid of their own), a session closed on purpose, and ephemerals of a session
still open when Apache stops.

Nothing sleeps as synchronisation: servers are awaited with deadlines
(servers.py) and every check reads the state directly.

Exits 77 (skip) when kazoo or Apache ZooKeeper is not installed.
"""

import argparse
import glob
import logging
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402
import zkwire  # noqa: E402

try:
    from kazoo.client import KazooClient
    from kazoo.exceptions import NodeExistsError
    from kazoo.security import ACL, Id, Permissions, make_digest_acl
except ImportError:  # reported as a skip by main()
    KazooClient = None

ARGS = None

TOOL_TIMEOUT_S = 120
CONNECT_TIMEOUT_S = 15.0
# The session whose ephemerals Apache keeps: long enough that Apache, which
# restores it from its files and expires it only after this timeout counted
# from its start, still shows the ephemerals while the test reads the tree
# (maxSessionTimeout is 20 * tickTime = 40 s).
EPHEMERAL_SESSION_S = 30.0

USER, PASSWORD = "alice", "secret"
AUTH = [("digest", f"{USER}:{PASSWORD}")]
ROOT = "/migration"
EPHEMERAL = f"{ROOT}/eph/owned"
STAT_FIELDS = ("czxid", "mzxid", "ctime", "mtime", "version", "cversion", "aversion",
               "ephemeralOwner", "dataLength", "numChildren", "pzxid")

# Apache's txn log (FileTxnLog): a 16-byte header (magic "ZKLG", version,
# dbid), then records of crc (int64), length (int32), the txn, 'B'; zeros
# after the last record (preallocation).
LOG_HEADER = 16
LOG_MAGIC = b"ZKLG"

VARIANTS = {
    "log": {},
    "gz": {"snap_count": 2, "compression": "gz"},
    "snappy": {"snap_count": 2, "compression": "snappy"},
    "log_dir": {"snap_count": 2, "log_dir": True},
}


# -- kazoo ----------------------------------------------------------------------


def kazoo_client(server, timeout=10.0, **kwargs):
    client = KazooClient(hosts=server.hostport, timeout=timeout, auth_data=AUTH, **kwargs)
    client.start(timeout=CONNECT_TIMEOUT_S)
    return client


def close(client):
    client.stop()
    client.close()


def traverse(server):
    """Every znode from "/" down, as path -> {"data", the Stat fields, "acl"},
    read by a client authenticated as the digest user (who may read every
    node of the tree filled below). The client closes its session.

    /zookeeper and below are included: Apache 3.8 standalone and zkd show
    the same /zookeeper (cversion -2), /zookeeper/quota and /zookeeper/config
    (empty data, as no dynamic configuration exists in standalone; aversion
    -1; world:anyone READ), and the root's cversion starts at -1 on both, so
    they are compared like any other node."""
    client = kazoo_client(server)
    try:
        tree = {}
        pending = ["/"]
        while pending:
            path = pending.pop()
            data, stat = client.get(path)
            acls, _ = client.get_acls(path)
            node = {"data": data}
            node.update((field, getattr(stat, field)) for field in STAT_FIELDS)
            node["acl"] = [(a.perms, a.id.scheme, a.id.id) for a in acls]
            tree[path] = node
            for child in client.get_children(path):
                pending.append(("" if path == "/" else path) + "/" + child)
        return tree
    finally:
        close(client)


def tree_diff(expected, actual, expected_name, actual_name):
    """Readable differences between two traversals ("" when equal)."""
    lines = []
    for path in sorted(expected.keys() - actual.keys()):
        lines.append(f"{path}: only in {expected_name}")
    for path in sorted(actual.keys() - expected.keys()):
        lines.append(f"{path}: only in {actual_name}: {short(actual[path])}")
    for path in sorted(expected.keys() & actual.keys()):
        for field, want in expected[path].items():
            got = actual[path].get(field)
            if got != want:
                lines.append(f"{path}: {field}: {expected_name} {short(want)}, "
                             f"{actual_name} {short(got)}")
    return "\n".join(lines)


def short(value):
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


# -- the tree ---------------------------------------------------------------------


def fill(server):
    """Fills a fresh server; returns the kazoo client of the session left
    open, which owns EPHEMERAL and a sequential ephemeral."""
    c = kazoo_client(server)
    try:
        c.create(ROOT, b"migration root")
        # Depth 6, parents made by kazoo (makepath) with empty data.
        c.create(f"{ROOT}/a/b/c/d/e", b"deep", makepath=True)
        c.create(f"{ROOT}/binary", bytes(range(256)))
        # kazoo serializes value=None as a null buffer (length -1); Apache
        # keeps it null and answers it as null again (kazoo: None), while
        # value=b"" is an empty buffer.
        c.create(f"{ROOT}/null", None)
        c.create(f"{ROOT}/empty", b"")
        c.create(f"{ROOT}/large", bytes(i % 251 for i in range(200_000)))
        c.create(f"{ROOT}/\u00fcn\u00efc\u00f6d\u00e9-\u540d\u524d", "\u00fc".encode())

        c.create(f"{ROOT}/many", b"200 children")
        for i in range(200):
            c.create_async(f"{ROOT}/many/child-{i:03d}", str(i).encode())
        c.sync(f"{ROOT}/many")  # behind the 200 creates
        assert len(c.get_children(f"{ROOT}/many")) == 200

        c.create(f"{ROOT}/seq", b"")
        for _ in range(5):
            c.create(f"{ROOT}/seq/item-", b"s", sequence=True)
        c.delete(f"{ROOT}/seq/item-0000000001")

        alice = make_digest_acl(USER, PASSWORD, all=True)
        anyone = Id("world", "anyone")
        c.create(f"{ROOT}/acl", b"")
        c.create(f"{ROOT}/acl/digest", b"alice only", acl=[alice])
        c.create(f"{ROOT}/acl/world-read", b"r", acl=[ACL(Permissions.READ, anyone)])
        c.create(f"{ROOT}/acl/world-rw", b"rw",
                 acl=[ACL(Permissions.READ | Permissions.WRITE, anyone)])
        c.create(f"{ROOT}/acl/mixed", b"cd for all, all for alice",
                 acl=[ACL(Permissions.CREATE | Permissions.DELETE, anyone), alice])
        c.create(f"{ROOT}/acl/ip", b"ip",
                 acl=[ACL(Permissions.READ | Permissions.ADMIN, Id("ip", "127.0.0.1"))])
        # "auth": the server stores the session's digest id instead.
        c.create(f"{ROOT}/acl/auth", b"auth", acl=[ACL(Permissions.ALL, Id("auth", ""))])
        c.create(f"{ROOT}/acl/changed", b"")
        c.set_acls(f"{ROOT}/acl/changed",  # setACL needs ADMIN on the ACL in place
                   [ACL(Permissions.READ | Permissions.WRITE | Permissions.ADMIN, anyone)])
        c.set_acls(f"{ROOT}/acl/changed", [ACL(Permissions.ALL & ~Permissions.DELETE, anyone),
                                           alice], version=1)

        c.create(f"{ROOT}/versioned", b"v0")
        for i in range(1, 4):
            c.set(f"{ROOT}/versioned", f"v{i}".encode(), version=i - 1)
        c.set(f"{ROOT}/empty", b"")  # version 1, still empty

        c.create(f"{ROOT}/churn", b"")
        for i in range(10):
            c.create(f"{ROOT}/churn/x{i}", b"x")
        for i in range(5):
            c.delete(f"{ROOT}/churn/x{i}")
        c.create(f"{ROOT}/churn/gone/sub/leaf", b"", makepath=True)
        c.delete(f"{ROOT}/churn/gone", recursive=True)
        c.create("/migration-temporary", b"")
        c.delete("/migration-temporary")  # the root's cversion and pzxid move

        # A multi, and writes that fail: Apache logs them with a zxid each, a
        # failed create as an error txn, a failed multi as a multi txn whose
        # sub-txns before the failing op are the real create/setData (only
        # the failing one and those after it are error txns); replaying it
        # must change nothing.
        t = c.transaction()
        t.create(f"{ROOT}/multi", b"m")
        t.create(f"{ROOT}/multi/a", b"a")
        t.check(f"{ROOT}/versioned", 3)
        t.set_data(f"{ROOT}/versioned", b"v4", version=3)
        results = t.commit()
        assert not any(isinstance(r, Exception) for r in results), results
        t = c.transaction()
        t.create(f"{ROOT}/multi/b", b"b")
        t.set_data(f"{ROOT}/multi", b"not set")
        t.check(f"{ROOT}/versioned", 99)  # fails: the whole multi fails
        t.create(f"{ROOT}/multi/c", b"c")
        results = t.commit()
        assert isinstance(results[2], Exception), results
        assert not c.exists(f"{ROOT}/multi/b")
        try:
            c.create(f"{ROOT}/multi", b"again")
            raise AssertionError(f"{ROOT}/multi created twice")
        except NodeExistsError:
            pass

        # A container with a child, by a raw session that then closes.
        raw = zkwire.Session(server.host, server.port)
        body = (zkwire.ustring(f"{ROOT}/container") + zkwire.buffer(b"box")
                + zkwire.acl_vector(zkwire.OPEN_ACL_UNSAFE) + zkwire.int32(4))
        reply = raw.call(19, body)  # createContainer
        assert reply.err == 0, f"createContainer: error {reply.err}"
        assert raw.create(f"{ROOT}/container/child", b"keeps it").err == 0
        raw.close_session()

        # Its client outlives the server (see ApacheData): no warnings about
        # the connection it then loses.
        quiet = logging.getLogger("migration.owner")
        quiet.setLevel(logging.CRITICAL)
        owner = kazoo_client(server, timeout=EPHEMERAL_SESSION_S, logger=quiet)
        c.create(f"{ROOT}/eph", b"")
        owner.create(EPHEMERAL, b"ephemeral", ephemeral=True)
        owner.create(f"{ROOT}/eph/owned-seq-", b"", ephemeral=True, sequence=True)
        return owner
    finally:
        close(c)


# -- files ------------------------------------------------------------------------


def version2_files(directory, prefix):
    return sorted(os.path.basename(p)
                  for p in glob.glob(os.path.join(directory, "version-2", prefix + "*")))


def log_records(path):
    """(offset, length) of each txn of an Apache txn log."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:4] != LOG_MAGIC:
        raise AssertionError(f"{path}: not an Apache txn log")
    records, offset = [], LOG_HEADER
    while offset + 12 <= len(raw):
        length = struct.unpack_from("!i", raw, offset + 8)[0]
        if length <= 0 or offset + 12 + length + 1 > len(raw):
            break
        records.append((offset, length))
        offset += 12 + length + 1
    return records


def run_zkd(*args):
    return subprocess.run([ARGS.zkd_bin, *args], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, errors="replace",
                          timeout=TOOL_TIMEOUT_S)


def files_under(directory):
    """Relative path -> bytes of every file under `directory`, but zkd.lock
    (it holds the pid of the last zkd to lock the dataDir, even a refused
    one)."""
    out = {}
    for dirpath, _, names in os.walk(directory):
        for name in names:
            if name == "zkd.lock" and dirpath == directory:
                continue
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, directory)] = f.read()
    return out


class ApacheData:
    """An Apache dataDir (and dataLogDir) filled as above, with the tree
    Apache showed just before it stopped."""

    def __init__(self, variant, root):
        settings = VARIANTS[variant]
        self.variant = variant
        self.data_dir = os.path.join(root, f"apache-{variant}")
        self.log_dir = None
        if settings.get("log_dir"):
            self.log_dir = os.path.join(root, f"apache-{variant}-log")
        self.compression = settings.get("compression")
        extra = {}
        if settings.get("snap_count"):
            extra["snapCount"] = str(settings["snap_count"])
        if self.log_dir:
            os.makedirs(self.log_dir)
            extra["dataLogDir"] = self.log_dir
        flags = []
        if self.compression:
            flags.append(f"-Dzookeeper.snapshot.compression.method={self.compression}")
        apache = servers.Server("apache", data_dir=self.data_dir, extra_config=extra,
                                jvm_flags=flags)
        owner = None
        try:
            apache.start()
            owner = fill(apache)
            self.owner_session = owner.client_id[0]
            self.tree = traverse(apache)
            self.snapshots = version2_files(self.data_dir, "snapshot.")
            self.logs = version2_files(self.log_dir or self.data_dir, "log.")
        except BaseException:
            print(f"[apache {variant}] log tail:\n{apache.log_tail()}", file=sys.stderr)
            raise
        finally:
            # Apache goes first: the owner's session is never closed (its
            # client finds no server to send closeSession to), so Apache's
            # files keep the session and its ephemerals.
            apache.stop()
            if owner is not None:
                close(owner)

    def import_args(self):
        return [self.data_dir] + (["--log-dir", self.log_dir] if self.log_dir else [])


# -- tests ------------------------------------------------------------------------


class MigrationTest(unittest.TestCase):
    maxDiff = None
    root = None
    apache_data = {}

    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="zk-conformance-migration-")

    @classmethod
    def tearDownClass(cls):
        if os.environ.get("ZK_CONFORMANCE_KEEP"):
            print(f"[migration] files kept in {cls.root}", file=sys.stderr)
        else:
            shutil.rmtree(cls.root, ignore_errors=True)

    def apache(self, variant):
        """The variant's Apache data, made once for the class."""
        if variant not in self.apache_data:
            type(self).apache_data[variant] = ApacheData(variant, self.root)
        return self.apache_data[variant]

    def fresh_dir(self, name):
        path = os.path.join(self.root, name)
        self.assertFalse(os.path.exists(path), path)
        return path

    def zkd(self, data_dir, log_dir=None):
        extra = {"dataLogDir": log_dir} if log_dir else None
        if log_dir:
            os.makedirs(log_dir, exist_ok=True)
        server = servers.Server("zkd", zkd_bin=ARGS.zkd_bin, data_dir=data_dir, extra_config=extra)
        self.addCleanup(server.stop)
        return server

    def assertTreeEqual(self, expected, actual, actual_name):
        diff = tree_diff(expected, actual, "apache", actual_name)
        if diff:
            self.fail(f"the tree {actual_name} shows differs from Apache's:\n{diff}")

    def assertStartsServingTree(self, a, zkd, name):
        """Starts `zkd` and expects it to show Apache's recorded tree (the
        server's log tail is printed when it does not)."""
        zkd.start()
        try:
            self.assertTreeEqual(a.tree, traverse(zkd), name)
        except BaseException:
            print(f"[{name} {a.variant}] log tail:\n{zkd.log_tail()}", file=sys.stderr)
            raise

    def assertTool(self, done, what):
        self.assertEqual(done.returncode, 0,
                         f"{what} exited {done.returncode}\nstdout:\n{done.stdout}\n"
                         f"stderr:\n{done.stderr}")

    # -- the round trip -----------------------------------------------------------

    def round_trip(self, variant):
        a = self.apache(variant)
        self.check_apache_files(a)
        self.assertEqual(a.tree[EPHEMERAL]["ephemeralOwner"], a.owner_session)

        # Apache -> zkd.
        zkd_data = self.fresh_dir(f"zkd-{variant}")
        zkd_log = self.fresh_dir(f"zkd-{variant}-log") if a.log_dir else None
        zkd = self.zkd(zkd_data, zkd_log)
        done = run_zkd("import", *a.import_args(), "--config", zkd.write_config())
        self.assertTool(done, "zkd import")
        self.assertTrue(done.stdout.strip(), "zkd import printed no summary")
        self.assertStartsServingTree(a, zkd, "zkd")
        zkd.stop()

        # zkd -> Apache.
        out = self.fresh_dir(f"export-{variant}")
        done = run_zkd("export", "--config", zkd.write_config(), out)
        self.assertTool(done, "zkd export")
        snapshots = version2_files(out, "snapshot.")
        self.assertEqual(len(snapshots), 1, f"export wrote {snapshots}")
        # Apache keeps its epoch files next to the snapshots (FileTxnSnapLog's
        # snapDir, dataDir/version-2); standalone Apache writes none itself.
        for epoch in ("acceptedEpoch", "currentEpoch"):
            self.assertTrue(os.path.exists(os.path.join(out, "version-2", epoch)),
                            f"export wrote no version-2/{epoch}")
        with servers.Server("apache", data_dir=out) as apache:
            # Read at once: Apache restored the owner's session and expires
            # it only EPHEMERAL_SESSION_S after its start.
            self.assertTreeEqual(a.tree, traverse(apache), "apache(export)")

        # OUT_DIR/version-2 now holds snapshots (zkd's and Apache's own).
        again = run_zkd("export", "--config", zkd.write_config(), out)
        self.assertNotEqual(again.returncode, 0,
                            f"second export into {out} succeeded:\n{again.stdout}")

    def check_apache_files(self, a):
        if a.compression:
            suffix = "." + a.compression
            # snapshot.<zxid>.gz; snapshot.0 too is compressed.
            compressed = [s for s in a.snapshots
                          if s.endswith(suffix) and s.split(".")[1] != "0"]
            self.assertTrue(compressed, f"no {suffix} snapshot beyond snapshot.0: {a.snapshots}")
            self.assertGreater(len(a.logs), 1, f"Apache rolled no log: {a.logs}")
        elif a.variant == "log":
            self.assertEqual(a.snapshots, ["snapshot.0"])
            self.assertEqual(a.logs, ["log.1"])
        if a.log_dir:
            self.assertEqual(version2_files(a.data_dir, "log."), [])
            self.assertGreater(len(a.snapshots), 1, a.snapshots)

    def test_log(self):
        self.round_trip("log")

    def test_gz(self):
        self.round_trip("gz")

    def test_snappy(self):
        if not os.path.exists(servers.SNAPPY_JAR):
            self.skipTest(f"{servers.SNAPPY_JAR} not installed (libsnappy-java)")
        self.round_trip("snappy")

    def test_log_dir(self):
        self.round_trip("log_dir")

    # -- zkd restore (docs/quorum-loss-recovery.md) -------------------------------

    def restore_apaches_snapshot(self, variant, rename=None):
        """Apache started again on a copy of its data writes a snapshot of its
        whole state as it loads (ZooKeeperServer.loadData's clean snapshot,
        with 3.6+'s digest). That one file, restored into an empty dataDir,
        shows Apache's recorded tree in zkd. `rename`: the file is restored
        under that name instead (the zxid then comes from its tree)."""
        a = self.apache(variant)
        copy = self.fresh_dir(f"apache-{variant}-reloaded")
        shutil.copytree(a.data_dir, copy)
        flags = ([f"-Dzookeeper.snapshot.compression.method={a.compression}"]
                 if a.compression else [])
        with servers.Server("apache", data_dir=copy, jvm_flags=flags):
            pass
        newest = max(version2_files(copy, "snapshot."), key=lambda n: int(n.split(".")[1], 16))
        if a.compression:
            self.assertTrue(newest.endswith("." + a.compression), newest)
        snapshot = os.path.join(copy, "version-2", newest)
        if rename:
            renamed = os.path.join(self.fresh_dir(f"restore-{variant}-file"), rename)
            os.makedirs(os.path.dirname(renamed))
            shutil.copyfile(snapshot, renamed)
            snapshot = renamed

        zkd = self.zkd(self.fresh_dir(f"zkd-restored-{variant}"))
        done = run_zkd("restore", "--config", zkd.write_config(), snapshot)
        self.assertTool(done, "zkd restore")
        self.assertIn("restored ", done.stdout)
        self.assertStartsServingTree(a, zkd, "zkd(restore)")
        return done.stdout

    def test_restore_of_apaches_own_snapshot(self):
        out = self.restore_apaches_snapshot("log")
        self.assertIn("(the file name)", out)

    def test_restore_of_a_gz_snapshot_under_another_name(self):
        out = self.restore_apaches_snapshot("gz", rename="snapshot-download.bin")
        self.assertIn("(the newest zxid in the tree)", out)

    # -- refusals -----------------------------------------------------------------

    def test_damaged_log_is_refused(self):
        a = self.apache("log")
        damaged = self.fresh_dir("apache-damaged")
        shutil.copytree(a.data_dir, damaged)
        logs = glob.glob(os.path.join(damaged, "version-2", "log.*"))
        log = max(logs, key=lambda p: len(log_records(p)))
        records = log_records(log)
        self.assertGreater(len(records), 100, f"{log}: {len(records)} records")
        start, length = records[len(records) // 2]
        offset = start + 12 + length // 2  # inside the txn, past crc and length
        with open(log, "r+b") as f:
            f.seek(offset)
            byte = f.read(1)
            f.seek(offset)
            f.write(bytes([byte[0] ^ 0xFF]))

        zkd_data = self.fresh_dir("zkd-damaged")
        zkd = self.zkd(zkd_data)
        done = run_zkd("import", damaged, "--config", zkd.write_config())
        self.assertNotEqual(done.returncode, 0,
                            f"import of a damaged log succeeded:\n{done.stdout}")
        self.assertIn(os.path.basename(log), done.stderr)
        self.assertIn("offset", done.stderr)
        left = [os.path.join(d, n) for d, _, names in os.walk(zkd_data)
                for n in names if n.startswith("snapshot")]
        self.assertEqual(left, [], f"stderr:\n{done.stderr}")

    def test_import_into_zkd_data_is_refused(self):
        a = self.apache("log")
        zkd_data = self.fresh_dir("zkd-twice")
        zkd = self.zkd(zkd_data)
        config = zkd.write_config()
        self.assertTool(run_zkd("import", *a.import_args(), "--config", config), "zkd import")
        before = files_under(zkd_data)
        done = run_zkd("import", *a.import_args(), "--config", config)
        self.assertNotEqual(done.returncode, 0,
                            f"second import into {zkd_data} succeeded:\n{done.stdout}")
        self.assertTrue(done.stderr.strip(), "refused without a message")
        after = files_under(zkd_data)
        self.assertEqual(after.keys(), before.keys())
        changed = [name for name in before if before[name] != after[name]]
        self.assertEqual(changed, [], "the second import changed these files")


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zkd-bin", default=os.environ.get("ZKD_BIN"),
                        help="path of the zkd binary (default: $ZKD_BIN)")
    ARGS, rest = parser.parse_known_args()
    if KazooClient is None:
        servers.skip("kazoo is not installed (apt-get install python3-kazoo)")
    if not servers.apache_available():
        servers.skip(f"Apache ZooKeeper not installed ({servers.APACHE_JAR} / java missing)")
    if not ARGS.zkd_bin:
        print("ERROR: no zkd binary: set ZKD_BIN or pass --zkd-bin", file=sys.stderr)
        return 2
    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
