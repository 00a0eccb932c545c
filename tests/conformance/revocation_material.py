# SPDX-License-Identifier: Apache-2.0
"""Client certificates that say where their revocation status is found, and
one HTTP server that answers for them: the CA's CRL and an OCSP responder.

StatusServer() binds 127.0.0.1, port 0, first, so that its URL can go into
the certificates. Material(dir, status_server.url) then writes, under `dir`,
what tls_material.Material writes (the test CA, the server's certificate and
key stores) and, made with the openssl command:
  <name>.pem, <name>.key   a client certificate /O=zk/CN=<name> for each of
                           CLIENTS, naming the CRL distribution point and
                           the OCSP responder (authority information access)
                           CLIENTS gives it
  ca.crl                   the CA's CRL (DER, `openssl ca -gencrl`) listing
                           the clients CLIENTS marks revoked
status_server.start(material) serves, until stop():
  GET /ca.crl              the CRL
  POST /ocsp, GET /ocsp/<base64 request>
                           an OCSP responder (RFC 6960) signing with the CA
                           key: REVOKED for a serial the CRL lists, GOOD for
                           another client certificate of the material
and answers 404 for every other path. status_server.paths records the path
of every request, in order.

Keys are unencrypted PKCS8, as tls_material's. Needs python3-cryptography.
"""

import base64
import datetime
import http.server
import threading
import urllib.parse

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509 import ocsp

import tls_material

# name: (CRL distribution point, OCSP responder or None, revoked); {url} is
# the status server's URL, {dir} the material's directory.
CLIENTS = {
    "good": ("{url}/ca.crl", "{url}/ocsp", False),
    "revoked": ("{url}/ca.crl", "{url}/ocsp", True),
    # The server answers 404 for these paths; each names one certificate, so
    # that a failed fetch a server remembers for one test is not another's.
    "crl-missing": ("{url}/crl-missing.crl", "{url}/ocsp", False),
    "responder-missing": ("{url}/ca.crl", "{url}/responder-missing", False),
    "responder-missing-revoked": ("{url}/ca.crl", "{url}/responder-missing-revoked", True),
    "status-missing": ("{url}/status-missing.crl", "{url}/status-missing", False),
    "file-crl": ("file://{dir}/ca.crl", None, False),
    "file-crl-revoked": ("file://{dir}/ca.crl", None, True),
}
CA_CONFIG = """\
[ca]
default_ca = test_ca
[test_ca]
database = index.txt
certificate = ca.pem
private_key = ca.key
default_md = sha256
default_crl_days = 2
"""
OCSP_VALIDITY = datetime.timedelta(hours=1)


class Material(tls_material.Material):
    def __init__(self, directory, base_url):
        super().__init__(directory)
        for name, (crl, responder, _) in CLIENTS.items():
            extensions = [f"crlDistributionPoints=URI:{crl}"]
            if responder:
                extensions.append(f"authorityInfoAccess=OCSP;URI:{responder}")
            self._leaf(name, f"/O=zk/CN={name}", "ca",
                       "\n".join(extensions).format(url=base_url, dir=self.dir))
        self._revoke([name for name, (_, _, revoked) in CLIENTS.items() if revoked])
        self.crl_der = self._read("ca.crl")
        self._crl = x509.load_der_x509_crl(self.crl_der)
        self._ca_cert = x509.load_pem_x509_certificate(self._read("ca.pem"))
        self._ca_key = serialization.load_pem_private_key(self._read("ca.key"), None)
        self._clients = {}
        for name in CLIENTS:
            cert = x509.load_pem_x509_certificate(self._read(f"{name}.pem"))
            self._clients[cert.serial_number] = cert

    def _read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def _revoke(self, names):
        """Lists `names` in ca.crl, through openssl ca's database."""
        with open(self.path("ca.cnf"), "w") as f:
            f.write(CA_CONFIG)
        open(self.path("index.txt"), "w").close()
        for name in names:
            tls_material.run_openssl("ca", "-config", "ca.cnf", "-revoke", f"{name}.pem",
                                  cwd=self.dir)
        tls_material.run_openssl("ca", "-config", "ca.cnf", "-gencrl", "-out", "ca.crl.pem",
                              cwd=self.dir)
        tls_material.run_openssl("crl", "-in", "ca.crl.pem", "-outform", "DER", "-out", "ca.crl",
                              cwd=self.dir)

    def ocsp_response(self, der_request):
        """The DER OCSP response to `der_request`, from what the CRL says."""
        request = ocsp.load_der_ocsp_request(der_request)
        cert = self._clients.get(request.serial_number)
        if cert is None:
            response = ocsp.OCSPResponseBuilder.build_unsuccessful(
                ocsp.OCSPResponseStatus.UNAUTHORIZED)
            return response.public_bytes(serialization.Encoding.DER)
        entry = self._crl.get_revoked_certificate_by_serial_number(request.serial_number)
        now = datetime.datetime.utcnow()
        response = ocsp.OCSPResponseBuilder().add_response(
            cert=cert, issuer=self._ca_cert, algorithm=request.hash_algorithm,
            cert_status=ocsp.OCSPCertStatus.REVOKED if entry else ocsp.OCSPCertStatus.GOOD,
            this_update=now, next_update=now + OCSP_VALIDITY,
            revocation_time=entry.revocation_date if entry else None,
            revocation_reason=None,
        ).responder_id(ocsp.OCSPResponderEncoding.HASH, self._ca_cert).sign(
            self._ca_key, hashes.SHA256())
        return response.public_bytes(serialization.Encoding.DER)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.server.paths.append(self.path)
        if self.path == "/ca.crl":
            self._reply("application/pkix-crl", self.server.material.crl_der)
        elif self.path.startswith("/ocsp/"):
            request = base64.b64decode(urllib.parse.unquote(self.path[len("/ocsp/"):]))
            self._reply_ocsp(request)
        else:
            self.send_error(404)

    def do_POST(self):
        self.server.paths.append(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/ocsp":
            self._reply_ocsp(body)
        else:
            self.send_error(404)

    def _reply_ocsp(self, request):
        self._reply("application/ocsp-response", self.server.material.ocsp_response(request))

    def _reply(self, content_type, body):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass  # the paths are recorded; the test's output stays readable


class StatusServer(http.server.ThreadingHTTPServer):
    """The CRL and OCSP responder of a Material, over HTTP on loopback."""
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.paths = []
        self.material = None
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_port}"

    def start(self, material):
        self.material = material
        self._thread.start()

    def stop(self):
        if self._thread.is_alive():
            self.shutdown()
        self.server_close()
