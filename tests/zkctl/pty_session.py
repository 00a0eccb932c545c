# SPDX-License-Identifier: Apache-2.0
"""zkctl's interactive shell in a pseudo-terminal, typed into as by a user.

    shell = PtySession(test, [ZKCTL, "-s", address], env)
    shell.read_until(b"> ")
    shell.type("get /hel\\t\\n")   # keys as typed: TAB completes
    shell.read_until(b"world\\r\\n")

Every wait is for bytes in the output, with a deadline (the test fails at
it). The process is killed at the test's cleanup if it is still running.
"""

import os
import pty
import select
import subprocess
import time


class PtySession:
    def __init__(self, test, argv, env):
        self.test = test
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                        close_fds=True)
        os.close(slave)
        test.addCleanup(self._cleanup)
        self.transcript = bytearray()  # output since the last type()

    def read_until(self, marker, deadline_s=30.0):
        """Reads until `marker` is in the transcript; fails the test at the deadline."""
        end = time.monotonic() + deadline_s
        while marker not in self.transcript:
            remaining = end - time.monotonic()
            self.test.assertGreater(remaining, 0, f"no {marker!r} in {bytes(self.transcript)!r}")
            ready, _, _ = select.select([self.master], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # EIO: the child closed the terminal
                    chunk = b""
                if not chunk:
                    self.test.fail(f"the shell ended early: {bytes(self.transcript)!r}")
                self.transcript.extend(chunk)

    def type(self, keys):
        """Forgets the transcript, then types `keys` (a str)."""
        del self.transcript[:]
        os.write(self.master, keys.encode())

    def send(self, line):
        """Types `line` and Enter."""
        self.type(line + "\n")

    def wait(self, timeout=30):
        """The exit code, once the shell has ended."""
        code = self.process.wait(timeout=timeout)
        os.close(self.master)
        self.master = None
        return code

    def _cleanup(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.master is not None:
            os.close(self.master)
