"""`/metrics` read by Python prometheus_client's two parsers: the classic
Prometheus text parser (the default answer, text 0.0.4) and the OpenMetrics
parser (asked for with `Accept`), against the real menagerie-server, with
counters checked after real RPCs."""

import os
import subprocess
import time
import urllib.request

import grpc
import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families as prometheus_families

from conftest import binary
from test_grpc_python import free_port, pb  # noqa: F401  (the stubs fixture)


@pytest.fixture(scope="module")
def server(pb, tmp_path_factory):  # noqa: F811
    messages, services = pb
    log = tmp_path_factory.mktemp("server") / "server.log"
    port, metrics = free_port(), free_port()
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [str(binary("menagerie-server")), "--listen", f"127.0.0.1:{port}",
             "--metrics-listen", f"127.0.0.1:{metrics}", "--max-jobs", "4"],
            stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ, RUST_LOG="warn"),
        )
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        stub = services.AnalysisServiceStub(channel)
        deadline = time.monotonic() + 30
        while True:
            try:
                stub.ListVariants(messages.ListVariantsRequest(), timeout=2)
                break
            except grpc.RpcError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"menagerie-server did not answer: {log.read_text()}")
                time.sleep(0.1)
        yield messages, stub, f"http://127.0.0.1:{metrics}/metrics"
    finally:
        channel.close()
        proc.kill()
        proc.wait(timeout=30)


def scrape(url, accept=None):
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.headers["Content-Type"], r.read().decode()


def counts(families, name):
    """{(rpc, code): value} of the calls counter."""
    out = {}
    for family in families:
        if family.name == name:
            for s in family.samples:
                if s.name.endswith("_total"):
                    out[(s.labels["rpc"], s.labels["code"])] = s.value
    return out


def test_both_parsers_read_the_counters(server):
    messages, stub, url = server
    for _ in range(3):
        stub.ValidateMove(messages.ValidateMoveRequest(
            position=messages.Position(variant="chess"), move="e4"), timeout=30)
    with pytest.raises(grpc.RpcError) as e:
        stub.ValidateMove(messages.ValidateMoveRequest(
            position=messages.Position(variant="no-such"), move="e4"), timeout=30)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    validate = "menagerie.v1.AnalysisService/ValidateMove"

    content_type, text = scrape(url)
    assert content_type.startswith("text/plain; version=0.0.4")
    families = list(prometheus_families(text))
    calls = counts(families, "menagerie_grpc_requests")
    assert calls[(validate, "OK")] == 3.0
    assert calls[(validate, "INVALID_ARGUMENT")] == 1.0
    types = {f.name: f.type for f in families}
    assert types["menagerie_grpc_requests"] == "counter"
    assert types["menagerie_jobs_running"] == "gauge"

    content_type, text = scrape(url, "application/openmetrics-text; version=1.0.0, text/plain;q=0.5")
    assert content_type.startswith("application/openmetrics-text; version=1.0.0")
    families = list(openmetrics_families(text))
    calls = counts(families, "menagerie_grpc_requests")
    assert calls[(validate, "OK")] == 3.0
    assert calls[(validate, "INVALID_ARGUMENT")] == 1.0
    info = [f for f in families if f.name == "menagerie_build"]
    assert info and info[0].type == "info"
    assert info[0].samples[0].labels["commit"] not in ("", "unknown")
