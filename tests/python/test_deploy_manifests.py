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


# The server's flags live in config.rs and the structs it flattens in.
SERVER_CONFIG = [ROOT / "services" / "analysis-server" / "src" / f for f in ("config.rs", "security.rs", "metrics.rs")]
# The CLI's: main.rs, and the connection flags in remote.rs.
CLI_CONFIG = [ROOT / "crates" / "cli" / "src" / f for f in ("main.rs", "remote.rs")]


def server_env_names() -> set:
    names = set()
    for path in SERVER_CONFIG:
        names |= set(re.findall(r'env\s*=\s*"([A-Z0-9_]+)"', path.read_text()))
    return names


def cli_env_names() -> set:
    names = set()
    for path in CLI_CONFIG:
        names |= set(re.findall(r'env\s*=\s*"([A-Z0-9_]+)"', path.read_text()))
    return names


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
    return set().union(*(long_flags(p) for p in CLI_CONFIG))


def server_flags() -> set:
    return set().union(*(long_flags(p) for p in SERVER_CONFIG))


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
    assert kinds == sorted(["ConfigMap", "Deployment", "Service", "Service", "Service",
                            "HorizontalPodAutoscaler", "PodDisruptionBudget", "Job", "NetworkPolicy"])
    # The ServiceMonitor (Prometheus Operator CRD) is a kustomization of its own.
    proc = subprocess.run([kubectl, "kustomize", str(K8S / "monitoring")], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert [d["kind"] for d in yaml.safe_load_all(proc.stdout) if d] == ["ServiceMonitor"]


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


def named_ports(c) -> dict:
    return {p["name"]: p["containerPort"] for p in c["ports"]}


def test_container_ports_and_listen_addresses(container):
    env = env_of(container)
    assert all(p["protocol"] == "TCP" for p in container["ports"])
    assert named_ports(container) == {
        "grpc": PORT,
        "health": port_of(env["MENAGERIE_HEALTH_LISTEN"]),
        "metrics": port_of(env["MENAGERIE_METRICS_LISTEN"]),
    }
    assert env["MENAGERIE_LISTEN"] == f"0.0.0.0:{PORT}"
    assert env["MENAGERIE_HEALTH_LISTEN"].startswith("0.0.0.0:")
    assert env["MENAGERIE_METRICS_LISTEN"].startswith("0.0.0.0:")


def test_probes_are_grpc_on_the_plaintext_health_port(container):
    health = port_of(env_of(container)["MENAGERIE_HEALTH_LISTEN"])
    assert health != PORT
    for kind in ("readinessProbe", "livenessProbe", "startupProbe"):
        probe = container[kind]
        assert set(probe) & {"grpc", "httpGet", "tcpSocket", "exec"} == {"grpc"}, kind
        # Kubernetes grpc probes take a port number, not a name, and speak no
        # TLS: they ask the health-only listener.
        assert isinstance(probe["grpc"]["port"], int) and probe["grpc"]["port"] == health, kind


def test_readiness_checks_the_proto_service(container):
    assert container["readinessProbe"]["grpc"]["service"] == proto_service() == "menagerie.v1.AnalysisService"
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
    named = named_ports(container)
    services = {k: v for k, v in k8s.items() if k.startswith("Service/")}
    assert set(services) == {"Service/menagerie", "Service/menagerie-headless", "Service/menagerie-metrics"}
    metrics = services.pop("Service/menagerie-metrics")
    assert subset(metrics["spec"]["selector"], pod_labels)
    (port,) = metrics["spec"]["ports"]
    assert port["name"] == "metrics" and named[port["targetPort"]] == named["metrics"]
    for key, svc in services.items():
        spec = svc["spec"]
        assert subset(spec["selector"], pod_labels), key
        (port,) = spec["ports"]
        assert port["port"] == PORT, key
        target = port["targetPort"]
        assert (named[target] if isinstance(target, str) else target) == PORT, key
        # The gRPC port speaks TLS: cleartext HTTP/2 (h2c) would be a lie.
        assert port.get("appProtocol") != "kubernetes.io/h2c", key
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
        mappings = {int(m.rsplit(":", 2)[-1]): m.rsplit(":", 2)[-2:] for m in svc["ports"]}
        assert set(mappings) == {PORT, port_of(svc["environment"]["MENAGERIE_METRICS_LISTEN"])}
        assert all(m.startswith("127.0.0.1:") for m in svc["ports"]), "published on the host's loopback only"
        host_ports.add(int(mappings[PORT][0]))
        assert port_of(svc["environment"]["MENAGERIE_LISTEN"]) == PORT
        test = svc["healthcheck"]["test"]
        assert test[0] in ("CMD", "CMD-SHELL") and f"https://127.0.0.1:{PORT}" in " ".join(test)
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


# --- Security and monitoring ----------------------------------------------------

GEN_CERTS = DEPLOY / "gen-certs.sh"


def secret_mounts(pod_spec, c) -> dict:
    """Mount path -> (Secret name, keys it exposes or None for all)."""
    volumes = {v["name"]: v for v in pod_spec.get("volumes", [])}
    out = {}
    for m in c.get("volumeMounts", []):
        secret = volumes[m["name"]].get("secret")
        if secret:
            assert m.get("readOnly") is True, m
            keys = [i["path"] for i in secret["items"]] if "items" in secret else None
            out[m["mountPath"]] = (secret["secretName"], keys)
    return out


def secret_of(mounts, path):
    """The (Secret, key) a file path comes from."""
    for mount, (secret, keys) in mounts.items():
        if path.startswith(mount + "/"):
            key = path[len(mount) + 1:]
            assert keys is None or key in keys, (path, keys)
            return secret, key
    raise AssertionError(f"{path} is not in a mounted Secret: {mounts}")


def test_tls_and_tokens_come_from_secrets(deployment, container, k8s):
    pod = deployment["spec"]["template"]["spec"]
    mounts = secret_mounts(pod, container)
    env = env_of(container)
    assert secret_of(mounts, env["MENAGERIE_TLS_CERT"]) == ("menagerie-tls", "tls.crt")
    assert secret_of(mounts, env["MENAGERIE_TLS_KEY"]) == ("menagerie-tls", "tls.key")
    assert secret_of(mounts, env["MENAGERIE_AUTH_TOKENS_FILE"]) == ("menagerie-tokens", "tokens")
    # Secrets are not world-readable; the pod's group may read them.
    for v in pod["volumes"]:
        if "secret" in v:
            assert v["secret"]["defaultMode"] & 0o007 == 0, v
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsGroup"]
    # The EPD Job trusts the same CA and sends its own token, over https.
    job = k8s["Job/menagerie-epd"]["spec"]["template"]["spec"]
    (c,) = job["containers"]
    job_env = env_of(c)
    assert urlparse(job_env["REMOTE"]).scheme == "https"
    assert {"MENAGERIE_CA", "MENAGERIE_TOKEN_FILE"} <= cli_env_names()
    job_mounts = secret_mounts(job, c)
    assert secret_of(job_mounts, job_env["MENAGERIE_CA"]) == ("menagerie-tls", "ca.crt")
    assert secret_of(job_mounts, job_env["MENAGERIE_TOKEN_FILE"])[0] == "menagerie-epd-token"
    # The Job sees the CA only, never the server's key.
    assert job_mounts[next(m for m in job_mounts if job_mounts[m][0] == "menagerie-tls")][1] == ["ca.crt"]


def test_network_policy_admits_clients_prometheus_and_probes(k8s, container, pod_labels):
    policy = k8s["NetworkPolicy/menagerie-server"]
    assert policy["apiVersion"] == "networking.k8s.io/v1"
    spec = policy["spec"]
    assert subset(spec["podSelector"]["matchLabels"], pod_labels)
    assert "Ingress" in spec["policyTypes"]
    ports = named_ports(container)
    rules = {}
    for rule in spec["ingress"]:
        for p in rule["ports"]:
            rules[p["port"]] = rule.get("from")
    # Every port the pod listens on has a rule, and nothing else is opened.
    assert set(rules) == set(ports.values())
    # gRPC from the EPD Job's pods (and labelled clients), not from everywhere.
    grpc_from = rules[ports["grpc"]]
    assert grpc_from
    job_labels = k8s["Job/menagerie-epd"]["spec"]["template"]["metadata"]["labels"]
    assert any(subset(f.get("podSelector", {}).get("matchLabels", {}), job_labels) for f in grpc_from)
    assert all("ipBlock" not in f for f in grpc_from)
    assert rules[ports["metrics"]], "metrics must not be open to everyone"


def test_scrape_annotations_and_service_monitor(deployment, container, k8s):
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == named_ports(container)["metrics"]
    assert annotations["prometheus.io/path"] == "/metrics"
    (monitor,) = load_all(K8S / "monitoring" / "servicemonitor.yaml")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1" and monitor["kind"] == "ServiceMonitor"
    service = k8s["Service/menagerie-metrics"]
    assert subset(monitor["spec"]["selector"]["matchLabels"], service["metadata"]["labels"])
    # No other Service is picked up by the monitor.
    others = [k for k, v in k8s.items() if k.startswith("Service/") and v is not service]
    assert not any(subset(monitor["spec"]["selector"]["matchLabels"], k8s[k]["metadata"]["labels"]) for k in others)
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]}
    assert endpoint["path"] == "/metrics"
    kust = yaml.safe_load((K8S / "monitoring" / "kustomization.yaml").read_text())
    assert kust["resources"] == ["servicemonitor.yaml"]


def test_compose_uses_tls_tokens_and_generated_certs(compose):
    script = GEN_CERTS.read_text()
    for name, svc in compose["services"].items():
        if not name.startswith("menagerie-"):
            continue
        env = svc["environment"]
        mounts = dict(v.rsplit(":", 2)[:2] for v in svc["volumes"])
        assert mounts.get("./certs") == "/etc/menagerie"
        for var in ("MENAGERIE_TLS_CERT", "MENAGERIE_TLS_KEY", "MENAGERIE_AUTH_TOKENS_FILE"):
            path = env[var]
            assert path.startswith("/etc/menagerie/"), var
            assert path.rsplit("/", 1)[1] in script, f"gen-certs.sh does not write {path}"
        test = svc["healthcheck"]["test"]
        assert test[test.index("--ca") + 1].rsplit("/", 1)[1] in script
        assert test[test.index("--token-file") + 1].rsplit("/", 1)[1] in script
    words = compose["services"]["verify"].get("entrypoint", []) + compose["services"]["verify"]["command"]
    assert all(urlparse(u).scheme == "https" for u in words[words.index("--remote") + 1].split(","))
    assert "--ca" in words and "--token-file" in words


@pytest.mark.skipif(not shutil.which("openssl"), reason="openssl not installed")
def test_gen_certs_makes_a_chain_for_the_compose_names(compose, tmp_path):
    proc = subprocess.run(["sh", str(GEN_CERTS), str(tmp_path / "certs")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    d = tmp_path / "certs"
    for f in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key", "tokens", "client.token",
              "healthcheck.token"):
        assert (d / f).stat().st_size > 0, f
    verify = subprocess.run(["openssl", "verify", "-CAfile", d / "ca.pem", d / "server.pem", d / "client.pem"],
                            capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    sans = subprocess.run(["openssl", "x509", "-in", d / "server.pem", "-noout", "-ext", "subjectAltName"],
                          capture_output=True, text=True).stdout
    for name in [n for n in compose["services"] if n.startswith("menagerie-")] + ["localhost"]:
        assert f"DNS:{name}" in sans, sans
    assert "IP Address:127.0.0.1" in sans
    tokens = dict(l.split(":", 1) for l in (d / "tokens").read_text().splitlines() if l and not l.startswith("#"))
    assert (d / "client.token").read_text().strip() in tokens.values()
    assert (d / "healthcheck.token").read_text().strip() in tokens.values()
