#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs tests of kazoo's own suite (python3-kazoo 2.8, unmodified) against
a zkd ensemble, and the same tests against an Apache ZooKeeper 3.8 ensemble.

Usage:
  test_kazoo_suite.py [--server zkd|apache|both] [-k EXPR] [TEST_FILE]
                      (ZKD_BIN: the zkd binary)

kazoo's harness (kazoo.testing) starts a 3-server ensemble with
`java ... QuorumPeerMain zoo.cfg`, zoo.cfg naming reconfigEnabled=true and
the JVM flags a superuser digest. For zkd, `java` on PATH is
kazoo_harness_java.py, which runs zkd on that zoo.cfg with the -D flags in
SERVER_JVMFLAGS; for Apache the real java runs Debian's zookeeper.jar. The
default selection is TestReconfig in test_client.py (its 3 tests: adding
and removing an observer, a superuser only, bad input).

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


def run(kind, tests_dir, test_file, selection, port_offset):
    work = tempfile.mkdtemp(prefix=f"zk-kazoo-suite-{kind}-")
    env = dict(os.environ)
    env["ZOOKEEPER_VERSION"] = "3.8.0"
    env["ZOOKEEPER_PORT_OFFSET"] = str(port_offset)
    if kind == "zkd":
        shim = os.path.join(work, "bin")
        os.mkdir(shim)
        os.symlink(os.path.join(HERE, "kazoo_harness_java.py"), os.path.join(shim, "java"))
        env["PATH"] = shim + os.pathsep + env["PATH"]
        env["ZOOKEEPER_PATH"] = work  # unused by the shim; the harness wants one
    else:
        env["ZOOKEEPER_CLASSPATH"] = servers.APACHE_JAR + (
            ":" + servers.SLF4J_SIMPLE_JAR if os.path.exists(servers.SLF4J_SIMPLE_JAR) else "")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               os.path.join(tests_dir, test_file), "-k", selection]
    print(f"--- {kind}: {' '.join(command[3:])}", flush=True)
    try:
        # The harness's servers are killed with their pytest process's exit.
        return subprocess.run(command, cwd=work, env=env, timeout=600).returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", choices=["zkd", "apache", "both"], default="both")
    parser.add_argument("-k", dest="selection", default="TestReconfig")
    parser.add_argument("test_file", nargs="?", default="test_client.py")
    args = parser.parse_args()
    tests_dir = kazoo_tests_dir()
    if tests_dir is None:
        return SKIP
    kinds = ["zkd", "apache"] if args.server == "both" else [args.server]
    if "apache" in kinds and not servers.apache_available():
        if args.server == "apache":
            print("SKIP: Apache ZooKeeper is not installed")
            return SKIP
        print("Apache ZooKeeper is not installed: zkd only")
        kinds = ["zkd"]
    failed = []
    # Ports: the harness takes offset .. offset+29 (3 servers, 10 apart).
    base = 21000 + (os.getpid() % 200) * 40
    for i, kind in enumerate(kinds):
        if run(kind, tests_dir, args.test_file, args.selection, base + i * 2000 % 8000) != 0:
            failed.append(kind)
    if failed:
        print("FAILED against: " + ", ".join(failed))
        return 1
    print("ok against: " + ", ".join(kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
