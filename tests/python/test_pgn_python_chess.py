"""PGN between Menagerie and python-chess, a foreign reader and writer.

python-chess reads the orthodox games `menagerie pgn` writes (tags,
comments, NAGs, nested variations) without errors and finds the same moves
and final positions as `menagerie pgn --uci` / `--fen`; and Menagerie reads
a game python-chess writes to the same final position.
"""
import io
import random
import subprocess

import chess
import chess.pgn

from conftest import ROOT, binary

ORTHODOX = str(ROOT / "tests" / "pgn" / "orthodox.pgn")
VARIANTS = str(ROOT / "tests" / "pgn" / "variants.pgn")


def menagerie(*args: str, input_text: str = "") -> subprocess.CompletedProcess:
    """Runs `menagerie ARGS` with `input_text` on stdin; it must succeed."""
    proc = subprocess.run(
        [str(binary("menagerie")), *args], input=input_text, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, f"menagerie {' '.join(args)} failed ({proc.returncode}): {proc.stderr}"
    return proc


def read_all(text: str) -> list:
    games = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    return games


def test_python_chess_reads_what_menagerie_writes():
    exported = menagerie("pgn", ORTHODOX).stdout
    uci = menagerie("pgn", "--uci", ORTHODOX).stdout.splitlines()
    fens = menagerie("pgn", "--fen", ORTHODOX).stdout.splitlines()
    games = read_all(exported)
    assert len(games) == 2
    for game, moves, fen in zip(games, uci, fens):
        assert not game.errors, game.errors
        assert [m.uci() for m in game.mainline_moves()] == moves.split()
        assert game.end().board().fen(en_passant="fen") == fen
    opera = games[0]
    assert opera.headers["White"] == "Morphy, Paul"
    assert opera.headers["Result"] == "1-0"
    assert opera.headers["ECO"] == "C41"
    assert opera.comment == "The Opera Game."
    nodes = list(opera.mainline())
    assert nodes[5].san() == "Bg4" and nodes[5].nags == {chess.pgn.NAG_DUBIOUS_MOVE}
    assert nodes[5].comment == "A passive pin."
    # 8. Nc3 has the alternative 8. Qxb7; 15... Nxd7 one with a nested line.
    assert [v.san() for v in nodes[13].variations] == ["Nc3", "Qxb7"]
    alt = nodes[28].variations[1]
    assert alt.san() == "Qxd7"
    assert [v.san() for v in alt.variations] == ["Qb8+", "Bxf6"]
    assert opera.end().board().is_checkmate()


def test_python_chess_reads_a_random_playout_with_variations():
    # The first game of the fixture is orthodox: NAGs, comments, nested variations.
    text = menagerie("pgn", VARIANTS).stdout
    game = chess.pgn.read_game(io.StringIO(text))
    assert not game.errors, game.errors
    assert game.headers.get("Variant") is None
    first_uci = menagerie("pgn", "--uci", VARIANTS).stdout.splitlines()[0]
    first_fen = menagerie("pgn", "--fen", VARIANTS).stdout.splitlines()[0]
    assert [m.uci() for m in game.mainline_moves()] == first_uci.split()
    assert game.end().board().fen(en_passant="fen") == first_fen
    assert sum(len(n.variations) > 1 for n in game.mainline()) >= 3


def test_menagerie_reads_what_python_chess_writes():
    rng = random.Random(20261201)
    for _ in range(5):
        board = chess.Board()
        game = chess.pgn.Game()
        game.headers["White"] = "python-chess"
        node = game
        while not board.is_game_over() and board.ply() < 160:
            move = rng.choice(list(board.legal_moves))
            node = node.add_variation(move)
            if rng.random() < 0.1:
                node.comment = "a comment"
            if rng.random() < 0.1:
                node.nags.add(chess.pgn.NAG_GOOD_MOVE)
            board.push(move)
        game.headers["Result"] = board.result(claim_draw=False)
        text = str(game) + "\n"
        fen = menagerie("pgn", "--fen", "-", input_text=text).stdout.strip()
        assert fen == board.fen(en_passant="fen")
        uci = menagerie("pgn", "--uci", "-", input_text=text).stdout.split()
        assert uci == [m.uci() for m in board.move_stack]
