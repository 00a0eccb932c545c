#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""ACLs and authentication with unmodified kazoo (python3-kazoo 2.8).

Usage:
  test_kazoo_acl.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

What a kazoo user sees (§10 of docs/wire-protocol.md): digest authentication
with add_auth and auth_data, CREATOR_ALL_ACL ("auth" expanded to the
caller's digest ids), make_digest_acl, ip ACLs for an address and a block,
the super digest from zoo.cfg (DigestAuthenticationProvider.superDigest),
getACL masking digests without ADMIN, setACL's order of checks,
InvalidACLError cases, per-operation checks inside a transaction, and whoAmI
(opcode 107, which kazoo 2.8 lacks: sent on a raw session); and the zoo.cfg
keys DigestAuthenticationProvider.digestAlg (SHA-256) and .enabled=false,
and skipACL=yes. Run it with --server apache to confirm the expectations are
Apache 3.8's.

Exits 77 (skip) when kazoo is not installed.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402
import zkwire  # noqa: E402

try:
    from kazoo.client import KazooClient
    from kazoo.exceptions import (AuthFailedError, BadVersionError, InvalidACLError,
                                  NoAuthError, RolledBackError)
    from kazoo.security import (ACL, CREATOR_ALL_ACL, Id, OPEN_ACL_UNSAFE, Permissions,
                                READ_ACL_UNSAFE, make_digest_acl, make_digest_acl_credential)
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()

# Checked live against Apache's DigestAuthenticationProvider (§10.2).
SUPER_DIGEST = "super:lK75jTNcA+U9vtVEw5vB51mj/w4="
ALICE_ID = "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="

OP_AUTH = 100
OP_WHOAMI = 107
XID_AUTH = -4
ERR_NOAUTH = -102


def world(perms):
    return ACL(perms, Id("world", "anyone"))


class AclTest(unittest.TestCase):
    """One server for the class; each test works under its own path."""

    @classmethod
    def setUpClass(cls):
        cls.server = servers.server_from_args(
            ARGS, extra_config={"DigestAuthenticationProvider.superDigest": SUPER_DIGEST})
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.root = "/" + self._testMethodName
        self.anonymous = self.client()
        self.anonymous.create(self.root, b"")

    def client(self, auth=None):
        c = KazooClient(hosts=self.server.hostport, timeout=10.0, auth_data=auth)
        c.start(timeout=15.0)
        self.addCleanup(lambda: (c.stop(), c.close()))
        return c

    def alice(self):
        return self.client(auth=[("digest", "alice:pw")])

    def p(self, name):
        return self.root + "/" + name

    def raw(self):
        s = zkwire.Session(self.server.host, self.server.port)
        self.addCleanup(s.close)
        return s

    # -- digest -----------------------------------------------------------

    def test_creator_all_acl_is_the_owners_alone(self):
        owner = self.client()
        owner.add_auth("digest", "alice:pw")
        owner.create(self.p("private"), b"secret", acl=CREATOR_ALL_ACL)
        self.assertEqual(owner.get(self.p("private"))[0], b"secret")
        acl, _ = owner.get_acls(self.p("private"))
        self.assertEqual(acl, [ACL(Permissions.ALL, Id("digest", ALICE_ID))])

        other = self.client()
        with self.assertRaises(NoAuthError):
            other.get(self.p("private"))
        with self.assertRaises(NoAuthError):
            other.set(self.p("private"), b"x")
        with self.assertRaises(NoAuthError):
            other.get_children(self.p("private"))
        with self.assertRaises(NoAuthError):
            other.create(self.p("private/other"), b"")
        owner.create(self.p("private/child"), b"")
        with self.assertRaises(NoAuthError):
            other.delete(self.p("private/child"))  # DELETE on the parent is the owner's
        # exists checks nothing in 3.8.0; READ from 3.8.4 (ZOOKEEPER-2590), as zkd.
        if ARGS.server == "apache":
            self.assertIsNotNone(other.exists(self.p("private")))
        else:
            with self.assertRaises(NoAuthError):
                other.exists(self.p("private"))

        # The same credentials on another session (given at connect) work too.
        self.assertEqual(self.alice().get(self.p("private"))[0], b"secret")
        # ... a different password does not.
        with self.assertRaises(NoAuthError):
            self.client(auth=[("digest", "alice:wrong")]).get(self.p("private"))

    def test_creator_all_acl_without_digest_auth_is_invalid(self):
        with self.assertRaises(InvalidACLError):
            self.anonymous.create(self.p("nobody"), b"", acl=CREATOR_ALL_ACL)
        ip_only = self.client()
        ip_only.add_auth("ip", "ignored")
        with self.assertRaises(InvalidACLError):
            ip_only.create(self.p("nobody"), b"", acl=CREATOR_ALL_ACL)

    def test_make_digest_acl_grants_what_it_says(self):
        self.assertEqual(make_digest_acl_credential("alice", "pw"), ALICE_ID)
        acl = [make_digest_acl("alice", "pw", read=True, write=True), world(Permissions.CREATE)]
        self.anonymous.create(self.p("digest"), b"v", acl=acl)
        alice = self.alice()
        self.assertEqual(alice.get(self.p("digest"))[0], b"v")
        alice.set(self.p("digest"), b"w")
        with self.assertRaises(NoAuthError):
            self.anonymous.get(self.p("digest"))
        self.anonymous.create(self.p("digest/child"), b"")  # CREATE is the world's
        with self.assertRaises(NoAuthError):
            alice.delete(self.p("digest/child"))  # nobody has DELETE

    def test_super_digest_may_do_anything(self):
        alice = self.alice()
        alice.create(self.p("locked"), b"v", acl=CREATOR_ALL_ACL)
        alice.create(self.p("locked/child"), b"c", acl=[make_digest_acl("alice", "pw", read=True)])
        # A wrong super password is just another user.
        with self.assertRaises(NoAuthError):
            self.client(auth=[("digest", "super:wrong")]).get(self.p("locked"))
        root = self.client(auth=[("digest", "super:secret")])
        self.assertEqual(root.get(self.p("locked"))[0], b"v")
        self.assertEqual(root.get(self.p("locked/child"))[0], b"c")
        self.assertEqual(root.get_acls(self.p("locked"))[0],
                         [ACL(Permissions.ALL, Id("digest", ALICE_ID))])
        root.set(self.p("locked"), b"by super")
        root.delete(self.p("locked/child"))
        root.set_acls(self.p("locked"), OPEN_ACL_UNSAFE)
        self.assertEqual(self.anonymous.get(self.p("locked"))[0], b"by super")

    # -- ip -----------------------------------------------------------------

    def test_ip_acl_for_an_address_and_for_a_block(self):
        self.anonymous.create(self.p("loopback"), b"ok",
                              acl=[ACL(Permissions.ALL, Id("ip", "127.0.0.1"))])
        self.anonymous.create(self.p("loopback-net"), b"ok",
                              acl=[ACL(Permissions.READ, Id("ip", "127.0.0.0/8"))])
        self.anonymous.create(self.p("ten"), b"no",
                              acl=[ACL(Permissions.ALL, Id("ip", "10.0.0.0/8"))])
        other = self.client()
        self.assertEqual(other.get(self.p("loopback"))[0], b"ok")
        other.set(self.p("loopback"), b"set")
        self.assertEqual(other.get(self.p("loopback-net"))[0], b"ok")
        with self.assertRaises(NoAuthError):
            other.set(self.p("loopback-net"), b"x")
        with self.assertRaises(NoAuthError):
            other.get(self.p("ten"))
        # a digest id does not stand in for the address
        with self.assertRaises(NoAuthError):
            self.alice().get(self.p("ten"))

    # -- invalid ACLs ---------------------------------------------------------

    def test_invalid_acls_are_refused(self):
        bad = {
            "world-someone": [ACL(Permissions.ALL, Id("world", "someone"))],
            "digest-no-colon": [ACL(Permissions.ALL, Id("digest", "alice"))],
            "digest-two-colons": [ACL(Permissions.ALL, Id("digest", "a:b:c"))],
            "ip-garbage": [ACL(Permissions.ALL, Id("ip", "not-an-ip"))],
            "ip-bits": [ACL(Permissions.ALL, Id("ip", "10.0.0.0/33"))],
            "ip-v6": [ACL(Permissions.ALL, Id("ip", "::1"))],
            "unknown-scheme": [ACL(Permissions.ALL, Id("nosuch", "x"))],
            "super-scheme": [ACL(Permissions.ALL, Id("super", ""))],
            "one-bad-of-two": [world(Permissions.ALL), ACL(Permissions.ALL, Id("ip", "1.2.3"))],
        }
        for name, acl in bad.items():
            with self.subTest(name):
                with self.assertRaises(InvalidACLError):
                    self.anonymous.create(self.p(name), b"", acl=acl)
                self.assertIsNone(self.anonymous.exists(self.p(name)))
        # INVALIDACL comes before NONODE (fixupACL runs first).
        with self.assertRaises(InvalidACLError):
            self.anonymous.create(self.p("missing/child"), b"", acl=bad["ip-garbage"])
        with self.assertRaises(InvalidACLError):
            self.anonymous.set_acls(self.p("missing"), bad["world-someone"])
        with self.assertRaises(InvalidACLError):
            self.anonymous.set_acls(self.root, [])

    def test_odd_but_valid_digest_ids_are_accepted(self):
        # Java's split(":") drops trailing empty parts: two parts is all it asks.
        for i, ident in enumerate([":hash", "a:b:", "user:not-base64"]):
            self.anonymous.create(self.p(f"odd{i}"), b"", acl=[ACL(Permissions.ALL, Id("digest", ident))])

    # -- getACL / setACL --------------------------------------------------------

    def test_get_acl_masks_digests_without_admin(self):
        acl = [world(Permissions.READ), make_digest_acl("alice", "pw", all=True)]
        self.anonymous.create(self.p("masked"), b"", acl=acl)
        seen, _ = self.anonymous.get_acls(self.p("masked"))
        self.assertEqual(seen, [world(Permissions.READ),
                                ACL(Permissions.ALL, Id("digest", "alice:x"))])
        self.assertEqual(self.alice().get_acls(self.p("masked"))[0], acl)
        self.anonymous.create(self.p("hidden"), b"", acl=[make_digest_acl("alice", "pw", all=True)])
        with self.assertRaises(NoAuthError):
            self.anonymous.get_acls(self.p("hidden"))

    def test_set_acl_needs_admin_before_the_version(self):
        alice = self.alice()
        alice.create(self.p("admin"), b"",
                     acl=[world(Permissions.ALL & ~Permissions.ADMIN),
                          make_digest_acl("alice", "pw", admin=True)])
        with self.assertRaises(NoAuthError):
            self.anonymous.set_acls(self.p("admin"), OPEN_ACL_UNSAFE, version=7)
        with self.assertRaises(BadVersionError):
            alice.set_acls(self.p("admin"), OPEN_ACL_UNSAFE, version=7)
        stat = alice.set_acls(self.p("admin"), CREATOR_ALL_ACL, version=0)
        self.assertEqual(stat.aversion, 1)
        with self.assertRaises(NoAuthError):
            self.anonymous.get(self.p("admin"))

    # -- multi ------------------------------------------------------------------

    def test_transaction_checks_each_operation(self):
        self.anonymous.create(self.p("readonly"), b"", acl=READ_ACL_UNSAFE)
        self.anonymous.create(self.p("secret"), b"", acl=[make_digest_acl("alice", "pw", all=True)])
        t = self.anonymous.transaction()
        t.create(self.p("fine"), b"")
        t.check(self.p("secret"), 0)
        results = t.commit()
        self.assertIsInstance(results[0], RolledBackError)
        self.assertIsInstance(results[1], NoAuthError)
        t = self.anonymous.transaction()
        t.check(self.p("readonly"), 0)
        t.set_data(self.p("readonly"), b"x")
        results = t.commit()
        self.assertIsInstance(results[0], RolledBackError)
        self.assertIsInstance(results[1], NoAuthError)
        self.assertIsNone(self.anonymous.exists(self.p("fine")))
        t = self.alice().transaction()
        t.check(self.p("secret"), 0)
        t.set_data(self.p("secret"), b"x")
        self.assertEqual(len(t.commit()), 2)

    def test_multi_read_refuses_per_operation(self):
        self.anonymous.create(self.p("secret"), b"s", acl=[make_digest_acl("alice", "pw", all=True)])
        self.anonymous.create(self.p("public"), b"p")
        raw = self.raw()
        reply = raw.multi_read([(zkwire.OP_GETDATA, zkwire.ustring(self.p("secret")) + zkwire.boolean(False)),
                                (zkwire.OP_GETDATA, zkwire.ustring(self.p("public")) + zkwire.boolean(False))])
        self.assertEqual(reply.err, 0)
        results = zkwire.multi_response(reply.body)
        self.assertEqual([(r.type, r.err) for r in results],
                         [(zkwire.OP_ERROR, ERR_NOAUTH), (zkwire.OP_GETDATA, 0)])

    # -- unknown scheme ---------------------------------------------------------

    def test_unknown_auth_scheme_fails(self):
        c = self.client()
        with self.assertRaises(AuthFailedError):
            c.add_auth("nosuch", "x")

    # -- whoAmI -------------------------------------------------------------------

    def test_who_am_i_lists_the_connections_ids(self):
        raw = self.raw()
        self.assertEqual(self.who_am_i(raw), [("ip", "127.0.0.1")])
        self.auth(raw, "digest", b"alice:pw")
        self.auth(raw, "digest", b"alice:pw")  # the same id once
        self.auth(raw, "digest", b"super:secret")
        # Apache keeps a connection's ids in a ConcurrentHashMap-backed set
        # and lists them in its iteration order, not in the order added.
        self.assertEqual(self.who_am_i(raw), [("super", ""), ("digest", "super"),
                                              ("ip", "127.0.0.1"), ("digest", "alice")])

    def auth(self, raw, scheme, auth):
        raw.send_request(OP_AUTH, zkwire.int32(0) + zkwire.ustring(scheme) + zkwire.buffer(auth),
                         xid=XID_AUTH)
        reply = raw.read_reply()
        self.assertEqual((reply.xid, reply.err), (XID_AUTH, 0))

    def who_am_i(self, raw):
        reply = raw.call(OP_WHOAMI)
        self.assertEqual(reply.err, 0)
        n = reply.body.int32()
        out = [(reply.body.ustring(), reply.body.ustring()) for _ in range(n)]
        self.assertEqual(reply.body.remaining(), 0)
        return out


class DigestSettingsTest(unittest.TestCase):
    """zoo.cfg keys that change the digest scheme and the ACL check itself;
    one server per setting."""

    def start(self, config):
        server = servers.server_from_args(ARGS, extra_config=config)
        server.start()
        self.addCleanup(server.stop)
        return server

    def client(self, server, auth=None):
        c = KazooClient(hosts=server.hostport, timeout=10.0, auth_data=auth)
        c.start(timeout=15.0)
        self.addCleanup(lambda: (c.stop(), c.close()))
        return c

    def test_digest_alg_sha256_names_users_by_that_hash(self):
        server = self.start({"DigestAuthenticationProvider.digestAlg": "SHA-256"})
        alice = self.client(server, auth=[("digest", "alice:pw")])
        alice.create("/sha256", b"", acl=CREATOR_ALL_ACL)
        acl, _ = alice.get_acls("/sha256")
        # base64(sha256("alice:pw")).
        self.assertEqual(acl, [ACL(Permissions.ALL, Id(
            "digest", "alice:uoe2aAb9LQtvXhepi1lfNPruBxd4qoF/snHQYhTtJPk="))])
        # An ACL made with SHA1's id (kazoo's make_digest_acl) admits no one.
        alice.create("/sha1", b"", acl=[make_digest_acl("alice", "pw", all=True)])
        with self.assertRaises(NoAuthError):
            alice.get("/sha1")

    def test_digest_disabled_refuses_addauth_digest(self):
        server = self.start({"DigestAuthenticationProvider.enabled": "false"})
        c = KazooClient(hosts=server.hostport, timeout=10.0)
        c.start(timeout=15.0)
        self.addCleanup(lambda: (c.stop(), c.close()))
        with self.assertRaises(AuthFailedError):
            c.add_auth("digest", "alice:pw")

    def test_skip_acl_lets_everyone_do_everything(self):
        server = self.start({"skipACL": "yes"})
        alice = self.client(server, auth=[("digest", "alice:pw")])
        alice.create("/private", b"secret", acl=CREATOR_ALL_ACL)
        anonymous = self.client(server)
        self.assertEqual(anonymous.get("/private")[0], b"secret")
        anonymous.set("/private", b"changed")
        anonymous.create("/private/child", b"")
        anonymous.delete("/private", recursive=True)
        self.assertIsNone(alice.exists("/private"))


def main():
    return servers.unittest_main(sys.modules[__name__], KazooClient is not None)


if __name__ == "__main__":
    sys.exit(main())
