# SPDX-License-Identifier: Apache-2.0
"""Start and stop one ZooKeeper-compatible server for process tests.

The server is our zkd when the environment variable ZKD_BIN names its binary
(started as `$ZKD_BIN --config zoo.cfg`), otherwise Apache ZooKeeper 3.8 from
the Debian `zookeeper` package. Both read the same zoo.cfg. The server listens
on 127.0.0.1 only, on a free port, with its data in a fresh temporary folder.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
import servers  # noqa: E402

JAVA_LIBS = "/usr/share/java"
APACHE_JARS = [
    "zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar", "slf4j-nop.jar",
    "netty-handler.jar", "netty-common.jar", "netty-buffer.jar", "netty-codec.jar",
    "netty-resolver.jar", "netty-transport.jar", "netty-transport-native-epoll.jar",
    "netty-transport-native-unix-common.jar", "metrics-core.jar", "commons-cli.jar",
    "snappy-java.jar",
]


# A free loopback port, held for the rest of this process (see servers.py).
free_port = servers.free_loopback_port


def four_letter_word(port, word, timeout=2.0):
    """The server's answer to a four-letter word, or "" if it does not answer."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(word.encode())
            chunks = []
            while True:
                data = s.recv(4096)
                if not data:
                    break
                chunks.append(data)
            return b"".join(chunks).decode(errors="replace")
    except OSError:
        return ""


class ZkServer:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="zkctl-test-")
        self.port = free_port()
        self.process = None
        self.log_path = os.path.join(self.dir, "server.log")

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def kind(self):
        return "zkd" if os.environ.get("ZKD_BIN") else "apache-zookeeper-3.8"

    def start(self, deadline_s=60.0):
        data_dir = os.path.join(self.dir, "data")
        os.makedirs(data_dir)
        cfg = os.path.join(self.dir, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write("tickTime=2000\n"
                    f"dataDir={data_dir}\n"
                    f"clientPort={self.port}\n"
                    "clientPortAddress=127.0.0.1\n"
                    "4lw.commands.whitelist=*\n"
                    "admin.enableServer=false\n")
        zkd = os.environ.get("ZKD_BIN")
        if zkd:
            argv = [os.path.abspath(zkd), "--config", cfg]
        else:
            classpath = ":".join(os.path.join(JAVA_LIBS, j) for j in APACHE_JARS)
            argv = ["java", "-Xmx256m", "-cp", classpath,
                    "org.apache.zookeeper.server.ZooKeeperServerMain", cfg]
        self.log = open(self.log_path, "w")
        try:
            self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                            cwd=self.dir)
        except OSError:
            self.stop()
            raise
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}:\n"
                                   + self.read_log())
            if "Mode:" in four_letter_word(self.port, "srvr"):
                return
            time.sleep(0.1)  # polling a readiness probe, bounded by the deadline
        self.stop()
        raise RuntimeError(f"server did not answer srvr within {deadline_s}s:\n" + self.read_log())

    def read_log(self):
        try:
            with open(self.log_path) as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if getattr(self, "log", None):
            self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
