#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/check-time-behind-env: passes on the repository, fails on a planted clock read."""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
CHECK = REPO / "scripts" / "check-time-behind-env"


def run(root):
    return subprocess.run([sys.executable, str(CHECK), "--root", str(root)],
                          capture_output=True, text=True, timeout=60)


class CheckTimeBehindEnvTest(unittest.TestCase):
    def test_the_repository_passes(self):
        result = run(REPO)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def plant(self, relative, text):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            shutil.copytree(REPO / "zkd", root / "zkd")
            target = root / relative
            target.write_text(target.read_text() + text)
            return run(root)

    def test_a_clock_read_in_a_server_part_fails_naming_the_line(self):
        result = self.plant("zkd/server/sessions.cc",
                            "int64_t t = std::chrono::steady_clock::now().time_since_epoch().count();\n")
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stdout, r"zkd/server/sessions\.cc:\d+: int64_t t = std::chrono")
        self.assertIn("storage::Env", result.stderr)

    def test_an_asio_timer_or_random_device_fails(self):
        for planted in ("boost::asio::steady_timer timer(io);\n", "std::random_device rd;\n"):
            with self.subTest(planted=planted):
                self.assertEqual(self.plant("zkd/tree/database.cc", planted).returncode, 1)

    def test_the_real_network_and_the_logger_are_held_to_it_too(self):
        for relative, planted in (
                ("zkd/peer/peer_transport.cc", "auto t = std::chrono::steady_clock::now();\n"),
                ("zkd/net/tcp_client_connection.cc", "boost::asio::steady_timer deadline(io);\n"),
                ("zkd/net/tls_context.cc", "auto t = std::chrono::steady_clock::now();\n"),
                ("zkd/log/log.cc", "auto t = std::chrono::system_clock::now();\n")):
            with self.subTest(relative=relative):
                result = self.plant(relative, planted)
                self.assertEqual(result.returncode, 1, result.stdout)
                self.assertRegex(result.stdout, re.escape(relative) + r":\d+: ")

    def test_only_the_named_files_may_read_clocks(self):
        for relative in ("zkd/clock/real_time.cc", "zkd/net/wake_up.h"):
            with self.subTest(relative=relative):
                result = self.plant(relative, "auto t = std::chrono::steady_clock::now();\n")
                self.assertEqual(result.returncode, 0, result.stdout)

    def test_a_mention_in_a_comment_is_not_a_read(self):
        result = self.plant("zkd/server/sessions.cc", "// not std::random_device\n")
        self.assertEqual(result.returncode, 0, result.stdout)


if __name__ == "__main__":
    unittest.main()
