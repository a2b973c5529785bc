"""menagerie-server over TLS with bearer tokens, from foreign clients: Python
grpcio stubs and the `menagerie` CLI against the built binaries, with
certificates generated here (the `cryptography` package). Also scrapes the
Prometheus endpoint with urllib and reads the access log.
"""
import datetime
import ipaddress
import json
import os
import socket
import subprocess
import time
import urllib.request

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from conftest import binary, menagerie
from test_grpc_python import pb  # noqa: F401  (the generated-stubs fixture)

TOKEN = "tok-python-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Ca:
    """A throwaway certificate authority."""

    def __init__(self, name: str):
        self.key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.timezone.utc)
        self.name = subject
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(subject).issuer_name(subject)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()), critical=False)
            .sign(self.key, hashes.SHA256())
        )

    def pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    def issue(self, common_name: str, sans, usage) -> tuple[bytes, bytes]:
        """A certificate and its key (PEM) for `sans`, for `usage` (an EKU OID)."""
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
            .issuer_name(self.name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), critical=False)
            .sign(self.key, hashes.SHA256())
        )
        key_pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        return cert.public_bytes(serialization.Encoding.PEM), key_pem


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """Files: ca.pem, server.pem/key (localhost, 127.0.0.1), client-ca.pem,
    client.pem/key, other-ca.pem, tokens."""
    d = tmp_path_factory.mktemp("certs")
    ca, client_ca, other = Ca("menagerie test CA"), Ca("menagerie client CA"), Ca("another CA")
    server_cert, server_key = ca.issue(
        "localhost", [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))],
        ExtendedKeyUsageOID.SERVER_AUTH)
    client_cert, client_key = client_ca.issue(
        "python-client", [x509.DNSName("python-client")], ExtendedKeyUsageOID.CLIENT_AUTH)
    files = {
        "ca.pem": ca.pem(), "server.pem": server_cert, "server.key": server_key,
        "client-ca.pem": client_ca.pem(), "client.pem": client_cert, "client.key": client_key,
        "other-ca.pem": other.pem(), "tokens": f"# name:token\npython:{TOKEN}\n".encode(),
    }
    for name, data in files.items():
        (d / name).write_bytes(data)
    return d


class Server:
    def __init__(self, proc, port, metrics_port, log):
        self.proc, self.port, self.metrics_port, self.log = proc, port, metrics_port, log

    def access_lines(self):
        out = []
        for line in self.log.read_text().splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("target") == "access":
                out.append(event["fields"])
        return out


def start_server(tmp_path_factory, certs, *extra):
    log = tmp_path_factory.mktemp("server") / "server.log"
    env = dict(os.environ, RUST_LOG="info")
    for _ in range(5):  # a free port may be taken between probe and bind
        port, metrics_port = free_port(), free_port()
        with open(log, "w") as out:
            proc = subprocess.Popen(
                [str(binary("menagerie-server")), "--listen", f"127.0.0.1:{port}", "--max-jobs", "4",
                 "--tls-cert", str(certs / "server.pem"), "--tls-key", str(certs / "server.key"),
                 "--auth-tokens-file", str(certs / "tokens"),
                 "--metrics-listen", f"127.0.0.1:{metrics_port}", "--log-format", "json", *extra],
                stdout=out, stderr=subprocess.STDOUT, env=env,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    with socket.create_connection(("127.0.0.1", metrics_port), timeout=0.5):
                        return Server(proc, port, metrics_port, log)
            except OSError:
                time.sleep(0.05)
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
    pytest.fail(f"menagerie-server did not start: {log.read_text()}")


def stop(server):
    server.proc.kill()
    server.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory, certs):
    s = start_server(tmp_path_factory, certs)
    yield s
    stop(s)


@pytest.fixture(scope="module")
def mtls_server(tmp_path_factory, certs):
    s = start_server(tmp_path_factory, certs, "--tls-client-ca", str(certs / "client-ca.pem"))
    yield s
    stop(s)


def channel(server, certs, ca="ca.pem", token=TOKEN, client_cert=False):
    creds = grpc.ssl_channel_credentials(
        root_certificates=(certs / ca).read_bytes(),
        private_key=(certs / "client.key").read_bytes() if client_cert else None,
        certificate_chain=(certs / "client.pem").read_bytes() if client_cert else None,
    )
    if token is not None:
        creds = grpc.composite_channel_credentials(creds, grpc.access_token_call_credentials(token))
    return grpc.secure_channel(f"127.0.0.1:{server.port}", creds)


def start_position(messages):
    return messages.Position(variant="chess")


def test_grpcio_over_tls_with_a_token(pb, server, certs):
    messages, services = pb
    with channel(server, certs) as ch:
        stub = services.AnalysisServiceStub(ch)
        reply = stub.ValidateMove(
            messages.ValidateMoveRequest(position=start_position(messages), move="Nf3"),
            timeout=30, metadata=(("x-request-id", "py-tls-1"),))
        assert reply.legal and reply.san == "Nf3"
        totals = [e.total.nodes for e in stub.Perft(
            messages.PerftRequest(position=start_position(messages), depth=3), timeout=60)
            if e.HasField("total")]
        assert totals == [8902]


@pytest.mark.parametrize("token", [None, "tok-wrong", TOKEN[:-1]])
def test_grpcio_without_the_right_token_is_unauthenticated(pb, server, certs, token):
    messages, services = pb
    with channel(server, certs, token=token) as ch:
        stub = services.AnalysisServiceStub(ch)
        with pytest.raises(grpc.RpcError) as e:
            stub.ListVariants(messages.ListVariantsRequest(), timeout=30)
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_grpcio_trusting_another_ca_is_refused(pb, server, certs):
    messages, services = pb
    with channel(server, certs, ca="other-ca.pem") as ch:
        with pytest.raises(grpc.RpcError) as e:
            services.AnalysisServiceStub(ch).ListVariants(messages.ListVariantsRequest(), timeout=10)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE


def test_grpcio_plaintext_is_refused(pb, server):
    messages, services = pb
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as ch:
        with pytest.raises(grpc.RpcError) as e:
            services.AnalysisServiceStub(ch).ListVariants(messages.ListVariantsRequest(), timeout=10)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE


def test_grpcio_mutual_tls(pb, mtls_server, certs):
    messages, services = pb
    with channel(mtls_server, certs, client_cert=True) as ch:
        assert len(services.AnalysisServiceStub(ch).ListVariants(messages.ListVariantsRequest(), timeout=30).variants) >= 7
    with channel(mtls_server, certs, client_cert=False) as ch:
        with pytest.raises(grpc.RpcError) as e:
            services.AnalysisServiceStub(ch).ListVariants(messages.ListVariantsRequest(), timeout=10)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE


def test_cli_over_tls_with_a_token(server, certs):
    url = f"https://127.0.0.1:{server.port}"
    out = menagerie("--remote", url, "--ca", str(certs / "ca.pem"), "--token", TOKEN,
                    "validate", "--moves", "e4 e5", "Nf3").stdout
    assert out.splitlines()[0] == "legal"
    assert "san: Nf3" in out
    # The token from the environment; the host name checked against the certificate.
    env = dict(os.environ, MENAGERIE_TOKEN=TOKEN)
    proc = subprocess.run(
        [str(binary("menagerie")), "--remote", f"https://localhost:{server.port}", "--ca", str(certs / "ca.pem"),
         "perft", "3"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-1] == "8902"


def test_cli_refusals_are_clear(server, certs):
    url = f"https://127.0.0.1:{server.port}"
    no_token = menagerie("--remote", url, "--ca", str(certs / "ca.pem"), "moves", check=False)
    assert no_token.returncode == 2
    assert "Unauthenticated" in no_token.stderr
    wrong_ca = menagerie("--remote", url, "--ca", str(certs / "other-ca.pem"), "--token", TOKEN, "moves",
                         check=False)
    assert wrong_ca.returncode == 2 and wrong_ca.stderr.startswith("error:")


def test_cli_mutual_tls(mtls_server, certs):
    url = f"https://127.0.0.1:{mtls_server.port}"
    ok = menagerie("--remote", url, "--ca", str(certs / "ca.pem"), "--token", TOKEN,
                   "--client-cert", str(certs / "client.pem"), "--client-key", str(certs / "client.key"), "moves")
    assert len(ok.stdout.split()) == 20
    refused = menagerie("--remote", url, "--ca", str(certs / "ca.pem"), "--token", TOKEN, "moves", check=False)
    assert refused.returncode == 2


def test_cli_fans_out_over_tls(server, certs, tmp_path):
    """Two replicas (the same server by name and by address) verify a suite over TLS."""
    suite = tmp_path / "suite.epd"
    suite.write_text(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902\n"
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 ;D1 48 ;D2 2039\n")
    urls = f"https://localhost:{server.port},https://127.0.0.1:{server.port}"
    proc = menagerie("epd", str(suite), "--remote", urls, "--ca", str(certs / "ca.pem"), "--token", TOKEN)
    assert "2 passed, 0 failed" in proc.stdout + proc.stderr


def scrape(server) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=10) as r:
        assert r.status == 200
        text = r.read().decode()
    series = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            series[name] = float(value)
    return series


def requests_of(series, rpc, code):
    return series.get(f'menagerie_grpc_requests_total{{rpc="menagerie.v1.AnalysisService/{rpc}",code="{code}"}}', 0)


def test_metrics_count_calls_and_the_access_log_names_them(pb, server, certs):
    messages, services = pb
    before = scrape(server)
    with channel(server, certs) as ch:
        stub = services.AnalysisServiceStub(ch)
        for _ in range(3):
            stub.LegalMoves(messages.LegalMovesRequest(position=start_position(messages)), timeout=30)
        with pytest.raises(grpc.RpcError):
            stub.LegalMoves(messages.LegalMovesRequest(
                position=messages.Position(variant="nope")), timeout=30, metadata=(("x-request-id", "py-bad"),))
    with channel(server, certs, token="tok-wrong") as ch:
        with pytest.raises(grpc.RpcError):
            services.AnalysisServiceStub(ch).LegalMoves(
                messages.LegalMovesRequest(position=start_position(messages)), timeout=30)
    after = scrape(server)
    assert requests_of(after, "LegalMoves", "OK") - requests_of(before, "LegalMoves", "OK") == 3
    assert requests_of(after, "LegalMoves", "INVALID_ARGUMENT") - requests_of(before, "LegalMoves", "INVALID_ARGUMENT") == 1
    assert requests_of(after, "LegalMoves", "UNAUTHENTICATED") - requests_of(before, "LegalMoves", "UNAUTHENTICATED") == 1
    assert after['menagerie_jobs_running'] == 0
    assert any(k.startswith("menagerie_build_info{") for k in after)

    deadline = time.monotonic() + 10
    while True:
        access = server.access_lines()
        bad = [a for a in access if a.get("trace_id") == "py-bad"]
        if bad or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert len(bad) == 1, access
    assert bad[0]["rpc"] == "/menagerie.v1.AnalysisService/LegalMoves"
    assert bad[0]["status"] == "INVALID_ARGUMENT"
    assert bad[0]["peer"].startswith("127.0.0.1:")
    assert float(bad[0]["latency_ms"]) >= 0
    assert any(a["status"] == "UNAUTHENTICATED" for a in access)
