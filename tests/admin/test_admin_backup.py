#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Online backup and restore through the admin server, as Apache 3.9's
snapshot and restore commands (the zookeeperSnapshotAndRestore guide).

A live zkd holds a varied tree: binary and empty data, ACLs of every scheme,
sequential nodes, a container, an ephemeral, a deep path; "/" itself is ALL
for digest root:root_passwd only. Then, as an operator would:
  - the guide's curl command without credentials is refused (401), with a
    digest that lacks ALL on "/" too (403), and with root's it streams the
    snapshot, with Apache's last_zxid and snapshot_size headers;
  - POSTed to a fresh zkd, the restored tree equals the original: data,
    every Stat field, ACLs; a second restore within the rate limit gets 429;
  - Apache 3.8 started on that stream as its snapshot file serves the same
    tree;
  - admin.snapshot.enabled=false answers 503, and an ensemble member refuses
    an online restore with the offline procedure's name.
Every wait has a deadline; nothing sleeps to synchronise.

Run: test_admin_backup.py --zkd-bin build/zkd/zkd
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import admin_util
from admin_util import admin_request as request
from admin_util import servers, super_config

import zkwire  # noqa: E402 (tests/conformance, on the path admin_util sets)

try:
    from kazoo.client import KazooClient
    from kazoo.security import ACL, Id, Permissions, make_digest_acl

    KAZOO = True
except ImportError:  # unittest_main reports the skip
    KAZOO = False

ARGS = None
ROOT_AUTH = "root:root_passwd"
SUPER_AUTH = "super:super_passwd"
OP_CREATE_CONTAINER = 19


SUPER_CONFIG = super_config(SUPER_AUTH)


def client(server, auth=SUPER_AUTH):
    c = KazooClient(hosts=server.hostport, timeout=10.0)
    c.start(timeout=15.0)
    if auth is not None:
        c.add_auth("digest", auth)
    return c


def create_container(server, path):
    """createContainer (opcode 19, CreateMode CONTAINER), which Debian's kazoo lacks."""
    session = zkwire.Session(server.host, server.port)
    try:
        body = (zkwire.ustring(path) + zkwire.buffer(b"c") +
                zkwire.acl_vector([(31, "world", "anyone")]) + zkwire.int32(4))
        reply = session.call(OP_CREATE_CONTAINER, body)
        if reply.err != 0:
            raise AssertionError(f"createContainer {path}: error {reply.err}")
    finally:
        session.close()


def build_tree(server, c):
    """The varied tree; returns nothing (walk() reads it back)."""
    c.create("/backup", b"top")
    c.create("/backup/binary", bytes(range(256)) * 3)
    c.create("/backup/empty", b"")
    sequential = [c.create("/backup/seq-", b"s", sequence=True) for _ in range(3)]
    create_container(server, "/backup/container")
    c.create("/backup/container/child", b"keeps it")
    c.create("/backup/ephemeral", b"e", ephemeral=True)
    deep = "/backup/deep"
    c.create(deep, b"")
    for level in range(12):
        deep += f"/l{level}"
        c.create(deep, str(level).encode())
    c.create("/backup/acl-digest", b"d", acl=[make_digest_acl("bob", "pw", all=True)])
    c.create("/backup/acl-ip", b"i", acl=[ACL(Permissions.READ | Permissions.WRITE,
                                              Id("ip", "127.0.0.0/8"))])
    c.create("/backup/acl-sasl", b"s", acl=[ACL(Permissions.ALL, Id("sasl", "carol"))])
    c.create("/backup/acl-x509", b"x", acl=[ACL(Permissions.READ, Id("x509", "CN=client,O=zk"))])
    c.create("/backup/acl-world", b"w", acl=[ACL(Permissions.READ | Permissions.CREATE,
                                                 Id("world", "anyone"))])
    c.set("/backup/binary", b"\x00\x00changed\xff")
    c.set("/backup/empty", b"")
    c.delete(sequential[1])
    c.set_acls("/", [make_digest_acl("root", "root_passwd", all=True)])


def walk(c, path="/"):
    """{path: (data, stat tuple, acls)} for every node, as a super client."""
    out = {}
    data, stat = c.get(path)
    acls, _ = c.get_acls(path)
    out[path] = (data, tuple(stat), sorted((a.perms, a.id.scheme, a.id.id) for a in acls))
    for child in c.get_children(path):
        out.update(walk(c, (path.rstrip("/") + "/" + child)))
    return out


def newest_zxid(tree):
    """The largest czxid, mzxid or pzxid of walk()'s nodes."""
    return max(max(stat[0], stat[1], stat[-1]) for _, stat, _ in tree.values())


def zkd_with_admin(extra=None, **kwargs):
    """A zkd with its admin server on a free port (server.admin_port) and super."""
    return admin_util.zkd_with_admin(ARGS, dict(SUPER_CONFIG, **(extra or {})), **kwargs)


class BackupAndRestoreTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.source = zkd_with_admin().start()
        cls.writer = client(cls.source)
        build_tree(cls.source, cls.writer)
        cls.expected = walk(cls.writer)
        status, headers, body = request(cls.source.admin_port, "GET",
                                        "/commands/snapshot?streaming=true",
                                        auth="digest " + ROOT_AUTH)
        cls.snapshot = (status, headers, body)

    @classmethod
    def tearDownClass(cls):
        cls.writer.stop()
        cls.writer.close()
        cls.source.stop()

    def test_refused_without_credentials_or_all_on_root(self):
        port = self.source.admin_port
        status, _, body = request(port, "GET", "/commands/snapshot?streaming=true")
        self.assertEqual(status, 401)
        self.assertEqual(json.loads(body)["error"], "Auth info is missing for the command")
        status, _, _ = request(port, "GET", "/commands/snapshot", auth="digest bob:pw")
        self.assertEqual(status, 403)
        status, _, _ = request(port, "GET", "/commands/snapshot", auth="ip")
        self.assertEqual(status, 403)  # "/" grants the ip 127.0.0.1 nothing
        status, _, _ = request(port, "GET", "/commands/snapshot", auth="nosuchscheme x")
        self.assertEqual(status, 401)
        status, _, _ = request(port, "POST", "/commands/restore", auth="digest bob:pw",
                               body=b"not read")
        self.assertEqual(status, 403)

    def test_the_snapshot_streams_with_apache_headers(self):
        status, headers, body = self.snapshot
        self.assertEqual(status, 200, body[:200])
        self.assertEqual(headers["content-type"], "application/octet-stream")
        self.assertEqual(int(headers["snapshot_size"]), len(body))
        self.assertRegex(headers["last_zxid"], r"^0x[0-9a-f]{16}$")
        self.assertGreaterEqual(int(headers["last_zxid"], 16), newest_zxid(self.expected))
        self.assertEqual(body[:4], b"ZKSN")

    def test_restored_on_a_fresh_zkd_the_tree_is_equal(self):
        status, headers, body = self.snapshot
        self.assertEqual(status, 200)
        data_dir = tempfile.mkdtemp(prefix="zk-backup-restored-")
        self.addCleanup(shutil.rmtree, data_dir, True)
        fresh = zkd_with_admin(data_dir=data_dir).start()
        self.addCleanup(fresh.stop)
        status, _, answer = request(fresh.admin_port, "POST", "/commands/restore",
                                    auth="digest " + ROOT_AUTH, body=body)
        self.assertEqual(status, 200, answer)
        reply = json.loads(answer)
        self.assertIsNone(reply["error"])
        # A 3.8-format file records no zxid of its own: a fresh server takes
        # its newest node's (the txns after it, such as a setACL, change no
        # node's zxid).
        self.assertEqual(reply["last_zxid"], newest_zxid(self.expected))
        self.assertLessEqual(reply["last_zxid"], int(headers["last_zxid"], 16))
        reader = client(fresh)
        self.addCleanup(lambda: (reader.stop(), reader.close()))
        self.assertEqual(walk(reader), self.expected)
        # Writes go on above the restored zxid.
        reader.create("/after-restore", b"new")
        self.assertGreater(reader.exists("/after-restore").czxid, int(headers["last_zxid"], 16))
        # The restored state is durable: a zkd started on the same dataDir
        # serves it, with the write made after it.
        reader.stop()
        reader.close()
        fresh.stop()
        again_server = zkd_with_admin(data_dir=data_dir).start()
        self.addCleanup(again_server.stop)
        again = client(again_server)
        self.addCleanup(lambda: (again.stop(), again.close()))
        restored = walk(again)
        self.assertEqual(restored.pop("/after-restore")[0], b"new")
        expected = dict(self.expected)
        # "/" gained a child since: compare its data and ACL only.
        root, expected_root = restored.pop("/"), expected.pop("/")
        self.assertEqual((root[0], root[2]), (expected_root[0], expected_root[2]))
        self.assertEqual(restored, expected)

    def test_a_damaged_stream_is_refused_and_changes_nothing(self):
        status, _, body = self.snapshot
        fresh = zkd_with_admin().start()
        self.addCleanup(fresh.stop)
        damaged = bytearray(body)
        damaged[len(damaged) // 2] ^= 0xFF
        status, _, answer = request(fresh.admin_port, "POST", "/commands/restore",
                                    auth="digest " + ROOT_AUTH, body=bytes(damaged))
        self.assertEqual(status, 500, answer)
        self.assertIn("offset", json.loads(answer)["error"])
        reader = client(fresh)
        self.addCleanup(lambda: (reader.stop(), reader.close()))
        self.assertIsNone(reader.exists("/backup"))
        # The limiter counted the refused one: the next waits its interval.
        status, _, _ = request(fresh.admin_port, "POST", "/commands/restore",
                               auth="digest " + ROOT_AUTH, body=body)
        self.assertEqual(status, 429)

    def test_apache_serves_the_stream_as_its_snapshot(self):
        if not servers.apache_available():
            self.skipTest("Apache ZooKeeper is not installed")
        status, headers, body = self.snapshot
        self.assertEqual(status, 200)
        data_dir = tempfile.mkdtemp(prefix="zk-backup-apache-")
        self.addCleanup(shutil.rmtree, data_dir, True)
        os.makedirs(os.path.join(data_dir, "version-2"))
        name = "snapshot." + format(int(headers["last_zxid"], 16), "x")
        with open(os.path.join(data_dir, "version-2", name), "wb") as f:
            f.write(body)
        apache = servers.Server("apache", extra_config=SUPER_CONFIG, data_dir=data_dir).start()
        self.addCleanup(apache.stop)
        reader = client(apache)
        self.addCleanup(lambda: (reader.stop(), reader.close()))
        served = walk(reader)
        # The ephemeral's session is in the file; Apache keeps it until it
        # expires, as zkd does.
        self.assertEqual(served, self.expected)


class ZkctlVerbsTest(unittest.TestCase):
    """zkctl backup and restore, as a script runs them."""

    def zkctl(self, *args):
        binary = os.environ.get("ZKCTL_BIN")
        if not binary:
            self.skipTest("no zkctl binary (ZKCTL_BIN)")
        return subprocess.run([binary, *args], capture_output=True, text=True, timeout=60)

    def test_backup_then_restore_elsewhere(self):
        source = zkd_with_admin().start()
        self.addCleanup(source.stop)
        writer = client(source, auth=None)
        self.addCleanup(lambda: (writer.stop(), writer.close()))
        writer.create("/kept", b"by zkctl")
        work = tempfile.mkdtemp(prefix="zk-zkctl-backup-")
        self.addCleanup(shutil.rmtree, work, True)
        target = os.path.join(work, "zk.snap")
        auth_file = os.path.join(work, "auth")
        with open(auth_file, "w") as f:
            f.write("digest " + ROOT_AUTH + "\n")
        admin = f"127.0.0.1:{source.admin_port}"
        done = self.zkctl("--json", "backup", "--admin", admin, "--auth-file", auth_file, target)
        self.assertEqual(done.returncode, 0, done.stderr)
        reply = json.loads(done.stdout)
        self.assertEqual(reply["bytes"], os.path.getsize(target))
        self.assertRegex(reply["last_zxid"], r"^0x[0-9a-f]{16}$")

        fresh = zkd_with_admin().start()
        self.addCleanup(fresh.stop)
        done = self.zkctl("restore", "--admin", f"127.0.0.1:{fresh.admin_port}", "--auth",
                          "digest " + ROOT_AUTH, target)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("restored", done.stdout)
        reader = client(fresh, auth=None)
        self.addCleanup(lambda: (reader.stop(), reader.close()))
        self.assertEqual(reader.get("/kept")[0], b"by zkctl")

    def test_refusals_have_their_exit_codes(self):
        server = zkd_with_admin().start()
        self.addCleanup(server.stop)
        work = tempfile.mkdtemp(prefix="zk-zkctl-backup-")
        self.addCleanup(shutil.rmtree, work, True)
        target = os.path.join(work, "zk.snap")
        admin = f"127.0.0.1:{server.admin_port}"
        done = self.zkctl("backup", "--admin", admin, target)
        self.assertEqual(done.returncode, 9, done.stderr)  # NOAUTH: no credentials
        self.assertIn("401", done.stderr)
        self.assertFalse(os.path.exists(target))
        done = self.zkctl("backup", "--admin", admin)
        self.assertEqual(done.returncode, 2)  # usage
        self.assertIn("FILE is required", done.stderr)
        port = servers.free_loopback_port()
        done = self.zkctl("backup", "--admin", f"127.0.0.1:{port}", "--auth", "ip", target)
        self.assertEqual(done.returncode, 7, done.stderr)  # nothing listens


class SwitchesTest(unittest.TestCase):
    def test_disabled_snapshot_answers_503(self):
        server = zkd_with_admin({"admin.snapshot.enabled": "false"}).start()
        self.addCleanup(server.stop)
        status, _, _ = request(server.admin_port, "GET", "/commands/snapshot",
                               auth="digest " + ROOT_AUTH)
        self.assertEqual(status, 503)

    def test_snapshots_are_rate_limited(self):
        server = zkd_with_admin({"admin.rateLimiterIntervalInMS": "600000000"}).start()
        self.addCleanup(server.stop)
        first, _, _ = request(server.admin_port, "GET", "/commands/snapshot",
                              auth="digest " + ROOT_AUTH)
        second, _, _ = request(server.admin_port, "GET", "/commands/snapshot",
                               auth="digest " + ROOT_AUTH)
        self.assertEqual((first, second), (200, 429))

    def test_the_command_list_names_both(self):
        server = zkd_with_admin().start()
        self.addCleanup(server.stop)
        status, _, body = request(server.admin_port, "GET", "/commands")
        self.assertEqual(status, 200)
        self.assertIn(b'<a href="/commands/snapshot">snapshot</a>', body)
        self.assertIn(b'<a href="/commands/restore">restore</a>', body)


def main():
    return servers.unittest_main(sys.modules[__name__], KAZOO)


if __name__ == "__main__":
    sys.exit(main())
