# SPDX-License-Identifier: Apache-2.0
"""Throw-away certificates for TLS tests, made with the openssl command.

Material(dir) writes, under `dir`:
  ca.pem, ca.key             a test CA (O=zk, CN=zk-test-ca)
  server.pem, server.key     the server's certificate (CN=server, SAN IP
                             127.0.0.1 and DNS localhost: the Java client
                             checks the IP), signed by the CA
  keystore.pem               Apache's PEM key store: key, certificate, CA
  keystore-client.pem        the client's, for Java clients
  keystore.p12               the same as PKCS12 (password KEYSTORE_PASSWORD)
  client.pem, client.key     a client certificate, subject /O=zk/CN=client
  rogue-client.pem/.key      a client certificate from another CA

Keys are unencrypted PKCS8 (Apache 3.8 cannot read OpenSSL 3's default
encrypted keys). Only the standard library and the openssl binary are used.
"""

import os
import socket
import ssl
import subprocess

import zkwire

KEYSTORE_PASSWORD = "keystore-secret"
CLIENT_SUBJECT = "/O=zk/CN=client"
# The x509 id of that subject: RFC 2253, most specific first.
CLIENT_X509_ID = "CN=client,O=zk"


def run_openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, timeout=60)


def handshake_refused(port, context, timeout):
    """Whether a TLS connection to 127.0.0.1:`port` with `context` fails in
    the handshake or at its first read (closed without a reply to a
    ConnectRequest): what a server that refuses the client's certificate
    does, whether TLS 1.2 (in the handshake) or 1.3 (after it)."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        conn = context.wrap_socket(raw, server_hostname="127.0.0.1")
        raw = conn
        conn.sendall(zkwire.frame(zkwire.connect_request(30000)))
        return not conn.recv(4)
    except (ssl.SSLError, ConnectionError):
        return True
    finally:
        raw.close()


class Material:
    def __init__(self, directory):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self._ca("ca", "/O=zk/CN=zk-test-ca")
        self._ca("rogue-ca", "/O=elsewhere/CN=rogue-ca")
        self._leaf("server", "/O=zk/CN=server", "ca",
                   "subjectAltName=IP:127.0.0.1,DNS:localhost")
        self._leaf("client", CLIENT_SUBJECT, "ca")
        self._leaf("rogue-client", CLIENT_SUBJECT, "rogue-ca")
        for store, leaf in (("keystore.pem", "server"), ("keystore-client.pem", "client")):
            with open(self.path(store), "w") as out:
                for name in (f"{leaf}.key", f"{leaf}.pem", "ca.pem"):
                    with open(self.path(name)) as part:
                        out.write(part.read())
        run_openssl("pkcs12", "-export", "-inkey", "server.key", "-in", "server.pem",
                 "-certfile", "ca.pem", "-out", "keystore.p12",
                 "-passout", f"pass:{KEYSTORE_PASSWORD}", cwd=directory)

    def path(self, name):
        return os.path.join(self.dir, name)

    def _ca(self, name, subject):
        run_openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                 "-keyout", f"{name}.key", "-out", f"{name}.pem", "-subj", subject,
                 cwd=self.dir)

    def _leaf(self, name, subject, ca, extension=None):
        run_openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
                 "-out", f"{name}.csr", "-subj", subject, cwd=self.dir)
        args = ["x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey",
                f"{ca}.key", "-CAcreateserial", "-days", "2", "-out", f"{name}.pem"]
        if extension:
            with open(self.path(f"{name}.ext"), "w") as f:
                f.write(extension + "\n")
            args += ["-extfile", f"{name}.ext"]
        run_openssl(*args, cwd=self.dir)

    def server_config(self, key_store="keystore.pem", client_auth="need"):
        """zoo.cfg keys for a TLS client port with these certificates."""
        config = {
            "ssl.keyStore.location": self.path(key_store),
            "ssl.trustStore.location": self.path("ca.pem"),
            "ssl.clientAuth": client_auth,
            "authProvider.x509": "org.apache.zookeeper.server.auth.X509AuthenticationProvider",
        }
        if key_store.endswith(".p12"):
            config["ssl.keyStore.password"] = KEYSTORE_PASSWORD
        return config
