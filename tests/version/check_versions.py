# SPDX-License-Identifier: Apache-2.0
"""Every zk tool answers --version with one line, exit 0, and the same version.

Usage: check_versions.py VERSION TOOL_BINARY...
The line is "<tool> (zk) VERSION, built on <date>", where <tool> is the
binary's name (libzk/version/version.h).
"""
import os
import re
import subprocess
import sys


def main() -> int:
    version, binaries = sys.argv[1], sys.argv[2:]
    failures = []
    for binary in binaries:
        tool = os.path.basename(binary)
        run = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
        expected = re.compile(
            rf"^{re.escape(tool)} \(zk\) {re.escape(version)}, built on "
            r"\d{4}-\d\d-\d\d \d\d:\d\d UTC\n$")
        if run.returncode != 0:
            failures.append(f"{tool} --version exited {run.returncode}: {run.stderr.strip()}")
        elif not expected.match(run.stdout):
            failures.append(f"{tool} --version printed {run.stdout!r}, expected "
                            f"'{tool} (zk) {version}, built on <date>'")
        else:
            print(f"ok: {run.stdout.strip()}")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
