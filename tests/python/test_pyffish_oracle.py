"""Differential tests against Fairy-Stockfish (pyffish) for plain piece movement.

Fairy-Stockfish cannot express Pioneer gating, kidnapping, takeovers or swaps,
so these compare what it can: orthodox chess with Alpacas already on the board
(our `alpaca` with an empty reserve), and Camel and Rhino Chess movement with
the special powers switched off (our test-only `camel-rhino-plain`). Positions
come from seeded random playouts; at every position the legal move sets must
be equal.
"""
import random

import pyffish as sf
import pytest

from conftest import ORACLE_INI, legal_moves as ours, pyffish_playout

sf.load_variant_config(ORACLE_INI.read_text())

ALPACA_STARTS = [
    "rnbqkbnr/pppppppp/2a5/8/8/5A2/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppppppp/2n2n2/3a4/4A3/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 0 1",
    "r3k2r/ppp2ppp/2a1a3/3pp3/3PP3/2A1A3/PPP2PPP/R3K2R w KQkq - 0 1",
    "4k3/1P4a1/8/3A4/8/8/1a4p1/4K3 w - - 0 1",
]

PLAIN_STARTS = [
    "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1",
    "r8r/1h1bqk1nc1/pppz2pppp/4w5/3W1w4/5b4/4WN4/PPPP2PPPP/1HZBQK2C1/R8R w - - 0 1",
    "4k5/1P6c1/10/2C7/10/5h4/10/3H6/6p3/4K5 w - - 0 1",
]


def playout_positions(fsf_variant: str, starts: list[str], games: int, plies: int, seed: int):
    rng = random.Random(seed)
    for g in range(games):
        yield from pyffish_playout(sf, fsf_variant, starts[g % len(starts)], plies, rng)


def compare(our_variant: str, fsf_variant: str, starts, games, plies, seed) -> int:
    n = 0
    for fen, theirs in playout_positions(fsf_variant, starts, games, plies, seed):
        mine = ours(our_variant, fen)
        assert mine == set(theirs), (
            f"{fen}: only Menagerie {sorted(mine - set(theirs))}, only Fairy-Stockfish {sorted(set(theirs) - mine)}"
        )
        n += 1
    return n


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_alpaca_movement_matches_fairy_stockfish(seed):
    assert compare("alpaca", "alpaca", ALPACA_STARTS, games=4, plies=30, seed=seed) >= 100


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_camel_rhino_plain_movement_matches_fairy_stockfish(seed):
    assert compare("camel-rhino-plain", "camelrhinoplain", PLAIN_STARTS, games=3, plies=35, seed=seed) >= 90
