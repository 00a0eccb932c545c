#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The admin server over HTTPS only (admin.forceHttps), or HTTPS and HTTP on
one port (admin.portUnification), as Apache's.

Run: test_admin_https.py [--server zkd|apache] [--zkd-bin build/zkd/zkd]

The admin server takes its key and trust stores from the ssl.quorum.* keys
(Apache's Jetty admin server reads those, not ssl.*); certificates come
from openssl (tests/conformance/tls_material.py). Checked: a command over
HTTPS answers as over HTTP, plain HTTP gets no answer, a client that does not
trust the server's CA fails its handshake; with admin.needClientAuth (zkd and
Apache 3.9; Apache 3.8.0 has no such key, so that class runs on zkd only) a
client without a trusted certificate is refused and one with it is served.

Exits 77 (skip) when the openssl command, or Apache's servlet API for
--server apache, is missing.
"""

import http.client
import json
import os
import shutil
import ssl
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
sys.dont_write_bytecode = True  # keep the source tree clean

import admin_util  # noqa: E402
import servers  # noqa: E402
import tls_material  # noqa: E402

ARGS = None  # parsed command line, set in main()


def https_get(port, path, context):
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=admin_util.HTTP_TIMEOUT_S,
                                             context=context)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


class HttpsAdminTest(unittest.TestCase):
    NEED_CLIENT_AUTH = False
    MODE = "admin.forceHttps"  # the key that turns HTTPS on

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="zk-admin-https-")
        cls.material = tls_material.Material(cls.tmp)
        cls.port = servers.free_loopback_port()
        config = admin_util.admin_config(cls.port)
        config.update({
            cls.MODE: "true",
            "ssl.quorum.keyStore.location": cls.material.path("keystore.pem"),
            "ssl.quorum.trustStore.location": cls.material.path("ca.pem"),
        })
        if cls.NEED_CLIENT_AUTH:
            config["admin.needClientAuth"] = "true"
        if ARGS.server == "apache":
            cls.server = admin_util.ApacheWithAdmin(extra_config=config)
        else:
            cls.server = servers.Server("zkd", zkd_bin=ARGS.zkd_bin, extra_config=config)
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def context(self, client_certificate=False):
        ctx = ssl.create_default_context(cafile=self.material.path("ca.pem"))
        if client_certificate:
            ctx.load_cert_chain(self.material.path("client.pem"), self.material.path("client.key"))
        return ctx

    def assert_ruok_over_https(self, context):
        status, body = https_get(self.port, "/commands/ruok", context)
        self.assertEqual(status, 200)
        self.assertIsNone(json.loads(body)["error"])

    def test_commands_answer_over_https(self):
        self.assert_ruok_over_https(self.context(client_certificate=self.NEED_CLIENT_AUTH))

    def test_plain_http_answers_only_with_port_unification(self):
        if self.MODE == "admin.portUnification":
            status, _, body = admin_util.http_get(self.port, "/commands/ruok")
            self.assertEqual(status, 200)
            self.assertIsNone(json.loads(body)["error"])
            return
        with self.assertRaises((ConnectionError, http.client.HTTPException, OSError)):
            admin_util.http_get(self.port, "/commands/ruok")

    def test_a_client_that_does_not_trust_the_server_fails(self):
        with self.assertRaises(ssl.SSLError):
            https_get(self.port, "/commands/ruok",
                      ssl.create_default_context(cafile=self.material.path("rogue-ca.pem")))


class ClientAuthAdminTest(HttpsAdminTest):
    NEED_CLIENT_AUTH = True

    @classmethod
    def setUpClass(cls):
        if ARGS.server == "apache":
            raise unittest.SkipTest("Apache 3.8.0 has no admin.needClientAuth (3.9 has)")
        super().setUpClass()

    def test_a_client_without_a_certificate_is_refused(self):
        with self.assertRaises((ssl.SSLError, ConnectionError, http.client.HTTPException)):
            https_get(self.port, "/commands/ruok", self.context(client_certificate=False))
        self.assert_ruok_over_https(self.context(client_certificate=True))


class PortUnificationAdminTest(HttpsAdminTest):
    """admin.portUnification: HTTPS and plain HTTP on the one admin port."""
    MODE = "admin.portUnification"


def main():
    if shutil.which("openssl") is None:
        servers.skip("the openssl command is not installed")
    rest = servers.parse_arguments(sys.modules[__name__])
    if ARGS.server == "apache" and not admin_util.apache_admin_available():
        servers.skip("Apache ZooKeeper or its servlet API is not installed")
    if ARGS.server == "zkd" and not ARGS.zkd_bin:
        print("ERROR: no zkd binary: set ZKD_BIN or pass --zkd-bin", file=sys.stderr)
        return 2
    program = unittest.main(module=sys.modules[__name__], argv=[sys.argv[0]] + rest, exit=False,
                            verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
