"""Static checks of deploy/: the Dockerfile, the Compose file and the
Kubernetes manifests agree with each other and with the code (ports, probe
service name from the proto, environment variables and flags the binaries
really read, shutdown timings)."""
import re
import shutil
import subprocess
from urllib.parse import urlparse

import pytest
import yaml

from conftest import ROOT

DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
PORT = 50051
POD_LABEL_KEYS = ("app.kubernetes.io/name", "app.kubernetes.io/component")


# --- sources of truth -----------------------------------------------------------

def proto_service() -> str:
    """`package.Service` of proto/menagerie/v1/analysis.proto."""
    text = (ROOT / "proto" / "menagerie" / "v1" / "analysis.proto").read_text()
    package = re.search(r"^\s*package\s+([\w.]+)\s*;", text, re.M).group(1)
    services = re.findall(r"^\s*service\s+(\w+)\s*\{", text, re.M)
    assert len(services) == 1, services
    return f"{package}.{services[0]}"


def server_env_names() -> set:
    text = (ROOT / "services" / "analysis-server" / "src" / "config.rs").read_text()
    return set(re.findall(r'env\s*=\s*"([A-Z0-9_]+)"', text))


def long_flags(path) -> set:
    """The `--long` flags of the clap fields declared in a Rust file."""
    text = path.read_text()
    flags = set()
    for attrs, field in re.findall(r"#\[arg\((.*?)\)\]\s*\n\s*(?:pub\s+)?(\w+)\s*:", text):
        if re.search(r"\blong\b", attrs):
            explicit = re.search(r'\blong\s*=\s*"([\w-]+)"', attrs)
            flags.add("--" + (explicit.group(1) if explicit else field.replace("_", "-")))
    return flags


def cli_flags() -> set:
    return long_flags(ROOT / "crates" / "cli" / "src" / "main.rs")


def server_flags() -> set:
    return long_flags(ROOT / "services" / "analysis-server" / "src" / "config.rs")


def bin_names() -> set:
    names = set()
    for manifest in ROOT.glob("**/Cargo.toml"):
        if "target" in manifest.parts:
            continue
        names.update(re.findall(r'\[\[bin\]\]\s*\nname\s*=\s*"([\w-]+)"', manifest.read_text()))
    return names


def flags_in(words) -> set:
    return {w.split("=", 1)[0] for w in words if w.startswith("--")}


# --- parsed files ---------------------------------------------------------------

def load_all(path):
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


@pytest.fixture(scope="module")
def k8s():
    """Every Kubernetes object of deploy/k8s (multi-document files), by kind/name."""
    objects = {}
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in load_all(path):
            key = f"{doc.get('kind')}/{(doc.get('metadata') or {}).get('name')}"
            assert key not in objects, f"{key} defined twice"
            objects[key] = doc
    return objects


@pytest.fixture(scope="module")
def deployment(k8s):
    return k8s["Deployment/menagerie-server"]


@pytest.fixture(scope="module")
def container(deployment):
    (c,) = deployment["spec"]["template"]["spec"]["containers"]
    return c


@pytest.fixture(scope="module")
def pod_labels(deployment):
    return deployment["spec"]["template"]["metadata"]["labels"]


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


@pytest.fixture(scope="module")
def dockerfile():
    """Instructions of deploy/Dockerfile as (INSTRUCTION, arguments), continuation lines joined."""
    text = (DEPLOY / "Dockerfile").read_text()
    text = re.sub(r"\\\n", " ", text)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def env_of(c) -> dict:
    return {e["name"]: e.get("value") for e in c.get("env", [])}


def port_of(listen: str) -> int:
    return int(listen.rsplit(":", 1)[1])


def subset(labels: dict, of: dict) -> bool:
    return bool(labels) and all(of.get(k) == v for k, v in labels.items())


# --- Kubernetes -----------------------------------------------------------------

def test_every_object_is_well_formed(k8s):
    assert k8s
    for key, doc in k8s.items():
        assert doc.get("apiVersion"), key
        assert doc.get("kind"), key
        assert (doc.get("metadata") or {}).get("name"), key


def test_kustomization_lists_every_manifest():
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert kust["kind"] == "Kustomization"
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kust["resources"]) == files
    # The image named in the manifests is the one the kustomization retags.
    assert {i["name"] for i in kust.get("images", [])} == {"menagerie"}


def test_kustomize_builds():
    kubectl = shutil.which("kubectl")
    if not kubectl:
        pytest.skip("kubectl not installed")
    proc = subprocess.run([kubectl, "kustomize", str(K8S)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    kinds = sorted(d["kind"] for d in yaml.safe_load_all(proc.stdout) if d)
    assert kinds == sorted(["ConfigMap", "Deployment", "Service", "Service",
                            "HorizontalPodAutoscaler", "PodDisruptionBudget", "Job"])


def test_deployment_basics(deployment, pod_labels):
    assert deployment["apiVersion"] == "apps/v1"
    spec = deployment["spec"]
    assert spec["replicas"] == 3
    assert subset(spec["selector"]["matchLabels"], pod_labels)
    assert set(POD_LABEL_KEYS) <= set(pod_labels)
    spread = spec["template"]["spec"]["topologySpreadConstraints"]
    assert any(t["topologyKey"] == "kubernetes.io/hostname" for t in spread)
    for t in spread:
        assert subset(t["labelSelector"]["matchLabels"], pod_labels)


def test_container_port_and_listen_address(container):
    (port,) = container["ports"]
    assert port == {"name": "grpc", "containerPort": PORT, "protocol": "TCP"}
    assert env_of(container)["MENAGERIE_LISTEN"] == f"0.0.0.0:{PORT}"


def test_probes_are_grpc_on_the_container_port(container):
    declared = {p["containerPort"] for p in container["ports"]}
    for kind in ("readinessProbe", "livenessProbe", "startupProbe"):
        probe = container[kind]
        assert set(probe) & {"grpc", "httpGet", "tcpSocket", "exec"} == {"grpc"}, kind
        # Kubernetes grpc probes take a port number, not a name.
        assert isinstance(probe["grpc"]["port"], int) and probe["grpc"]["port"] in declared, kind


def test_readiness_checks_the_proto_service(container):
    assert container["readinessProbe"]["grpc"]["service"] == proto_service() == "menagerie.v1.Analysis"
    # Liveness asks about the whole server ("").
    assert container["livenessProbe"]["grpc"].get("service", "") == ""


def test_termination_outlasts_the_drain(deployment, container):
    pod = deployment["spec"]["template"]["spec"]
    grace_s = int(env_of(container)["MENAGERIE_GRACE_MS"]) / 1000
    pre_stop = container["lifecycle"]["preStop"]
    if "sleep" in pre_stop:
        sleep_s = pre_stop["sleep"]["seconds"]
    else:
        command = pre_stop["exec"]["command"]
        assert command[0] == "sleep", command
        sleep_s = int(command[1])
    assert sleep_s > 0
    assert pod["terminationGracePeriodSeconds"] > grace_s
    assert pod["terminationGracePeriodSeconds"] > sleep_s + grace_s
    # Liveness must not kill a draining pod before it is done.
    live = container["livenessProbe"]
    assert live["periodSeconds"] * live["failureThreshold"] >= grace_s


def test_security_and_resources(deployment, container):
    pod = deployment["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 10001
    sc = container["securityContext"]
    assert sc["runAsNonRoot"] is True
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    res = container["resources"]
    for part in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(res[part]), part
    assert res["requests"]["cpu"] == "1" and res["limits"]["cpu"] == "2"
    # One job's threads match the CPU limit.
    assert env_of(container)["MENAGERIE_MAX_THREADS"] == res["limits"]["cpu"]


def test_env_names_exist_in_server_config(container, compose, dockerfile):
    known = server_env_names()
    assert {"MENAGERIE_LISTEN", "MENAGERIE_GRACE_MS"} <= known
    used = set(env_of(container))
    for name, svc in compose["services"].items():
        if name.startswith("menagerie-"):
            used |= set(svc.get("environment", {}))
    used |= {arg.split("=", 1)[0] for word, arg in dockerfile if word == "ENV"}
    assert used - known == set(), f"not read by menagerie-server: {used - known}"
    # Server flags, if any are passed on the command line, exist too.
    assert flags_in(container.get("args", []) + container.get("command", [])) <= server_flags()


def test_services_target_the_grpc_port(k8s, container, pod_labels):
    named = {p["name"]: p["containerPort"] for p in container["ports"]}
    services = {k: v for k, v in k8s.items() if k.startswith("Service/")}
    assert set(services) == {"Service/menagerie", "Service/menagerie-headless"}
    for key, svc in services.items():
        spec = svc["spec"]
        assert subset(spec["selector"], pod_labels), key
        (port,) = spec["ports"]
        assert port["port"] == PORT, key
        target = port["targetPort"]
        assert (named[target] if isinstance(target, str) else target) == PORT, key
    assert services["Service/menagerie"]["spec"].get("type", "ClusterIP") == "ClusterIP"
    assert services["Service/menagerie"]["spec"].get("clusterIP") != "None"
    assert services["Service/menagerie-headless"]["spec"]["clusterIP"] == "None"


def test_hpa_targets_the_deployment(k8s, deployment):
    hpa = k8s["HorizontalPodAutoscaler/menagerie-server"]
    assert hpa["apiVersion"] == "autoscaling/v2"
    ref = hpa["spec"]["scaleTargetRef"]
    assert (ref["apiVersion"], ref["kind"], ref["name"]) == ("apps/v1", "Deployment", deployment["metadata"]["name"])
    assert hpa["spec"]["minReplicas"] == deployment["spec"]["replicas"] <= hpa["spec"]["maxReplicas"]
    (metric,) = hpa["spec"]["metrics"]
    assert metric["type"] == "Resource" and metric["resource"]["name"] == "cpu"


def test_pdb_matches_the_pods(k8s, deployment, pod_labels):
    pdb = k8s["PodDisruptionBudget/menagerie-server"]
    assert pdb["apiVersion"] == "policy/v1"
    assert subset(pdb["spec"]["selector"]["matchLabels"], pod_labels)
    spec = pdb["spec"]
    assert ("minAvailable" in spec) != ("maxUnavailable" in spec)
    if "minAvailable" in spec:
        assert 0 < spec["minAvailable"] < deployment["spec"]["replicas"]
    else:
        assert 0 < spec["maxUnavailable"] < deployment["spec"]["replicas"]


def test_epd_job_is_indexed_over_the_headless_service(k8s):
    job = k8s["Job/menagerie-epd"]
    assert job["apiVersion"] == "batch/v1"
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    assert spec["completions"] == spec["parallelism"] > 1
    pod = spec["template"]["spec"]
    (c,) = pod["containers"]
    env = env_of(c)
    assert int(env["SHARDS"]) == spec["completions"]
    script = " ".join(c.get("command", []) + c.get("args", []))
    assert "$JOB_COMPLETION_INDEX" in script and "$SHARDS" in script
    url = urlparse(env["REMOTE"])
    headless = k8s["Service/menagerie-headless"]
    assert url.hostname == headless["metadata"]["name"]
    assert url.port == headless["spec"]["ports"][0]["port"] == PORT
    assert '--remote "$REMOTE"' in script
    assert flags_in(script.split()) <= cli_flags(), flags_in(script.split()) - cli_flags()
    assert re.search(r"\bmenagerie epd\b", script)
    # The suite comes from the ConfigMap; /tmp is writable on a read-only root.
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    cm_name = volumes[mounts["/suite"]]["configMap"]["name"]
    assert f"ConfigMap/{cm_name}" in k8s
    assert "/suite/suite.epd" in script and "suite.epd" in k8s[f"ConfigMap/{cm_name}"]["data"]
    assert "emptyDir" in volumes[mounts["/tmp"]]
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert pod["restartPolicy"] in ("OnFailure", "Never")


def test_configmap_suite_lines_come_from_tests_perft(k8s):
    suite = k8s["ConfigMap/menagerie-suite"]["data"]["suite.epd"]
    known = set()
    for path in (ROOT / "tests" / "perft").glob("*.epd"):
        known.update(line.strip() for line in path.read_text().splitlines())
    lines = [l.strip() for l in suite.splitlines() if l.strip() and not l.strip().startswith("#")]
    assert len(lines) >= 7
    assert all(l in known for l in lines), [l for l in lines if l not in known]
    variants = {m.group(1) if (m := re.search(r";variant (\S+)", l)) else "chess" for l in lines}
    assert variants == {"chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino"}


# --- Dockerfile -----------------------------------------------------------------

def test_dockerfile(dockerfile):
    froms = [arg for word, arg in dockerfile if word == "FROM"]
    assert len(froms) == 2
    assert re.match(r"rust:(1|\$\{RUST_VERSION\}|1\.\d+)(-bookworm)\b.* AS build$", froms[0], re.I), froms[0]
    assert froms[1] == "debian:bookworm-slim"
    args = {a.split("=", 1)[0]: a.split("=", 1)[1] for w, a in dockerfile if w == "ARG" and "=" in a}
    if "RUST_VERSION" in args:
        assert re.fullmatch(r"1(\.\d+)*", args["RUST_VERSION"])
    run = " ".join(arg for word, arg in dockerfile if word == "RUN" and "cargo build" in arg)
    assert "--release" in run and "--locked" in run
    wanted = {"menagerie-server", "menagerie", "menagerie-uci"}
    assert set(re.findall(r"--bin ([\w-]+)", run)) == wanted <= bin_names()
    # The runtime stage: the binaries only, a non-root user, the port, the health check.
    runtime = dockerfile[[i for i, (w, _) in enumerate(dockerfile) if w == "FROM"][1]:]
    copies = [a for w, a in runtime if w == "COPY"]
    assert all(a.startswith("--from=build ") for a in copies)
    assert all(b in " ".join(copies) for b in wanted)
    (user,) = [a for w, a in runtime if w == "USER"]
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) == 10001
    assert [a for w, a in runtime if w == "EXPOSE"] == [str(PORT)]
    env = dict(a.split("=", 1) for w, a in runtime if w == "ENV")
    assert env["MENAGERIE_LISTEN"] == f"0.0.0.0:{PORT}"
    (health,) = [a for w, a in runtime if w == "HEALTHCHECK"]
    assert "CMD" in health and f"127.0.0.1:{PORT}" in health
    cmd = re.search(r"CMD\s+(\[.*\])", health).group(1)
    words = yaml.safe_load(cmd)
    assert words[0] in wanted and flags_in(words) <= cli_flags()
    assert [a for w, a in runtime if w == "ENTRYPOINT"] == ['["menagerie-server"]']


def test_dockerignore_keeps_the_build_inputs():
    ignored = [l.strip() for l in (ROOT / ".dockerignore").read_text().splitlines()
               if l.strip() and not l.startswith("#")]
    for needed in ("target/", ".venv/", ".git"):
        assert needed in ignored
    for kept in ("Cargo.lock", "Cargo.toml", "proto", "crates", "services", "benches"):
        assert not any(kept == i.rstrip("/") or kept.startswith(i.rstrip("/") + "/") for i in ignored), kept


# --- Compose --------------------------------------------------------------------

def test_compose_three_replicas_on_distinct_ports(compose):
    servers = {k: v for k, v in compose["services"].items() if k.startswith("menagerie-")}
    assert len(servers) == 3
    host_ports = set()
    for name, svc in servers.items():
        build = svc["build"]
        assert (DEPLOY / build["context"]).resolve() == ROOT
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
        (mapping,) = svc["ports"]
        host, container_port = mapping.rsplit(":", 2)[-2:]
        assert int(container_port) == PORT
        host_ports.add(int(host))
        assert port_of(svc["environment"]["MENAGERIE_LISTEN"]) == PORT
        test = svc["healthcheck"]["test"]
        assert test[0] in ("CMD", "CMD-SHELL") and f"127.0.0.1:{PORT}" in " ".join(test)
        assert flags_in(test) <= cli_flags()
    assert host_ports == {50051, 50052, 50053}


def test_compose_verify_runs_over_the_three(compose):
    servers = {k for k in compose["services"] if k.startswith("menagerie-")}
    verify = compose["services"]["verify"]
    assert verify["profiles"] == ["verify"]
    assert set(verify["depends_on"]) == servers
    assert all(d["condition"] == "service_healthy" for d in verify["depends_on"].values())
    words = verify.get("entrypoint", []) + verify["command"]
    assert words[:2] == ["menagerie", "epd"]
    urls = words[words.index("--remote") + 1].split(",")
    assert {(urlparse(u).hostname, urlparse(u).port) for u in urls} == {(s, PORT) for s in servers}
    assert flags_in(words) <= cli_flags()
    suite = words[2]
    mounts = dict(v.rsplit(":", 2)[:2] for v in verify["volumes"])
    (host_dir,) = [h for h, c in mounts.items() if suite.startswith(c + "/")]
    assert (DEPLOY / host_dir / suite.rsplit("/", 1)[1]).exists()
