"""Differential tests against an independent reference implementation of RULES.md.

`refimpl/` is a plain-Python mailbox implementation of every variant, written
from RULES.md alone without looking at the engine. Here the two must agree, at
every position of seeded random playouts in every variant, on the set of legal
moves (coordinate notation) and on the FEN after each of them, and on low-depth
perft of every line of the perft suites.
"""
import pathlib
import random
import sys

import pytest

from conftest import ROOT, menagerie

sys.path.insert(0, str(pathlib.Path(__file__).parent / "refimpl"))
import rules  # noqa: E402

VARIANTS = ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino"]


def our_successors(variant: str, fen: str) -> dict[str, str]:
    out = menagerie("moves", "--variant", variant, "--fen", fen, "--fens").stdout
    pairs = [line.split(" ", 1) for line in out.splitlines()]
    moves = dict(pairs)
    assert len(moves) == len(pairs), f"duplicate move strings in {fen}"
    return moves


def ref_successors(variant: str, fen: str) -> dict[str, str]:
    pos = rules.parse_fen(variant, fen)
    return {m: rules.format_fen(p) for m, p in rules.legal_successors(pos).items()}


def check_position(variant: str, fen: str) -> dict[str, str]:
    ours = our_successors(variant, fen)
    ref = ref_successors(variant, fen)
    assert set(ours) == set(ref), (
        f"{variant} {fen}: only Menagerie {sorted(set(ours) - set(ref))}, only reference {sorted(set(ref) - set(ours))}"
    )
    for m in ours:
        assert ours[m] == ref[m], f"{variant} {fen} after {m}: Menagerie {ours[m]} reference {ref[m]}"
    return ours


def suite_fens(variant: str) -> list[str]:
    fens = [rules.START_FENS[variant]]
    for path in (ROOT / "tests" / "perft").glob("*.epd"):
        for line in path.read_text().splitlines():
            if line.startswith("#") or not line.strip():
                continue
            parts = [p.strip() for p in line.split(";")]
            named = [p.split(None, 1)[1] for p in parts[1:] if p.startswith("variant ")]
            if (named[0] if named else "chess") == variant:
                fens.append(parts[0])
    return fens


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_playouts_agree_with_reference(variant):
    rng = random.Random(f"menagerie-{variant}")
    starts = suite_fens(variant)
    checked = 0
    for game in range(12):
        fen = starts[game % len(starts)]
        for _ply in range(20 if variant == "camel-rhino" else 30):
            succ = check_position(variant, fen)
            checked += 1
            if not succ:
                break
            # Favour the moves of special powers so they are reached often.
            special = [m for m in succ if m.endswith("t") or "@" in m]
            move = rng.choice(special) if special and rng.random() < 0.4 else rng.choice(sorted(succ))
            fen = succ[move]
    assert checked >= 50


@pytest.mark.parametrize("variant", VARIANTS)
def test_suite_perft_agrees_with_reference(variant):
    for fen in suite_fens(variant):
        depth = 2
        ours = int(menagerie("perft", "--variant", variant, "--fen", fen, str(depth)).stdout.split()[-1])
        assert ours == rules.perft(rules.parse_fen(variant, fen), depth), f"{variant} {fen} depth {depth}"
