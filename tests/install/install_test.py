# SPDX-License-Identifier: Apache-2.0
"""The installed system, as a user or a package gets it.

Each run installs the build (`cmake --install BUILD --prefix TMP`) into a
fresh temporary prefix and looks only there:
  - the layout: tools, man pages, the unit, the sysusers file, the sample
    config, libraries, public headers only, the CMake and pkg-config packages;
  - the unit: `systemd-analyze verify` of the installed zkd.service with its
    ExecStart pointed at the prefix's zkd and man pages from the prefix;
  - zklab: the prefix's zklab starts the prefix's zkd (beside it), with no
    $ZKLAB_ZKD and no build directory on PATH;
  - the client package: tests/install/consumer built with find_package(zk)
    and, again, with `pkg-config --cflags --libs zk`, run against a zkd of
    the prefix (creates a znode, reads it back, uses the counter recipe).

Environment (tests/install/CMakeLists.txt): CMAKE, BUILD_DIR, CXX, GENERATOR,
the build's LIBDIR, UNIT_DIR and SYSUSERS_DIR (relative to the prefix), and
CONSUMER_FLAGS (compiler flags the consumer needs, e.g. the sanitizers).
Run one test: install_test.py -v InstallTest.test_layout
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "zkctl"))
import zk_server  # noqa: E402

CONSUMER = os.path.join(HERE, "consumer")
LIBDIR = os.environ.get("LIBDIR", "lib")
CONSUMER_FLAGS = os.environ.get("CONSUMER_FLAGS", "")
UNIT = os.path.join(os.environ.get("UNIT_DIR", "lib/systemd/system"), "zkd.service")
SYSUSERS = os.path.join(os.environ.get("SYSUSERS_DIR", "lib/sysusers.d"), "zkd.conf")
# What the Debian packaging relies on (cmake/ZkInstall.cmake).
EXPECTED_FILES = [
    "bin/zkd", "bin/zkctl", "bin/zklab", "bin/zkbench",
    "share/man/man8/zkd.8", "share/man/man1/zkctl.1", "share/man/man1/zklab.1",
    "share/man/man1/zkbench.1", "share/man/man7/zk-recipes.7",
    "share/doc/zk/examples/zoo.cfg",
    UNIT, SYSUSERS,
    f"{LIBDIR}/libzk_wire.a", f"{LIBDIR}/libzk_client.a", f"{LIBDIR}/libzk_recipes.a",
    "include/zk/libzk/client/sync_client.h", "include/zk/libzk/wire/records.h",
    "include/zk/recipes/lock.h",
    f"{LIBDIR}/cmake/zk/zkConfig.cmake", f"{LIBDIR}/cmake/zk/zkConfigVersion.cmake",
    f"{LIBDIR}/cmake/zk/zkTargets.cmake", f"{LIBDIR}/pkgconfig/zk.pc",
]
# Internal headers (the client's engine, the recipes' internals) stay out.
NOT_INSTALLED = [
    "include/zk/libzk/client/session.h", "include/zk/libzk/client/connection.h",
    "include/zk/recipes/watch_wait.h", "include/zk/recipes/lock_internals.h",
    "include/zk/zkd", "include/zk/zklab", "include/zk/tests",
]


def run(argv, deadline_s=300, **kwargs):
    """Runs argv; its CompletedProcess with stdout and stderr together."""
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=deadline_s, **kwargs)


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="zk-install-test-")
        cls.prefix = os.path.join(cls.tmp, "prefix")
        for d in (UNIT, SYSUSERS):
            if os.path.isabs(d):  # it would install outside the temporary prefix
                shutil.rmtree(cls.tmp, ignore_errors=True)
                raise unittest.SkipTest(f"{d} is absolute in this build; the test needs a "
                                        "relative ZK_SYSTEMD_UNIT_DIR and ZK_SYSUSERS_DIR")
        installed = run([os.environ["CMAKE"], "--install", os.environ["BUILD_DIR"],
                         "--prefix", cls.prefix])
        if installed.returncode != 0:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise AssertionError("cmake --install failed:\n" + installed.stdout)
        # A user's environment: nothing of the build tree on PATH, no $ZKLAB_ZKD.
        cls.env = {k: v for k, v in os.environ.items() if k != "ZKLAB_ZKD"}
        cls.env["PATH"] = "/usr/bin:/bin"

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def path(self, rel):
        return os.path.join(self.prefix, rel)

    def test_layout(self):
        for rel in EXPECTED_FILES:
            self.assertTrue(os.path.isfile(self.path(rel)), rel)
        for tool in ("zkd", "zkctl", "zklab", "zkbench"):
            self.assertTrue(os.access(self.path("bin/" + tool), os.X_OK), tool)
        for rel in NOT_INSTALLED:
            self.assertFalse(os.path.exists(self.path(rel)), rel)
        # The unit starts the zkd of the prefix it was configured for.
        with open(self.path(UNIT)) as f:
            unit = f.read()
        self.assertRegex(unit, r"\nExecStart=/\S*/bin/zkd --config /\S*/zkd/zoo\.cfg\n")
        self.assertNotIn("@", unit)

    def test_unit_verifies(self):
        analyze = shutil.which("systemd-analyze")
        if not analyze:
            self.skipTest("systemd-analyze is not installed (Debian package systemd)")
        # The installed unit, with ExecStart at this prefix's zkd (verify
        # needs the binary to exist) and man:zkd(8) found in this prefix.
        with open(self.path(UNIT)) as f:
            unit = f.read()
        lines = [f"ExecStart={self.path('bin/zkd')} --config /etc/zkd/zoo.cfg"
                 if line.startswith("ExecStart=") else line for line in unit.split("\n")]
        unit_dir = os.path.join(self.tmp, "units")
        os.makedirs(unit_dir, exist_ok=True)
        unit_path = os.path.join(unit_dir, "zkd.service")
        with open(unit_path, "w") as f:
            f.write("\n".join(lines))
        env = dict(self.env, MANPATH=self.path("share/man"))
        verified = run([analyze, "verify", unit_path], env=env, deadline_s=120)
        # Any complaint (an unknown or misspelt setting is only a warning) fails.
        self.assertEqual((verified.returncode, verified.stdout), (0, ""))
        # The sysusers file parses and makes the zkd user and group.
        sysusers = shutil.which("systemd-sysusers")
        if sysusers:
            made = run([sysusers, "--dry-run", self.path(SYSUSERS)],
                       env=env, deadline_s=60)
            self.assertEqual(made.returncode, 0, made.stdout)
            if "Creating user 'zkd'" not in made.stdout:  # it may exist already
                self.assertEqual(run(["getent", "passwd", "zkd"]).returncode, 0, made.stdout)

    def test_zklab_starts_the_prefix_zkd(self):
        zklab = self.path("bin/zklab")
        lab = ["--dir", os.path.join(self.tmp, "lab"), "--timeout", "30"]
        up = run([zklab] + lab + ["up", "-n", "3"], env=self.env, deadline_s=90)
        nodes = []
        try:
            self.assertEqual(up.returncode, 0, up.stdout)
            status = run([zklab] + lab + ["status", "--json"], env=self.env, deadline_s=60)
            self.assertEqual(status.returncode, 0, status.stdout)
            nodes = json.loads(status.stdout)["nodes"]
            self.assertEqual(len(nodes), 3, status.stdout)
            for node in nodes:
                self.assertTrue(node["alive"], status.stdout)
                exe = os.readlink(f"/proc/{node['pid']}/exe")
                self.assertEqual(exe, os.path.realpath(self.path("bin/zkd")))
        finally:
            down = run([zklab] + lab + ["down"], env=self.env, deadline_s=90)
        self.assertEqual(down.returncode, 0, down.stdout)
        for node in nodes:
            self.assertFalse(os.path.exists(f"/proc/{node['pid']}/exe"), node)

    def start_zkd(self):
        os.environ["ZKD_BIN"] = self.path("bin/zkd")
        server = zk_server.ZkServer()
        server.start()
        self.addCleanup(server.stop)
        return server

    def check_consumer(self, binary):
        server = self.start_zkd()
        ran = run([binary, server.address], deadline_s=60)
        self.assertEqual(ran.returncode, 0, ran.stdout)
        self.assertIn("read: installed\n", ran.stdout)
        self.assertIn("counter: 10\n", ran.stdout)

    def test_cmake_consumer(self):
        build = os.path.join(self.tmp, "consumer-cmake")
        configured = run([os.environ["CMAKE"], "-S", CONSUMER, "-B", build,
                          "-G", os.environ["GENERATOR"],
                          f"-DCMAKE_CXX_COMPILER={os.environ['CXX']}",
                          f"-DCMAKE_CXX_FLAGS={CONSUMER_FLAGS}",
                          f"-DCMAKE_PREFIX_PATH={self.prefix}"], env=self.env)
        self.assertEqual(configured.returncode, 0, configured.stdout)
        built = run([os.environ["CMAKE"], "--build", build], env=self.env, deadline_s=600)
        self.assertEqual(built.returncode, 0, built.stdout)
        self.check_consumer(os.path.join(build, "zk_consumer"))

    def test_pkgconfig_consumer(self):
        pkg_config = shutil.which("pkg-config")
        if not pkg_config:
            self.skipTest("pkg-config is not installed")
        env = dict(self.env, PKG_CONFIG_PATH=self.path(f"{LIBDIR}/pkgconfig"))
        flags = run([pkg_config, "--cflags", "--libs", "zk"], env=env)
        self.assertEqual(flags.returncode, 0, flags.stdout)
        self.assertIn("-lzk_recipes -lzk_client -lzk_wire", flags.stdout)
        binary = os.path.join(self.tmp, "zk_consumer_pc")
        built = run([os.environ["CXX"], "-std=c++20", os.path.join(CONSUMER, "main.cc"),
                     "-o", binary] + CONSUMER_FLAGS.split() + flags.stdout.split(),
                    env=env, deadline_s=600)
        self.assertEqual(built.returncode, 0, built.stdout)
        self.check_consumer(binary)


if __name__ == "__main__":
    unittest.main()
