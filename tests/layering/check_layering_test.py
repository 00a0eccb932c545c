# SPDX-License-Identifier: Apache-2.0
"""scripts/check-layering against this tree, and against this tree with a
wrong include planted (through --overlay) or a wrong Dependencies block
(through --design): it must pass the first, and fail each of the others
naming the file, the include and the missing arrow.

Run: ZK_SOURCE_DIR=. ZK_BUILD_DIR=build /usr/bin/python3 \
         tests/layering/check_layering_test.py -v
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

SOURCE_DIR = os.environ.get(
    "ZK_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
)
BUILD_DIR = os.environ.get("ZK_BUILD_DIR", os.path.join(SOURCE_DIR, "build"))
CHECK = os.path.join(SOURCE_DIR, "scripts", "check-layering")


def run_check(*extra):
    """(exit status, stdout and stderr) of the check on this build."""
    done = subprocess.run(
        [sys.executable, CHECK, "--source-dir", SOURCE_DIR, "--build-dir", BUILD_DIR, *extra],
        capture_output=True,
        text=True,
        timeout=100,
    )
    return done.returncode, done.stdout + done.stderr


class CheckLayeringTest(unittest.TestCase):
    def setUp(self):
        self.overlay = tempfile.TemporaryDirectory(prefix="layering-")
        self.addCleanup(self.overlay.cleanup)

    def plant(self, path, text):
        """`path` (relative to the repository) reads `text` for the check."""
        full = os.path.join(self.overlay.name, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def real(self, path):
        with open(os.path.join(SOURCE_DIR, path), encoding="utf-8") as f:
            return f.read()

    def check_planted(self):
        return run_check("--overlay", self.overlay.name)

    def assert_fails_with(self, status, output, *expected):
        self.assertEqual(status, 1, output)
        for line in expected:
            self.assertIn(line, output)

    def test_the_tree_passes(self):
        status, output = run_check()
        self.assertEqual(status, 0, output)
        self.assertIn("check-layering: OK", output)

    def test_a_pure_part_including_the_server_fails(self):
        self.plant("zkd/tree/planted.h", '#pragma once\n\n#include "zkd/server/server.h"\n')
        status, output = self.check_planted()
        self.assert_fails_with(
            status,
            output,
            'zkd/tree/planted.h:3: #include "zkd/server/server.h"',
            "zkd::tree has no arrow to zkd::server",
        )

    def test_the_network_layer_including_zab_fails(self):
        # zkd::peer is the only network code that knows Zab.
        self.plant("zkd/net/planted.h", '#pragma once\n#include "zkd/zab/message.h"\n')
        status, output = self.check_planted()
        self.assert_fails_with(
            status,
            output,
            'zkd/net/planted.h:2: #include "zkd/zab/message.h"',
            "zkd::net has no arrow to zkd::zab",
        )

    def test_admin_including_the_server_fails(self):
        # Admin reads the server through zkd::view only.
        self.plant("zkd/admin/planted.h", '#pragma once\n#include "zkd/server/status_view.h"\n')
        status, output = self.check_planted()
        self.assert_fails_with(status, output, "zkd::admin has no arrow to zkd::server")

    def test_server_core_including_a_server_header_fails(self):
        # One directory, two targets: the include root lets server_core reach
        # zkd::server's headers; the check does not.
        text = self.real("zkd/server/config_keys.cc") + '#include "zkd/server/server.h"\n'
        self.plant("zkd/server/config_keys.cc", text)
        status, output = self.check_planted()
        line = text.count("\n")
        self.assert_fails_with(
            status,
            output,
            f'zkd/server/config_keys.cc:{line}: #include "zkd/server/server.h"',
            "zkd::server_core has no arrow to zkd::server",
        )

    def test_a_test_including_a_part_it_does_not_link_fails(self):
        self.plant("tests/unit/zkd/tree/planted_test.cc", '#include "zkd/storage/env.h"\n')
        status, output = self.check_planted()
        self.assert_fails_with(status, output, "tree_test has no arrow to zkd::storage")

    def test_a_link_missing_from_the_design_fails(self):
        design = self.design_with(r"(?m)^zkd::peer +-> zkd::zab, ", "zkd::peer         -> ")
        status, output = run_check("--design", design)
        self.assert_fails_with(
            status,
            output,
            "zkd/peer/CMakeLists.txt: zkd_peer links zkd::zab, but",
            "has no arrow zkd::peer -> zkd::zab",
        )

    def test_an_arrow_the_build_lacks_fails(self):
        design = self.design_with(
            r"(?m)^zkd::tree +-> zkd::status, ",
            "zkd::tree         -> zkd::status, zkd::storage, ",
        )
        status, output = run_check("--design", design)
        self.assert_fails_with(
            status, output, "arrow zkd::tree -> zkd::storage, but zkd_tree does not link it"
        )

    def test_a_part_without_a_line_fails(self):
        design = self.design_with(r"(?m)^zkd::view +-> \(std only\)\n", "")
        status, output = run_check("--design", design)
        self.assert_fails_with(
            status, output, "target zkd::view (zkd/view) has no line in the Dependencies block"
        )

    def design_with(self, pattern, replacement):
        """A copy of docs/design.md with `pattern` replaced once."""
        text, count = re.subn(pattern, replacement, self.real("docs/design.md"), count=1)
        self.assertEqual(count, 1, f"docs/design.md has no {pattern!r}")
        path = os.path.join(self.overlay.name, "design.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path


if __name__ == "__main__":
    unittest.main()
