#!/usr/bin/env python3
"""Seeded games of Fairy-Stockfish variants with the game ends that look at
the whole game (repetitions, move repetitions, the move rule), as pyffish
sees them.

Writes one line per game played by pyffish (Fairy-Stockfish's Python
binding, PyPI `pyffish`) from the variant's start position:

    variant;start fen;moves (space-separated);ends

`ends` holds, for each prefix of the moves (none played, one, ...), the
optional game end after it for the side to move, as `is_optional_game_end`
reports it: `-` if none, else `win`, `loss` or `draw`. A game stops at its
first end. With `--shuffle P` a side undoes its own previous move with
chance P when it can, so that repetitions and janggi's move repetitions
(`moveRepetitionIllegal`) occur. Menagerie's test
`crates/rules/tests/fsf_game_ends.rs` reads such a file.

    python3 benches/fsf_game_ends.py --games 40 --plies 80 --shuffle 0.7 --seed 1 janggimodern
"""
import argparse
import random

import pyffish as sf


def end(variant: str, fen: str, moves: list[str]) -> str:
    ended, value = sf.is_optional_game_end(variant, fen, moves)
    if not ended:
        return "-"
    return "win" if value > 0 else "loss" if value < 0 else "draw"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--plies", type=int, default=80)
    ap.add_argument("--shuffle", type=float, default=0.7, help="chance of undoing the own previous move")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for variant in args.variants:
        fen = sf.start_fen(variant)
        for _ in range(args.games):
            moves: list[str] = []
            ends = [end(variant, fen, moves)]
            while len(moves) < args.plies and ends[-1] == "-":
                legal = sf.legal_moves(variant, fen, moves)
                if not legal:
                    break
                back = moves[-2][2:] + moves[-2][:2] if len(moves) >= 2 else None
                if back in legal and rng.random() < args.shuffle:
                    move = back
                else:
                    move = rng.choice(sorted(legal))
                moves.append(move)
                ends.append(end(variant, fen, moves))
            print(f"{variant};{fen};{' '.join(moves)};{' '.join(ends)}")


if __name__ == "__main__":
    main()
