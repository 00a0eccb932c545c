#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""SASL DIGEST-MD5 (opcode 102) with unmodified kazoo and pure-sasl.

Usage:
  test_kazoo_sasl.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

The server reads a JAAS file whose Server section lists DigestLoginModule
users, as Apache's does (§10.6 of docs/wire-protocol.md): Apache gets it as
-Djava.security.auth.login.config, zkd from the same flag in
SERVER_JVMFLAGS. What a kazoo user sees: a session authenticated as bob
creates nodes only bob can use (sasl ACLs, "auth" expanded to sasl:bob), the
superUser reads them, a wrong password or an unknown user gets AUTHFAILED and
a closed connection (never a retry loop) while other clients are served; on
the wire, two round trips and the whoAmI ids. Run with --server apache to
confirm the expectations are Apache 3.8's.

Exits 77 (skip) when kazoo or pure-sasl is not installed.
"""

import os
import shutil
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
    import kazoo_refusal
    import puresasl.client
    from kazoo.client import KazooClient
    from kazoo.exceptions import (AuthFailedError, ConnectionClosedError, InvalidACLError,
                                  NoAuthError)
    from kazoo.protocol.states import KeeperState
    from kazoo.security import ACL, CREATOR_ALL_ACL, Id, Permissions, make_acl
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()

JAAS = """
Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required
    user_super="adminsecret"
    user_bob="bobsecret"
    user_carol="carolsecret";
};
"""

SASL_PROVIDER = "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"
OP_SASL = 102
OP_WHOAMI = 107
ERR_AUTHFAILED = -115
ERR_SESSION_REQUIRES_SASL = -124
# How long a refused client may take to learn it before the test calls it a
# retry loop; generous, as CI machines are loaded.
REFUSAL_DEADLINE_S = 10.0


class SaslTest(unittest.TestCase):
    """One server for the class; each test works under its own path."""

    @classmethod
    def setUpClass(cls):
        cls.server = servers.server_from_args(
            ARGS, jaas=JAAS, extra_config={"authProvider.1": SASL_PROVIDER,
                                           "superUser": "super"})
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.root = "/" + self._testMethodName
        self.anonymous = self.client()
        self.anonymous.create(self.root, b"")

    def client(self, user=None, password=None):
        sasl = None
        if user is not None:
            sasl = {"mechanism": "DIGEST-MD5", "username": user, "password": password}
        c = KazooClient(hosts=self.server.hostport, timeout=10.0, sasl_options=sasl)
        c.start(timeout=15.0)
        self.addCleanup(lambda: (c.stop(), c.close()))
        return c

    def p(self, name):
        return self.root + "/" + name

    def test_sasl_user_owns_what_it_creates(self):
        bob = self.client("bob", "bobsecret")
        bob.create(self.p("mine"), b"secret", acl=[make_acl("sasl", "bob", all=True)])
        self.assertEqual(bob.get(self.p("mine"))[0], b"secret")
        acl, _ = bob.get_acls(self.p("mine"))
        self.assertEqual(acl, [ACL(Permissions.ALL, Id("sasl", "bob"))])

        with self.assertRaises(NoAuthError):
            self.anonymous.get(self.p("mine"))
        carol = self.client("carol", "carolsecret")
        with self.assertRaises(NoAuthError):
            carol.set(self.p("mine"), b"x")

    def test_auth_acl_expands_to_the_sasl_id(self):
        bob = self.client("bob", "bobsecret")
        bob.create(self.p("creator"), b"", acl=CREATOR_ALL_ACL)
        acl, _ = bob.get_acls(self.p("creator"))
        self.assertEqual(acl, [ACL(Permissions.ALL, Id("sasl", "bob"))])

    def test_super_user_passes_every_acl(self):
        bob = self.client("bob", "bobsecret")
        bob.create(self.p("bobs"), b"v", acl=[make_acl("sasl", "bob", read=True)])
        admin = self.client("super", "adminsecret")
        self.assertEqual(admin.get(self.p("bobs"))[0], b"v")
        admin.set(self.p("bobs"), b"w")  # WRITE is nobody's but super's

    def test_malformed_sasl_ids_are_invalid_acls(self):
        for bad in ("a@b@c", "a/b/c@R"):
            with self.subTest(id=bad), self.assertRaises(InvalidACLError):
                self.anonymous.create(self.p("bad"), b"", acl=[make_acl("sasl", bad, all=True)])
        self.anonymous.create(self.p("kerberos"), b"",
                              acl=[make_acl("sasl", "zookeeper/host@EXAMPLE.COM", all=True)])

    def assert_refused(self, user, password):
        c = KazooClient(hosts=self.server.hostport, timeout=10.0,
                        sasl_options={"mechanism": "DIGEST-MD5", "username": user,
                                      "password": password})
        self.addCleanup(lambda: (c.stop(), c.close()))
        # A refusal ends the session once; a retry loop would never end.
        ended_by = kazoo_refusal.start_until_given_up(c, REFUSAL_DEADLINE_S)
        self.assertEqual(ended_by, KeeperState.AUTH_FAILED,
                         f"not refused within {REFUSAL_DEADLINE_S}s (None: still connecting)")
        # kazoo stops connecting after AUTH_FAILED: requests fail at once.
        with self.assertRaises((AuthFailedError, ConnectionClosedError)):
            c.exists("/")
        # Everyone else is served as before.
        self.assertIsNotNone(self.anonymous.exists(self.root))
        self.assertEqual(self.client("bob", "bobsecret").get(self.root)[0], b"")

    def test_zkctl_authenticates_from_its_options_or_client_jvmflags(self):
        zkctl = os.environ.get("ZKCTL_BIN")
        if not zkctl:
            self.skipTest("no zkctl binary (ZKCTL_BIN)")
        scratch = tempfile.mkdtemp(prefix="zk-sasl-zkctl-")
        self.addCleanup(shutil.rmtree, scratch)
        password = os.path.join(scratch, "password")
        with open(password, "w") as f:
            f.write("bobsecret\n")
        client_jaas = os.path.join(scratch, "client_jaas.conf")
        with open(client_jaas, "w") as f:
            f.write('Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n'
                    '  username="bob"\n  password="bobsecret";\n};\n')

        def run(*args, env=None):
            return subprocess.run([zkctl, "-s", self.server.hostport, "--connect-timeout", "5000",
                                   *args], capture_output=True, text=True, timeout=60,
                                  env={**os.environ, **(env or {})})
        path = self.p("zkctl")
        created = run("--sasl-user", "bob", "--sasl-password-file", password, "create", path,
                      "from-zkctl")
        self.assertEqual(created.returncode, 0, created.stderr)
        acl = run("--sasl-user", "bob", "--sasl-password-file", password, "setacl", path,
                  "sasl:bob:cdrwa")
        self.assertEqual(acl.returncode, 0, acl.stderr)
        # As zkCli.sh users configure it: the JAAS Client section in CLIENT_JVMFLAGS.
        got = run("get", path,
                  env={"CLIENT_JVMFLAGS": f"-Djava.security.auth.login.config={client_jaas}"})
        self.assertEqual((got.returncode, got.stdout.strip()), (0, "from-zkctl"), got.stderr)
        anonymous = run("get", path)
        self.assertEqual(anonymous.returncode, 9, anonymous.stderr)  # NOAUTH
        with open(password, "w") as f:
            f.write("guess\n")
        refused = run("--sasl-user", "bob", "--sasl-password-file", password, "get", path)
        self.assertEqual(refused.returncode, 9, refused.stderr)  # AUTHFAILED
        self.assertIn("refused", refused.stderr)

    def test_wrong_password_is_refused(self):
        self.assert_refused("bob", "not-bobs")

    def test_unknown_user_is_refused(self):
        self.assert_refused("mallory", "whatever")

    # -- on the wire -----------------------------------------------------------

    def sasl_step(self, session, token):
        reply = session.call(OP_SASL, zkwire.buffer(token))
        return reply, (reply.body.buffer() if reply.body.remaining() else b"")

    def digest_client(self, password):
        return puresasl.client.SASLClient("zk-sasl-md5", "zookeeper", mechanism="DIGEST-MD5",
                                          username="bob", password=password)

    def test_two_round_trips_then_who_am_i(self):
        s = zkwire.Session(self.server.host, self.server.port)
        self.addCleanup(s.close)
        sasl = self.digest_client("bobsecret")
        reply, challenge = self.sasl_step(s, sasl.process(None) or b"")
        self.assertEqual((reply.err, reply.zxid), (0, 0))
        self.assertIn(b"realm=\"zk-sasl-md5\"", challenge)
        reply, rspauth = self.sasl_step(s, sasl.process(challenge))
        self.assertEqual((reply.err, reply.zxid), (0, 0))
        self.assertTrue(rspauth.startswith(b"rspauth="), rspauth)
        sasl.process(rspauth)
        self.assertTrue(sasl.complete)

        reply = s.call(OP_WHOAMI)
        self.assertEqual(reply.err, 0)
        count = reply.body.int32()
        ids = sorted((reply.body.ustring(), reply.body.ustring()) for _ in range(count))
        self.assertEqual(ids, [("ip", "127.0.0.1"), ("sasl", "bob")])

    def test_wrong_response_gets_authfailed_and_a_closed_connection(self):
        s = zkwire.Session(self.server.host, self.server.port)
        self.addCleanup(s.close)
        sasl = self.digest_client("not-bobs")
        _, challenge = self.sasl_step(s, sasl.process(None) or b"")
        xid = s.send_request(OP_SASL, zkwire.buffer(sasl.process(challenge)))
        reply = s.read_reply()
        self.assertEqual((reply.xid, reply.zxid, reply.err), (xid, 0, ERR_AUTHFAILED))
        self.assertEqual(reply.body.int32(), -1)  # a null token
        s.expect_closed()


class EnforcedSaslTest(unittest.TestCase):
    """enforce.auth.enabled=true with enforce.auth.schemes=sasl (§10.7)."""

    @classmethod
    def setUpClass(cls):
        cls.server = servers.server_from_args(
            ARGS, jaas=JAAS, extra_config={"authProvider.1": SASL_PROVIDER,
                                           "enforce.auth.enabled": "true",
                                           "enforce.auth.schemes": "sasl"})
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def session(self):
        s = zkwire.Session(self.server.host, self.server.port)
        self.addCleanup(s.close)
        return s

    def test_a_request_without_sasl_is_refused_and_closed(self):
        s = self.session()  # the handshake itself is allowed
        xid = s.send_request(zkwire.OP_EXISTS, zkwire.ustring("/") + zkwire.boolean(False))
        reply = s.read_reply()
        self.assertEqual((reply.xid, reply.zxid, reply.err), (xid, 0, ERR_SESSION_REQUIRES_SASL))
        s.expect_closed()

    def test_a_sasl_session_is_served(self):
        s = self.session()
        sasl = puresasl.client.SASLClient("zk-sasl-md5", "zookeeper", mechanism="DIGEST-MD5",
                                          username="bob", password="bobsecret")
        challenge = s.call(OP_SASL, zkwire.buffer(sasl.process(None) or b"")).body.buffer()
        s.call(OP_SASL, zkwire.buffer(sasl.process(challenge)))
        reply = s.call(zkwire.OP_EXISTS, zkwire.ustring("/") + zkwire.boolean(False))
        self.assertEqual(reply.err, 0)
        bob = KazooClient(hosts=self.server.hostport, timeout=10.0,
                          sasl_options={"mechanism": "DIGEST-MD5", "username": "bob",
                                        "password": "bobsecret"})
        bob.start(timeout=15.0)
        self.addCleanup(lambda: (bob.stop(), bob.close()))
        self.assertIsNotNone(bob.exists("/"))


class ProviderWithoutJaasTest(unittest.TestCase):
    """authProvider names SASL and no JAAS file is given, as Kafka-era
    configurations do: the server starts and serves clients without SASL."""

    def test_the_server_starts_and_serves(self):
        server = servers.server_from_args(ARGS, extra_config={"authProvider.1": SASL_PROVIDER})
        server.start()
        self.addCleanup(server.stop)
        c = KazooClient(hosts=server.hostport, timeout=10.0)
        c.start(timeout=15.0)
        self.addCleanup(lambda: (c.stop(), c.close()))
        c.create("/no_jaas", b"served")
        self.assertEqual(c.get("/no_jaas")[0], b"served")


def main():
    return servers.unittest_main(sys.modules[__name__], KazooClient is not None,
                                 missing="kazoo or pure-sasl is not installed "
                                 "(apt-get install python3-kazoo python3-pure-sasl)")


if __name__ == "__main__":
    sys.exit(main())
