"""menagerie-server from a foreign client: Python grpcio stubs generated from
proto/ with grpcio-tools, against the built `menagerie-server` binary.

Checks that the wire contract holds outside tonic: unary calls, server
streams, an error with its google.rpc details, and a client deadline.
"""
import importlib
import os
import socket
import subprocess
import sys
import time

import grpc
import grpc_tools  # noqa: F401  (grpcio-tools: protoc for the stubs)
import pytest

from conftest import ROOT, binary

PROTO_DIR = ROOT / "proto"
PROTO = PROTO_DIR / "menagerie" / "v1" / "analysis.proto"


@pytest.fixture(scope="module")
def pb(tmp_path_factory):
    """The generated modules (`analysis_pb2`, `analysis_pb2_grpc`)."""
    out = tmp_path_factory.mktemp("stubs")
    proc = subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_DIR}",
         f"--python_out={out}", f"--grpc_python_out={out}", str(PROTO)],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, f"protoc failed: {proc.stderr}"
    sys.path.insert(0, str(out))
    try:
        messages = importlib.import_module("menagerie.v1.analysis_pb2")
        services = importlib.import_module("menagerie.v1.analysis_pb2_grpc")
    finally:
        sys.path.remove(str(out))
    return messages, services


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def stub(pb, tmp_path_factory):
    """A stub connected to a freshly started menagerie-server (killed afterwards)."""
    messages, services = pb
    log = tmp_path_factory.mktemp("server") / "server.log"
    port = free_port()
    env = dict(os.environ, RUST_LOG="warn")
    with open(log, "w") as out:
        server = subprocess.Popen(
            [str(binary("menagerie-server")), "--listen", f"127.0.0.1:{port}", "--max-jobs", "4"],
            stdout=out, stderr=subprocess.STDOUT, env=env,
        )
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        stub = services.AnalysisServiceStub(channel)
        stub.target = f"127.0.0.1:{port}"  # for tests that open their own channel
        deadline = time.monotonic() + 30
        while True:
            if server.poll() is not None:
                pytest.fail(f"menagerie-server exited with {server.returncode}: {log.read_text()}")
            try:
                stub.ListVariants(messages.ListVariantsRequest(), timeout=2)
                break
            except grpc.RpcError:
                if time.monotonic() > deadline:
                    pytest.fail(f"menagerie-server did not answer: {log.read_text()}")
                time.sleep(0.1)
        yield stub
    finally:
        channel.close()
        server.kill()
        server.wait(timeout=30)


def position(pb, variant="chess", fen="", moves=()):
    return pb[0].Position(variant=variant, fen=fen, moves=list(moves))


def test_list_variants(pb, stub):
    reply = stub.ListVariants(pb[0].ListVariantsRequest(), timeout=10)
    names = [v.name for v in reply.variants]
    # The compiled variants, then those defined as data (variants.ini).
    assert names[:8] == ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino",
                         "chess960"]
    camel = reply.variants[6]
    assert (camel.files, camel.ranks) == (10, 10)
    assert not any(v.defined_as_data for v in reply.variants[:8])
    assert "makruk" in names[8:] and all(v.defined_as_data for v in reply.variants[8:])


def test_data_variant_listed_and_perft(pb, stub):
    """A variant defined as data: listed with its board and start FEN, and
    counted by the Perft stream (moves in coordinate form and SAN),
    analysed by BestMove and drawn by RenderBoard."""
    m = pb[0]
    reply = stub.ListVariants(m.ListVariantsRequest(), timeout=10)
    capablanca = next(v for v in reply.variants if v.name == "capablanca")
    assert capablanca.defined_as_data and (capablanca.files, capablanca.ranks) == (10, 8)
    assert capablanca.start_fen.startswith("rnabqkbcnr/pppppppppp/")
    events = list(stub.Perft(m.PerftRequest(position=position(pb, "makruk"), depth=3), timeout=60))
    divides = [e.divide for e in events if e.WhichOneof("event") == "divide"]
    assert events[-1].WhichOneof("event") == "total" and events[-1].total.nodes == 12012
    assert len(divides) == 23 and sum(d.nodes for d in divides) == 12012
    assert {(d.move, d.san) for d in divides} >= {("e3e4", "e4"), ("b1d2", "Nd2")}
    # Best-move analysis, with the reply in SAN too.
    best = stub.BestMove(m.BestMoveRequest(position=position(pb, "makruk"), depth=3), timeout=30)
    assert best.best_move in {d.move for d in divides} and best.best_move_san
    assert best.depth == 3 and best.lines[0].pv[0] == best.best_move
    # A picture of the board: 64 squares, the 32 pieces of Makruk's start.
    svg = stub.RenderBoard(m.RenderBoardRequest(position=position(pb, "makruk")), timeout=10).svg
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert svg.count('class="square ') == 64 and svg.count('class="piece ') == 32


def test_validate_move(pb, stub):
    m = pb[0]
    r = stub.ValidateMove(m.ValidateMoveRequest(position=position(pb), move="e2e4"), timeout=10)
    assert r.legal and r.uci == "e2e4" and r.san == "e4"
    assert r.fen.startswith("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq")
    assert not r.HasField("outcome")

    r = stub.ValidateMove(m.ValidateMoveRequest(position=position(pb, moves=["f3", "e5", "g4"]), move="Qh4#"),
                          timeout=10)
    assert r.legal and r.check and r.uci == "d8h4"
    assert (r.outcome.result, r.outcome.winner, r.outcome.reason) == ("0-1", "black", "checkmate")

    r = stub.ValidateMove(m.ValidateMoveRequest(position=position(pb), move="e2e5"), timeout=10)
    assert not r.legal and r.reason


def test_perft_stream(pb, stub):
    events = list(stub.Perft(pb[0].PerftRequest(position=position(pb), depth=4), timeout=60))
    divides = [e.divide for e in events if e.WhichOneof("event") == "divide"]
    totals = [e.total for e in events if e.WhichOneof("event") == "total"]
    assert len(divides) == 20
    assert len(totals) == 1 and events[-1].WhichOneof("event") == "total"
    assert totals[0].nodes == 197281
    assert sum(d.nodes for d in divides) == 197281
    assert {d.move: d.san for d in divides}["g1f3"] == "Nf3"


def test_analyze_stream(pb, stub):
    req = pb[0].AnalyzeRequest(position=position(pb, moves=["e4"]), depth=5, multipv=2)
    events = list(stub.Analyze(req, timeout=60))
    assert events and events[-1].WhichOneof("event") == "best_move"
    infos = [e.info for e in events[:-1]]
    assert infos and all(e.WhichOneof("event") == "info" for e in events[:-1])
    assert [i.depth for i in infos] == sorted(set(i.depth for i in infos))
    for i in infos:
        assert [l.multipv for l in i.lines] == [1, 2]
        assert all(len(l.pv) == len(l.pv_san) > 0 for l in i.lines)
    best = events[-1].best_move
    assert best.best_move and best.best_move_san and best.depth == 5
    assert best.lines[0].pv[0] == best.best_move


def test_best_move(pb, stub):
    r = stub.BestMove(pb[0].BestMoveRequest(position=position(pb, "camel-rhino"), depth=2), timeout=60)
    assert r.best_move and r.best_move_san


def test_invalid_argument_names_the_field(pb, stub):
    m = pb[0]
    with pytest.raises(grpc.RpcError) as err:
        stub.LegalMoves(m.LegalMovesRequest(position=position(pb, "tamerlane")), timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "tamerlane" in err.value.details()
    # google.rpc.Status with a BadRequest naming the field, in the trailers.
    details = dict(err.value.trailing_metadata()).get("grpc-status-details-bin", b"")
    assert b"google.rpc.BadRequest" in details and b"position.variant" in details

    with pytest.raises(grpc.RpcError) as err:
        stub.LegalMoves(m.LegalMovesRequest(position=position(pb, moves=["e4", "hello"])), timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert b"position.moves[1]" in dict(err.value.trailing_metadata()).get("grpc-status-details-bin", b"")

    with pytest.raises(grpc.RpcError) as err:
        list(stub.Perft(m.PerftRequest(position=position(pb, fen="not a fen"), depth=2), timeout=10))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_error_details_decode_through_server_reflection(pb, stub):
    """What grpcurl does: learn google.rpc.Status and BadRequest from the
    server's reflection service alone (no local .proto), then decode the
    details of a real error with them."""
    from google.protobuf import descriptor_pool, message_factory
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
        ProtoReflectionDescriptorDatabase,
    )

    m = pb[0]
    with pytest.raises(grpc.RpcError) as err:
        stub.ValidateMove(m.ValidateMoveRequest(position=position(pb, "tamerlane"), move="e4"), timeout=10)
    raw = dict(err.value.trailing_metadata()).get("grpc-status-details-bin", b"")
    assert raw

    channel = grpc.insecure_channel(stub.target)
    try:
        pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
        service = pool.FindServiceByName("menagerie.v1.AnalysisService")
        assert "ReplayMoves" in [method.name for method in service.methods]
        status_cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("google.rpc.Status"))
        bad_cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("google.rpc.BadRequest"))
        status = status_cls.FromString(raw)
        assert status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        bad = [d for d in status.details if d.type_url.endswith("/google.rpc.BadRequest")]
        assert len(bad) == 1
        request = bad_cls.FromString(bad[0].value)
        assert [v.field for v in request.field_violations] == ["position.variant"]
        assert "tamerlane" in request.field_violations[0].description
        for name in ("google.rpc.PreconditionFailure", "google.rpc.RetryInfo"):
            assert pool.FindMessageTypeByName(name).full_name == name
    finally:
        channel.close()


def test_deadline_exceeded(pb, stub):
    with pytest.raises(grpc.RpcError) as err:
        list(stub.Perft(pb[0].PerftRequest(position=position(pb), depth=7), timeout=0.3))
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    # The server is still fine afterwards.
    r = stub.LegalMoves(pb[0].LegalMovesRequest(position=position(pb)), timeout=10)
    assert len(r.moves) == 20


def test_annotate_game_output_opens_in_python_chess(pb, stub):
    """A real 70-move game annotated through the API: every position and move
    streamed, and the annotated PGN read back by python-chess with its evals,
    NAGs and variations."""
    import io

    import chess.pgn

    m = pb[0]
    text = (ROOT / "tests" / "pgn" / "long-chess.pgn").read_text()
    events = list(stub.AnnotateGame(m.AnnotateGameRequest(pgn=text, nodes=2000, threads=2), timeout=300))
    kinds = [e.WhichOneof("event") for e in events]
    assert kinds[0] == "started" and kinds[-1] == "summary"
    assert kinds.count("position") == 141 and kinds.count("move") == 140
    summary = events[-1].summary
    assert summary.variant == "chess" and summary.white.moves == 70 and summary.black.moves == 70
    assert summary.white.HasField("accuracy") and 0 <= summary.white.accuracy <= 100

    original = chess.pgn.read_game(io.StringIO(text))
    game = chess.pgn.read_game(io.StringIO(summary.annotated_pgn))
    assert not game.errors, game.errors
    assert list(game.mainline_moves()) == list(original.mainline_moves())
    evals = [node.eval() for node in game.mainline()]
    # Every move but the mating one carries [%eval]; the last is checkmate.
    assert sum(e is not None for e in evals) >= 139
    assert game.end().board().is_checkmate()
    reviews = sorted((e.move for e in events if e.WhichOneof("event") == "move"), key=lambda r: r.ply)
    errors = [r for r in reviews if r.classification >= m.MOVE_CLASSIFICATION_INACCURACY]
    nags = {2: m.MOVE_CLASSIFICATION_MISTAKE, 4: m.MOVE_CLASSIFICATION_BLUNDER, 6: m.MOVE_CLASSIFICATION_INACCURACY}
    for node, review in zip(game.mainline(), reviews):
        assert node.san() == review.played_san
        marked = {nags[n] for n in node.nags if n in nags}
        if review.classification >= m.MOVE_CLASSIFICATION_INACCURACY:
            assert marked == {review.classification}, (review.played_san, node.nags)
            if review.classification >= m.MOVE_CLASSIFICATION_MISTAKE:
                # The engine's line is a variation at this move.
                assert len(node.parent.variations) >= 2
        else:
            assert not marked
    assert errors, "a game between weak engines has at least one inaccuracy"
