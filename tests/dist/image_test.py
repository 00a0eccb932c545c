# SPDX-License-Identifier: Apache-2.0
"""The OCI image (scripts/image) and its entrypoint (dist/image/).

Two tests, chosen by the first argument:

  entrypoint  dist/image/docker-entrypoint.sh alone, run by /bin/sh on this
              machine with a harmless command instead of zkServer.sh: the
              zoo.cfg it writes from the official image's variables, line by
              line; the defaults; myid; and that an existing zoo.cfg and myid
              are left as they are. And dist/image/zkServer.sh: the config
              start-foreground runs zkd on (print-cmd), chosen as Apache's
              script chooses it, and the daemon commands refused. Needs
              nothing but sh.

  ensemble    the image as a container runtime would run it. Podman cannot
              start containers on these machines (setting RLIMIT_NOFILE/NPROC
              is refused), so the test is its own small runtime: it builds the
              image (scripts/image --debs DEB_DIR, unless the one in
              BUILD_DIR/image-test is newer than the package and the image's
              sources), unpacks it with umoci (the rootfs and the runtime
              config made from the image's config: its ENTRYPOINT + CMD and
              ENV), and in a network namespace of its own runs that process
              three times, each in namespaces of its own (network: a veth on
              one bridge; mount: empty host directories bound on /conf, /data,
              /datalog and /logs, an /etc/hosts naming zoo1..zoo3; UTS: its
              host name) and chrooted into the rootfs: zoo1 and zoo2 as
              `docker run` starts them (root: the entrypoint owns the volumes
              and drops to the zookeeper user), zoo3 as the StatefulSet of
              dist/kubernetes/ does (uid 1000, the volumes its group's, the
              root file system read-only, /tmp a scratch mount); all with the
              environment of the official image's compose example:
                ZOO_MY_ID=N
                ZOO_SERVERS=server.1=zoo1:2888:3888;2181 server.2=zoo2:2888:3888;2181 server.3=zoo3:2888:3888;2181
              so every server has the fixed ports 2181, 2888, 3888 and 8080
              on its own address. Checked: the three form an ensemble (one
              leader, two followers by srvr), kazoo writes through zoo1 and
              reads the write through zoo3, zkd runs as uid 1000, and the
              volumes hold the zoo.cfg and myid the entrypoint wrote, owned by
              the zookeeper user; then zoo2 is stopped (SIGTERM, exit 0) and
              started again on its volumes with another ZOO_MY_ID and
              ZOO_SERVERS, which are ignored: it rejoins as server 2 and
              serves the write. Then the StatefulSet's pods the same way
              (its start-up script in the image: zk-0..zk-2 from the pod
              names and the headless Service's names, as uid 1000 with a
              read-only root), GET /livez and /readyz on the admin port, and
              docs/kubernetes.md's scaling one server each way (zk-3 added
              by a superuser's reconfig, then removed and stopped).
              Needs root (namespaces, mounts, chroot),
              unshare, nsenter, ip, mmdebstrap, umoci, kazoo and a zkd package
              in DEB_DIR; exits 77 (skipped) when one is missing.

Environment (tests/dist/CMakeLists.txt): SOURCE_DIR, BUILD_DIR, DEB_DIR
(default SOURCE_DIR/build-deb).
"""

import base64
import hashlib
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("SOURCE_DIR", os.path.abspath(os.path.join(HERE, "..", "..")))
ENTRYPOINT = os.path.join(SOURCE_DIR, "dist", "image", "docker-entrypoint.sh")
SKIP = 77
# The official image's compose example, verbatim.
SERVERS = ("server.1=zoo1:2888:3888;2181 server.2=zoo2:2888:3888;2181 "
           "server.3=zoo3:2888:3888;2181")
BRIDGE_ADDRESS = "10.77.0.1"
# The superuser the StatefulSet's pods get through ZK_SUPER_DIGEST (the
# zk-super secret): digest of "super:secret", base64 of its SHA-1.
SUPER_USER = "super:secret"
SUPER_DIGEST = "super:" + base64.b64encode(hashlib.sha1(SUPER_USER.encode()).digest()).decode()


def address(n):
    return f"10.77.0.{10 + n}"


def mac_address(n):
    """Server n's MAC, derived from its address as Docker's bridge does: a
    restarted container has the same one, so the other servers' neighbour
    entries stay right (a new MAC would leave them sending to the old one
    until the entry goes stale, about 40 s)."""
    return "02:42:" + ":".join(f"{int(b):02x}" for b in address(n).split("."))


class EntrypointTest(unittest.TestCase):
    """The script's contract, run by this machine's sh: no image needed."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="zk-entrypoint-test-")
        self.conf = os.path.join(self.dir, "conf")
        self.data = os.path.join(self.dir, "data")
        os.makedirs(self.conf)
        os.makedirs(self.data)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_entrypoint(self, **env):
        # Not zkServer.sh: the script neither changes user nor starts zkd.
        base = {"PATH": os.environ["PATH"], "ZOO_CONF_DIR": self.conf,
                "ZOO_DATA_DIR": self.data, "ZOO_DATA_LOG_DIR": os.path.join(self.dir, "datalog"),
                "ZOO_LOG_DIR": os.path.join(self.dir, "logs")}
        base.update(env)
        done = subprocess.run(["/bin/sh", ENTRYPOINT, "sh", "-c", "echo ran \"$1\"", "-", "arg"],
                              env=base, capture_output=True, text=True, timeout=30)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, "ran arg\n")  # its arguments run, as given

    def read(self, *path):
        with open(os.path.join(*path)) as f:
            return f.read()

    def test_every_variable_in_the_official_order(self):
        self.run_entrypoint(
            ZOO_MY_ID="3", ZOO_SERVERS="server.1=a:2888:3888;2181 server.2=b:2888:3888;2181",
            ZOO_TICK_TIME="1000", ZOO_INIT_LIMIT="7", ZOO_SYNC_LIMIT="4",
            ZOO_AUTOPURGE_PURGEINTERVAL="1", ZOO_AUTOPURGE_SNAPRETAINCOUNT="5",
            ZOO_MAX_CLIENT_CNXNS="0", ZOO_STANDALONE_ENABLED="false",
            ZOO_ADMINSERVER_ENABLED="false", ZOO_4LW_COMMANDS_WHITELIST="*",
            ZOO_CFG_EXTRA="reconfigEnabled=true 4lw.commands.whitelist=*")
        self.assertEqual(self.read(self.conf, "zoo.cfg").splitlines(), [
            f"dataDir={self.data}", f"dataLogDir={self.dir}/datalog",
            "tickTime=1000", "initLimit=7", "syncLimit=4",
            "autopurge.snapRetainCount=5", "autopurge.purgeInterval=1",
            "maxClientCnxns=0", "standaloneEnabled=false", "admin.enableServer=false",
            "server.1=a:2888:3888;2181", "server.2=b:2888:3888;2181",
            "4lw.commands.whitelist=*",
            "reconfigEnabled=true", "4lw.commands.whitelist=*",
        ])
        self.assertEqual(self.read(self.data, "myid"), "3\n")

    def test_defaults_are_the_official_images(self):
        self.run_entrypoint()
        self.assertEqual(self.read(self.conf, "zoo.cfg").splitlines(), [
            f"dataDir={self.data}", f"dataLogDir={self.dir}/datalog",
            "tickTime=2000", "initLimit=5", "syncLimit=2",
            "autopurge.snapRetainCount=3", "autopurge.purgeInterval=0",
            "maxClientCnxns=60", "standaloneEnabled=true", "admin.enableServer=true",
            "server.1=localhost:2888:3888;2181",
        ])
        self.assertEqual(self.read(self.data, "myid"), "1\n")

    def test_an_existing_config_and_myid_are_kept(self):
        with open(os.path.join(self.conf, "zoo.cfg"), "w") as f:
            f.write("mine\n")
        with open(os.path.join(self.data, "myid"), "w") as f:
            f.write("7\n")
        self.run_entrypoint(ZOO_MY_ID="2", ZOO_SERVERS="server.2=x:1:2")
        self.assertEqual(self.read(self.conf, "zoo.cfg"), "mine\n")
        self.assertEqual(self.read(self.data, "myid"), "7\n")


class ZkServerShTest(unittest.TestCase):
    """dist/image/zkServer.sh: which config start-foreground runs zkd on, as
    Apache's zkServer.sh picks it, and the daemon commands refused."""

    SCRIPT = os.path.join(SOURCE_DIR, "dist", "image", "zkServer.sh")

    def run_script(self, *args, **env):
        return subprocess.run(["/bin/sh", self.SCRIPT, *args], env={"PATH": "/usr/bin:/bin", **env},
                              capture_output=True, text=True, timeout=30)

    def test_the_config_is_chosen_as_apaches_script_chooses_it(self):
        for args, env, config in (
                ((), {}, "/conf/zoo.cfg"),
                ((), {"ZOO_CONF_DIR": "/c"}, "/c/zoo.cfg"),
                ((), {"ZOO_CONF_DIR": "/c", "ZOOCFGDIR": "/d"}, "/d/zoo.cfg"),
                ((), {"ZOOCFG": "other.cfg"}, "/conf/other.cfg"),
                (("other.cfg",), {}, "/conf/other.cfg"),
                (("/etc/zk/zoo.cfg",), {}, "/etc/zk/zoo.cfg")):
            done = self.run_script("print-cmd", *args, **env)
            self.assertEqual((done.returncode, done.stdout), (0, f'zkd "{config}"\n'),
                             (args, env))

    def test_daemon_commands_are_refused(self):
        for command in ("start", "stop", "restart", "status", ""):
            done = self.run_script(command)
            self.assertEqual(done.returncode, 1, command)
            self.assertTrue(done.stderr, command)


def newest_mtime(paths):
    return max(os.path.getmtime(p) for p in paths)


def build_image(build_dir, deb_dir):
    """The OCI layout of a current image, built when stale; its path."""
    out = os.path.join(build_dir, "image-test")
    index = os.path.join(out, "oci", "index.json")
    debs = [os.path.join(deb_dir, f) for f in os.listdir(deb_dir)
            if f.startswith("zkd_") and f.endswith(".deb")]
    sources = debs + [os.path.join(SOURCE_DIR, "scripts", "image"),
                      os.path.join(SOURCE_DIR, "dist", "image", "docker-entrypoint.sh"),
                      os.path.join(SOURCE_DIR, "dist", "image", "zkServer.sh")]
    if not os.path.exists(index) or os.path.getmtime(index) < newest_mtime(sources):
        begin = time.monotonic()
        subprocess.run([os.path.join(SOURCE_DIR, "scripts", "image"), "--debs", deb_dir,
                        "--out", out], check=True, timeout=900)
        print(f"image built in {time.monotonic() - begin:.0f} s", flush=True)
    return os.path.join(out, "oci")


def four_letter_word(host, word, port=2181, timeout=2.0):
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(word.encode())
            chunks = []
            while data := s.recv(4096):
                chunks.append(data)
            return b"".join(chunks).decode(errors="replace")
    except OSError:
        return ""


def sh(*argv):
    subprocess.run(argv, check=True, timeout=30)


# What each server's namespaces run before the image's process: wait for the
# parent to wire the network, bind the volumes and /etc/hosts, mount /proc
# and /dev, then chroot into the rootfs with exactly the container's
# environment. $1 rootfs, $2 the server's directory, $3 its host name, $4
# "docker" (as `docker run`: root, the rootfs writable) or "kubernetes" (as
# the StatefulSet's pod: runAsUser 1000 with fsGroup 1000 owning the
# volumes, readOnlyRootFilesystem, an emptyDir on /tmp); the rest is the
# image's process (entrypoint and command).
CONTAINER = r"""
set -eu
rootfs=$1 volumes=$2 name=$3 style=$4
shift 4
read -r wired
hostname "$name"
mount --bind "$rootfs" "$rootfs"
for v in conf data datalog logs; do mount --bind "$volumes/$v" "$rootfs/$v"; done
mount --bind "$volumes/hosts" "$rootfs/etc/hosts"
mount -t proc proc "$rootfs/proc"
mount --rbind /dev "$rootfs/dev"
user=0:0
if [ "$style" = kubernetes ]; then
  for v in conf data datalog logs; do chown 1000:1000 "$volumes/$v"; done
  mount -t tmpfs -o mode=1777 tmp "$rootfs/tmp"
  mount -o remount,bind,ro "$rootfs"
  user=1000:1000
fi
exec chroot --userspec="$user" "$rootfs" /usr/bin/env -i "$@"
"""


class Container:
    """One server: a process of the image in namespaces of its own.

    n: the server's number (its address, MAC and veth names); name: its host
    name and directory; style: "docker" or "kubernetes" (CONTAINER); argv and
    variables: the process and the environment beyond the image's ENV; hosts:
    {name: address} for its /etc/hosts; start: 0 makes its volumes (empty,
    root's, as new volumes), a later start reuses them."""

    serials = itertools.count()

    def __init__(self, n, name, image, style, argv, variables, hosts, start=0):
        self.n, self.name, self.style = n, name, style
        self.dir = os.path.join(image.tmp, name)
        for v in ("conf", "data", "datalog", "logs"):
            os.makedirs(os.path.join(self.dir, v), exist_ok=start > 0)
        with open(os.path.join(self.dir, "hosts"), "w") as f:
            f.write("127.0.0.1\tlocalhost\n")
            for host, host_address in hosts.items():
                f.write(f"{host_address}\t{host}\n")
        env = [e for e in image.process["env"] if e.split("=", 1)[0] not in variables]
        env += [f"{k}={v}" for k, v in variables.items()]
        self.log_path = os.path.join(image.tmp, f"{name}.{start}.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            ["unshare", "--net", "--mount", "--uts", "--fork", "sh", "-c", CONTAINER, "-",
             image.rootfs, self.dir, name, style, *env, *argv],
            stdin=subprocess.PIPE, stdout=self.log, stderr=subprocess.STDOUT, text=True)
        # unshare itself is in the new network namespace: wire it from here.
        netns = f"--net=/proc/{self.process.pid}/ns/net"
        # A name of its own: a stopped container's pair may outlive it briefly.
        serial = next(Container.serials)
        outside, inside = f"zkv{serial}", f"zkv{serial}c"
        sh("ip", "link", "add", outside, "type", "veth", "peer", "name", inside)
        sh("ip", "link", "set", inside, "netns", str(self.process.pid))
        sh("ip", "link", "set", outside, "master", "zkbr", "up")
        for cmd in (["ip", "link", "set", "lo", "up"],
                    ["ip", "link", "set", inside, "name", "eth0"],
                    ["ip", "link", "set", "eth0", "address", mac_address(n)],
                    ["ip", "addr", "add", f"{address(n)}/24", "dev", "eth0"],
                    ["ip", "link", "set", "eth0", "up"]):
            sh("nsenter", netns, *cmd)
        self.process.stdin.write("wired\n")
        self.process.stdin.close()

    def server_pid(self):
        """The pid of unshare's child: after the execs, zkd itself."""
        with open(f"/proc/{self.process.pid}/task/{self.process.pid}/children") as f:
            children = f.read().split()
        return int(children[0]) if children else None

    def stop(self):
        pid = self.server_pid() if self.process.poll() is None else None
        if pid:
            os.kill(pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def log_tail(self):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-30:])


def http_status(host, port, path, timeout=2.0):
    """The status of GET path, or None when nothing answers."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
                      .encode())
            head = s.recv(4096).decode(errors="replace")
        return int(head.split()[1])
    except (OSError, IndexError, ValueError):
        return None


class ImageEnsembleTest(unittest.TestCase):
    oci = None  # set by main

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="zk-image-test-")
        bundle = os.path.join(cls.tmp, "bundle")
        [tag] = subprocess.run(["umoci", "ls", "--layout", cls.oci], check=True, text=True,
                               capture_output=True, timeout=60).stdout.split()
        subprocess.run(["umoci", "unpack", "--image", f"{cls.oci}:{tag}", bundle], check=True,
                       stdout=subprocess.DEVNULL, timeout=300)
        with open(os.path.join(bundle, "config.json")) as f:
            cls.process = json.load(f)["process"]
        cls.rootfs = os.path.join(bundle, "rootfs")
        # The image has no /etc/hosts (netbase is not in it): a runtime makes
        # one to bind each container's over, as this test does.
        open(os.path.join(cls.rootfs, "etc", "hosts"), "a").close()
        sh("ip", "link", "set", "lo", "up")
        sh("ip", "link", "add", "zkbr", "type", "bridge")
        sh("ip", "addr", "add", f"{BRIDGE_ADDRESS}/24", "dev", "zkbr")
        sh("ip", "link", "set", "zkbr", "up")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.containers = []

    def tearDown(self):
        for c in self.containers:
            c.stop()

    def wait_for_ensemble(self, deadline_s=90):
        deadline = time.monotonic() + deadline_s
        modes = {}
        while time.monotonic() < deadline:
            modes = {}
            for c in self.containers:
                self.assertIsNone(c.process.poll(), f"{c.name} exited:\n{c.log_tail()}")
                for line in four_letter_word(address(c.n), "srvr").splitlines():
                    if line.startswith("Mode: "):
                        modes[c.name] = line[len("Mode: "):]
            if sorted(modes.values()) == ["follower"] * (len(self.containers) - 1) + ["leader"]:
                return modes
            time.sleep(0.5)
        self.fail(f"no ensemble after {deadline_s} s: {modes}\n" +
                  "\n".join(f"--- {c.name}\n{c.log_tail()}" for c in self.containers))

    def assert_write_is_read_elsewhere(self, path):
        from kazoo.client import KazooClient
        writer = KazooClient(hosts=f"{address(1)}:2181", timeout=10)
        reader = KazooClient(hosts=f"{address(3)}:2181", timeout=10)
        writer.start(timeout=30)
        reader.start(timeout=30)
        try:
            writer.create(path, b"written through server 1")
            reader.sync(path)
            self.assertEqual(reader.get(path)[0], b"written through server 1")
        finally:
            writer.stop()
            reader.stop()

    def assert_runs_as_zookeeper(self, c):
        with open(f"/proc/{c.server_pid()}/status") as f:
            status = dict(line.split(":", 1) for line in f if ":" in line)
        self.assertEqual(status["Name"].strip(), "zkd")
        self.assertEqual(status["Uid"].split()[0], "1000", c.name)  # the zookeeper user
        self.assertEqual(status["Gid"].split()[0], "1000", c.name)
        with open(f"/proc/{c.server_pid()}/mountinfo") as f:
            root_options = next(line.split()[5].split(",") for line in f
                                if line.split()[4] == "/")
        self.assertEqual("ro" in root_options, c.style == "kubernetes", c.name)
        for v in ("data", "datalog", "logs", "conf"):
            self.assertEqual(os.stat(os.path.join(c.dir, v)).st_uid, 1000, v)
        # The txn log went to the /datalog volume.
        self.assertTrue(os.listdir(os.path.join(c.dir, "datalog")), c.name)

    def compose_container(self, n, style, start=0, **overrides):
        """zooN with the compose example's environment (overrides replace it)."""
        variables = {"HOSTNAME": f"zoo{n}", "ZOO_MY_ID": str(n), "ZOO_SERVERS": SERVERS}
        variables.update(overrides)
        return Container(n, f"zoo{n}", self, style, self.process["args"], variables,
                         {f"zoo{m}": address(m) for m in (1, 2, 3)}, start)

    def test_the_compose_environment_serves_an_ensemble(self):
        from kazoo.client import KazooClient
        for n, style in ((1, "docker"), (2, "docker"), (3, "kubernetes")):
            self.containers.append(self.compose_container(n, style))
        begin = time.monotonic()
        modes = self.wait_for_ensemble()
        print(f"ensemble {modes} after {time.monotonic() - begin:.1f} s", flush=True)
        self.assert_write_is_read_elsewhere("/image-test")
        for c in self.containers:
            self.assert_runs_as_zookeeper(c)
            with open(os.path.join(c.dir, "data", "myid")) as f:
                self.assertEqual(f.read(), f"{c.n}\n")
            with open(os.path.join(c.dir, "conf", "zoo.cfg")) as f:
                config = f.read().splitlines()
            self.assertEqual(config[:2], ["dataDir=/data", "dataLogDir=/datalog"])
            self.assertEqual(config[-3:], SERVERS.split())

        # zoo2's container stopped (SIGTERM to zkd, as docker stop sends) and
        # started again on its volumes with other values: zoo.cfg and myid
        # are kept, so it is server 2 again, rejoins and has the write.
        old = self.containers[1]
        with open(os.path.join(old.dir, "conf", "zoo.cfg")) as f:
            config = f.read()
        begin = time.monotonic()
        old.stop()
        self.assertEqual(old.process.returncode, 0, old.log_tail())
        stopped = time.monotonic()
        self.containers[1] = self.compose_container(
            2, "docker", start=1, ZOO_MY_ID="9", ZOO_SERVERS="server.9=nowhere:1:2;2181")
        modes = self.wait_for_ensemble()
        back = time.monotonic() - stopped
        print(f"zoo2 stopped in {stopped - begin:.1f} s, back in {back:.1f} s: {modes}", flush=True)
        with open(os.path.join(old.dir, "conf", "zoo.cfg")) as f:
            self.assertEqual(f.read(), config)
        with open(os.path.join(old.dir, "data", "myid")) as f:
            self.assertEqual(f.read(), "2\n")
        again = KazooClient(hosts=f"{address(2)}:2181", timeout=10)
        again.start(timeout=30)
        try:
            self.assertEqual(again.get("/image-test")[0], b"written through server 1")
        finally:
            again.stop()

    def test_the_statefulsets_pods_serve_an_ensemble_and_scale(self):
        """dist/kubernetes/statefulset.yaml's container as a kubelet would
        start it: its command and args, the image's ENV under its env (the
        literal values; POD_NAMESPACE from the downward API; the zk-super
        secret's digest), host name zk-N, the headless Service's names in
        /etc/hosts, uid 1000, a read-only root. Then docs/kubernetes.md's
        scaling, one server each way: zk-3 started (as `kubectl scale
        --replicas=4` would) and added by a superuser's reconfig, then
        removed by reconfig and stopped."""
        import yaml
        from kazoo.client import KazooClient
        with open(os.path.join(SOURCE_DIR, "dist", "kubernetes", "statefulset.yaml")) as f:
            sts = yaml.safe_load(f)
        [spec] = sts["spec"]["template"]["spec"]["containers"]
        service, set_name = sts["spec"]["serviceName"], sts["metadata"]["name"]
        names = {f"{set_name}-{i}.{service}.default.svc": address(i + 1) for i in range(4)}

        def pod(i):
            variables = {"HOSTNAME": f"{set_name}-{i}", "POD_NAMESPACE": "default",
                         "ZK_SUPER_DIGEST": SUPER_DIGEST}
            variables.update({e["name"]: e["value"] for e in spec["env"] if "value" in e})
            return Container(i + 1, f"{set_name}-{i}", self, "kubernetes",
                             spec["command"] + spec["args"], variables, names)

        for i in range(3):
            self.containers.append(pod(i))
        begin = time.monotonic()
        modes = self.wait_for_ensemble()
        print(f"StatefulSet ensemble {modes} after {time.monotonic() - begin:.1f} s", flush=True)
        self.assert_write_is_read_elsewhere("/statefulset-test")
        for c in self.containers:
            self.assert_runs_as_zookeeper(c)
            with open(os.path.join(c.dir, "conf", "zoo.cfg")) as f:
                config = f.read().splitlines()
            self.assertIn("standaloneEnabled=false", config)
            self.assertIn("reconfigEnabled=true", config)
            self.assertIn(f"DigestAuthenticationProvider.superDigest={SUPER_DIGEST}", config)
            self.assertIn(f"server.{c.n}={c.name}.{service}.default.svc:2888:3888;2181", config)
        # The probes' paths on the admin port: /livez and /readyz answer 200
        # on a serving ensemble; a zkd built before them answers 404 (then
        # the manifests' probes need that zkd change: docs/kubernetes.md).
        statuses = {(c.name, path): http_status(address(c.n), 8080, path)
                    for c in self.containers for path in ("/livez", "/readyz")}
        print(f"probes: {statuses}", flush=True)
        if set(statuses.values()) != {404}:
            self.assertEqual(set(statuses.values()), {200}, statuses)

        # Scale up by one: zk-3 lists servers 1-4 (ZK_REPLICAS is 3), waits
        # outside the ensemble until the reconfig adds it, then follows.
        self.containers.append(pod(3))
        server4 = f"server.4={set_name}-3.{service}.default.svc:2888:3888;2181"
        admin = KazooClient(hosts=f"{address(1)}:2181", timeout=10,
                            auth_data=[("digest", SUPER_USER)])
        admin.start(timeout=30)
        try:
            begin = time.monotonic()
            admin.reconfig(joining=server4, leaving=None, new_members=None)
            modes = self.wait_for_ensemble()
            print(f"zk-3 added, serving in {time.monotonic() - begin:.1f} s: {modes}", flush=True)
            members = admin.get("/zookeeper/config")[0].decode().splitlines()
            # As Apache writes it: the role and the client address spelt out.
            self.assertIn(f"server.4={set_name}-3.{service}.default.svc:2888:3888:participant;"
                          "0.0.0.0:2181", members)
            reader = KazooClient(hosts=f"{address(4)}:2181", timeout=10)
            reader.start(timeout=30)
            try:
                self.assertEqual(reader.get("/statefulset-test")[0], b"written through server 1")
            finally:
                reader.stop()
            # Scale down by one: reconfig first, then the pod goes.
            admin.reconfig(joining=None, leaving="4", new_members=None)
            members = admin.get("/zookeeper/config")[0].decode().splitlines()
            self.assertFalse([m for m in members if m.startswith("server.4=")], members)
        finally:
            admin.stop()
        self.containers.pop().stop()
        modes = self.wait_for_ensemble()
        print(f"zk-3 removed: {modes}", flush=True)


def missing_for_ensemble(deb_dir):
    """Why the ensemble test cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (namespaces, mounts, chroot)"
    for tool in ("unshare", "nsenter", "ip", "mmdebstrap", "umoci", "chroot"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/bootstrap --image)"
    try:
        import kazoo  # noqa: F401
    except ImportError:
        return "kazoo is not installed"
    if not os.path.isdir(deb_dir) or not any(
            f.startswith("zkd_") and f.endswith(".deb") for f in os.listdir(deb_dir)):
        return f"no zkd package in {deb_dir} (scripts/package)"
    return None


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "entrypoint":
        cases = (EntrypointTest, ZkServerShTest)
    elif mode in ("ensemble", "ensemble-in-netns"):
        cases = ImageEnsembleTest
        if mode == "ensemble":
            deb_dir = os.environ.get("DEB_DIR", os.path.join(SOURCE_DIR, "build-deb"))
            why = missing_for_ensemble(deb_dir)
            if why:
                print(f"skipped: {why}")
                sys.exit(SKIP)
            build_dir = os.environ.get("BUILD_DIR", os.path.join(SOURCE_DIR, "build"))
            oci = build_image(build_dir, deb_dir)
            # The rest in a network namespace of its own: the bridge, the
            # servers' addresses and their fixed ports touch nothing outside.
            os.execvp("unshare", ["unshare", "--net", "--fork", sys.executable,
                                  os.path.abspath(__file__), "ensemble-in-netns", oci])
        ImageEnsembleTest.oci = sys.argv[2]
        cases = (cases,)
    else:
        print("usage: image_test.py entrypoint | ensemble", file=sys.stderr)
        sys.exit(2)
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(c)
                               for c in cases)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
