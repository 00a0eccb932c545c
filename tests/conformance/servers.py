#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Start and stop a ZooKeeper-compatible server for the conformance tests.

Two kinds of server are supported, both configured by the same Apache-format
zoo.cfg written into a fresh temporary directory (its dataDir is <dir>/data,
or a directory the caller gives, which outlives the server):

  zkd     our server, binary from $ZKD_BIN (or --zkd-bin), run as
          `zkd --config <dir>/zoo.cfg`
  apache  Apache ZooKeeper 3.8 from the Debian `zookeeper` package, run
          standalone as `java ... ZooKeeperServerMain <dir>/zoo.cfg`

A server is ready when a fresh connection sending the four-letter word `srvr`
gets a reply starting with "Zookeeper version". Every wait has a deadline;
nothing sleeps as a means of synchronisation.

Only the Python standard library is used here, so the module also works where
kazoo is missing.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

# CTest treats this exit code as "skipped" (SKIP_RETURN_CODE property).
SKIP_EXIT_CODE = 77

APACHE_JAR = "/usr/share/java/zookeeper.jar"
# What Apache's Netty connection factory needs beyond zookeeper.jar's class path.
NETTY_JARS = ["/usr/share/java/netty-codec.jar", "/usr/share/java/netty-resolver.jar"]
# Optional slf4j binding so that Apache's log ends up in the temp dir.
SLF4J_SIMPLE_JAR = "/usr/share/java/slf4j-simple.jar"
# The binding Debian's own zkServer.sh uses (log4j 1.2), for a test that
# routes one logger to a file of its own (Server(log4j=True)).
LOG4J_JARS = ["/usr/share/java/slf4j-log4j12.jar", "/usr/share/java/log4j-1.2.jar"]
# Optional: lets Apache read and write snappy snapshots
# (-Dzookeeper.snapshot.compression.method=snappy); Debian's zookeeper.jar
# does not name it in its class path.
SNAPPY_JAR = "/usr/share/java/snappy-java.jar"
JAVA = shutil.which("java") or "/usr/bin/java"

READY_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 5.0


class ServerError(RuntimeError):
    pass


def skip(reason):
    """Exit the process as a skipped test."""
    print(f"SKIP: {reason}", flush=True)
    sys.exit(SKIP_EXIT_CODE)


def apache_available():
    return os.path.exists(APACHE_JAR) and os.access(JAVA, os.X_OK)


# Apache's Java CLI (Debian `zookeeper`): an unmodified client for tests.
ZKCLI = "/usr/share/zookeeper/bin/zkCli.sh"
ZKCLI_TIMEOUT_S = 120


def zkcli_available():
    return os.access(ZKCLI, os.X_OK) and os.access(JAVA, os.X_OK)


def zkcli(server, *command):
    """Runs one zkCli.sh command against `server` (it exits after it);
    returns its stdout and stderr together."""
    done = subprocess.run([ZKCLI, "-server", server.hostport, *command],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=ZKCLI_TIMEOUT_S)
    return done.stdout.decode(errors="replace")


def zkcli_session(server, commands):
    """Runs `commands` in one zkCli.sh session against `server` (one session:
    ephemerals and watches live until the script's end); returns the output
    lines, stdout and stderr together."""
    script = "".join(c + "\n" for c in commands) + "quit\n"
    done = subprocess.run([ZKCLI, "-server", server.hostport], input=script.encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=ZKCLI_TIMEOUT_S)
    return done.stdout.decode("utf-8", "replace").splitlines()


# Sockets holding the ports free_loopback_port handed out, until this process exits.
_held_ports = []


def free_loopback_port():
    """A free loopback port, held for the rest of this process (as zklab's
    PortReservation does): a socket stays bound to it with SO_REUSEADDR and
    never listens, so no other bind(0) or outgoing connection on the machine
    takes it, while a server binding it with SO_REUSEADDR (zkd, Apache
    ZooKeeper, Jetty) listens there as usual and a client meanwhile is refused."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    _held_ports.append(s)
    return s.getsockname()[1]


def four_letter_word(host, port, word, timeout=5.0):
    """Send a 4lw on a fresh connection; return the whole reply as str.

    Raises OSError when the connection cannot be made or the reply does not
    end (server closes the connection after answering) within `timeout`.
    """
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(word.encode("ascii") if isinstance(word, str) else word)
        chunks = []
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise socket.timeout(f"4lw {word!r}: no end of reply")
            s.settimeout(remaining)
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


class Server:
    """One server process in its own temporary directory.

    Use as a context manager, or call start()/stop(). stop() is idempotent
    and also removes the directory (set ZK_CONFORMANCE_KEEP=1 to keep it),
    but never a caller's data_dir.
    """

    def __init__(self, kind, zkd_bin=None, whitelist="*", extra_config=None, jaas=None,
                 secure=False, env=None, jvm_flags=None, data_dir=None, log4j=False):
        if kind not in ("zkd", "apache"):
            raise ValueError(f"unknown server kind {kind!r}")
        self.kind = kind
        self.zkd_bin = zkd_bin
        self.whitelist = whitelist
        self.extra_config = dict(extra_config or {})
        # JAAS login configuration text: both servers get its path as Apache's
        # JVM does (-Djava.security.auth.login.config; zkd reads the flag
        # from SERVER_JVMFLAGS, as zkServer.sh passes it).
        self.jaas = jaas
        # secure: a TLS client port too (secureClientPort on loopback; the
        # ssl.* keys come in extra_config). Apache serves it with its Netty
        # connection factory.
        self.secure = secure
        # env: variables added to the server process's environment (either
        # kind), e.g. KRB5_CONFIG; jvm_flags: extra JVM flags for Apache's
        # java, e.g. -Djava.security.krb5.conf (Java ignores KRB5_CONFIG).
        self.env = dict(env or {})
        self.jvm_flags = list(jvm_flags or [])
        # data_dir: zoo.cfg's dataDir (made if missing) instead of <dir>/data;
        # it is the caller's, so it outlives stop(), e.g. for the next server.
        self.data_dir = os.path.abspath(data_dir) if data_dir is not None else None
        # log4j: Apache logs through log4j 1.2 (LOG4J_JARS) instead of
        # slf4j-simple, configured by <dir>/log4j.properties, which the caller
        # writes between write_config() and start() (log4j_path).
        self.log4j = log4j
        self.secure_port = None
        self.host = "127.0.0.1"
        self.port = None
        self.dir = None
        self.proc = None
        self._log = None

    # -- public -----------------------------------------------------------

    @property
    def hostport(self):
        return f"{self.host}:{self.port}"

    @property
    def jaas_path(self):
        return os.path.join(self.dir, "jaas.conf")

    @property
    def log4j_path(self):
        return os.path.join(self.dir, "log4j.properties")

    @property
    def log_path(self):
        return os.path.join(self.dir, "server.log")

    @property
    def config_path(self):
        return os.path.join(self.dir, "zoo.cfg")

    def write_config(self):
        """Makes the temp dir, the dataDir and zoo.cfg (with a fresh port)
        unless already made since the last stop(); returns zoo.cfg's path.
        start() calls it; call it first to use the zoo.cfg before the
        server runs (e.g. `zkd import ... --config`); stop() cleans up
        either way."""
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix=f"zk-conformance-{self.kind}-")
            if self.data_dir is None:
                os.mkdir(os.path.join(self.dir, "data"))
            else:
                os.makedirs(self.data_dir, exist_ok=True)
            self.port = free_loopback_port()
            if self.secure:
                self.secure_port = free_loopback_port()
            self._write_config()
        return self.config_path

    def start(self):
        self.write_config()
        if self.jaas is not None:
            with open(self.jaas_path, "w") as f:
                f.write(self.jaas)
        self._spawn()
        try:
            self._wait_ready()
        except ServerError:
            self.stop(failed=True)
            raise
        return self

    def stop(self, failed=False):
        self._terminate()
        if self.dir and os.path.isdir(self.dir):
            if failed or os.environ.get("ZK_CONFORMANCE_KEEP"):
                print(f"[servers] {self.kind} files kept in {self.dir}", file=sys.stderr)
            else:
                shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def stop_process(self):
        """Stops the server process as an operator would (SIGTERM; SIGKILL
        after STOP_TIMEOUT_S) and waits for its exit, keeping its directory
        (to read what it wrote) until stop()."""
        self._terminate()

    def four_letter_word(self, word, timeout=5.0):
        return four_letter_word(self.host, self.port, word, timeout)

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, "r", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no log)"

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and self.proc is not None:
            print(f"[servers] {self.kind} log tail:\n{self.log_tail()}", file=sys.stderr)
        self.stop()
        return False

    # -- internals --------------------------------------------------------

    def _write_config(self):
        lines = [
            "tickTime=2000",
            f"dataDir={self.data_dir or os.path.join(self.dir, 'data')}",
            f"clientPort={self.port}",
            "clientPortAddress=127.0.0.1",
        ]
        if self.whitelist is not None:
            lines.append(f"4lw.commands.whitelist={self.whitelist}")
        if self.secure:
            lines += [f"secureClientPort={self.secure_port}", "secureClientPortAddress=127.0.0.1"]
        if not any(key.startswith("admin.") for key in self.extra_config):
            # No admin server on 0.0.0.0:8080 (zkd's default, as Apache's).
            lines.append("admin.enableServer=false")
        for key, value in self.extra_config.items():
            lines.append(f"{key}={value}")
        with open(self.config_path, "w") as f:
            f.write("\n".join(lines) + "\n")

    def _command(self):
        cfg = self.config_path
        if self.kind == "zkd":
            if not self.zkd_bin:
                raise ServerError("no zkd binary: set ZKD_BIN or pass --zkd-bin")
            if not os.access(self.zkd_bin, os.X_OK):
                raise ServerError(f"zkd binary not executable: {self.zkd_bin}")
            return [self.zkd_bin, "--config", cfg]
        if not apache_available():
            raise ServerError(f"Apache ZooKeeper not installed ({APACHE_JAR}, {JAVA})")
        classpath = APACHE_JAR
        if self.log4j:
            classpath += "".join(":" + jar for jar in LOG4J_JARS)
        elif os.path.exists(SLF4J_SIMPLE_JAR):
            classpath += ":" + SLF4J_SIMPLE_JAR
        if os.path.exists(SNAPPY_JAR):
            classpath += ":" + SNAPPY_JAR
        netty = []
        if self.secure or self.extra_config.get("client.portUnification") == "true":
            # Debian's zookeeper.jar names neither jar in its class path; without
            # them the Netty TLS port accepts and then drops every connection.
            classpath += "".join(":" + jar for jar in NETTY_JARS)
            netty = ["-Dzookeeper.serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory"]
        return [
            JAVA,
            # Start-up speed: a short-lived test server does not need the
            # optimising JIT or a big heap.
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xms32m",
            "-Xmx256m",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
            "-Dorg.slf4j.simpleLogger.showDateTime=true",
            # No Jetty admin server on :8080 (would collide between runs).
            "-Dzookeeper.admin.enableServer=false",
            "-Dzookeeper.jmx.log4j.disable=true",
            # No fsync, small preallocation: faster and lighter on disk.
            "-Dzookeeper.forceSync=no",
            "-Dzookeeper.preAllocSize=1024",
            *([f"-Djava.security.auth.login.config={self.jaas_path}"] if self.jaas else []),
            *([f"-Dlog4j.configuration=file:{self.log4j_path}"] if self.log4j else []),
            *netty,
            *self.jvm_flags,
            "-cp",
            classpath,
            "org.apache.zookeeper.server.ZooKeeperServerMain",
            cfg,
        ]

    def _spawn(self):
        self._log = open(self.log_path, "ab")
        env = dict(os.environ)
        env.update(self.env)
        if self.jaas is not None and self.kind == "zkd":
            env["SERVER_JVMFLAGS"] = f"-Djava.security.auth.login.config={self.jaas_path}"
        self.proc = subprocess.Popen(
            self._command(),
            cwd=self.dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT_S
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(
                    f"{self.kind} exited with status {self.proc.returncode} before "
                    f"becoming ready; log tail:\n{self.log_tail()}"
                )
            try:
                reply = four_letter_word(self.host, self.port, "srvr", timeout=2.0)
                if not reply.startswith("Zookeeper version"):
                    last = f"unexpected srvr reply {reply[:80]!r}"
                elif self.secure:
                    # Apache opens its secure port after the plain one: a
                    # test's first TLS connection must find it listening.
                    socket.create_connection((self.host, self.secure_port), timeout=2.0).close()
                    return
                else:
                    return
            except OSError as e:
                last = repr(e)
            # Poll interval, not synchronisation: the deadline bounds the wait.
            time.sleep(0.05)
        raise ServerError(
            f"{self.kind} not ready within {READY_TIMEOUT_S:.0f}s on {self.hostport} "
            f"({last}); log tail:\n{self.log_tail()}"
        )

    def _terminate(self):
        proc, self.proc = self.proc, None
        terminate(proc)
        if self._log is not None:
            self._log.close()
            self._log = None


def wait_until_interrupted():
    """For a helper kept running by hand: returns on Ctrl-C, SIGTERM or SIGHUP."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGHUP, interrupt)
    try:
        while True:
            signal.pause()
    except KeyboardInterrupt:
        pass


def terminate(proc):
    """Stops a child process (None or already gone: nothing): SIGTERM, then
    SIGKILL if it is still there after STOP_TIMEOUT_S; waits for its exit."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=STOP_TIMEOUT_S)


# -- command-line helpers shared by the test scripts -------------------------


def add_server_arguments(parser):
    parser.add_argument(
        "--server",
        choices=("zkd", "apache"),
        default="zkd",
        help="server to test (default: zkd)",
    )
    parser.add_argument(
        "--zkd-bin",
        default=os.environ.get("ZKD_BIN"),
        help="path of the zkd binary (default: $ZKD_BIN)",
    )


def server_from_args(args, **kwargs):
    """Build (not start) the Server selected on the command line.

    Exits as skipped when --server apache is asked for and the Apache
    package is absent; exits with an error when zkd is asked for and no
    binary was given (a missing zkd is a build problem, not a skip).
    """
    if args.server == "apache":
        if not apache_available():
            skip(f"Apache ZooKeeper not installed ({APACHE_JAR} / java missing)")
        return Server("apache", **kwargs)
    if not args.zkd_bin:
        print("ERROR: no zkd binary: set ZKD_BIN or pass --zkd-bin", file=sys.stderr)
        sys.exit(2)
    return Server("zkd", zkd_bin=args.zkd_bin, **kwargs)


class ClassServerTest(unittest.TestCase):
    """A TestCase whose tests share one server (`cls.server`), started for
    the class from its module's ARGS (--server/--zkd-bin)."""
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = server_from_args(sys.modules[cls.__module__].ARGS)
        cls.server.start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()


def unittest_main(module, kazoo_installed, add_arguments=None,
                  missing="kazoo is not installed (apt-get install python3-kazoo)"):
    """The main() of a unittest file whose tests start their own servers:
    parses --server/--zkd-bin (and what `add_arguments(parser)` adds) into
    module.ARGS, exits as skipped without the client the tests use
    (`kazoo_installed` false: skipped saying `missing`) or the asked-for
    server, runs the module's tests. Returns the process exit code (0 or 1)."""
    rest = parse_arguments(module, add_arguments)
    if not kazoo_installed:
        skip(missing)
    server_from_args(module.ARGS)  # exits early (skip/error) if unusable
    program = unittest.main(module=module, argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


def run_tests(server, module_name, argv_rest):
    """Runs a module's unittest cases with `server` started; on failure prints
    the server's log tail. Returns the process exit code (0 or 1)."""
    with server:
        program = unittest.main(module=sys.modules[module_name], argv=[sys.argv[0]] + argv_rest,
                                exit=False, verbosity=2)
        if not program.result.wasSuccessful():
            print(f"--- {server.kind} log tail ---\n{server.log_tail()}", file=sys.stderr)
    return 0 if program.result.wasSuccessful() else 1


def parse_arguments(module, add_arguments=None):
    """Parses --server/--zkd-bin (and what `add_arguments(parser)` adds, the
    module's docstring describing it) into module.ARGS; returns the rest."""
    parser = argparse.ArgumentParser(description=module.__doc__.splitlines()[0])
    add_server_arguments(parser)
    if add_arguments:
        add_arguments(parser)
    module.ARGS, rest = parser.parse_known_args()
    return rest


def test_main(module_name, add_arguments=None, require=None):
    """The main() of a test module whose tests share one server: parses the
    arguments (parse_arguments), calls `require()` (which may skip()), starts
    the server as module.SERVER and runs the module's tests. Returns the
    process exit code."""
    module = sys.modules[module_name]
    rest = parse_arguments(module, add_arguments)
    if require:
        require()
    module.SERVER = server_from_args(module.ARGS)
    return run_tests(module.SERVER, module_name, rest)


def main(argv=None):
    """Manual use: start a server and keep it running until Ctrl-C."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_server_arguments(parser)
    args = parser.parse_args(argv)
    with server_from_args(args) as server:
        print(f"{server.kind} ready on {server.hostport} (dir {server.dir})", flush=True)
        wait_until_interrupted()
    return 0


if __name__ == "__main__":
    sys.exit(main())
