#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Kerberos (GSSAPI) between the servers of a zkd ensemble, as Apache
ZooKeeper's quorum SASL has it.

Usage:
  test_quorum_kerberos.py [--zkd-bin PATH] [unittest args]

kdc.py starts a KDC for the realm ZKTEST.ORG on loopback with the principal
zkquorum/localhost in one keytab and zkquorum/elsewhere in another. Each
node of a three-node ensemble gets its own directory (dataDir with myid,
zoo.cfg, JAAS file, log) and the zoo.cfg Apache's documentation gives for
quorum Kerberos: quorum.auth.enableSasl, learnerRequireSasl and
serverRequireSasl true, quorum.auth.kerberos.servicePrincipal=zkquorum/_HOST,
and server.N lines naming the host localhost, so the principal a learner
asks a ticket for is zkquorum/localhost. Its JAAS file (zkd --jaas) has the
QuorumServer and QuorumLearner sections: Krb5LoginModule entries with
keyTab and principal. zkd gets the KDC's KRB5_CONFIG; its learner takes its
credentials from the first principal of the QuorumLearner keytab.

What an operator sees: three nodes holding zkquorum/localhost form a quorum
(srvr: one leader, two followers), every link authenticated as
zkquorum/localhost@ZKTEST.ORG in the log, and a znode written through node 1
is read through node 3. A node whose learner holds only
zkquorum/elsewhere (a host no server.N line names) never joins: nodes 1 and
2 serve without it, node 3 keeps answering that it is not serving, and the
log of the node it dialed says why ("... is not authorized to join:
elsewhere is not the host of a server.N line"; once a minute per address,
however often the node retries).

zkd only (Apache's quorum is not started here). Exits 77 (skip) when kazoo,
the KDC programs or Cyrus's GSSAPI plugin are not installed.
"""

import contextlib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import kdc  # noqa: E402
import servers  # noqa: E402

try:
    from kazoo.client import KazooClient
except ImportError:  # reported as a skip in main()
    KazooClient = None

ARGS = None  # parsed command line, set in main()
KDC = None  # the module's KDC, set in setUpModule()

REALM = "ZKTEST.ORG"
SERVICE = "zkquorum"
HOST = "localhost"  # the host of every server.N line
PEER_PRINCIPAL = f"{SERVICE}/{HOST}@{REALM}"
STRANGER_HOST = "elsewhere"  # a host no server.N line names
STRANGER_PRINCIPAL = f"{SERVICE}/{STRANGER_HOST}@{REALM}"

QUORUM_CONFIG = {
    "quorum.auth.enableSasl": "true",
    "quorum.auth.learnerRequireSasl": "true",
    "quorum.auth.serverRequireSasl": "true",
    "quorum.auth.kerberos.servicePrincipal": f"{SERVICE}/_HOST",
}

# How long an ensemble may take to elect a leader and serve.
QUORUM_TIMEOUT_S = 30.0
# How long a learner's link may take to be authenticated, or refused, once
# its node runs.
LINK_TIMEOUT_S = 10.0
# How long a refused node is watched staying out once refused: several of
# its reconnects (their backoff is at most 1 s).
STAY_OUT_S = 5.0
POLL_S = 0.1
# Where Debian's Cyrus SASL keeps its GSSAPI plugin (libsasl2-modules-gssapi-mit).
CYRUS_GSSAPI_PLUGINS = "/usr/lib/*/sasl2/libgssapiv2.so*"


def krb5_entry(keytab, principal):
    return f"""  com.sun.security.auth.module.Krb5LoginModule required
    useKeyTab=true
    keyTab="{keytab}"
    storeKey=true
    useTicketCache=false
    principal="{principal}";"""


def jaas(learner_keytab, learner_principal):
    """The quorum's sections: the acceptor always holds zkquorum/localhost;
    the learner the given keytab."""
    return f"""
QuorumServer {{
{krb5_entry(KDC.path("peers.keytab"), PEER_PRINCIPAL)}
}};
QuorumLearner {{
{krb5_entry(learner_keytab, learner_principal)}
}};
"""


def setUpModule():
    global KDC
    KDC = kdc.Kdc(REALM).start()
    try:
        KDC.add_principals([f"{SERVICE}/{HOST}"], keytab=KDC.path("peers.keytab"))
        KDC.add_principals([f"{SERVICE}/{STRANGER_HOST}"], keytab=KDC.path("stranger.keytab"))
    except BaseException:
        KDC.stop(failed=True)
        raise


def tearDownModule():
    KDC.stop()


class Node:
    """One zkd of an Ensemble, in its own directory."""

    def __init__(self, myid, directory):
        self.myid = myid
        self.dir = directory
        self.client_port = servers.free_loopback_port()
        self.quorum_port = servers.free_loopback_port()
        self.election_port = servers.free_loopback_port()
        self.proc = None
        self._log = None

    @property
    def hostport(self):
        return f"127.0.0.1:{self.client_port}"

    @property
    def server_line(self):
        return f"server.{self.myid}={HOST}:{self.quorum_port}:{self.election_port}"

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, server_lines, jaas_text):
        os.makedirs(self.path("data"))
        with open(self.path("data/myid"), "w") as f:
            f.write(f"{self.myid}\n")
        lines = ["tickTime=2000", "initLimit=10", "syncLimit=5",
                 f"dataDir={self.path('data')}", f"clientPort={self.client_port}",
                 "clientPortAddress=127.0.0.1", "4lw.commands.whitelist=srvr",
                 "admin.enableServer=false",
                 *(f"{k}={v}" for k, v in QUORUM_CONFIG.items()), *server_lines]
        with open(self.path("zoo.cfg"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(self.path("jaas.conf"), "w") as f:
            f.write(jaas_text)

    def spawn(self, zkd_bin, env):
        self._log = open(self.path("zkd.log"), "ab")
        self.proc = subprocess.Popen(
            [zkd_bin, "--config", self.path("zoo.cfg"), "--jaas", self.path("jaas.conf")],
            cwd=self.dir, env=env, stdin=subprocess.DEVNULL, stdout=self._log,
            stderr=subprocess.STDOUT)

    def stop(self):
        proc, self.proc = self.proc, None
        servers.terminate(proc)
        if self._log is not None:
            self._log.close()
            self._log = None

    def srvr(self):
        """The srvr reply, or why there is none."""
        try:
            return servers.four_letter_word("127.0.0.1", self.client_port, "srvr", timeout=2.0)
        except OSError as e:
            return f"no reply: {e!r}"

    def mode(self):
        """The Mode srvr reports ("leader", "follower") while serving, else None."""
        found = re.search(r"^Mode: (\S+)", self.srvr(), re.MULTILINE)
        return found and found.group(1)

    def log(self):
        try:
            with open(self.path("zkd.log"), "r", errors="replace") as f:
                return f.read()
        except OSError:
            return "(no log)"


class Ensemble:
    """Started zkd nodes, one per JAAS text, all in one temporary directory,
    the KDC's environment given to each. As a context manager: stopped at
    the end, the directory kept (and the logs' tails printed) after an
    exception or with ZK_CONFORMANCE_KEEP=1."""

    def __init__(self, jaas_texts):
        self.jaas_texts = jaas_texts
        self.dir = None
        self.nodes = []

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="zk-conformance-quorum-")
        self.nodes = [Node(i, os.path.join(self.dir, f"node{i}"))
                      for i in range(1, len(self.jaas_texts) + 1)]
        lines = [node.server_line for node in self.nodes]
        env = dict(os.environ)
        env.update({k: KDC.environment[k] for k in ("KRB5_CONFIG", "KRB5RCACHEDIR")})
        for node, text in zip(self.nodes, self.jaas_texts):
            node.write(lines, text)
        for node in self.nodes:
            node.spawn(ARGS.zkd_bin, env)
        return self

    def stop(self, failed=False):
        for node in self.nodes:
            node.stop()
        if failed or os.environ.get("ZK_CONFORMANCE_KEEP"):
            for node in self.nodes:
                tail = "".join(node.log().splitlines(keepends=True)[-20:])
                print(f"--- node {node.myid} log tail ---\n{tail}", file=sys.stderr)
            print(f"[quorum] files kept in {self.dir}", file=sys.stderr)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def status(self):
        return "; ".join(f"node {n.myid}: {n.srvr().splitlines()[-1:]}" for n in self.nodes)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop(failed=True)
            raise

    def __exit__(self, exc_type, exc, tb):
        self.stop(failed=exc_type is not None)
        return False


@contextlib.contextmanager
def kazoo_client(node):
    """A kazoo client connected to `node` alone."""
    client = KazooClient(hosts=node.hostport, timeout=10.0)
    client.start(timeout=15.0)
    try:
        yield client
    finally:
        client.stop()
        client.close()


def wait_for(what, condition, timeout, ensemble):
    """condition()'s first true value, polled until `timeout`; fails saying
    `what` and the nodes' srvr replies."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} not within {timeout:.0f}s ({ensemble.status()})")
        # Poll interval, not synchronisation: the deadline bounds the wait.
        time.sleep(POLL_S)


def serving_modes(ensemble, nodes):
    """The modes of `nodes` once all of them serve."""
    def modes():
        found = [n.mode() for n in nodes]
        return all(found) and found

    return wait_for(f"nodes {[n.myid for n in nodes]} serving", modes, QUORUM_TIMEOUT_S,
                    ensemble)


def authenticated(node, peer):
    """The log line saying `node` accepted `peer`'s link as zkquorum/localhost."""
    return f"peer {peer.myid} authenticated with quorum SASL as {PEER_PRINCIPAL}" in node.log()


class QuorumKerberosTest(unittest.TestCase):

    def test_nodes_with_the_service_keytab_form_a_quorum(self):
        member = jaas(KDC.path("peers.keytab"), PEER_PRINCIPAL)
        with Ensemble([member] * 3) as ensemble:
            one, two, three = ensemble.nodes
            self.assertEqual(sorted(serving_modes(ensemble, ensemble.nodes)),
                             ["follower", "follower", "leader"])
            # The larger id dials the smaller: 1 accepts 2 and 3, 2 accepts 3.
            for acceptor, dialer in ((one, two), (one, three), (two, three)):
                wait_for(f"node {acceptor.myid} authenticating node {dialer.myid}",
                         lambda: authenticated(acceptor, dialer), LINK_TIMEOUT_S, ensemble)
            with kazoo_client(one) as writer, kazoo_client(three) as reader:
                writer.create("/written-through-node-1", b"replicated")
                reader.sync("/written-through-node-1")
                self.assertEqual(reader.get("/written-through-node-1")[0], b"replicated")

    def test_a_learner_with_another_hosts_principal_never_joins(self):
        member = jaas(KDC.path("peers.keytab"), PEER_PRINCIPAL)
        stranger = jaas(KDC.path("stranger.keytab"), STRANGER_PRINCIPAL)
        with Ensemble([member, member, stranger]) as ensemble:
            one, two, three = ensemble.nodes
            self.assertEqual(sorted(serving_modes(ensemble, [one, two])), ["follower", "leader"])
            with kazoo_client(two) as client:
                client.create("/served-without-node-3", b"")
            refusal = (f"{STRANGER_PRINCIPAL} is not authorized to join: {STRANGER_HOST} "
                       "is not the host of a server.N line")
            wait_for("the refusal of node 3 logged by node 1 or 2",
                     lambda: refusal in one.log() + two.log(), LINK_TIMEOUT_S, ensemble)
            deadline = time.monotonic() + STAY_OUT_S
            while time.monotonic() < deadline:
                self.assertIn("not currently serving requests", three.srvr())
                # Poll interval, not synchronisation: node 3 must stay out throughout.
                time.sleep(POLL_S)


def missing():
    """Why the tests cannot run here (None when they can)."""
    if KazooClient is None:
        return "kazoo is not installed (apt-get install python3-kazoo)"
    tools = kdc.missing_tools()
    if tools:
        return (f"no {', '.join(tools)} (apt-get install krb5-kdc krb5-admin-server "
                "krb5-user)")
    if not glob.glob(CYRUS_GSSAPI_PLUGINS):
        return "Cyrus SASL's GSSAPI plugin is not installed (libsasl2-modules-gssapi-mit)"
    return None


def main():
    module = sys.modules[__name__]
    rest = servers.parse_arguments(module)
    if ARGS.server != "zkd":
        servers.skip("quorum Kerberos is checked against zkd only")
    reason = missing()
    if reason:
        servers.skip(reason)
    servers.server_from_args(ARGS)  # exits with an error without a zkd binary
    program = unittest.main(module=module, argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
