"""Issue 45 item 13: one connection opening thousands of bodiless calls,
ignoring SETTINGS_MAX_CONCURRENT_STREAMS, against the built
`menagerie-server`. The server keeps 256 open (--max-streams-per-connection),
refuses the rest with RST_STREAM REFUSED_STREAM, still answers a new
connection, and its memory does not climb round after round. The client is
`benches/stream_flood.py` (PyPI h2)."""
import sys

from conftest import ROOT, binary

sys.path.insert(0, str(ROOT / "benches"))
try:
    import stream_flood
finally:
    sys.path.remove(str(ROOT / "benches"))

STREAMS = 2000
CAP = 256  # the server's default --max-streams-per-connection


def test_streams_beyond_the_cap_are_refused_and_memory_stays_flat(tmp_path):
    server = stream_flood.Server(str(binary("menagerie-server")), [], {}, str(tmp_path / "server.log"))
    try:
        rounds = [
            stream_flood.flood(server.addr, STREAMS, server.pid, "/menagerie.v1.AnalysisService/ListVariants",
                               hold=0.0, settle_s=0.5)
            for _ in range(3)
        ]
        for r in rounds:
            assert r["sent"] == STREAMS, r
            assert r["goaway"] is None and not r["peer_closed"], r
            assert r["refused"] == STREAMS - CAP, r
            assert r["other_resets"] == {}, r
            assert r["open"] == CAP, r
        assert stream_flood.health_check(server.addr) == "SERVING"
        # Without the cap, 20,000 such streams took the server from 12 to
        # 198 MB and 2,000 cost about 9 KB each while open (benches/README.md,
        # "Stream floods and memory"); with it, a few MB. The bound is
        # generous: only a climb of tens of MB would cross it.
        assert rounds[-1]["after_kb"] - rounds[0]["after_kb"] < 32 * 1024, rounds
        assert rounds[-1]["peak_kb"] < rounds[0]["peak_kb"] + 32 * 1024, rounds
    finally:
        server.stop()
