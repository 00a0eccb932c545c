#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs tests of kazoo's own suite (python3-kazoo 2.8, unmodified) against
a zkd ensemble, and the same tests against an Apache ZooKeeper 3.8 ensemble
(and against a mixed zkd + Apache one).

Usage:
  test_kazoo_suite.py [--server zkd|apache|mixed|both|all] [--zkd-ids 1,3]
                      [-k EXPR] [--timeout S] [TEST_FILE]
                      (ZKD_BIN: the zkd binary)

kazoo's harness (kazoo.testing) starts a 3-server ensemble with
`java ... QuorumPeerMain zoo.cfg`, zoo.cfg naming reconfigEnabled=true and
the JVM flags a superuser digest. For zkd, `java` on PATH is
kazoo_harness_java.py, which runs zkd on that zoo.cfg with the -D flags in
SERVER_JVMFLAGS; for Apache the real java runs Debian's zookeeper.jar. The
default selection is TestReconfig in test_client.py (its 3 tests: adding
and removing an observer, a superuser only, bad input).

--server mixed: one ensemble of both kinds. The shim runs zkd for the
servers --zkd-ids names (by the myid in the dataDir the harness writes;
default 1,3: zkd usually leads, as the highest id; with --zkd-ids 1 zkd
follows an Apache leader) and execs the real java for the others; every
zoo.cfg gets zkd.peerProtocol=apache (a system property Apache never
reads). The servers' output goes to <work>/logs/server<id>-<kind>.log; when
the run fails, zkd's "Apache peer protocol:" lines and the logs' tails are
printed and the logs kept (kept, not printed, with ZK_CONFORMANCE_KEEP=1).
both = zkd, apache; all = zkd, apache, mixed.

Exits 77 (skip) when kazoo's tests, pytest or mock are not installed
(Debian: python3-kazoo, python3-pytest, python3-mock), or, for Apache,
when the zookeeper package is not.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402

SKIP = 77


def kazoo_tests_dir():
    try:
        import kazoo.tests  # noqa: F401
        import mock  # noqa: F401
        import pytest  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {e} (install python3-kazoo python3-pytest python3-mock)")
        return None
    return os.path.dirname(kazoo.tests.__file__)


LOG_TAIL_LINES = 30
PEER_PROTOCOL_LINES = 40


def report_logs(log_dir):
    """After a failed mixed run: zkd's "Apache peer protocol:" lines and every
    server log's tail."""
    names = sorted(os.listdir(log_dir)) if os.path.isdir(log_dir) else []
    for name in names:
        with open(os.path.join(log_dir, name), errors="replace") as f:
            lines = f.readlines()
        if "zkd" in name:
            found = [line for line in lines if "Apache peer protocol:" in line]
            print(f"--- {name}: last 'Apache peer protocol:' lines ---")
            print("".join(found[-PEER_PROTOCOL_LINES:]), end="")
        print(f"--- {name}: last {LOG_TAIL_LINES} lines ---")
        print("".join(lines[-LOG_TAIL_LINES:]), end="")
    print(f"server logs kept in {log_dir}", flush=True)


def run(kind, tests_dir, test_file, selection, port_offset, zkd_ids, timeout):
    work = tempfile.mkdtemp(prefix=f"zk-kazoo-suite-{kind}-")
    env = dict(os.environ)
    env["ZOOKEEPER_VERSION"] = "3.8.0"
    env["ZOOKEEPER_PORT_OFFSET"] = str(port_offset)
    apache_classpath = servers.APACHE_JAR + (
        ":" + servers.SLF4J_SIMPLE_JAR if os.path.exists(servers.SLF4J_SIMPLE_JAR) else "")
    log_dir = os.path.join(work, "logs")
    if kind in ("zkd", "mixed"):
        shim = os.path.join(work, "bin")
        os.mkdir(shim)
        os.symlink(os.path.join(HERE, "kazoo_harness_java.py"), os.path.join(shim, "java"))
        env["PATH"] = shim + os.pathsep + env["PATH"]
        env["ZOOKEEPER_PATH"] = work  # unused by the shim; the harness wants one
    if kind == "mixed":
        env["ZOOKEEPER_CLASSPATH"] = apache_classpath  # zkd's servers ignore it
        env["KAZOO_HARNESS_ZKD_IDS"] = zkd_ids
        env["KAZOO_HARNESS_JAVA"] = servers.JAVA  # found on PATH before the shim
        env["KAZOO_HARNESS_LOG_DIR"] = log_dir
    elif kind == "apache":
        env["ZOOKEEPER_CLASSPATH"] = apache_classpath
    command = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider",
               os.path.join(tests_dir, test_file), "-k", selection]
    label = f"mixed (zkd: server {zkd_ids}; Apache: the others)" if kind == "mixed" else kind
    print(f"--- {label}: {' '.join(command[3:])}", flush=True)
    returncode = 1
    try:
        # The harness's servers are killed with their pytest process's exit.
        returncode = subprocess.run(command, cwd=work, env=env, timeout=timeout).returncode
        return returncode
    except subprocess.TimeoutExpired:
        print(f"TIMEOUT after {timeout} s", flush=True)
        return 1
    finally:
        if kind == "mixed" and returncode != 0:
            report_logs(log_dir)
        elif kind == "mixed" and os.environ.get("ZK_CONFORMANCE_KEEP") == "1":
            print(f"server logs kept in {log_dir}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", choices=["zkd", "apache", "mixed", "both", "all"],
                        default="both")
    parser.add_argument("--zkd-ids", default="1,3",
                        help="mixed: the myids of the servers zkd runs (of 1, 2, 3)")
    parser.add_argument("-k", dest="selection", default="TestReconfig")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds for each kind's pytest run")
    parser.add_argument("test_file", nargs="?", default="test_client.py")
    args = parser.parse_args()
    tests_dir = kazoo_tests_dir()
    if tests_dir is None:
        return SKIP
    kinds = {"both": ["zkd", "apache"], "all": ["zkd", "apache", "mixed"]}.get(
        args.server, [args.server])
    if not servers.apache_available() and ("apache" in kinds or "mixed" in kinds):
        if args.server in ("apache", "mixed"):
            print("SKIP: Apache ZooKeeper is not installed")
            return SKIP
        print("Apache ZooKeeper is not installed: zkd only")
        kinds = ["zkd"]
    failed = []
    # Ports: the harness takes offset .. offset+29 (3 servers, 10 apart).
    base = 21000 + (os.getpid() % 200) * 40
    for i, kind in enumerate(kinds):
        if run(kind, tests_dir, args.test_file, args.selection, base + i * 2000 % 8000,
               args.zkd_ids, args.timeout) != 0:
            failed.append(kind)
    if failed:
        print("FAILED against: " + ", ".join(failed))
        return 1
    print("ok against: " + ", ".join(kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
