#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""TLS on the client port, and x509 ids, with unmodified kazoo and raw TLS.

Usage:
  test_tls.py [--server zkd|apache] [--zkd-bin PATH] [unittest args]

Certificates come from openssl (tls_material.py): a test CA, the server's
certificate with an IP SAN, a client certificate /O=zk/CN=client and one
from a CA the server does not trust. The server has a plaintext clientPort
and a secureClientPort with ssl.clientAuth=need (Apache: its Netty
connection factory). What a user checks: kazoo with use_ssl and a client
certificate works; the session's ids are x509:CN=client,O=zk and
ip:127.0.0.1 (whoAmI); an x509 ACL lets that client in and keeps a plaintext
client out; plaintext on the TLS port is closed without a byte; no client
certificate, an untrusted one, or garbage instead of a handshake is refused
while every other client is served; four-letter words work over TLS; a
PKCS12 key store serves as the PEM one does. Run with --server apache to
confirm the expectations are Apache 3.8's.

Exits 77 (skip) when kazoo or the openssl command is missing.
"""

import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402
import tls_material  # noqa: E402
import zkwire  # noqa: E402

try:
    from kazoo.client import KazooClient
    from kazoo.exceptions import NoAuthError
    from kazoo.security import make_acl
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()
OP_WHOAMI = 107
IO_TIMEOUT_S = 10.0


class TlsTest(unittest.TestCase):
    KEY_STORE = "keystore.pem"

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="zk-tls-")
        cls.material = tls_material.Material(cls.tmp)
        cls.server = servers.server_from_args(
            ARGS, secure=True, extra_config=cls.material.server_config(cls.KEY_STORE))
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def tls_context(self, client="client"):
        ctx = ssl.create_default_context(cafile=self.material.path("ca.pem"))
        if client is not None:
            ctx.load_cert_chain(self.material.path(f"{client}.pem"),
                                self.material.path(f"{client}.key"))
        return ctx

    def kazoo(self, secure=True):
        if secure:
            c = KazooClient(hosts=f"127.0.0.1:{self.server.secure_port}", timeout=10.0,
                            use_ssl=True, ca=self.material.path("ca.pem"),
                            certfile=self.material.path("client.pem"),
                            keyfile=self.material.path("client.key"))
        else:
            c = KazooClient(hosts=self.server.hostport, timeout=10.0)
        c.start(timeout=15.0)
        self.addCleanup(lambda: (c.stop(), c.close()))
        return c

    def raw_tls_session(self):
        s = zkwire.Session("127.0.0.1", self.server.secure_port, io_timeout=IO_TIMEOUT_S,
                           tls=self.tls_context())
        self.addCleanup(s.close)
        return s

    def assert_served(self):
        """Every other client is still served, on both ports."""
        self.assertIsNotNone(self.kazoo().exists("/"))
        self.assertIsNotNone(self.kazoo(secure=False).exists("/"))

    def assert_refused(self, client):
        """A TLS connection as `client` (None: without a certificate) fails
        in the handshake or at its first read."""
        self.assertTrue(tls_material.handshake_refused(
            self.server.secure_port, self.tls_context(client), IO_TIMEOUT_S))

    # -- what works -------------------------------------------------------------

    def test_kazoo_over_tls_reads_and_writes(self):
        zk = self.kazoo()
        path = f"/{self._testMethodName}"
        zk.create(path, b"over tls")
        self.assertEqual(zk.get(path)[0], b"over tls")
        self.assertEqual(self.kazoo(secure=False).get(path)[0], b"over tls")

    def test_who_am_i_lists_the_certificate_subject(self):
        reply = self.raw_tls_session().call(OP_WHOAMI)
        self.assertEqual(reply.err, 0)
        count = reply.body.int32()
        ids = sorted((reply.body.ustring(), reply.body.ustring()) for _ in range(count))
        self.assertEqual(ids, [("ip", "127.0.0.1"), ("x509", tls_material.CLIENT_X509_ID)])

    def test_x509_acl_admits_the_certificate_only(self):
        path = f"/{self._testMethodName}"
        zk = self.kazoo()
        zk.create(path, b"cert only", acl=[make_acl("x509", tls_material.CLIENT_X509_ID, all=True)])
        self.assertEqual(zk.get(path)[0], b"cert only")
        with self.assertRaises(NoAuthError):
            self.kazoo(secure=False).get(path)

    def test_four_letter_words_work_over_tls(self):
        raw = socket.create_connection(("127.0.0.1", self.server.secure_port), timeout=IO_TIMEOUT_S)
        with self.tls_context().wrap_socket(raw, server_hostname="127.0.0.1") as conn:
            conn.sendall(b"srvr")
            reply = b""
            while chunk := conn.recv(4096):
                reply += chunk
        self.assertTrue(reply.startswith(b"Zookeeper version: "), reply[:80])

    def test_java_zkcli_over_tls(self):
        if not servers.zkcli_available():
            self.skipTest("Apache's zkCli (Debian zookeeper) is not installed")
        path = f"/{self._testMethodName}"
        out = zkcli_tls(self.server, self.material, "create", path, "from-java")
        self.assertIn(f"Created {path}", out)
        out = zkcli_tls(self.server, self.material, "get", path)
        self.assertIn("from-java", out)

    def test_zkctl_over_tls(self):
        zkctl = os.environ.get("ZKCTL_BIN")
        if not zkctl:
            self.skipTest("no zkctl binary (ZKCTL_BIN)")
        path = f"/{self._testMethodName}"
        tls = ["--tls-ca", self.material.path("ca.pem"),
               "--tls-cert", self.material.path("client.pem"),
               "--tls-key", self.material.path("client.key")]
        server = ["-s", f"127.0.0.1:{self.server.secure_port}"]

        def run(*args):
            return subprocess.run([zkctl, *server, *args], capture_output=True, text=True,
                                  timeout=60)
        self.assertEqual(run(*tls, "create", path, "from-zkctl").returncode, 0)
        got = run(*tls, "get", path)
        self.assertEqual((got.returncode, got.stdout.strip()), (0, "from-zkctl"))
        # Without a client certificate the server (clientAuth=need) refuses it.
        refused = run("--tls-ca", self.material.path("ca.pem"), "--connect-timeout", "2000",
                      "get", path)
        self.assertNotEqual(refused.returncode, 0)

    # -- what is refused ----------------------------------------------------------

    def test_plaintext_on_the_tls_port_is_closed_without_a_byte(self):
        with zkwire.Connection("127.0.0.1", self.server.secure_port, IO_TIMEOUT_S) as conn:
            conn.send(zkwire.frame(zkwire.connect_request(30000)))
            self.assertEqual(conn.expect_closed(IO_TIMEOUT_S), b"")
        self.assert_served()

    def test_client_without_a_certificate_is_refused(self):
        self.assert_refused(None)
        self.assert_served()

    def test_certificate_from_an_untrusted_ca_is_refused(self):
        self.assert_refused("rogue-client")
        self.assert_served()

    def test_garbage_handshake_is_refused(self):
        with zkwire.Connection("127.0.0.1", self.server.secure_port, IO_TIMEOUT_S) as conn:
            conn.send(b"\x16\x03\x01\x00\x05garbage that is not a ClientHello")
            conn.expect_closed(IO_TIMEOUT_S)
        with zkwire.Connection("127.0.0.1", self.server.secure_port, IO_TIMEOUT_S) as conn:
            conn.send(b"\x16\x03")  # a truncated hello, then the client leaves
        self.assert_served()


class PortUnificationTest(unittest.TestCase):
    """client.portUnification=true: the plain client port takes TLS too."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="zk-tls-")
        cls.material = tls_material.Material(cls.tmp)
        config = cls.material.server_config()
        config["client.portUnification"] = "true"
        cls.server = servers.server_from_args(ARGS, extra_config=config)
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_plaintext_and_tls_clients_share_the_port(self):
        plain = KazooClient(hosts=self.server.hostport, timeout=10.0)
        tls = KazooClient(hosts=self.server.hostport, timeout=10.0, use_ssl=True,
                          ca=self.material.path("ca.pem"),
                          certfile=self.material.path("client.pem"),
                          keyfile=self.material.path("client.key"))
        for c in (plain, tls):
            c.start(timeout=15.0)
            self.addCleanup(lambda c=c: (c.stop(), c.close()))
        plain.create("/unified", b"both")
        self.assertEqual(tls.get("/unified")[0], b"both")


def zkcli_tls(server, material, *command):
    """One command through Apache's zkCli (the class zkCli.sh runs) over TLS:
    the Netty client socket with the client certificate, as Apache's TLS
    guide sets it up; returns stdout and stderr together."""
    classpath = ":".join([servers.APACHE_JAR, *servers.NETTY_JARS])
    done = servers.subprocess.run(
        [servers.JAVA, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath,
         "-Dzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty",
         "-Dzookeeper.client.secure=true",
         f"-Dzookeeper.ssl.keyStore.location={material.path('keystore-client.pem')}",
         f"-Dzookeeper.ssl.trustStore.location={material.path('ca.pem')}",
         "org.apache.zookeeper.ZooKeeperMain", "-server", f"127.0.0.1:{server.secure_port}",
         *command],
        stdin=servers.subprocess.DEVNULL, stdout=servers.subprocess.PIPE,
        stderr=servers.subprocess.STDOUT, timeout=servers.ZKCLI_TIMEOUT_S)
    return done.stdout.decode(errors="replace")


class Pkcs12KeyStoreTest(TlsTest):
    """The same checks with the server's key in a PKCS12 key store."""
    KEY_STORE = "keystore.p12"


def main():
    if shutil.which("openssl") is None:
        servers.skip("the openssl command is not installed")
    return servers.unittest_main(sys.modules[__name__], KazooClient is not None)


if __name__ == "__main__":
    sys.exit(main())
