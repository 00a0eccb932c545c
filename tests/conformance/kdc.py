#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A throw-away MIT Kerberos KDC for the conformance tests.

Kdc(realm).start() makes a fresh temporary directory holding krb5.conf,
kdc.conf and a new database (kdb5_util create), then runs `krb5kdc -n` (in
the foreground, so stop() can end it by its pid) on a free loopback port,
TCP only, and returns once that port accepts connections. Nothing outside
the directory is read or written: every command gets KRB5_CONFIG and
KRB5_KDC_PROFILE pointing into it, and `environment` gives the same to the
processes that talk to this KDC (servers, kinit, the test's own GSSAPI
calls). Java does not read KRB5_CONFIG: give it `java_flags`.

    with Kdc("ZKTEST.ORG") as kdc:
        kdc.add_principals(["zookeeper/127.0.0.1"], keytab=kdc.path("server.keytab"))
        kdc.add_principals(["alice"], keytab=kdc.path("alice.keytab"))
        kdc.kinit("alice", kdc.path("alice.keytab"))  # into kdc.ccache

Tickets go to a private credential-cache collection (`ccache`, a DIR:
collection), one cache per principal, so that GSSAPI clients naming their
principal each find their own ticket.

Every wait has a deadline; nothing sleeps as a means of synchronisation.
Only the standard library and the Debian packages krb5-kdc,
krb5-admin-server (kadmin.local) and krb5-user (kinit) are used;
`missing_tools()` says which of their programs are absent.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servers import free_loopback_port, terminate, wait_until_interrupted  # noqa: E402

KDB5_UTIL = "/usr/sbin/kdb5_util"
KADMIN_LOCAL = "/usr/sbin/kadmin.local"
KRB5KDC = "/usr/sbin/krb5kdc"
KINIT = shutil.which("kinit") or "/usr/bin/kinit"

READY_TIMEOUT_S = 10.0
COMMAND_TIMEOUT_S = 20.0
# Enctypes both MIT and Java 17 use without further configuration.
ENCTYPES = "aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96"


class KdcError(RuntimeError):
    pass


def missing_tools():
    """The KDC programs that are not installed (empty when all are)."""
    return [p for p in (KDB5_UTIL, KADMIN_LOCAL, KRB5KDC, KINIT) if not os.access(p, os.X_OK)]


class Kdc:
    """One KDC process serving `realm` from its own temporary directory.

    Use as a context manager, or call start()/stop(). stop() is idempotent
    and removes the directory (ZK_CONFORMANCE_KEEP=1 keeps it)."""

    def __init__(self, realm="ZKTEST.ORG"):
        self.realm = realm
        self.dir = None
        self.port = None
        self.proc = None
        self._log = None

    # -- public -----------------------------------------------------------

    def path(self, name):
        return os.path.join(self.dir, name)

    @property
    def krb5_conf(self):
        return self.path("krb5.conf")

    @property
    def ccache(self):
        """The credential-cache collection kinit() fills (KRB5CCNAME value)."""
        return "DIR:" + self.path("ccache")

    @property
    def environment(self):
        """What an MIT Kerberos process needs to use this KDC and nothing
        else: its krb5.conf, the ticket collection, a private replay cache."""
        return {"KRB5_CONFIG": self.krb5_conf, "KRB5_KDC_PROFILE": self.path("kdc.conf"),
                "KRB5CCNAME": self.ccache, "KRB5RCACHEDIR": self.path("rcache")}

    @property
    def java_flags(self):
        """The JVM flags that make Java's Kerberos use this KDC."""
        return [f"-Djava.security.krb5.conf={self.krb5_conf}"]

    def principal(self, name):
        """`name` with this KDC's realm."""
        return f"{name}@{self.realm}"

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="zk-conformance-kdc-")
        for d in ("ccache", "rcache"):
            os.mkdir(self.path(d), 0o700)
        # Held by this process as the servers' ports are: krb5kdc binds its
        # TCP listener with SO_REUSEADDR, so it can listen there.
        self.port = free_loopback_port()
        self._write_config()
        try:
            self._run([KDB5_UTIL, "-r", self.realm, "create", "-s", "-P", "throw-away-master-key"])
            self._spawn()
            self._wait_ready()
        except (KdcError, OSError, subprocess.SubprocessError):
            self.stop(failed=True)
            raise
        return self

    def stop(self, failed=False):
        proc, self.proc = self.proc, None
        terminate(proc)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.dir and os.path.isdir(self.dir):
            if failed or os.environ.get("ZK_CONFORMANCE_KEEP"):
                print(f"[kdc] files kept in {self.dir}", file=sys.stderr)
            else:
                shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def add_principals(self, names, keytab=None):
        """Creates the principals `names` (without realm) with random keys
        and writes their keys to `keytab` if given (one kadmin.local run)."""
        script = "".join(f"addprinc -randkey {n}\n" + (f"ktadd -k {keytab} {n}\n" if keytab else "")
                         for n in names)
        self._run([KADMIN_LOCAL, "-r", self.realm], stdin=script)

    def kinit(self, name, keytab):
        """Gets a ticket-granting ticket for `name` (without realm) from its
        keys in `keytab`, into its own cache of the `ccache` collection."""
        self._run([KINIT, "-k", "-t", keytab, self.principal(name)])

    def log_tail(self, lines=20):
        try:
            with open(self.path("kdc.log"), "r", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except (OSError, TypeError):
            return "(no log)"

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        return False

    # -- internals --------------------------------------------------------

    def _write_config(self):
        # TCP only (udp_preference_limit = 1 makes MIT and Java clients use
        # it first; the KDC listens on no UDP port); no DNS anywhere, so
        # host names stay as written ("127.0.0.1").
        with open(self.krb5_conf, "w") as f:
            f.write(f"""[libdefaults]
  default_realm = {self.realm}
  dns_lookup_realm = false
  dns_lookup_kdc = false
  dns_canonicalize_hostname = false
  rdns = false
  udp_preference_limit = 1
  ticket_lifetime = 1h
  forwardable = false
  default_tkt_enctypes = {ENCTYPES}
  default_tgs_enctypes = {ENCTYPES}
  permitted_enctypes = {ENCTYPES}

[realms]
  {self.realm} = {{
    kdc = 127.0.0.1:{self.port}
  }}

[domain_realm]
  127.0.0.1 = {self.realm}
  localhost = {self.realm}
""")
        with open(self.path("kdc.conf"), "w") as f:
            f.write(f"""[kdcdefaults]
  kdc_listen = ""
  kdc_tcp_listen = 127.0.0.1:{self.port}

[realms]
  {self.realm} = {{
    database_name = {self.path('principal')}
    key_stash_file = {self.path('stash')}
    acl_file = {self.path('kadm5.acl')}
    max_life = 1h
    max_renewable_life = 0
    supported_enctypes = {' '.join(e + ':normal' for e in ENCTYPES.split())}
  }}

[logging]
  kdc = FILE:{self.path('kdc.log')}
  admin_server = FILE:{self.path('kadmin.log')}
  default = FILE:{self.path('kdc.log')}
""")
        with open(self.path("kadm5.acl"), "w") as f:
            f.write("")

    def _env(self):
        env = dict(os.environ)
        env.update(self.environment)
        return env

    def _run(self, command, stdin=None):
        done = subprocess.run(command, input=(stdin or "").encode(), env=self._env(),
                              cwd=self.dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=COMMAND_TIMEOUT_S)
        if done.returncode != 0:
            raise KdcError(f"{' '.join(command)} failed with status {done.returncode}:\n"
                           f"{done.stdout.decode(errors='replace')}")
        return done.stdout.decode(errors="replace")

    def _spawn(self):
        self._log = open(self.path("krb5kdc.out"), "ab")
        self.proc = subprocess.Popen([KRB5KDC, "-n", "-r", self.realm], env=self._env(),
                                     cwd=self.dir, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT)

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT_S
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise KdcError(f"krb5kdc exited with status {self.proc.returncode}; log tail:\n"
                               f"{self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0):
                    return
            except OSError as e:
                last = repr(e)
            # Poll interval, not synchronisation: the deadline bounds the wait.
            time.sleep(0.02)
        raise KdcError(f"krb5kdc not listening on 127.0.0.1:{self.port} within "
                       f"{READY_TIMEOUT_S:.0f}s ({last}); log tail:\n{self.log_tail()}")


def main():
    """Manual use: start a KDC with a server and a client principal, print
    the environment to use it, and keep it running until Ctrl-C."""
    with Kdc() as kdc:
        kdc.add_principals(["zookeeper/127.0.0.1"], keytab=kdc.path("server.keytab"))
        kdc.add_principals(["alice"], keytab=kdc.path("alice.keytab"))
        kdc.kinit("alice", kdc.path("alice.keytab"))
        for key, value in kdc.environment.items():
            print(f"export {key}={value}")
        print(f"# server keytab {kdc.path('server.keytab')}; alice's ticket in {kdc.ccache}",
              flush=True)
        wait_until_interrupted()
    return 0


if __name__ == "__main__":
    sys.exit(main())
