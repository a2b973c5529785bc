"""Fault tolerance of `menagerie --remote` fan-out over several
`menagerie-server` replicas (the built binaries, loopback):

- an EPD run survives a replica killed mid-run (SIGKILL) or shut down
  (SIGTERM), and a replica that is down from the start;
- an interrupted run resumes from its results file without redoing jobs;
- split perft over the replicas equals local perft in every variant;
- a host name (`localhost`) works as a replica URL;
- wrong counts fail their lines, and lines with nothing checked are skipped.

Every server and client started here is killed by a fixture finalizer.
"""
import json
import os
import re
import signal
import socket
import subprocess
import time

import pytest

from conftest import ROOT, binary, menagerie

PERFT_DIR = ROOT / "tests" / "perft"
VARIANTS = ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino", "chess960"]
# Depth cap of the fault-tolerance suite: ~140 (line, depth) jobs, a few seconds over three replicas.
SUITE_MAX_DEPTH = 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One menagerie-server process on a loopback port."""

    def __init__(self, proc: subprocess.Popen, port: int, log):
        self.proc = proc
        self.port = port
        self.log = log
        self.url = f"http://127.0.0.1:{port}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def start_server(log_dir, *extra: str) -> Server:
    """Starts a server on a free port and waits until it accepts connections."""
    env = dict(os.environ, RUST_LOG="warn", MENAGERIE_GRACE_MS="2000")
    env.pop("MENAGERIE_LISTEN", None)
    last = ""
    for _ in range(5):  # the free port may be taken between probe and bind
        port = free_port()
        log = log_dir / f"server-{port}.log"
        with open(log, "w") as out:
            proc = subprocess.Popen(
                [str(binary("menagerie-server")), "--listen", f"127.0.0.1:{port}", *extra],
                stdout=out, stderr=subprocess.STDOUT, env=env,
            )
        server = Server(proc, port, log)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return server
            except OSError:
                time.sleep(0.05)
        server.stop()
        last = log.read_text()
    pytest.fail(f"menagerie-server did not start: {last}")


@pytest.fixture
def processes():
    """Processes to kill at the end of the test, whatever happens."""
    procs = []
    yield procs
    for p in procs:
        if isinstance(p, Server):
            p.stop()
        elif p.poll() is None:
            p.kill()
            p.wait(timeout=10)


@pytest.fixture
def servers(processes, tmp_path):
    """`servers(n, *flags)`: n fresh servers, killed after the test."""
    def start(n: int, *extra: str):
        out = []
        for _ in range(n):
            s = start_server(tmp_path, *extra)
            processes.append(s)
            out.append(s)
        return out
    return start


@pytest.fixture(scope="module")
def trio(tmp_path_factory):
    """Three servers shared by the read-only tests of this module."""
    log_dir = tmp_path_factory.mktemp("trio")
    started = []
    try:
        for _ in range(3):
            started.append(start_server(log_dir, "--max-jobs", "32"))
        yield started
    finally:
        for s in started:
            s.stop()


def remote(servers) -> str:
    return ",".join(s.url for s in servers)


def epd_lines():
    """(variant, fen, {depth: count}) for every line of tests/perft/*.epd."""
    out = []
    # The 480-line Chess960 suite is checked whole by the Rust tests; here
    # its first four positions stand for it (all of it would only multiply
    # the jobs).
    for path in sorted(PERFT_DIR.glob("*.epd")):
        lines = path.read_text().splitlines()
        if path.name == "chess960.epd":
            lines = [line for line in lines if not line.startswith("#")][:4]
        for raw in lines:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            fields = [f.strip() for f in line.split(";")]
            variant, depths = "chess", {}
            for op in fields[1:]:
                name, _, value = op.partition(" ")
                if name == "variant":
                    variant = value.strip()
                elif re.fullmatch(r"D\d+", name):
                    depths[int(name[1:])] = int(value)
            out.append((variant, fields[0], depths))
    return out


@pytest.fixture
def suite(tmp_path):
    """Every tests/perft line in one file (depths up to SUITE_MAX_DEPTH), and
    the job ids the CLI gives it (`line<N>-d<D>`, N the 1-based file line)."""
    lines, ids = [], set()
    for variant, fen, depths in epd_lines():
        kept = {d: c for d, c in depths.items() if d <= SUITE_MAX_DEPTH}
        if not kept:
            # Deep-only lines (tests/perft/deep-starts.epd) are the Rust tests' work.
            continue
        ops = "".join(f" ;D{d} {c}" for d, c in sorted(kept.items()))
        lines.append(f"{fen} ;variant {variant}{ops}")
        ids.update(f"line{len(lines)}-d{d}" for d in kept)
    path = tmp_path / "suite.epd"
    path.write_text("\n".join(lines) + "\n")
    return path, len(lines), ids


def read_results(path):
    """The readable records of a results file (a torn last line is skipped)."""
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return records


def ignore_sigint():
    """Starts a child the way a non-interactive shell starts a background
    job: with SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def spawn_epd(processes, suite_path, urls, results, *extra, preexec_fn=None):
    proc = subprocess.Popen(
        [str(binary("menagerie")), "epd", str(suite_path), "--remote", urls,
         "--jobs-per-replica", "1", "--results", str(results), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn,
    )
    processes.append(proc)
    return proc


def wait_for_results(path, count, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and len(read_results(path)) >= count:
            return
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the client ended before {count} results ({proc.returncode}): {out}\n{err}")
        time.sleep(0.02)
    pytest.fail(f"no {count} results in {path} after {timeout}s")


def assert_complete(records, ids):
    """Every job has exactly one passing record."""
    got = [r["id"] for r in records]
    assert len(got) == len(set(got)), "a job was recorded twice"
    assert set(got) == ids, f"missing {sorted(ids - set(got))[:5]}, unexpected {sorted(set(got) - ids)[:5]}"
    bad = [r for r in records if not r["pass"] or r.get("error")]
    assert not bad, f"failed jobs: {bad[:3]}"


# --- (a) a replica lost mid-run -------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["sigkill", "sigterm"])
def test_epd_survives_a_replica_lost_mid_run(servers, processes, suite, tmp_path, sig):
    path, n_lines, ids = suite
    reps = servers(3)
    results = tmp_path / "results.jsonl"
    client = spawn_epd(processes, path, remote(reps), results, "--max-depth", str(SUITE_MAX_DEPTH))
    wait_for_results(results, 15, client)
    assert client.poll() is None, "the run ended before a replica was lost: the suite is too small"
    victim = reps[1]
    victim.proc.send_signal(sig)
    at_kill = len(read_results(results))
    if sig == signal.SIGTERM:
        # Graceful: the server drains (MENAGERIE_GRACE_MS=2000) and exits 0.
        assert victim.proc.wait(timeout=15) == 0, victim.log.read_text()
    out, err = client.communicate(timeout=300)
    assert client.returncode == 0, f"{out}\n{err}"
    assert f"{n_lines} passed, 0 failed" in out
    assert "retrying" in err, "the lost replica was never noticed"
    records = read_results(results)
    assert_complete(records, ids)
    # The survivors did the rest of the work. The victim may have had one
    # result on its way when it was signalled, and a graceful one (SIGTERM)
    # also finishes the job it is running while it drains.
    late = len([r for r in records[at_kill:] if r["replica"] == victim.url])
    assert late <= (2 if sig == signal.SIGTERM else 1), f"{late} results from the lost replica"


def test_epd_with_a_replica_down_from_the_start(servers, processes, suite, tmp_path):
    """A dead replica costs a job at most one attempt per round: with two
    attempts, every job still gets its turn on the live replica."""
    path, n_lines, ids = suite
    (live,) = servers(1)
    dead = f"http://127.0.0.1:{free_port()}"
    results = tmp_path / "results.jsonl"
    client = spawn_epd(processes, path, f"{live.url},{dead}", results,
                       "--max-depth", str(SUITE_MAX_DEPTH), "--attempts", "2")
    out, err = client.communicate(timeout=300)
    assert client.returncode == 0, f"{out}\n{err}"
    assert f"{n_lines} passed, 0 failed" in out
    records = read_results(results)
    assert_complete(records, ids)
    assert {r["replica"] for r in records} == {live.url}


# --- (b) interrupt and resume ---------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_epd_resumes_after_interruption(servers, processes, suite, tmp_path, sig):
    path, n_lines, ids = suite
    urls = remote(servers(3))
    results = tmp_path / "results.jsonl"
    # The client handles the signal itself, even when it was started with
    # SIGINT ignored (as from a background job of a script).
    client = spawn_epd(processes, path, urls, results, "--max-depth", str(SUITE_MAX_DEPTH),
                       preexec_fn=ignore_sigint if sig == signal.SIGINT else None)
    wait_for_results(results, 20, client)
    client.send_signal(sig)
    _, err = client.communicate(timeout=30)
    assert client.returncode == 128 + sig, f"exit {client.returncode}: {err}"
    assert f"interrupted by {sig.name}" in err
    before = read_results(results)
    done = {r["id"] for r in before if not r.get("error")}
    assert 20 <= len(done) < len(ids)

    rerun = menagerie("epd", str(path), "--remote", urls, "--jobs-per-replica", "1",
                      "--max-depth", str(SUITE_MAX_DEPTH), "--results", str(results), check=False)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert f"resuming: {len(done)} of {len(ids)} jobs already done" in rerun.stderr
    assert f"{len(ids) - len(done)} jobs over 3 replica(s)" in rerun.stderr
    assert f"{n_lines} passed, 0 failed" in rerun.stdout
    after = read_results(results)
    fresh = after[len(before):]
    assert not {r["id"] for r in fresh} & done, "finished jobs were run again"
    assert_complete(after, ids)

    # A third run has nothing left to do.
    again = menagerie("epd", str(path), "--remote", urls, "--max-depth", str(SUITE_MAX_DEPTH),
                      "--results", str(results))
    assert f"resuming: {len(ids)} of {len(ids)} jobs already done" in again.stderr
    assert f"{n_lines} passed, 0 failed" in again.stdout
    assert len(read_results(results)) == len(after)


# --- (c) split perft in every variant -------------------------------------------

# Positions per variant, and the node budget that picks their depth. Every
# subtree is one RPC, so the positions with the fewest 2-ply subtrees (D2)
# are taken: camel-rhino positions still have 5000-11000 of them.
POSITIONS_PER_VARIANT = 2
NODE_BUDGET = 1_500_000


def split_cases():
    by_variant = {}
    for variant, fen, depths in epd_lines():
        fitting = [d for d, c in depths.items() if d >= 3 and c <= NODE_BUDGET]
        if fitting and 2 in depths:
            by_variant.setdefault(variant, []).append((depths[2], fen, max(fitting), depths))
    cases = []
    for variant, candidates in by_variant.items():
        for i, (_, fen, d, depths) in enumerate(sorted(candidates, key=lambda c: c[0])[:POSITIONS_PER_VARIANT]):
            cases.append(pytest.param(variant, fen, d, depths[d], id=f"{variant}-{i + 1}-d{d}"))
    return cases


def test_split_cases_cover_every_variant():
    # Every compiled game, and the games defined as data whose suites have
    # small enough lines (king of the hill, racing kings).
    assert {c.values[0] for c in split_cases()} >= set(VARIANTS) | {"kingofthehill", "racingkings"}


def perft_count(*args: str) -> int:
    proc = menagerie(*args)
    return int(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("variant,fen,depth,expected", split_cases())
def test_split_perft_equals_local(trio, variant, fen, depth, expected):
    local = perft_count("perft", "--variant", variant, "--fen", fen, str(depth))
    split = perft_count("--remote", remote(trio), "perft", "--variant", variant, "--fen", fen,
                        "--split-depth", "2", "--jobs-per-replica", "8", str(depth))
    assert split == local == expected


def test_split_perft_merges_transpositions(trio):
    """Split after 3 plies, where move orders transpose: each distinct
    subtree is computed once and counted with its multiplicity."""
    fen = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
    proc = menagerie("--remote", remote(trio), "perft", "--fen", fen, "--split-depth", "3",
                     "--jobs-per-replica", "8", "5")
    subtrees, sequences = map(int, re.search(r"(\d+) subtrees \((\d+) move sequences\)", proc.stderr).groups())
    assert subtrees < sequences == 2812
    assert int(proc.stdout.split()[-1]) == 674624


# --- (d) a host name as replica URL ---------------------------------------------

def test_localhost_url(trio):
    port = trio[0].port
    assert perft_count("--remote", f"http://localhost:{port}", "perft", "4") == 197281
    moves = menagerie("--remote", f"localhost:{port}", "moves").stdout.split()
    assert len(moves) == 20 and "e2e4" in moves
    proc = menagerie("--remote", f"http://localhost:{port}", "epd", str(PERFT_DIR / "chess-standard.epd"),
                     "--max-depth", "3")
    assert "over 1 replica(s)" in proc.stderr
    assert "6 passed, 0 failed" in proc.stdout
    split = perft_count("--remote", f"http://localhost:{port}", "perft", "--split-depth", "1", "4")
    assert split == 197281


# --- (e) a mismatch over the replicas -------------------------------------------

def test_epd_remote_mismatch_exits_1_and_lists_the_failing_lines(trio, tmp_path):
    """Wrong expected counts and a bad FEN fail their lines, exit code 1,
    and every failing line is named with its depth, expected and actual
    count; the right lines still pass."""
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    suite = tmp_path / "mismatch.epd"
    suite.write_text(
        "# one good line, two wrong counts (chess and camel-rhino), one bad FEN\n"
        f"{start} ;D1 20 ;D2 400 ;D3 8902\n"
        f"{start} ;D1 20 ;D2 401\n"
        "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1 ;variant camel-rhino ;D1 73\n"
        "not a fen ;D1 1\n"
    )
    proc = menagerie("--remote", remote(trio), "epd", str(suite), "--results", str(tmp_path / "r.jsonl"),
                     check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = [l for l in proc.stdout.splitlines() if l.startswith("line ")]
    assert [l.split(":")[0] for l in report] == ["line 3", "line 4", "line 5"], proc.stdout
    assert report[0].startswith("line 3: depth 2: expected 401, got 400"), report
    assert report[1].startswith("line 4: depth 1: expected 73, got "), report
    assert "got 73" not in report[1]
    assert "INVALID_ARGUMENT" in report[2] or "FEN" in report[2], report
    assert proc.stdout.splitlines()[-1] == "1 passed, 3 failed, 0 skipped"


# --- (f) nothing checked is not a pass ------------------------------------------

def test_epd_remote_skipped_lines_are_not_passes(trio, tmp_path):
    """A line with no depth at most --max-depth is sent to no replica: it is
    listed and counted as skipped, never passed; `;D1 0` means zero nodes
    (not "unknown"); a run where everything was skipped exits 1."""
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    suite = tmp_path / "skipped.epd"
    suite.write_text(
        f"{start} ;D1 20 ;D2 400\n"
        f"{start} ;D50 1\n"
        f"{start} ;D1 0\n"
        "4k3/8/8/8/8/8/8/4R1K1[A@ga] b - - 0 1 ;variant alpaca ;D1 0 ;D2 0 ;D3 0\n"
    )
    results = tmp_path / "r.jsonl"
    proc = menagerie("--remote", remote(trio), "epd", str(suite), "--results", str(results), check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = [l for l in proc.stdout.splitlines() if l.startswith("line ")]
    assert [l.split(":")[0] for l in report] == ["line 2", "line 3"], proc.stdout
    assert report[0].startswith("line 2: skipped: every depth is above the maximum 20 (D50)"), report
    assert report[1].startswith("line 3: depth 1: expected 0, got 20"), report
    assert proc.stdout.splitlines()[-1] == "2 passed, 1 failed, 1 skipped"
    # Only checked depths have records; the record format is unchanged.
    ids = sorted(r["id"] for r in read_results(results))
    assert ids == ["line1-d1", "line1-d2", "line3-d1", "line4-d1", "line4-d2", "line4-d3"], ids
    assert all("skipped" not in r for r in read_results(results))

    # Every line skipped: nothing was checked, exit 1.
    proc = menagerie("--remote", remote(trio), "epd", str(suite), "--max-depth", "0", check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "0 passed, 0 failed, 4 skipped"
    assert "nothing was checked" in proc.stderr
    # Without the mismatching line, the rest passes with one skipped.
    suite.write_text(f"{start} ;D1 20 ;D2 400\n{start} ;D50 1\n")
    proc = menagerie("--remote", remote(trio), "epd", str(suite), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "1 passed, 0 failed, 1 skipped"
