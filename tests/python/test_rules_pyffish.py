"""Differential tests of the variants Menagerie defines as data against Fairy-Stockfish.

Menagerie's data-defined variants (Betza pieces and rule options, read from the
built-in `variants.ini` or a user's file) are compared with Fairy-Stockfish's own
built-in definitions of the same games, through pyffish (its Python binding,
PyPI): along seeded random playouts, at every position the legal move sets must
be equal, and so must the FEN after every move.
"""
import random

import pyffish as sf
import pytest

from conftest import legal_moves as ours, menagerie, pyffish_playout

# Every game of Fairy-Stockfish's published perft suite that Menagerie defines as data.
DATA_VARIANTS = [
    "makruk",
    "cambodian",
    "karouk",
    "shatranj",
    "amazon",
    "nightrider",
    "grasshopper",
    "knightmate",
    "seirawan",
    "capablanca",
    "embassy",
    "janus",
    "chancellor",
    "courier",
    "shako",
]

GAMES = 3
PLIES = 60


def playout(variant: str, seed: int):
    """Yields (fen, legal moves) along one seeded random game from the start."""
    yield from pyffish_playout(sf, variant, sf.start_fen(variant), PLIES, random.Random(seed))


@pytest.mark.parametrize("variant", DATA_VARIANTS)
def test_move_lists_match_fairy_stockfish_along_random_games(variant):
    positions = 0
    for game in range(GAMES):
        for fen, theirs in playout(variant, seed=1000 * game + len(variant)):
            mine = ours(variant, fen)
            assert mine == set(theirs), (
                f"{variant} {fen}: only Menagerie {sorted(mine - set(theirs))}, "
                f"only Fairy-Stockfish {sorted(set(theirs) - mine)}"
            )
            positions += 1
    assert positions >= GAMES * 10


@pytest.mark.parametrize("variant", DATA_VARIANTS)
def test_start_position_and_fen_after_moves_match(variant):
    start = sf.start_fen(variant)
    listed = menagerie("--json", "variants").stdout
    assert f'"name":"{variant}"' in listed.replace(" ", "")
    rng = random.Random(7)
    moves: list[str] = []
    for _ in range(12):
        legal = sf.legal_moves(variant, start, moves)
        if not legal:
            break
        moves.append(rng.choice(legal))
    theirs = sf.get_fen(variant, start, moves)
    out = menagerie("--json", "validate", "--variant", variant, "--moves", " ".join(moves[:-1]), moves[-1]).stdout
    assert f'"fen":"{theirs}"' in out, f"{variant}: expected {theirs}, got {out}"


def san_moves(variant: str, fen: str) -> dict[str, str]:
    """Menagerie's legal moves of `fen` with their SAN, through the CLI."""
    out = menagerie("moves", "--variant", variant, "--fen", fen, "--san").stdout
    return dict(line.split(" ", 1) for line in out.splitlines() if line)


@pytest.mark.parametrize("variant", DATA_VARIANTS)
def test_san_matches_fairy_stockfish_along_random_games(variant):
    """Every legal move's SAN equals pyffish's, and reads back as that move."""
    checked = 0
    for game in range(1):
        for fen, theirs in playout(variant, seed=77 + 1000 * game + len(variant)):
            mine = san_moves(variant, fen)
            assert set(mine) == set(theirs), f"{variant} {fen}: move lists differ"
            for uci in theirs:
                want = sf.get_san(variant, fen, uci)
                assert mine[uci] == want, f"{variant} {fen} {uci}: Menagerie {mine[uci]}, Fairy-Stockfish {want}"
                checked += 1
    assert checked >= 100
    # SAN reads back: every SAN of one position validates to its move.
    fen = sf.start_fen(variant)
    for uci, san in list(san_moves(variant, fen).items())[:8]:
        out = menagerie("--json", "validate", "--variant", variant, "--fen", fen, san).stdout
        assert f'"move":"{uci}"' in out.replace(" ", ""), f"{variant}: {san} read as {out}"
