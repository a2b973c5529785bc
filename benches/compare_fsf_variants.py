#!/usr/bin/env python3
"""Perft speed of Menagerie's data-defined variants against Fairy-Stockfish.

For every variant of Fairy-Stockfish's published perft suite that Menagerie
defines as data, and for games of each family of its built-ins (drops, shogi,
xiangqi, the lichess games, flag wins), both programs count perft from the
variant's start position at the same depth, one thread each, one process per
run, timed on the wall clock from process start to exit (start-up included for
both). Node counts
must agree or the script exits with 1. Prints a table with nodes per second
and the ratio Menagerie / Fairy-Stockfish.

Usage: benches/compare_fsf_variants.py --engine PATH [--menagerie PATH]
           [--variants makruk,shako] [--depth-offset N] [--repeat N]

Fairy-Stockfish must be built from its public source with `largeboards=yes`
(10x10 and 12x8 boards); Debian's 11.1 package lacks some of these games.
"""
import argparse
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Variant and depth: each run takes a few seconds at Fairy-Stockfish's speed.
DEPTHS = {
    "makruk": 5,
    "shatranj": 5,
    "amazon": 5,
    "nightrider": 5,
    "grasshopper": 5,
    "knightmate": 5,
    "seirawan": 5,
    "capablanca": 5,
    "embassy": 5,
    "janus": 5,
    "chancellor": 5,
    "courier": 5,
    "shako": 4,
    # The families of Fairy-Stockfish's built-ins (issue 48): drops, the
    # shogi and xiangqi families, the lichess games, flag wins.
    "crazyhouse": 5,
    "shogi": 5,
    "minishogi": 6,
    "kyotoshogi": 6,
    "xiangqi": 5,
    "janggi": 5,
    "atomic": 6,
    "antichess": 6,
    "horde": 6,
    "kingofthehill": 6,
    "racingkings": 5,
    "3check": 6,
    "grand": 4,
}


def timed(cmd: list[str], stdin: str | None = None) -> tuple[str, float]:
    t = time.perf_counter()
    out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout
    return out, time.perf_counter() - t


def menagerie(binary: str, variant: str, depth: int) -> tuple[int, float]:
    out, secs = timed([binary, "perft", "--variant", variant, str(depth)])
    return int(out.split()[-1]), secs


def fairy(engine: str, variant: str, depth: int) -> tuple[int, float]:
    script = f"uci\nsetoption name UCI_Variant value {variant}\nposition startpos\ngo perft {depth}\nquit\n"
    out, secs = timed([engine], script)
    for line in out.splitlines():
        if line.startswith("Nodes searched:"):
            return int(line.split(":")[1]), secs
    raise SystemExit(f"error: no perft count from {engine} for {variant}:\n{out}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, help="Fairy-Stockfish binary (largeboards build)")
    ap.add_argument("--menagerie", default=str(ROOT / "target" / "release" / "menagerie"))
    ap.add_argument("--variants", default=",".join(DEPTHS), help="comma-separated subset")
    ap.add_argument("--depth-offset", type=int, default=0, help="added to every depth (e.g. -1 for a smoke test)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per program and variant; the fastest counts")
    args = ap.parse_args()

    print(f"{'variant':<14} {'depth':>5} {'nodes':>12} {'menagerie n/s':>14} {'fairy-sf n/s':>13} {'ratio':>6}")
    bad = False
    for variant in args.variants.split(","):
        depth = DEPTHS[variant] + args.depth_offset
        ours = min((menagerie(args.menagerie, variant, depth) for _ in range(args.repeat)), key=lambda r: r[1])
        theirs = min((fairy(args.engine, variant, depth) for _ in range(args.repeat)), key=lambda r: r[1])
        if ours[0] != theirs[0]:
            print(f"{variant}: node counts differ: menagerie {ours[0]}, fairy-stockfish {theirs[0]}", file=sys.stderr)
            bad = True
            continue
        a, b = ours[0] / ours[1], theirs[0] / theirs[1]
        print(f"{variant:<14} {depth:>5} {ours[0]:>12} {a / 1e6:>12.1f} M {b / 1e6:>11.1f} M {a / b:>6.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
