# SPDX-License-Identifier: Apache-2.0
"""zkctl's addauth, getacl and setacl as a user runs them, against a real server
(see zk_server.py: zkd when ZKD_BIN is set, else Apache ZooKeeper 3.8).

Environment: ZKCTL = path of the zkctl binary (required); ZKD_BIN = path of zkd.
Run: ZKCTL=build/zkctl/zkctl /usr/bin/python3 tests/zkctl/zkctl_acl_test.py -v
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # keep the source tree clean
# The server fixture and the zkctl runner of the process tests.
from zkctl_process_test import (  # noqa: E402,F401
    BAD_VERSION, NO_AUTH, NO_NODE, OK, USAGE, ERROR, setUpModule, tearDownModule, zkctl)

ALICE_ACL = "digest:alice:V55/p2T0OpjQ+low3NVAH4aLvm0=:cdrwa"  # alice:pw


class AclCommands(unittest.TestCase):
    def run_ok(self, *args, stdin=None):
        r = zkctl(*args, stdin=stdin)
        self.assertEqual(r.returncode, OK, f"zkctl {args}: stdout={r.stdout!r} stderr={r.stderr!r}")
        return r

    def run_fails(self, code, *args, stdin=None):
        r = zkctl(*args, stdin=stdin)
        self.assertEqual(r.returncode, code, f"zkctl {args}: stdout={r.stdout!r} stderr={r.stderr!r}")
        return r

    def test_getacl_prints_zkcli_syntax(self):
        self.run_ok("create", "/acl-open")
        self.assertEqual(self.run_ok("getacl", "/acl-open").stdout, "world:anyone:cdrwa\n")
        out = self.run_ok("getacl", "-S", "/acl-open").stdout.splitlines()
        self.assertEqual(out[0], "world:anyone:cdrwa")
        self.assertEqual(out[1].split(" = ")[0], "cZxid")
        self.assertEqual(json.loads(self.run_ok("--json", "getacl", "/acl-open").stdout),
                         {"format": 2, "path": "/acl-open",
                          "acl": [{"scheme": "world", "id": "anyone", "perms": "cdrwa"}]})

    def test_setacl_then_only_the_owner_gets_in(self):
        self.run_ok("create", "/acl-owned", "secret")
        self.run_ok("setacl", "/acl-owned", ALICE_ACL + ",world:anyone:r")
        self.assertEqual(self.run_ok("get", "/acl-owned").stdout, "secret\n")
        self.run_fails(NO_AUTH, "set", "/acl-owned", "x")
        # Without ADMIN the digest is masked.
        self.assertEqual(self.run_ok("getacl", "/acl-owned").stdout,
                         "digest:alice:x:cdrwa\nworld:anyone:r\n")
        r = self.run_ok("-", stdin="addauth digest alice:pw\n"
                                   "set /acl-owned updated\n"
                                   "get /acl-owned\n"
                                   "getacl /acl-owned\n")
        self.assertEqual(r.stdout, f"updated\n{ALICE_ACL}\nworld:anyone:r\n")

    def test_setacl_version_and_admin(self):
        self.run_ok("create", "/acl-ver")
        self.run_fails(BAD_VERSION, "setacl", "-v", "3", "/acl-ver", "world:anyone:cdrw")
        stat = dict(line.split(" = ", 1) for line in
                    self.run_ok("setacl", "-v", "0", "-S", "/acl-ver",
                                "world:anyone:cdrw").stdout.splitlines())
        self.assertEqual(stat["aclVersion"], "1")
        # ADMIN is gone now: no one may change the ACL again.
        self.run_fails(NO_AUTH, "setacl", "/acl-ver", "world:anyone:cdrwa")

    def test_auth_acl_and_errors(self):
        self.run_ok("-", stdin="addauth digest alice:pw\ncreate /acl-auth\nsetacl /acl-auth auth::cdrwa\n")
        self.run_fails(NO_AUTH, "get", "/acl-auth")
        # auth without a digest id, and malformed ids, are INVALIDACL.
        self.run_ok("create", "/acl-bad")
        r = self.run_fails(ERROR, "setacl", "/acl-bad", "auth::cdrwa")
        self.assertIn("INVALIDACL", r.stderr)
        self.run_fails(ERROR, "setacl", "/acl-bad", "ip:not-an-ip:r")
        # zkctl refuses bad syntax itself.
        r = self.run_fails(USAGE, "setacl", "/acl-bad", "world:anyone:rx")
        self.assertIn("unknown permission 'x'", r.stderr)
        self.run_fails(NO_NODE, "getacl", "/acl-missing")

    def test_addauth_with_an_unknown_scheme_fails(self):
        r = self.run_fails(NO_AUTH, "addauth", "nosuch", "x")
        self.assertIn("AUTHFAILED", r.stderr)


if __name__ == "__main__":
    unittest.main()
