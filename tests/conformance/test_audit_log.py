#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The audit log (audit.enable=true): zkd's lines against Apache 3.8's.

Usage:
  test_audit_log.py [--zkd-bin PATH] [unittest args]

Runs one script of client operations against Apache ZooKeeper 3.8 (Debian's
`zookeeper` package) and against zkd, both with audit.enable=true in zoo.cfg,
and compares the two audit logs line by line: creates of every mode (with
ACLs, sequential, ephemeral, a container, TTL nodes, create flags that name
no mode), failed creates, setData (and a bad version), setACL (and NoAuth),
deletes (and NoNode, NotEmpty), multis that succeed and fail (sequential,
container and TTL creates inside), reconfig on a standalone server, and the
ephemeral nodes removed as sessions close or expire; serverStart and
serverStop around it all.

Apache logs through log4j 1.2 here (the binding Debian's zkServer.sh uses),
its audit logger routed to a file with the pattern of Apache's audit
appender, "%d{ISO8601} %p %c{2}: %m%n"; zkd writes its default file,
dataDir/zookeeper_audit.log. What must differ is normalised, and nothing
else: the time (its format is checked), the logger (log4j 1 prints %c{2} as
"audit.Slf4jAuditLogger", logback, Apache 3.8's default, and zkd as
"o.a.z.a.Slf4jAuditLogger"), session ids (numbered in order of appearance),
and the order of the ephemeral nodes one session's end removes (Apache's
follows a Java HashSet).

Exits 77 (skip) when kazoo, Apache or log4j 1.2 is not installed.
"""

import difflib
import os
import re
import sys
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402
import zkwire  # noqa: E402

try:
    from kazoo.client import KazooClient
    from kazoo.exceptions import (BadVersionError, NoAuthError, NodeExistsError, NoNodeError,
                                  NotEmptyError, RolledBackError)
    from kazoo.security import ACL, Id, Permissions, make_digest_acl
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()

AUDIT_LOGGER = "org.apache.zookeeper.audit.Slf4jAuditLogger"
LOG4J_PROPERTIES = f"""\
log4j.rootLogger=INFO, CONSOLE
log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender
log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout
log4j.appender.CONSOLE.layout.ConversionPattern=%d{{ISO8601}} - %-5p [%t:%C{{1}}@%L] - %m%n
log4j.logger.{AUDIT_LOGGER}=INFO, RFAAUDIT
log4j.additivity.{AUDIT_LOGGER}=false
log4j.appender.RFAAUDIT=org.apache.log4j.FileAppender
log4j.appender.RFAAUDIT.File=@FILE@
log4j.appender.RFAAUDIT.layout=org.apache.log4j.PatternLayout
log4j.appender.RFAAUDIT.layout.ConversionPattern=%d{{ISO8601}} %p %c{{2}}: %m%n
"""
# The logger as each side prints %c{2} (see the module's docstring).
LOGGER_TEXT = {"apache": "audit.Slf4jAuditLogger", "zkd": "o.a.z.a.Slf4jAuditLogger"}
LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (INFO|ERROR) (\S+): (.*)$")
EPHEMERAL_DELETION = "operation=ephemeralZNodeDeletionOnSessionCloseOrExpire"

# The shortest session both servers grant (2 x tickTime 2000), and how long
# its expiry may take to come (Apache checks every tickTime).
EXPIRING_SESSION_MS = 4000
EXPIRY_WAIT_S = 30

OP_CREATE = 1
OP_MULTI = 14
OP_RECONFIG = 16
OP_CREATE_CONTAINER = 19
OP_CREATE_TTL = 21
FLAG_CONTAINER = 4
FLAG_PERSISTENT_WITH_TTL = 5
FLAG_PERSISTENT_SEQUENTIAL_WITH_TTL = 6
def create_record(path, flags, data=b"", acl=zkwire.OPEN_ACL_UNSAFE):
    return zkwire.ustring(path) + zkwire.buffer(data) + zkwire.acl_vector(acl) + zkwire.int32(flags)


def create_ttl_record(path, flags, ttl_ms):
    return create_record(path, flags) + zkwire.int64(ttl_ms)


def expect_error(test, call, error):
    with test.assertRaises(error):
        call()


def run_script(test, server):
    """The operations whose audit lines are compared; the same on both
    servers. Each failure is checked, so a server that answers differently
    fails here rather than in the comparison."""
    hosts = server.hostport
    alice = KazooClient(hosts=hosts, auth_data=[("digest", "alice:pw")], timeout=10)
    alice.start(timeout=15)
    other = KazooClient(hosts=hosts, timeout=10)
    other.start(timeout=15)
    try:
        acl = [make_digest_acl("alice", "pw", all=True), ACL(Permissions.READ, Id("world", "anyone"))]
        alice.create("/audit", b"x", acl=acl)
        alice.create("/audit/seq-", b"", sequence=True)
        alice.create("/audit/eph", b"", ephemeral=True)
        alice.create("/audit/ephseq-", b"", ephemeral=True, sequence=True)
        other.create("/open", b"")
        other.create("/open/eph", b"", ephemeral=True)
        expect_error(test, lambda: alice.create("/audit", b""), NodeExistsError)
        expect_error(test, lambda: alice.create("/missing/child", b""), NoNodeError)
        expect_error(test, lambda: other.create("/audit/denied", b""), NoAuthError)
        alice.set("/audit", b"y")
        expect_error(test, lambda: alice.set("/audit", b"z", version=42), BadVersionError)
        expect_error(test, lambda: other.set("/audit", b"z"), NoAuthError)
        alice.set_acls("/audit", acl + [ACL(Permissions.READ | Permissions.WRITE, Id("ip", "127.0.0.1"))])
        expect_error(test, lambda: other.set_acls("/audit", [ACL(Permissions.ALL, Id("world", "anyone"))]),
                     NoAuthError)
        expect_error(test, lambda: alice.delete("/audit/none"), NoNodeError)
        expect_error(test, lambda: alice.delete("/audit"), NotEmptyError)

        t = alice.transaction()
        t.create("/audit/m1", b"")
        t.create("/audit/m2-", b"", sequence=True)
        t.set_data("/audit/m1", b"z")
        t.check("/audit", 1)
        t.delete("/audit/m1")
        results = t.commit()
        test.assertFalse([r for r in results if isinstance(r, Exception)], results)
        t = alice.transaction()
        t.create("/audit/m3", b"")
        t.create("/audit", b"")
        results = t.commit()
        test.assertIsInstance(results[0], RolledBackError)
        test.assertIsInstance(results[1], NodeExistsError)

        raw = zkwire.Session(server.host, server.port)
        try:
            # createContainer, a create (1) of a container (Apache makes one), TTL nodes by
            # createTTL and by create, flags naming no mode; then a multi
            # with a container and a TTL create.
            test.assertEqual(raw.call(OP_CREATE_CONTAINER, create_record("/box", FLAG_CONTAINER)).err, 0)
            test.assertEqual(raw.call(OP_CREATE, create_record("/box2", FLAG_CONTAINER)).err, 0)
            test.assertEqual(raw.call(OP_CREATE_TTL,
                                      create_ttl_record("/ttl", FLAG_PERSISTENT_WITH_TTL, 60000)).err, 0)
            test.assertNotEqual(raw.call(OP_CREATE, create_record("/ttl2", FLAG_PERSISTENT_WITH_TTL)).err, 0)
            test.assertNotEqual(raw.call(OP_CREATE, create_record("/bad", 9)).err, 0)
            reply = raw.multi([
                (OP_CREATE_CONTAINER, create_record("/box/m", FLAG_CONTAINER)),
                (OP_CREATE_TTL, create_ttl_record("/box/t-", FLAG_PERSISTENT_SEQUENTIAL_WITH_TTL, 60000)),
                (OP_CREATE, create_record("/box/p", 0)),
            ])
            test.assertEqual([r.err for r in zkwire.multi_response(reply.body)], [0, 0, 0])
            # Reconfig of a standalone server (reconfigEnabled unset).
            test.assertNotEqual(raw.call(OP_RECONFIG, zkwire.ustring("") + zkwire.ustring("2")
                                         + zkwire.ustring("") + zkwire.int64(-1)).err, 0)
        finally:
            raw.close_session()

        # A session that expires (its connection dropped, no closeSession):
        # its ephemeral goes when the server expires it.
        doomed = zkwire.Session(server.host, server.port, timeout_ms=EXPIRING_SESSION_MS)
        test.assertEqual(doomed.create("/doomed", flags=1).err, 0)
        gone = threading.Event()
        test.assertIsNotNone(alice.exists("/doomed", watch=lambda event: gone.set()))
        doomed.close()
        test.assertTrue(gone.wait(EXPIRY_WAIT_S), "the dropped session did not expire")

        # Child by child in one order on both servers (kazoo's recursive
        # delete follows getChildren's order, which Apache does not sort).
        for child in sorted(alice.get_children("/audit")):
            alice.delete("/audit/" + child)
        alice.delete("/audit")
        expect_error(test, lambda: alice.create("/audit/gone/x", b""), NoNodeError)
        alice.create("/audit", b"")
        alice.create("/audit/eph", b"", ephemeral=True)
        alice.create("/audit/eph2", b"", ephemeral=True)
    finally:
        alice.stop()
        alice.close()
        other.stop()
        other.close()


def audit_log(test, kind):
    """Runs the script against a fresh `kind` server; returns its audit log's lines."""
    extra = {"audit.enable": "true", "extendedTypesEnabled": "true"}
    if kind == "zkd":
        server = servers.Server("zkd", zkd_bin=ARGS.zkd_bin, extra_config=extra)
    else:
        server = servers.Server("apache", extra_config=extra, log4j=True)
    server.write_config()
    path = os.path.join(server.dir, "data", "zookeeper_audit.log")
    if kind == "apache":
        with open(server.log4j_path, "w") as f:
            f.write(LOG4J_PROPERTIES.replace("@FILE@", path))
    with server:
        run_script(test, server)
        server.stop_process()
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()


def normalised(kind, lines):
    """The lines with what must differ replaced (see the module docstring);
    fails on a line not in the audit layout."""
    sessions = {}
    out = []
    for line in lines:
        m = LINE.match(line)
        if m is None:
            raise AssertionError(f"{kind}: not an audit line: {line!r}")
        level, logger, message = m.groups()
        if logger != LOGGER_TEXT[kind]:
            raise AssertionError(f"{kind}: logger {logger!r}, expected {LOGGER_TEXT[kind]!r}: {line!r}")

        def session(match):
            return "session=S%d" % sessions.setdefault(match.group(1), len(sessions) + 1)

        out.append(f"{level} {re.sub(r'session=(0x[0-9a-f]+)', session, message)}")
    # One session's ephemeral deletions in a stable order.
    i = 0
    while i < len(out):
        j = i
        while j < len(out) and EPHEMERAL_DELETION in out[j]:
            j += 1
        out[i:j] = sorted(out[i:j])
        i = max(j, i + 1)
    return out


class AuditLogTest(unittest.TestCase):
    def test_zkd_writes_apaches_audit_lines(self):
        apache = normalised("apache", audit_log(self, "apache"))
        zkd = normalised("zkd", audit_log(self, "zkd"))
        # The script must have made Apache log what it is meant to cover, so
        # that two empty or short logs cannot pass.
        for needle in ["operation=serverStart", "znode_type=persistent_sequential",
                       "znode_type=ephemeral_sequential", "znode_type=container", "operation=setAcl",
                       "operation=multiOperation", "operation=reconfig", EPHEMERAL_DELETION,
                       "operation=serverStop", "ERROR ", "user=127.0.0.1,alice"]:
            self.assertTrue(any(needle in line for line in apache), f"Apache logged no {needle!r}")
        if zkd != apache:
            diff = "\n".join(difflib.unified_diff(apache, zkd, "apache", "zkd", lineterm=""))
            self.fail(f"zkd's audit log differs from Apache's:\n{diff}")


def main():
    if not servers.apache_available():
        servers.skip(f"Apache ZooKeeper not installed ({servers.APACHE_JAR})")
    missing = [jar for jar in servers.LOG4J_JARS if not os.path.exists(jar)]
    if missing:
        servers.skip(f"log4j 1.2 binding not installed ({', '.join(missing)})")
    return servers.unittest_main(sys.modules[__name__], KazooClient is not None)


if __name__ == "__main__":
    sys.exit(main())
