#!/usr/bin/env python3
"""HTTP/2 stream flood against `menagerie-server`, and what it does to the server's memory.

A hostile client (PyPI `h2`, hyper-h2) opens N streams on one connection,
each a gRPC call's HEADERS with no body (the server's handler then waits for
a request that never comes), ignoring the server's
SETTINGS_MAX_CONCURRENT_STREAMS. The script reports how many streams the
server refused (RST_STREAM REFUSED_STREAM), reset otherwise, or left open,
whether it sent GOAWAY, and the server's resident memory (VmRSS of
/proc/PID/status): at the start, the peak during the flood, with every
stream open, and after the client closed. Repeated rounds tell a leak (RSS
grows every round) from memory the allocator keeps for reuse (RSS plateaus).
After the last round a health check on a new connection shows the server
still answers.

    python3 -m venv /tmp/h2venv && /tmp/h2venv/bin/pip install h2
    /tmp/h2venv/bin/python benches/stream_flood.py --server target/debug/menagerie-server
    /tmp/h2venv/bin/python benches/stream_flood.py --server target/debug/menagerie-server \
        --rounds 3 --server-arg=--max-streams-per-connection=100000 --env MALLOC_ARENA_MAX=1
    /tmp/h2venv/bin/python benches/stream_flood.py --addr 127.0.0.1:50051 --pid 1234

`--malloc-stats` asks glibc, through gdb attached to the server, for the
bytes it has in use and holds from the system after each round (a leak grows
the first; memory glibc keeps for reuse only the second). `--trim` also calls
`malloc_trim(0)` after the last round and measures RSS again. Both need a
server this script started (glibc writes the statistics to its stderr).
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events

REFUSED = h2.errors.ErrorCodes.REFUSED_STREAM


def rss_kb(pid: int) -> int:
    """The process's resident set size in kB (VmRSS), 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Server:
    """A `menagerie-server` child listening on a free loopback port."""

    def __init__(self, path: str, args: list[str], env: dict[str, str], log_path: str | None = None):
        full_env = dict(os.environ)
        full_env.update(env)
        self.log = open(log_path or os.devnull, "w")
        self.proc = subprocess.Popen(
            [path, "--listen", "127.0.0.1:0", "--log-format", "json", *args],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env=full_env)
        self.addr = None
        self.lines: list[str] = []
        found = threading.Event()

        def drain():
            for line in self.proc.stdout:
                self.lines.append(line)
                if self.addr is None:
                    try:
                        addr = json.loads(line).get("fields", {}).get("addr")
                    except ValueError:
                        addr = None
                    if addr:
                        self.addr = addr
                        found.set()
            found.set()

        threading.Thread(target=drain, daemon=True).start()
        if not found.wait(60) or self.addr is None:
            self.stop()
            raise RuntimeError(f"{path} did not print its address: {''.join(self.lines)[:2000]}")
        self.pid = self.proc.pid

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class HostileConnection(h2.connection.H2Connection):
    """h2's client connection, but it opens streams past the server's
    SETTINGS_MAX_CONCURRENT_STREAMS (h2 checks the count of open streams
    before it opens one: it is told none are open)."""

    @property
    def open_outbound_streams(self):
        return 0


class Client:
    """One HTTP/2 connection driven by hand: a thread only reads the socket
    (so the server is never blocked writing to us), the caller's thread
    feeds what was read to the h2 state machine and writes."""

    def __init__(self, addr: str, timeout: float = 30.0):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.conn = HostileConnection(config=config)
        self.inbox: queue.Queue[bytes] = queue.Queue()
        self.closed_by_peer = False
        self.goaway = None
        self.refused = 0
        self.other_resets: dict[str, int] = {}
        self.responses: dict[int, dict] = {}
        self.ended: set[int] = set()
        self.pings_acked = 0
        self.conn.initiate_connection()
        self.flush()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                data = self.sock.recv(1 << 16)
            except OSError:
                data = b""
            self.inbox.put(data)
            if not data:
                return

    def flush(self):
        out = self.conn.data_to_send()
        if out:
            self.sock.sendall(out)

    def pump(self, wait: float = 0.0) -> int:
        """Handles what the server sent (waiting up to `wait` seconds for
        the first piece); returns the number of h2 events."""
        n = 0
        block = wait > 0
        while True:
            try:
                data = self.inbox.get(timeout=wait) if block else self.inbox.get_nowait()
            except queue.Empty:
                break
            block = False
            if not data:
                self.closed_by_peer = True
                break
            try:
                events = self.conn.receive_data(data)
            except Exception as e:  # a protocol error on our side ends the connection
                self.closed_by_peer = True
                self.goaway = self.goaway or f"client protocol error: {e}"
                break
            for ev in events:
                n += 1
                self._event(ev)
        try:
            self.flush()
        except OSError:
            self.closed_by_peer = True
        return n

    def _event(self, ev):
        if isinstance(ev, h2.events.StreamReset):
            if ev.error_code == REFUSED:
                self.refused += 1
            else:
                name = getattr(ev.error_code, "name", str(ev.error_code))
                self.other_resets[name] = self.other_resets.get(name, 0) + 1
        elif isinstance(ev, h2.events.ConnectionTerminated):
            name = getattr(ev.error_code, "name", str(ev.error_code))
            extra = ev.additional_data.decode(errors="replace") if ev.additional_data else ""
            self.goaway = f"{name} last_stream_id={ev.last_stream_id}" + (f" ({extra})" if extra else "")
        elif isinstance(ev, (h2.events.ResponseReceived, h2.events.TrailersReceived)):
            self.responses.setdefault(ev.stream_id, {}).update(dict(ev.headers))
        elif isinstance(ev, h2.events.DataReceived):
            self.responses.setdefault(ev.stream_id, {}).setdefault("_body", b"")
            self.responses[ev.stream_id]["_body"] += ev.data
            self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        elif isinstance(ev, h2.events.StreamEnded):
            self.ended.add(ev.stream_id)
        elif isinstance(ev, h2.events.PingAckReceived):
            self.pings_acked += 1

    def open_stream(self, path: str, end_stream: bool = False) -> int:
        sid = self.conn.get_next_available_stream_id()
        self.conn.send_headers(sid, [
            (":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
            ("content-type", "application/grpc"), ("te", "trailers"),
        ], end_stream=end_stream)
        return sid

    def close(self):
        try:
            self.conn.close_connection()
            self.flush()
        except Exception:
            pass
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class Sampler:
    """Samples a process's RSS every `interval` seconds in a thread, keeping the peak."""

    def __init__(self, pid: int | None, interval: float = 0.05):
        self.pid, self.interval, self.peak = pid, interval, 0
        self.stop_flag = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop_flag.is_set():
            if self.pid:
                self.peak = max(self.peak, rss_kb(self.pid))
            time.sleep(self.interval)

    def stop(self) -> int:
        self.stop_flag.set()
        self.thread.join()
        return self.peak


def settle(pid: int | None, seconds: float) -> int:
    """RSS after `seconds` (the server drops a closed connection's streams asynchronously)."""
    time.sleep(seconds)
    return rss_kb(pid) if pid else 0


def flood(addr: str, streams: int, pid: int | None, path: str, hold: float = 1.0,
          batch: int = 200, quiet: float = 1.0, settle_s: float = 3.0) -> dict:
    """One round: opens `streams` bodiless calls on one connection, holds them
    `hold` seconds, closes; returns counts and RSS figures (kB)."""
    sampler = Sampler(pid)
    client = Client(addr)
    client.pump(wait=2.0)  # the server's SETTINGS
    sent = 0
    t0 = time.monotonic()
    while sent < streams and not client.closed_by_peer and client.goaway is None:
        for _ in range(min(batch, streams - sent)):
            client.open_stream(path)
            sent += 1
        try:
            client.flush()
        except OSError:
            client.closed_by_peer = True
            break
        client.pump()
    # Collect the answers to the last streams: the server handles frames in
    # order (h2 sends a refusal before it reads on), so when our PING's ack
    # arrives every stream has been answered. The deadline is a hang guard.
    if not client.closed_by_peer:
        client.conn.ping(b"floodend")
        client.flush()
        deadline = time.monotonic() + 120
        while not client.closed_by_peer and client.pings_acked == 0 and time.monotonic() < deadline:
            client.pump(wait=0.5)
    client.pump(wait=0.2)
    flood_s = time.monotonic() - t0
    time.sleep(hold)
    client.pump()
    open_kb = rss_kb(pid) if pid else 0
    client.close()
    peak = sampler.stop()
    after = settle(pid, settle_s)
    open_streams = sent - client.refused - sum(client.other_resets.values())
    return {
        "sent": sent, "refused": client.refused, "other_resets": client.other_resets,
        "open": open_streams if client.goaway is None and not client.closed_by_peer else None,
        "goaway": client.goaway, "peer_closed": client.closed_by_peer,
        "peak_kb": max(peak, open_kb), "open_kb": open_kb, "after_kb": after, "flood_s": flood_s,
    }


def health_check(addr: str, timeout: float = 30.0) -> str:
    """grpc.health.v1.Health/Check for the whole server on a new connection:
    the status name (SERVING...) or what went wrong."""
    client = Client(addr, timeout=timeout)
    try:
        sid = client.open_stream("/grpc.health.v1.Health/Check")
        client.conn.send_data(sid, b"\x00\x00\x00\x00\x00", end_stream=True)  # empty HealthCheckRequest
        client.flush()
        deadline = time.monotonic() + timeout
        while sid not in client.ended and time.monotonic() < deadline:
            if client.closed_by_peer:
                return f"connection closed ({client.goaway})"
            client.pump(wait=0.5)
        resp = client.responses.get(sid, {})
        if resp.get("grpc-status") != "0":
            return f"grpc-status {resp.get('grpc-status')} {resp.get('grpc-message', '')}".strip()
        body = resp.get("_body", b"")
        # 5-byte gRPC frame header, then field 1 (status) varint: 1 SERVING, 2 NOT_SERVING.
        status = body[6] if len(body) >= 7 and body[5] == 0x08 else 0
        return {1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}.get(status, "UNKNOWN")
    finally:
        client.close()


def malloc_stats(pid: int, log_path: str, trim: bool = False) -> dict:
    """Attaches gdb to `pid` and calls glibc's malloc_stats() (it writes to the
    server's stderr, the file `log_path`), with `trim` then malloc_trim(0)
    and malloc_stats() again. Returns the arena count, the bytes glibc holds
    from the system and has in use (kB) and RSS (kB), before and, with `trim`,
    after the trim."""
    if not shutil.which("gdb"):
        return {"error": "gdb not found"}
    calls = ["call (void)malloc_stats()"]
    if trim:
        calls += ["call (int)malloc_trim(0)", "call (void)malloc_stats()"]
    before = rss_kb(pid)
    cmd = ["gdb", "-p", str(pid), "-batch", "-nx"]
    for c in calls:
        cmd += ["-ex", c]
    # gdb may warn "Couldn't write extended state status" in containers; the calls still run.
    subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    time.sleep(0.3)
    out = {"rss_before_kb": before, "rss_after_kb": rss_kb(pid)}
    with open(log_path) as f:
        text = f.read()
    blocks = text.split("Arena 0:")[-(len(calls) + 1) // 2:]
    for name, block in zip(("before", "after"), blocks):
        total = block.split("Total (incl. mmap):")[-1]
        system = re.search(r"system bytes\s*=\s*(\d+)", total)
        in_use = re.search(r"in use bytes\s*=\s*(\d+)", total)
        out[name] = {
            "arenas": 1 + len(re.findall(r"^Arena \d+:", block, re.M)),
            "system_kb": int(system.group(1)) // 1024 if system else 0,
            "in_use_kb": int(in_use.group(1)) // 1024 if in_use else 0,
        }
    return out


def mb(kb: int) -> str:
    return f"{kb / 1024:.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--server", help="menagerie-server binary to start (loopback, free port)")
    where.add_argument("--addr", help="host:port of a running server")
    ap.add_argument("--pid", type=int, help="with --addr: the server's pid, for RSS")
    ap.add_argument("--streams", type=int, default=20000, help="streams per round (default 20000)")
    ap.add_argument("--rounds", type=int, default=3, help="floods, each on a new connection (default 3)")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VAL",
                    help="environment of the started server, e.g. MALLOC_ARENA_MAX=1 (repeatable)")
    ap.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                    help="extra server argument, e.g. --server-arg=--max-streams-per-connection=100000")
    ap.add_argument("--path", default="/menagerie.v1.AnalysisService/ListVariants",
                    help="gRPC method the streams call (default ListVariants, a unary call)")
    ap.add_argument("--hold", type=float, default=1.0, help="seconds the streams stay open (default 1)")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds after the close before RSS is read (default 3)")
    ap.add_argument("--trim", action="store_true",
                    help="after the last round: glibc statistics, malloc_trim(0) through gdb, RSS again")
    ap.add_argument("--malloc-stats", action="store_true",
                    help="after each round: glibc's bytes in use and held from the system (gdb calls malloc_stats)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    a = ap.parse_args()

    env = {}
    for kv in a.env:
        k, sep, v = kv.partition("=")
        if not sep:
            ap.error(f"--env {kv}: want KEY=VAL")
        env[k] = v
    server = None
    log_path = None
    if a.server:
        log_path = f"/tmp/stream_flood.{os.getpid()}.log"
        server = Server(a.server, a.server_arg, env, log_path)
        addr, pid = server.addr, server.pid
        time.sleep(0.5)
    else:
        addr, pid = a.addr, a.pid
    result = {"addr": addr, "streams": a.streams, "env": env, "server_args": a.server_arg, "rounds": []}
    try:
        result["start_kb"] = rss_kb(pid) if pid else 0
        if not a.json:
            print(f"server {addr} pid {pid} env {env or '-'} args {' '.join(a.server_arg) or '-'}")
            print(f"start RSS {mb(result['start_kb'])} MB")
            print("round  sent  refused  other-resets  open  goaway                      peak MB  open MB  after-close MB"
                  + ("  malloc in use MB / from system MB" if a.malloc_stats else ""))
        for r in range(a.rounds):
            res = flood(addr, a.streams, pid, a.path, hold=a.hold, settle_s=a.settle)
            if a.malloc_stats and pid and log_path:
                res["malloc"] = malloc_stats(pid, log_path).get("before")
            result["rounds"].append(res)
            if not a.json:
                print(f"{r + 1:>5} {res['sent']:>5} {res['refused']:>8} {sum(res['other_resets'].values()):>13}"
                      f" {res['open'] if res['open'] is not None else '-':>5}  {str(res['goaway'] or '-')[:26]:<26}"
                      f" {mb(res['peak_kb']):>8} {mb(res['open_kb']):>8} {mb(res['after_kb']):>15}"
                      + (f"  {mb(res['malloc']['in_use_kb']):>16} / {mb(res['malloc']['system_kb'])}"
                         if res.get("malloc") else ""), flush=True)
        result["health"] = health_check(addr)
        if not a.json:
            print(f"health check on a new connection: {result['health']}")
        if a.trim and pid and log_path:
            t = malloc_stats(pid, log_path, trim=True)
            result["trim"] = t
            result["health_after_trim"] = health_check(addr)
            if not a.json and "before" in t:
                for name in ("before", "after"):
                    st = t[name]
                    print(f"malloc_stats {name} trim: {st['arenas']} arenas, {mb(st['system_kb'])} MB from the system,"
                          f" {mb(st['in_use_kb'])} MB in use")
                print(f"malloc_trim(0) via gdb: RSS {mb(t['rss_before_kb'])} -> {mb(t['rss_after_kb'])} MB;"
                      f" health check after: {result['health_after_trim']}")
    finally:
        if server:
            server.stop()
            os.unlink(log_path)
    if a.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
