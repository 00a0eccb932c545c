# SPDX-License-Identifier: Apache-2.0
"""dist/kubernetes/: the manifests against the image's contract. No cluster
runs here, so this is what is checked, offline:

  - every document of every file parses (PyYAML), has apiVersion, kind and
    metadata.name, and kustomization.yaml lists every other file;
  - each object is checked against the Kubernetes API's own models
    (python3-kubernetes: field names, nesting and types of apps/v1
    StatefulSet, v1 Service, policy/v1 PodDisruptionBudget), so a misspelt
    or misplaced field fails; skipped when the package is not installed;
  - `kubectl kustomize` renders the directory, when kubectl is installed;
  - the contract: the StatefulSet has 3 replicas, Parallel pod management,
    the headless Service as serviceName; its selector, the Services' and the
    PodDisruptionBudget's match the pod's labels; the headless Service has
    no cluster IP, publishes not-ready addresses and carries 2888 and 3888,
    the client Service 2181; the PodDisruptionBudget allows one unavailable;
    the container's ports are the ports the image exposes (scripts/image)
    and every Service's targetPort names one of them; readiness probes GET
    /readyz and liveness GET /livez on the admin port (8080); /data and
    /datalog are volume claims; every ZOO_* variable is one the entrypoint
    honours (dist/image/docker-entrypoint.sh);
  - the pod's start-up script itself, run by sh as pod zk-2 and as zk-4
    (scaled beyond ZK_REPLICAS=3) with `env` for the image's entrypoint:
    ZOO_MY_ID is the ordinal + 1 and ZOO_SERVERS names the headless
    Service's DNS names, server.1 up to the larger of ZK_REPLICAS and its own.
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("SOURCE_DIR", os.path.abspath(os.path.join(HERE, "..", "..")))
MANIFESTS = os.path.join(SOURCE_DIR, "dist", "kubernetes")
ENTRYPOINT = os.path.join(SOURCE_DIR, "dist", "image", "docker-entrypoint.sh")
IMAGE_SCRIPT = os.path.join(SOURCE_DIR, "scripts", "image")


def load_all():
    """{file name: [documents]} of dist/kubernetes/*.yaml."""
    docs = {}
    for name in sorted(os.listdir(MANIFESTS)):
        if name.endswith(".yaml"):
            with open(os.path.join(MANIFESTS, name)) as f:
                docs[name] = [d for d in yaml.safe_load_all(f) if d is not None]
    return docs


def check_against_model(value, type_name, path, errors):
    """Walks value against the kubernetes client's model type_name (its
    openapi_types and attribute_map); unknown fields and wrong types go to
    errors."""
    import kubernetes.client as k8s
    if type_name.startswith("list["):
        if not isinstance(value, list):
            errors.append(f"{path}: a list expected")
            return
        for i, item in enumerate(value):
            check_against_model(item, type_name[5:-1], f"{path}[{i}]", errors)
        return
    if type_name.startswith("dict("):
        if not isinstance(value, dict):
            errors.append(f"{path}: a map expected")
            return
        inner = type_name[5:-1].split(", ", 1)[1]
        for k, v in value.items():
            check_against_model(v, inner, f"{path}.{k}", errors)
        return
    scalars = {"str": str, "int": int, "bool": bool, "float": (int, float)}
    if type_name in scalars:
        if not isinstance(value, scalars[type_name]) or (
                type_name == "int" and isinstance(value, bool)):
            errors.append(f"{path}: {type_name} expected, got {value!r}")
        return
    if type_name == "object":  # IntOrString, Quantity and the like
        if not isinstance(value, (str, int)):
            errors.append(f"{path}: a string or number expected")
        return
    model = getattr(k8s, type_name)
    if not isinstance(value, dict):
        errors.append(f"{path}: a {type_name} map expected")
        return
    fields = {json_name: attr for attr, json_name in model.attribute_map.items()}
    for key, item in value.items():
        if key not in fields:
            errors.append(f"{path}.{key}: not a field of {type_name}")
            continue
        check_against_model(item, model.openapi_types[fields[key]], f"{path}.{key}", errors)


MODELS = {("apps/v1", "StatefulSet"): "V1StatefulSet", ("v1", "Service"): "V1Service",
          ("policy/v1", "PodDisruptionBudget"): "V1PodDisruptionBudget"}


class KubernetesManifestsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.files = load_all()
        cls.objects = [d for name, docs in cls.files.items() if name != "kustomization.yaml"
                       for d in docs]
        cls.by_kind = {}
        for o in cls.objects:
            cls.by_kind.setdefault(o["kind"], []).append(o)
        [cls.sts] = cls.by_kind["StatefulSet"]
        [cls.pdb] = cls.by_kind["PodDisruptionBudget"]
        services = {s["metadata"]["name"]: s for s in cls.by_kind["Service"]}
        cls.headless = services[cls.sts["spec"]["serviceName"]]
        [cls.client] = [s for n, s in services.items() if n != cls.sts["spec"]["serviceName"]]
        cls.pod = cls.sts["spec"]["template"]
        [cls.container] = cls.pod["spec"]["containers"]

    def test_documents_parse_and_kustomization_lists_every_file(self):
        for o in self.objects:
            for key in ("apiVersion", "kind"):
                self.assertIn(key, o)
            self.assertTrue(o["metadata"]["name"])
        [kustomization] = self.files["kustomization.yaml"]
        self.assertEqual(sorted(kustomization["resources"]),
                         sorted(n for n in self.files if n != "kustomization.yaml"))
        self.assertEqual(sorted(self.by_kind), ["PodDisruptionBudget", "Service", "StatefulSet"])

    def test_objects_match_the_api_models(self):
        try:
            import kubernetes.client  # noqa: F401
        except ImportError:
            self.skipTest("python3-kubernetes is not installed")
        for o in self.objects:
            model = MODELS[(o["apiVersion"], o["kind"])]
            errors = []
            check_against_model(o, model, o["kind"], errors)
            self.assertEqual(errors, [], o["metadata"]["name"])

    def test_kubectl_kustomize_renders(self):
        kubectl = shutil.which("kubectl")
        if kubectl is None:
            self.skipTest("kubectl is not installed")
        done = subprocess.run([kubectl, "kustomize", MANIFESTS], capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        kinds = sorted(d["kind"] for d in yaml.safe_load_all(done.stdout) if d)
        self.assertEqual(kinds, ["PodDisruptionBudget", "Service", "Service", "StatefulSet"])

    def assert_selects_the_pods(self, selector, what):
        labels = self.pod["metadata"]["labels"]
        self.assertTrue(selector, what)
        for k, v in selector.items():
            self.assertEqual(labels.get(k), v, f"{what} selects {k}={v}")

    def test_selectors_match_the_pods_labels(self):
        self.assert_selects_the_pods(self.sts["spec"]["selector"]["matchLabels"], "StatefulSet")
        self.assert_selects_the_pods(self.headless["spec"]["selector"], "headless Service")
        self.assert_selects_the_pods(self.client["spec"]["selector"], "client Service")
        self.assert_selects_the_pods(self.pdb["spec"]["selector"]["matchLabels"], "PDB")

    def test_statefulset_services_and_budget(self):
        spec = self.sts["spec"]
        self.assertEqual(spec["replicas"], 3)
        self.assertEqual(spec["podManagementPolicy"], "Parallel")
        self.assertEqual(self.headless["spec"]["clusterIP"], "None")
        self.assertIs(self.headless["spec"]["publishNotReadyAddresses"], True)
        self.assertEqual(sorted(p["port"] for p in self.headless["spec"]["ports"]), [2888, 3888])
        self.assertEqual([p["port"] for p in self.client["spec"]["ports"]], [2181])
        self.assertEqual(self.pdb["spec"]["maxUnavailable"], 1)

    def test_ports_are_the_images(self):
        with open(IMAGE_SCRIPT) as f:
            text = f.read()
        exposed = sorted(int(p) for p in re.findall(r"--config\.exposedports (\d+)/tcp", text))
        self.assertEqual(exposed, [2181, 2888, 3888, 8080])
        ports = {p["name"]: p["containerPort"] for p in self.container["ports"]}
        self.assertEqual(sorted(ports.values()), exposed)
        for service in (self.headless, self.client):
            for p in service["spec"]["ports"]:
                self.assertEqual(ports[p["targetPort"]], p["port"], service["metadata"]["name"])

    def test_probes_are_the_admin_endpoints(self):
        ports = {p["name"]: p["containerPort"] for p in self.container["ports"]}
        for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/livez"),
                            ("startupProbe", "/livez")):
            get = self.container[probe]["httpGet"]
            self.assertEqual(get["path"], path, probe)
            self.assertEqual(ports.get(get["port"], get["port"]), 8080, probe)

    def test_data_and_datalog_are_volume_claims(self):
        claims = {c["metadata"]["name"] for c in self.sts["spec"]["volumeClaimTemplates"]}
        mounts = {m["mountPath"]: m["name"] for m in self.container["volumeMounts"]}
        self.assertIn(mounts["/data"], claims)
        self.assertIn(mounts["/datalog"], claims)
        self.assertNotEqual(mounts["/data"], mounts["/datalog"])
        pod_volumes = {v["name"] for v in self.pod["spec"].get("volumes", [])}
        for path, name in mounts.items():
            self.assertTrue(name in claims or name in pod_volumes, path)

    def test_zoo_variables_are_the_entrypoints(self):
        with open(ENTRYPOINT) as f:
            honoured = set(re.findall(r"\bZOO_[A-Z0-9_]+", f.read()))
        names = [e["name"] for e in self.container["env"]]
        self.assertTrue(any(n.startswith("ZOO_") for n in names))
        for name in names:
            if name.startswith("ZOO_"):
                self.assertIn(name, honoured)
        # ZOO_MY_ID and ZOO_SERVERS come from the start-up script, not env.
        self.assertNotIn("ZOO_MY_ID", names)
        self.assertNotIn("ZOO_SERVERS", names)
        self.assertEqual(self.container["args"][:2], ["/docker-entrypoint.sh", "zkServer.sh"])

    def start_up_environment(self, pod_name):
        """The environment the start-up script gives the entrypoint as pod_name."""
        stubs = tempfile.mkdtemp(prefix="zk-k8s-test-")
        try:
            # getent: the pod's own name resolves at once.
            with open(os.path.join(stubs, "getent"), "w") as f:
                f.write("#!/bin/sh\nexit 0\n")
            os.chmod(os.path.join(stubs, "getent"), 0o755)
            env = {"PATH": stubs + ":" + os.environ["PATH"], "HOSTNAME": pod_name,
                   "POD_NAMESPACE": "ns", "ZK_SUPER_DIGEST": "super:abc="}
            for e in self.container["env"]:
                if "value" in e:
                    env[e["name"]] = e["value"]
            command = self.container["command"]
            done = subprocess.run(command + ["env"], env=env, capture_output=True, text=True,
                                  timeout=30)
            self.assertEqual(done.returncode, 0, done.stderr)
            return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        finally:
            shutil.rmtree(stubs)

    def test_start_up_derives_id_and_servers_from_the_pod(self):
        def server(i):
            return f"server.{i + 1}=zk-{i}.zk-hs.ns.svc:2888:3888;2181"
        env = self.start_up_environment("zk-2")
        self.assertEqual(env["ZOO_MY_ID"], "3")
        self.assertEqual(env["ZOO_SERVERS"], " ".join(server(i) for i in range(3)))
        self.assertEqual(env["ZOO_CFG_EXTRA"],
                         "reconfigEnabled=true DigestAuthenticationProvider.superDigest=super:abc=")
        # A pod added by scaling up lists itself (and those before it).
        env = self.start_up_environment("zk-4")
        self.assertEqual(env["ZOO_MY_ID"], "5")
        self.assertEqual(env["ZOO_SERVERS"], " ".join(server(i) for i in range(5)))


if __name__ == "__main__":
    unittest.main()
