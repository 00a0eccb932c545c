# SPDX-License-Identifier: Apache-2.0
"""Minimal raw-socket ZooKeeper client for the conformance tests.

Encodes just enough jute (see docs/wire-protocol.md) to
open a session, send core requests and read replies and notifications, with a
deadline on every read. Used where a real client hides what is on the wire
(frame sizes, xids, duplicate notifications) or where a session has to stop
pinging on purpose (expiry tests).
"""

import socket
import struct
import time

OP_CREATE = 1
OP_DELETE = 2
OP_EXISTS = 3
OP_GETDATA = 4
OP_SETDATA = 5
OP_GETCHILDREN = 8
OP_SYNC = 9
OP_PING = 11
OP_CHECK = 13
OP_MULTI = 14
OP_CREATE2 = 15
OP_MULTIREAD = 22
OP_CLOSE = -11
OP_ERROR = -1  # MultiHeader type of a failed sub-result

XID_NOTIFICATION = -1
XID_PING = -2

OPEN_ACL_UNSAFE = [(31, "world", "anyone")]

STAT_FIELDS = (
    "czxid", "mzxid", "ctime", "mtime", "version", "cversion", "aversion",
    "ephemeralOwner", "dataLength", "numChildren", "pzxid",
)
_STAT = struct.Struct("!qqqqiiiqiiq")


class Closed(Exception):
    """The server closed the connection."""


class Timeout(Exception):
    """Nothing (or not enough) arrived before the deadline."""


# -- encoding -----------------------------------------------------------------


def int32(v):
    return struct.pack("!i", v)


def int64(v):
    return struct.pack("!q", v)


def boolean(v):
    return b"\x01" if v else b"\x00"


def buffer(b):
    return int32(-1) if b is None else int32(len(b)) + b


def ustring(s):
    if s is None:
        return int32(-1)
    raw = s.encode("utf-8") if isinstance(s, str) else s
    return int32(len(raw)) + raw


def acl_vector(acls):
    out = int32(len(acls))
    for perms, scheme, ident in acls:
        out += int32(perms) + ustring(scheme) + ustring(ident)
    return out


def multi_header(op_type, done, err):
    """MultiHeader: int type, boolean done, int err (9 bytes)."""
    return int32(op_type) + boolean(done) + int32(err)


def multi_request(ops):
    """MultiOperationRecord body (multi 14 / multiRead 22) from (opcode, record bytes) pairs:
    MultiHeader{opcode, false, -1} + record per op, then the terminator {-1, true, -1}."""
    out = b"".join(multi_header(opcode, False, -1) + record for opcode, record in ops)
    return out + multi_header(-1, True, -1)


def frame(payload):
    return int32(len(payload)) + payload


def connect_request(timeout_ms, session_id=0, passwd=b"\0" * 16, last_zxid=0, read_only=False):
    """ConnectRequest payload; read_only=None omits the trailing flag byte."""
    body = int32(0) + int64(last_zxid) + int32(timeout_ms) + int64(session_id) + buffer(passwd)
    if read_only is not None:
        body += boolean(read_only)
    return body


# -- decoding -----------------------------------------------------------------


class Reader:
    def __init__(self, data, offset=0):
        self.data = data
        self.pos = offset

    def int32(self):
        (v,) = struct.unpack_from("!i", self.data, self.pos)
        self.pos += 4
        return v

    def int64(self):
        (v,) = struct.unpack_from("!q", self.data, self.pos)
        self.pos += 8
        return v

    def boolean(self):
        v = self.data[self.pos]
        self.pos += 1
        return v != 0

    def buffer(self):
        n = self.int32()
        if n < 0:
            return None
        v = self.data[self.pos:self.pos + n]
        self.pos += n
        return v

    def ustring(self):
        b = self.buffer()
        return None if b is None else b.decode("utf-8", "replace")

    def stat(self):
        values = _STAT.unpack_from(self.data, self.pos)
        self.pos += _STAT.size
        return dict(zip(STAT_FIELDS, values))

    def remaining(self):
        return len(self.data) - self.pos

    def multi_header(self):
        """(type, done, err)"""
        return self.int32(), self.boolean(), self.int32()


class SubResult:
    """One result of a MultiResponse: type (opcode, or OP_ERROR) and err from its
    MultiHeader, plus the decoded body fields that type carries (§7.1):
      1 create: path; 15 create2: path, stat; 5 setData: stat;
      4 getData: data, stat; 8 getChildren: children (None for a null vector);
      2 delete, 13 check: nothing; -1 error: error_body (ErrorResponse.err)."""

    def __init__(self, op_type, err):
        self.type = op_type
        self.err = err
        self.path = self.stat = self.data = self.children = self.error_body = None

    def __repr__(self):
        fields = {k: v for k, v in vars(self).items() if v is not None}
        return f"SubResult({fields})"


def _exact_string(r):
    """A ustring that keeps invalid UTF-8 bytes distinguishable (surrogateescape)."""
    b = r.buffer()
    return None if b is None else bytes(b).decode("utf-8", "surrogateescape")


def multi_response(r):
    """Decode a MultiResponse body from Reader `r` (positioned after the
    ReplyHeader) into a list of SubResult, up to and including the terminator
    (not returned). Raises ValueError on a result type it cannot decode or a
    terminator that is not {-1, true, -1}; struct.error on a short body."""
    results = []
    while True:
        op_type, done, err = r.multi_header()
        if done:
            if (op_type, err) != (-1, -1):
                raise ValueError(f"terminator {{{op_type}, true, {err}}}")
            return results
        res = SubResult(op_type, err)
        if op_type in (OP_CREATE, OP_CREATE2):
            res.path = _exact_string(r)
            if op_type == OP_CREATE2:
                res.stat = r.stat()
        elif op_type == OP_SETDATA:
            res.stat = r.stat()
        elif op_type == OP_GETDATA:
            res.data = r.buffer()
            res.stat = r.stat()
        elif op_type == OP_GETCHILDREN:
            n = r.int32()
            res.children = None if n < 0 else [_exact_string(r) for _ in range(n)]
        elif op_type == OP_ERROR:
            res.error_body = r.int32()
        elif op_type not in (OP_DELETE, OP_CHECK):
            raise ValueError(f"result type {op_type} not decodable")
        results.append(res)


class Reply:
    def __init__(self, payload):
        r = Reader(payload)
        self.xid = r.int32()
        self.zxid = r.int64()
        self.err = r.int32()
        self.body = r
        self.payload = payload

    def __repr__(self):
        return f"Reply(xid={self.xid}, zxid={self.zxid}, err={self.err}, body={self.body.remaining()}B)"


class Event:
    def __init__(self, reply):
        self.type = reply.body.int32()
        self.state = reply.body.int32()
        self.path = reply.body.ustring()

    def __repr__(self):
        return f"Event(type={self.type}, state={self.state}, path={self.path!r})"


# -- connection ---------------------------------------------------------------


class Connection:
    """One TCP connection. Every read takes a timeout in seconds."""

    def __init__(self, host, port, timeout=5.0, tls=None):
        """`tls`: an ssl.SSLContext to run the connection over TLS."""
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls is not None:
            self.sock = tls.wrap_socket(self.sock, server_hostname=host)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def send(self, data):
        self.sock.sendall(data)

    def recv_exact(self, n, timeout):
        deadline = time.monotonic() + timeout
        chunks = []
        got = 0
        while got < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout(f"wanted {n} bytes, got {got}")
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(n - got)
            except socket.timeout:
                raise Timeout(f"wanted {n} bytes, got {got}") from None
            except ConnectionResetError:
                raise Closed(f"reset after {got} of {n} bytes") from None
            if not chunk:
                raise Closed(f"closed after {got} of {n} bytes")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def read_frame(self, timeout=5.0):
        """Payload of the next frame; raises Closed or Timeout."""
        deadline = time.monotonic() + timeout
        (length,) = struct.unpack("!i", self.recv_exact(4, timeout))
        if length < 0 or length > 16 * 1024 * 1024:
            raise AssertionError(f"server sent a bad frame length {length}")
        return self.recv_exact(length, max(0.0, deadline - time.monotonic()))

    def expect_closed(self, timeout=5.0):
        """Wait until the server closes the connection; return any bytes it sent first."""
        deadline = time.monotonic() + timeout
        data = b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout(f"connection still open after {timeout}s (received {data!r})")
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                return data
            if not chunk:
                return data
            data += chunk


class Session(Connection):
    """A connection that has completed the handshake."""

    def __init__(self, host, port, timeout_ms=30000, session_id=0, passwd=b"\0" * 16,
                 last_zxid=0, read_only=False, io_timeout=5.0, tls=None):
        super().__init__(host, port, io_timeout, tls)
        self.io_timeout = io_timeout
        self.next_xid = 1
        self.events = []  # notifications received while waiting for replies
        self.send(frame(connect_request(timeout_ms, session_id, passwd, last_zxid, read_only)))
        payload = self.read_frame(io_timeout)
        self.connect_response_size = len(payload)
        r = Reader(payload)
        r.int32()  # protocolVersion
        self.negotiated_timeout = r.int32()
        self.session_id = r.int64()
        self.passwd = r.buffer()
        self.read_only = r.boolean() if r.remaining() else None

    def send_request(self, opcode, body=b"", xid=None):
        if xid is None:
            xid = self.next_xid
            self.next_xid += 1
        self.send(frame(int32(xid) + int32(opcode) + body))
        return xid

    def read_reply(self, timeout=None):
        return Reply(self.read_frame(self.io_timeout if timeout is None else timeout))

    def call(self, opcode, body=b"", timeout=None):
        """Send a request; return its Reply. Notifications seen first go to self.events."""
        xid = self.send_request(opcode, body)
        deadline = time.monotonic() + (self.io_timeout if timeout is None else timeout)
        while True:
            reply = self.read_reply(max(0.0, deadline - time.monotonic()))
            if reply.xid == XID_NOTIFICATION:
                self.events.append(Event(reply))
                continue
            if reply.xid != xid:
                raise AssertionError(f"reply out of order: wanted xid {xid}, got {reply!r}")
            return reply

    # Convenience wrappers; each returns the Reply (body positioned after the header).
    def create(self, path, data=b"", flags=0, acl=OPEN_ACL_UNSAFE):
        return self.call(OP_CREATE, ustring(path) + buffer(data) + acl_vector(acl) + int32(flags))

    def get_data(self, path, watch=False):
        return self.call(OP_GETDATA, ustring(path) + boolean(watch))

    def exists(self, path, watch=False):
        return self.call(OP_EXISTS, ustring(path) + boolean(watch))

    def set_data(self, path, data, version=-1):
        return self.call(OP_SETDATA, ustring(path) + buffer(data) + int32(version))

    def get_children(self, path, watch=False):
        return self.call(OP_GETCHILDREN, ustring(path) + boolean(watch))

    def delete(self, path, version=-1):
        return self.call(OP_DELETE, ustring(path) + int32(version))

    def check(self, path, version):
        """Standalone check (13). Apache 3.8.0 sends no reply on success (the
        connection stays up), so this then raises Timeout."""
        return self.call(OP_CHECK, ustring(path) + int32(version))

    def multi(self, ops):
        """multi (14) of (opcode, record bytes) pairs; decode with multi_response(reply.body)."""
        return self.call(OP_MULTI, multi_request(ops))

    def multi_read(self, ops):
        """multiRead (22) of (opcode, record bytes) pairs."""
        return self.call(OP_MULTIREAD, multi_request(ops))

    def ping(self):
        self.send_request(OP_PING, xid=XID_PING)
        return self.read_reply()

    def close_session(self):
        reply = self.call(OP_CLOSE)
        self.close()
        return reply
