#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Certificate revocation on the TLS client port: ssl.crl and ssl.ocsp.

Usage:
  test_tls_revocation.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

Certificates come from openssl (revocation_material.py): the test CA and
server certificate of tls_material.py, and client certificates naming a CRL
distribution point and an OCSP responder, both served by one HTTP server of
this process on loopback, which records every path asked for. The CRL lists
/O=zk/CN=revoked; the OCSP responder answers from the CRL. The server has
ssl.clientAuth=need and, per test class, ssl.crl=true or ssl.ocsp=true.

What a user checks, and what Apache 3.8 does (Java's PKIX revocation checks,
which its X509Util turns on for ssl.crl or ssl.ocsp, with
com.sun.security.enableCRLDP; ssl.ocsp adds ocsp.enable):
- ssl.crl=true: a certificate the CRL does not list is served, a listed one
  is refused while every other client is served; a certificate whose CRL
  cannot be fetched (404), or that names no CRL at all, is refused (hard
  fail); a file:// distribution point serves as an http:// one does; the
  OCSP responder is never asked.
- ssl.ocsp=true, alone (ssl.crl is not needed): the OCSP responder is asked
  (Java: HTTP GET /ocsp/<base64 request>; zkd: POST /ocsp) at every
  handshake, before any CRL, and
  its answer decides: GOOD is served even when the CRL cannot be fetched,
  REVOKED is refused. When the responder cannot answer (404), the CRL
  decides; when neither can, the certificate is refused (hard fail).
Run with --server apache to confirm the expectations are Apache 3.8's.

Exits 77 (skip) when kazoo, python3-cryptography or the openssl command is
missing.
"""

import contextlib
import os
import shutil
import ssl
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402
import tls_material  # noqa: E402

try:
    from kazoo.client import KazooClient
    import revocation_material  # needs python3-cryptography
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()
IO_TIMEOUT_S = 10.0
# Set in setUpModule, shared by the classes: the certificates' directory, the
# HTTP server answering for the CRL and OCSP, the certificates.
TMP = STATUS = MATERIAL = None


def setUpModule():
    global TMP, STATUS, MATERIAL
    TMP = tempfile.mkdtemp(prefix="zk-tls-revocation-")
    STATUS = revocation_material.StatusServer()
    MATERIAL = revocation_material.Material(TMP, STATUS.url)
    STATUS.start(MATERIAL)


def tearDownModule():
    STATUS.stop()
    shutil.rmtree(TMP, ignore_errors=True)


class RevocationTest(unittest.TestCase):
    CONFIG = {}  # the revocation keys of the class's server

    @classmethod
    def setUpClass(cls):
        config = MATERIAL.server_config()
        config.update(cls.CONFIG)
        cls.server = servers.server_from_args(ARGS, secure=True, extra_config=config)
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def kazoo(self, client):
        c = KazooClient(hosts=f"127.0.0.1:{self.server.secure_port}", timeout=10.0,
                        use_ssl=True, ca=MATERIAL.path("ca.pem"),
                        certfile=MATERIAL.path(f"{client}.pem"),
                        keyfile=MATERIAL.path(f"{client}.key"))
        c.start(timeout=15.0)
        self.addCleanup(lambda: (c.stop(), c.close()))
        return c

    @contextlib.contextmanager
    def status_requests(self):
        """The paths the status server is asked for in the `with` block."""
        asked = []
        before = len(STATUS.paths)
        yield asked
        asked.extend(STATUS.paths[before:])

    def assert_responder_asked(self, asked, expected=True):
        """Whether the OCSP responder is among the paths `asked`."""
        responder = [p for p in asked if p == "/ocsp" or p.startswith("/ocsp/")]
        self.assertEqual(bool(responder), expected, f"requests to the status server: {asked}")

    def assert_served(self, client="good"):
        self.assertIsNotNone(self.kazoo(client).exists("/"))

    def assert_refused(self, client):
        """A TLS connection as `client` fails in the handshake or at its
        first read."""
        ctx = ssl.create_default_context(cafile=MATERIAL.path("ca.pem"))
        ctx.load_cert_chain(MATERIAL.path(f"{client}.pem"), MATERIAL.path(f"{client}.key"))
        self.assertTrue(tls_material.handshake_refused(self.server.secure_port, ctx, IO_TIMEOUT_S))


class CrlTest(RevocationTest):
    """ssl.crl=true: the CRL each client certificate names decides."""
    CONFIG = {"ssl.crl": "true"}

    def test_certificate_not_listed_reads_and_writes(self):
        zk = self.kazoo("good")
        path = f"/{self._testMethodName}"
        zk.create(path, b"not revoked")
        self.assertEqual(zk.get(path)[0], b"not revoked")

    def test_revoked_certificate_is_refused(self):
        self.assert_refused("revoked")
        self.assert_served()

    def test_certificate_whose_crl_cannot_be_fetched_is_refused(self):
        with self.status_requests() as asked:
            self.assert_refused("crl-missing")
        self.assertIn("/crl-missing.crl", asked)
        self.assert_served()

    def test_certificate_naming_no_crl_is_refused(self):
        self.assert_refused("client")  # tls_material's, without extensions
        self.assert_served()

    def test_file_uri_distribution_point(self):
        self.assert_served("file-crl")
        self.assert_refused("file-crl-revoked")

    def test_the_ocsp_responder_is_not_asked(self):
        with self.status_requests() as asked:
            self.assert_served()
            self.assert_refused("revoked")
        self.assert_responder_asked(asked, expected=False)


class OcspTest(RevocationTest):
    """ssl.ocsp=true alone: the OCSP responder first, then the CRL."""
    CONFIG = {"ssl.ocsp": "true"}

    def test_good_certificate_reads_and_writes_after_the_responder_is_asked(self):
        with self.status_requests() as asked:
            zk = self.kazoo("good")
        self.assert_responder_asked(asked)
        path = f"/{self._testMethodName}"
        zk.create(path, b"good")
        self.assertEqual(zk.get(path)[0], b"good")

    def test_revoked_certificate_is_refused_by_the_responder(self):
        with self.status_requests() as asked:
            self.assert_refused("revoked")
        self.assert_responder_asked(asked)
        self.assert_served()

    def test_the_responder_is_asked_before_the_crl(self):
        with self.status_requests() as asked:
            self.assert_served("crl-missing")
        self.assert_responder_asked(asked)
        self.assertNotIn("/crl-missing.crl", asked)

    def test_the_crl_decides_when_the_responder_cannot_answer(self):
        self.assert_served("responder-missing")
        self.assert_refused("responder-missing-revoked")

    def test_certificate_whose_status_cannot_be_learned_is_refused(self):
        with self.status_requests() as asked:
            self.assert_refused("status-missing")
        self.assertIn("/status-missing.crl", asked)
        self.assert_served()


def main():
    if shutil.which("openssl") is None:
        servers.skip("the openssl command is not installed")
    return servers.unittest_main(
        sys.modules[__name__], KazooClient is not None,
        missing="kazoo or python3-cryptography is not installed "
                "(apt-get install python3-kazoo python3-cryptography)")


if __name__ == "__main__":
    sys.exit(main())
