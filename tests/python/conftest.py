"""Shared fixtures: where the binaries are, and how to run them."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN_DIR = pathlib.Path(os.environ.get("MENAGERIE_BIN_DIR", ROOT / "target" / "release"))


def binary(name: str) -> pathlib.Path:
    path = BIN_DIR / name
    if not path.exists():
        pytest.fail(f"{path} not found: build with `cargo build --release --bins`, or set MENAGERIE_BIN_DIR (scripts/test.sh: target/debug)")
    return path


def menagerie(*args: str, check: bool = True, test_variants: bool = False) -> subprocess.CompletedProcess:
    """Runs the `menagerie` CLI and returns the completed process; with
    `test_variants`, the test-only rule sets (`camel-rhino-plain`) are served
    too (`MENAGERIE_TEST_VARIANTS`)."""
    env = dict(os.environ)
    env.pop("MENAGERIE_TEST_VARIANTS", None)
    if test_variants:
        env["MENAGERIE_TEST_VARIANTS"] = "1"
    proc = subprocess.run([str(binary("menagerie")), *args], capture_output=True, text=True, timeout=120, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"menagerie {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc


def legal_moves(variant: str, fen: str) -> set[str]:
    """Menagerie's legal moves of `fen` (coordinate form) through the CLI
    (test-only rule sets included)."""
    return set(menagerie("moves", "--variant", variant, "--fen", fen, test_variants=True).stdout.split())


def pyffish_playout(sf, variant: str, start: str, plies: int, rng):
    """Yields (fen, sorted legal moves) at each position of one random game
    of Fairy-Stockfish's `variant` (through pyffish, the module `sf`) from
    `start`, moves drawn from `rng`, at most `plies` of them."""
    moves: list[str] = []
    for _ in range(plies):
        legal = sf.legal_moves(variant, start, moves)
        yield sf.get_fen(variant, start, moves), sorted(legal)
        if not legal:
            break
        moves.append(rng.choice(legal))


ORACLE_INI = ROOT / "tests" / "python" / "fsf-variants.ini"
