#!/usr/bin/env python3
"""Seeded games of a variant with xiangqi's chasing rule, and after every
move the pieces it chased, as Fairy-Stockfish's own engine reports them.

Writes one line per game, played at random by pyffish (PyPI `pyffish`)
from the variant's start position, a capture taken with chance
`--captures` when there is one:

    variant;start fen;moves (space-separated);chased

`chased` holds, for each prefix of the moves (none played, one, ...), the
squares of the side to move's pieces that the last move chased, joined by
commas (`-` for none), read from the `Chased:` line of the `d` command of
a Fairy-Stockfish binary built from source (`--engine`). Menagerie's test
`crates/rules/tests/fsf_game_ends.rs` reads such a file.

    python3 benches/fsf_chased.py --engine /tmp/fsf/src/stockfish --games 200 --plies 60 --seed 1 xiangqi
    python3 benches/fsf_chased.py --engine /tmp/fsf/src/stockfish --ini tests/variants/chasing.ini \
        --games 40 --plies 60 --seed 2 manchuchase chesschase
    python3 benches/fsf_chased.py --engine /tmp/fsf/src/stockfish --ini tests/variants/chasing.ini \
        --games 60 --plies 80 --seed 4 janggichase janggimodernchase
"""
import argparse
import random
import subprocess

import pyffish as sf


class Engine:
    """A Fairy-Stockfish process spoken to over UCI."""

    def __init__(self, path: str, variant: str, ini: str | None):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        if ini:
            self.send(f"setoption name VariantPath value {ini}")
        self.send(f"setoption name UCI_Variant value {variant}")

    def send(self, line: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def chased(self, fen: str, moves: list[str]) -> str:
        self.send(f"position fen {fen}" + (" moves " + " ".join(moves) if moves else ""))
        self.send("d")
        assert self.p.stdout is not None
        for line in self.p.stdout:
            if line.startswith("Chased:"):
                squares = line.split()[1:]
                return ",".join(squares) if squares else "-"
        raise RuntimeError("engine ended")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--engine", required=True, help="Fairy-Stockfish binary")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--plies", type=int, default=60)
    ap.add_argument("--captures", type=float, default=0.3, help="chance of taking when one can")
    ap.add_argument("--ini", help="a variants.ini holding the variants (for pyffish and the engine)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if args.ini:
        with open(args.ini) as f:
            sf.load_variant_config(f.read())
    for variant in args.variants:
        engine = Engine(args.engine, variant, args.ini)
        fen = sf.start_fen(variant)
        for _ in range(args.games):
            moves: list[str] = []
            chased = [engine.chased(fen, moves)]
            while len(moves) < args.plies:
                now = sf.get_fen(variant, fen, moves)
                # With the history: janggi's bikjang and passes depend on it.
                legal = sorted(sf.legal_moves(variant, fen, moves))
                if not legal:
                    break
                want = rng.random() < args.captures
                takes = [m for m in legal if sf.is_capture(variant, now, [], m)] if want else []
                move = rng.choice(takes or legal)
                moves.append(move)
                chased.append(engine.chased(fen, moves))
            print(f"{variant};{fen};{' '.join(moves)};{' '.join(chased)}")
        engine.send("quit")


if __name__ == "__main__":
    main()
