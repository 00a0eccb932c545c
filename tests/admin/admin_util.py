# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by the admin-server, limits and overload process tests:
servers with their HTTP endpoints on free loopback ports, zkd and Apache
started from the same zoo.cfg keys, mntr figures, a pipelined write flood,
HTTP requests with deadlines, and a parser for the Prometheus text format.

Only the standard library (plus tests/conformance/servers.py and zkwire.py)
is used here.
"""

import base64
import hashlib
import http.client
import json
import os
import re
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
import servers  # noqa: E402
import zkwire  # noqa: E402

SERVLET_API_JAR = "/usr/share/java/servlet-api.jar"
HTTP_TIMEOUT_S = 10.0


class ApacheWithAdmin(servers.Server):
    """Apache ZooKeeper 3.8 with its Jetty admin server on (servers.py turns
    it off; Jetty needs the servlet API on the class path)."""

    def __init__(self, **kwargs):
        super().__init__("apache", **kwargs)

    def _command(self):
        command = [c for c in super()._command() if c != "-Dzookeeper.admin.enableServer=false"]
        i = command.index("-cp")
        command[i + 1] += ":" + SERVLET_API_JAR
        return command


def server_kinds(args):
    """The servers a test compares: "zkd" (or what --server names), and
    "apache" too with --live-apache when Apache ZooKeeper is installed."""
    live = getattr(args, "live_apache", False) and servers.apache_available()
    return ["zkd"] + (["apache"] if live else [])


def server_of_kind(args, kind, config=None):
    """A server (not started) of `kind` from server_kinds with the zoo.cfg
    keys `config`: zkd as the command line selects it, or Apache."""
    if kind == "apache":
        return servers.Server("apache", extra_config=config or {})
    return servers.server_from_args(args, extra_config=config or {})


def mntr(server):
    """The mntr figures of `server`, {name without zk_: value str}."""
    text = server.four_letter_word("mntr")
    return dict(line[3:].split("\t", 1) for line in text.splitlines() if line.startswith("zk_"))


def create_body(path, data):
    """A CreateRequest record: `path` with `data`, open ACL, persistent."""
    return (zkwire.ustring(path) + zkwire.buffer(data) + zkwire.acl_vector(zkwire.OPEN_ACL_UNSAFE)
            + zkwire.int32(0))


def flood(server, count):
    """Pipelines `count` creates (/flood-<xid>) in one write on a new session;
    returns the replies' (xid, err) in the order they came."""
    with zkwire.Session(server.host, server.port, io_timeout=60.0) as session:
        frames = b"".join(
            zkwire.frame(zkwire.int32(xid) + zkwire.int32(zkwire.OP_CREATE)
                         + create_body(f"/flood-{xid}", b"v"))
            for xid in range(1, count + 1))
        session.send(frames)
        return [(r.xid, r.err) for r in (session.read_reply(60.0) for _ in range(count))]


def apache_admin_available():
    return servers.apache_available() and os.path.exists(SERVLET_API_JAR)


def admin_config(port):
    return {"admin.serverAddress": "127.0.0.1", "admin.serverPort": port}


def http_get(port, path, method="GET", host="127.0.0.1"):
    """(status, headers dict with lower-case names, body str)."""
    connection = http.client.HTTPConnection(host, port, timeout=HTTP_TIMEOUT_S)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        body = response.read().decode("utf-8")
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        connection.close()


def command(port, name):
    """GET /commands/<name>; returns (parsed JSON object, its keys in order)."""
    status, headers, body = http_get(port, "/commands/" + name)
    if status != 200:
        raise AssertionError(f"/commands/{name}: HTTP {status}: {body[:200]}")
    if not headers.get("content-type", "").startswith("application/json"):
        raise AssertionError(f"/commands/{name}: content type {headers.get('content-type')}")
    keys = [key for key, _ in json.loads(body, object_pairs_hook=list)]
    return json.loads(body), keys


def raw_http(port, data, timeout=HTTP_TIMEOUT_S):
    """Send raw bytes; return everything the server sends until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


# -- Prometheus text format ----------------------------------------------------

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
_SAMPLE = re.compile(
    rf"^(?P<name>{_NAME})(?:\{{(?:{_LABEL}(?:,{_LABEL})*,?)?\}})? (?P<value>\S+)(?: -?\d+)?$")
_TYPES = {"counter", "gauge", "summary", "histogram", "untyped"}


class PrometheusError(AssertionError):
    pass


def parse_prometheus(text):
    """Checks `text` against the text exposition format 0.0.4 and returns
    {family: {"type": t, "help": h, "samples": {sample name: float}}}.
    Raises PrometheusError naming the line that breaks a rule."""
    families = {}
    current = None
    if text and not text.endswith("\n"):
        raise PrometheusError("the text does not end with a newline")
    for number, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            parts = line.split(" ", 3)
            if len(parts) < 4 or not re.fullmatch(_NAME, parts[2]):
                raise PrometheusError(f"line {number}: malformed {parts[1]} line {line!r}")
            family = families.setdefault(parts[2], {"type": None, "help": None, "samples": {}})
            if parts[1] == "TYPE":
                if parts[3] not in _TYPES:
                    raise PrometheusError(f"line {number}: unknown type {parts[3]!r}")
                if family["type"] is not None or family["samples"]:
                    raise PrometheusError(f"line {number}: TYPE after samples or twice")
                family["type"] = parts[3]
            else:
                family["help"] = parts[3]
            current = parts[2]
            continue
        if line.startswith("#") or line == "":
            continue
        match = _SAMPLE.match(line)
        if not match:
            raise PrometheusError(f"line {number}: not a sample: {line!r}")
        name = match.group("name")
        try:
            value = float(match.group("value"))
        except ValueError:
            raise PrometheusError(f"line {number}: bad value in {line!r}") from None
        family_name = name
        for suffix in ("_count", "_sum", "_bucket"):
            base = name[: -len(suffix)]
            if name.endswith(suffix) and base in families and families[base]["type"] in (
                    "summary", "histogram"):
                family_name = base
        if family_name != current:
            raise PrometheusError(f"line {number}: sample {name} outside its family's block")
        families[family_name]["samples"][line.rsplit(" ", 1)[0]] = value
    return families


def digest_id(user_password):
    """The digest scheme's id of "user:password" (Apache's DigestAuthenticationProvider)."""
    user = user_password.split(":", 1)[0]
    hashed = base64.b64encode(hashlib.sha1(user_password.encode()).digest()).decode()
    return f"{user}:{hashed}"


def super_config(user_password):
    """zoo.cfg keys making "user:password" the digest super user."""
    return {"DigestAuthenticationProvider.superDigest": digest_id(user_password)}


def admin_request(port, method, path, auth=None, body=None):
    """(status, headers with lower-case names, body bytes) of one request to
    the admin server, with an Authorization header when `auth` is given."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HTTP_TIMEOUT_S)
    try:
        headers = {}
        if auth is not None:
            headers["Authorization"] = auth
        if body is not None:
            headers["Content-Type"] = "application/octet-stream"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        connection.close()


def zkd_with_admin(args, extra=None, **kwargs):
    """A zkd (from the test's arguments) with its admin server on a free
    loopback port, kept as server.admin_port, and `extra` zoo.cfg keys."""
    port = servers.free_loopback_port()
    config = dict(admin_config(port))
    config.update(extra or {})
    server = servers.server_from_args(args, extra_config=config, **kwargs)
    server.admin_port = port
    return server
