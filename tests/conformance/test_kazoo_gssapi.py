#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""SASL GSSAPI (Kerberos) with unmodified kazoo and pure-sasl, against a
throw-away MIT KDC.

Usage:
  test_kazoo_gssapi.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

kdc.py starts a KDC for the realm ZKTEST.ORG on loopback with the service
principal zookeeper/127.0.0.1 (kazoo asks for the ticket of
"<service>@<host it connects to>", here 127.0.0.1, as kazoo's own test
harness does) and the clients alice and bob/127.0.0.1, whose tickets kinit
puts in a private credential-cache collection. The server reads a JAAS file
whose Server section is the Krb5LoginModule entry Apache's documentation
gives (keyTab, principal): Apache as -Djava.security.auth.login.config plus
-Djava.security.krb5.conf, zkd from the same flag in SERVER_JVMFLAGS plus
KRB5_CONFIG.

What a kazoo user sees: a client with a ticket is authenticated as
sasl:<its principal> (host and realm kept), so ACLs naming that id, and
"auth" ACLs, let it in while an anonymous client gets NoAuthError; whoAmI
says the same on the wire, whatever authorization id the client asks for
(pure-sasl, like Apache's Java client, sends its principal, which a
Cyrus-style "authzid must equal authid" rule would refuse); the server's
reply to GSSAPI's last message carries a null token, which Apache's Java
client waits for; a client without a ticket, or with a ticket for
another service, learns AUTH_FAILED promptly (never a retry loop) while
others are served; a garbage token gets AUTHFAILED and a closed connection;
with kerberos.removeHostFromPrincipal and kerberos.removeRealmFromPrincipal
bob/127.0.0.1@ZKTEST.ORG is just sasl:bob. Run with --server apache to
confirm the expectations are Apache 3.8's.

Exits 77 (skip) when kazoo, pure-sasl, python3-kerberos, the KDC programs
or (for zkd) Cyrus's GSSAPI plugin are not installed.
"""

import contextlib
import glob
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import kdc  # noqa: E402
import servers  # noqa: E402
import zkwire  # noqa: E402

try:
    import kazoo_refusal
    import puresasl.client
    import puresasl.mechanisms
    from kazoo.client import KazooClient
    from kazoo.exceptions import AuthFailedError, ConnectionClosedError, NoAuthError
    from kazoo.protocol.states import KeeperState
    from kazoo.security import ACL, CREATOR_ALL_ACL, Id, Permissions, make_acl
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()
KDC = None  # the module's KDC, set in setUpModule()

REALM = "ZKTEST.ORG"
SERVICE = "zookeeper"
# The host part of the server's principal: what kazoo connects to (hostport).
SERVER_HOST = "127.0.0.1"
SERVER_PRINCIPAL = f"{SERVICE}/{SERVER_HOST}@{REALM}"
ALICE = f"alice@{REALM}"
BOB = f"bob/127.0.0.1@{REALM}"  # a principal with a host part
# A service the KDC knows but the server's keytab does not hold.
OTHER_SERVICE = "other"

SASL_PROVIDER = "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"
OP_SASL = 102
OP_WHOAMI = 107
ERR_AUTHFAILED = -115
# How long a refused client may take to learn it: "promptly", far below
# kazoo's connect retries (a loop would never end).
REFUSAL_DEADLINE_S = 10.0
# Where Debian's Cyrus SASL keeps its GSSAPI plugin (libsasl2-modules-gssapi-mit).
CYRUS_GSSAPI_PLUGINS = "/usr/lib/*/sasl2/libgssapiv2.so*"


def jaas(keytab):
    """The Server section Apache's documentation gives for Kerberos."""
    return f"""
Server {{
  com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true
    keyTab="{keytab}"
    storeKey=true
    useTicketCache=false
    principal="{SERVER_PRINCIPAL}";
}};
"""


def setUpModule():
    global KDC
    KDC = kdc.Kdc(REALM).start()
    try:
        KDC.add_principals([f"{SERVICE}/{SERVER_HOST}"], keytab=KDC.path("server.keytab"))
        KDC.add_principals([f"{OTHER_SERVICE}/{SERVER_HOST}"])  # no keytab: nobody serves it
        KDC.add_principals(["alice", "bob/127.0.0.1"], keytab=KDC.path("clients.keytab"))
        KDC.kinit("alice", KDC.path("clients.keytab"))
        KDC.kinit("bob/127.0.0.1", KDC.path("clients.keytab"))
    except BaseException:
        KDC.stop(failed=True)
        raise
    # kazoo's GSSAPI (pure-sasl, python3-kerberos, MIT's libgssapi) runs in
    # this process: it uses this KDC and finds each principal's ticket in
    # the collection by the principal kazoo names.
    os.environ.update({k: KDC.environment[k] for k in ("KRB5_CONFIG", "KRB5CCNAME")})


def tearDownModule():
    for k in ("KRB5_CONFIG", "KRB5CCNAME"):
        os.environ.pop(k, None)
    KDC.stop()


def start_server(extra_config=None):
    """A started server taking GSSAPI with the module's KDC."""
    server = servers.server_from_args(
        ARGS, jaas=jaas(KDC.path("server.keytab")),
        extra_config={"authProvider.1": SASL_PROVIDER, **(extra_config or {})},
        env={k: KDC.environment[k] for k in ("KRB5_CONFIG", "KRB5RCACHEDIR")},
        jvm_flags=KDC.java_flags)
    return server.start()


@contextlib.contextmanager
def credential_cache(name):
    """KRB5CCNAME is `name` inside the block. The client started inside must
    have finished its SASL exchange before the block ends (kazoo runs it on
    its connection thread before any request is answered)."""
    saved = os.environ["KRB5CCNAME"]
    os.environ["KRB5CCNAME"] = name
    try:
        yield
    finally:
        os.environ["KRB5CCNAME"] = saved


def gssapi_options(principal, service=SERVICE):
    # 'principal' is the client's own principal: pure-sasl acquires its
    # credentials by that name; the server's is service@<host connected to>.
    options = {"mechanism": "GSSAPI", "service": service}
    if principal is not None:
        options["principal"] = principal
    return options


class GssapiServerTest(unittest.TestCase):
    """One server per class; each test works under its own path."""

    extra_config = {}

    @classmethod
    def setUpClass(cls):
        cls.server = start_server(cls.extra_config)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.root = "/" + self._testMethodName
        self.anonymous = self.client(None)
        self.anonymous.create(self.root, b"")

    def client(self, principal):
        """A started kazoo client, authenticated as `principal` (None: not
        using SASL) by the time this returns."""
        c = KazooClient(hosts=self.server.hostport, timeout=10.0,
                        sasl_options=None if principal is None else gssapi_options(principal))
        c.start(timeout=15.0)
        self.addCleanup(lambda: (c.stop(), c.close()))
        c.exists("/")  # answered only after the SASL exchange
        return c

    def p(self, name):
        return self.root + "/" + name

    def gssapi_session(self, principal, authorization_id=None):
        """A raw session that authenticated as `principal` with pure-sasl,
        the way kazoo does, and the token of the server's last SASL reply.
        pure-sasl sends `authorization_id`, by default the principal, as the
        authorization id of GSSAPI's last message."""
        s = zkwire.Session(self.server.host, self.server.port)
        self.addCleanup(s.close)
        sasl = puresasl.client.SASLClient(SERVER_HOST, SERVICE, mechanism="GSSAPI",
                                          authorization_id=authorization_id,
                                          principal=principal)
        challenge = None
        token = b""
        # kazoo's loop: tokens until pure-sasl is complete and has nothing
        # more to send.
        for _ in range(5):
            if sasl.complete:
                break
            response = sasl.process(challenge)
            if sasl.complete and not response:
                break
            reply = s.call(OP_SASL, zkwire.buffer(response or b""))
            self.assertEqual((reply.err, reply.zxid), (0, 0))
            token = reply.body.buffer() if reply.body.remaining() else b""
            challenge = token or b""
        self.assertTrue(sasl.complete, "the GSSAPI exchange did not end")
        return s, token

    def who_am_i(self, principal, authorization_id=None):
        """The ids the server gives a session that authenticated as
        `principal` (kazoo has no whoAmI)."""
        s, _ = self.gssapi_session(principal, authorization_id)
        reply = s.call(OP_WHOAMI)
        self.assertEqual(reply.err, 0)
        count = reply.body.int32()
        return sorted((reply.body.ustring(), reply.body.ustring()) for _ in range(count))


class GssapiTest(GssapiServerTest):

    def test_principal_owns_what_it_creates(self):
        alice = self.client(ALICE)
        alice.create(self.p("mine"), b"secret", acl=[make_acl("sasl", ALICE, all=True)])
        self.assertEqual(alice.get(self.p("mine"))[0], b"secret")
        acl, _ = alice.get_acls(self.p("mine"))
        self.assertEqual(acl, [ACL(Permissions.ALL, Id("sasl", ALICE))])

        with self.assertRaises(NoAuthError):
            self.anonymous.get(self.p("mine"))
        bob = self.client(BOB)
        with self.assertRaises(NoAuthError):
            bob.set(self.p("mine"), b"x")

    def test_auth_acl_expands_to_the_whole_principal(self):
        for principal in (ALICE, BOB):
            with self.subTest(principal=principal):
                c = self.client(principal)
                path = self.p(principal.split("@")[0].replace("/", "_"))
                c.create(path, b"", acl=CREATOR_ALL_ACL)
                acl, _ = c.get_acls(path)
                self.assertEqual(acl, [ACL(Permissions.ALL, Id("sasl", principal))])

    def test_who_am_i(self):
        self.assertEqual(self.who_am_i(ALICE), [("ip", "127.0.0.1"), ("sasl", ALICE)])

    def test_the_last_sasl_reply_carries_a_null_token(self):
        # Not an empty one: Apache's Java client treats every reply as SASL
        # until GSSAPI's ends with a null token (length -1), and meanwhile
        # sends nothing else, not even pings.
        _, token = self.gssapi_session(ALICE)
        self.assertIsNone(token)

    def test_the_id_is_the_authenticated_principal_not_the_one_asked_for(self):
        # Apache authorizes any authorization id and names the session after
        # the principal the ticket proves: asking for bob's id gets alice's.
        self.assertEqual(self.who_am_i(ALICE, authorization_id=BOB),
                         [("ip", "127.0.0.1"), ("sasl", ALICE)])

    def assert_refused(self, principal, service=SERVICE):
        """A kazoo client authenticating as `principal` for `service` ends
        in AUTH_FAILED within the deadline; others are served meanwhile."""
        c = KazooClient(hosts=self.server.hostport, timeout=10.0,
                        sasl_options=gssapi_options(principal, service))
        self.addCleanup(lambda: (c.stop(), c.close()))
        ended_by = kazoo_refusal.start_until_given_up(c, REFUSAL_DEADLINE_S)
        self.assertEqual(ended_by, KeeperState.AUTH_FAILED,
                         f"not refused within {REFUSAL_DEADLINE_S}s (None: still connecting)")
        # kazoo stops connecting after AUTH_FAILED: requests fail at once.
        with self.assertRaises((AuthFailedError, ConnectionClosedError)):
            c.exists("/")

    def assert_others_served(self):
        self.assertIsNotNone(self.anonymous.exists(self.root))
        self.assertEqual(self.client(ALICE).get(self.root)[0], b"")

    def test_client_without_a_ticket_is_refused(self):
        # An empty credential cache, the default one (no principal named):
        # pure-sasl's first token cannot be made, kazoo gives up at once.
        with credential_cache("FILE:" + KDC.path("no-such-ccache")):
            self.assert_refused(None)
        self.assert_others_served()

    def test_ticket_for_another_service_is_refused(self):
        # A valid ticket, for other/127.0.0.1: the server cannot accept it
        # and answers AUTHFAILED.
        self.assert_refused(ALICE, service=OTHER_SERVICE)
        self.assert_others_served()

    def test_garbage_token_gets_authfailed_and_a_closed_connection(self):
        s = zkwire.Session(self.server.host, self.server.port)
        self.addCleanup(s.close)
        xid = s.send_request(OP_SASL, zkwire.buffer(b"\x60\x05not a kerberos token"))
        reply = s.read_reply()
        self.assertEqual((reply.xid, reply.zxid, reply.err), (xid, 0, ERR_AUTHFAILED))
        s.expect_closed()
        self.assert_others_served()


class PrincipalRewriteTest(GssapiServerTest):
    """kerberos.removeHostFromPrincipal / removeRealmFromPrincipal in zoo.cfg
    (Apache takes them as zookeeper.kerberos.* system properties)."""

    extra_config = {"kerberos.removeHostFromPrincipal": "true",
                    "kerberos.removeRealmFromPrincipal": "true"}

    def test_host_and_realm_are_removed(self):
        bob = self.client(BOB)
        bob.create(self.p("bobs"), b"v", acl=CREATOR_ALL_ACL)
        acl, _ = bob.get_acls(self.p("bobs"))
        self.assertEqual(acl, [ACL(Permissions.ALL, Id("sasl", "bob"))])
        bob.create(self.p("named"), b"w", acl=[make_acl("sasl", "bob", all=True)])
        self.assertEqual(bob.get(self.p("named"))[0], b"w")
        with self.assertRaises(NoAuthError):
            self.anonymous.get(self.p("named"))
        self.assertEqual(self.who_am_i(ALICE), [("ip", "127.0.0.1"), ("sasl", "alice")])


def missing(server_kind):
    """Why the tests cannot run here (None when they can)."""
    if KazooClient is None:
        return ("kazoo or pure-sasl is not installed "
                "(apt-get install python3-kazoo python3-pure-sasl)")
    if not puresasl.mechanisms.have_kerberos:
        return "pure-sasl has no GSSAPI: python3-kerberos is not installed"
    tools = kdc.missing_tools()
    if tools:
        return (f"no {', '.join(tools)} (apt-get install krb5-kdc krb5-admin-server "
                "krb5-user)")
    if server_kind == "zkd" and not glob.glob(CYRUS_GSSAPI_PLUGINS):
        return "Cyrus SASL's GSSAPI plugin is not installed (libsasl2-modules-gssapi-mit)"
    return None


def main():
    module = sys.modules[__name__]
    rest = servers.parse_arguments(module)
    reason = missing(ARGS.server)
    if reason:
        servers.skip(reason)
    servers.server_from_args(ARGS)  # exits early (skip/error) if unusable
    program = unittest.main(module=module, argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
