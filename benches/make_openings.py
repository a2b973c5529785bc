#!/usr/bin/env python3
"""Opening positions for strength matches: random legal plies from each
variant's start (prelude choices included) or from a given position, kept
only when a short search finds the position roughly balanced. Reproducible
(seeded); writes EPD that `menagerie match --openings` reads.

    python3 benches/make_openings.py --variant camel-rhino --count 100 \
        --plies 8 --seed 1 > benches/openings/camel-rhino.epd
    python3 benches/make_openings.py --variant alpaca --plies 6 --seed 3 --count 40 \
        --fen "rnbqkbnr/pppppppp/2a5/8/8/5A2/PPPPPPPP/RNBQKBNR w KQkq - 0 1" \
        > alpaca-onboard-more.epd

Needs target/release/menagerie (cargo build --release -p menagerie-cli).
"""
import argparse
import pathlib
import random
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
M = str(ROOT / "target" / "release" / "menagerie")


def run(*args: str) -> str:
    return subprocess.run([M, *args], capture_output=True, text=True, check=True).stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--plies", type=int, default=8, help="random plies after the prelude")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--depth", type=int, default=6, help="balance check search depth")
    ap.add_argument("--max-cp", type=int, default=80, help="largest |score| kept")
    ap.add_argument("--fen", help="start from this position instead of the variant's start")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    seen = set()
    out = 0
    tries = 0
    start = ["--fen", args.fen] if args.fen else []
    origin = f" from {args.fen}" if args.fen else ""
    print(f"# {args.variant}: {args.count} openings, {args.plies} random plies{origin}, seed {args.seed}, "
          f"|score| <= {args.max_cp} cp at depth {args.depth} (benches/make_openings.py)")
    while out < args.count and tries < args.count * 50:
        tries += 1
        moves: list[str] = []
        plies = 0
        fen = None
        while plies < args.plies:
            lines = run("moves", "--variant", args.variant, *start, "--moves", " ".join(moves), "--fens").splitlines()
            if not lines:
                break
            move, fen = rng.choice(lines).split(" ", 1)
            moves.append(move)
            # Prelude actions do not count as plies of the game.
            if not re.match(r"^(accept|decline|[A-Z]@)", move):
                plies += 1
        if fen is None or plies < args.plies or fen in seen:
            continue
        if not run("moves", "--variant", args.variant, "--fen", fen).strip():
            continue
        text = run("analyze", "--variant", args.variant, "--fen", fen, "--depth", str(args.depth))
        scores = re.findall(r"score cp (-?\d+)", text)
        if not scores or abs(int(scores[-1])) > args.max_cp:
            continue
        seen.add(fen)
        print(f"{fen} ;variant {args.variant}")
        out += 1
    if out < args.count:
        print(f"only {out} openings found", file=sys.stderr)


if __name__ == "__main__":
    main()
