#!/usr/bin/env python3
"""Random-playout positions of Fairy-Stockfish variants, as pyffish sees them.

Writes one line per position of seeded random games played by pyffish
(Fairy-Stockfish's Python binding, PyPI `pyffish`):

    variant;fen;move played next (or -);result;legal move count;digest

`result` is the game's end in that position for the side to move (`-` if
the game goes on, `win`, `loss` or `draw`): an immediate end (flag, checks,
extinction) as `is_immediate_game_end` reports it, else checkmate or
stalemate when there are no legal moves. `digest` is the FNV-1a 64-bit hash
(hex) of the sorted legal moves joined by spaces. Menagerie's test
`crates/rules/tests/fsf_positions.rs` reads such a file: the committed
`tests/perft/flags-checks-pyffish.txt`, or a larger one named by
MENAGERIE_FSF_POSITIONS.

    python3 benches/fsf_positions.py --games 20 --plies 200 kingofthehill racingkings 3check 5check > out.txt
"""
import argparse
import random
import sys

import pyffish as sf


def fnv1a(text: str) -> str:
    h = 0xCBF29CE484222325
    for b in text.encode():
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def result(variant: str, fen: str, legal: list[str]) -> str:
    ended, value = sf.is_immediate_game_end(variant, fen, [])
    if not ended and legal:
        return "-"
    if not ended:
        value = sf.game_result(variant, fen, [])
    return "win" if value > 0 else "loss" if value < 0 else "draw"


def toward_end(variant: str, fen: str, legal: list[str]) -> list[str]:
    """The moves that end the game at once, else those giving check, else king moves, else all."""
    ending = [m for m in legal if sf.is_immediate_game_end(variant, fen, [m])[0]]
    checks = [m for m in legal if sf.gives_check(variant, fen, [m])]
    board = fen.split()[0].split("[")[0].replace("~", "").split("/")
    ranks = len(board)

    def piece_on(square: str) -> str:
        row = board[ranks - int(square[1:])]
        file = ord(square[0]) - ord("a")
        for ch in row.replace("10", "x" * 10):
            n = int(ch) if ch.isdigit() else 1
            if file < n:
                return "" if ch.isdigit() else ch
            file -= n
        return ""

    kings = [m for m in legal if "@" not in m and piece_on(m[:2]).lower() == "k"]
    return ending or checks or kings or legal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--plies", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ini", help="a variants.ini to load into pyffish first")
    ap.add_argument(
        "--pocket",
        default="",
        help="pieces put in the hands at the start (e.g. QNPqnp), for variants whose start FEN has a pocket",
    )
    ap.add_argument("--fen", help="start the games from this FEN instead of the variant's start position")
    ap.add_argument(
        "--bias",
        type=float,
        default=0.0,
        help="chance of a move toward a game end: one that ends the game, else gives check, else moves a king",
    )
    args = ap.parse_args()
    if args.ini:
        with open(args.ini, encoding="utf-8") as f:
            sf.load_variant_config(f.read())
    out = sys.stdout
    for variant in args.variants:
        rng = random.Random(f"{args.seed}:{variant}")
        for _ in range(args.games):
            start = args.fen or sf.start_fen(variant)
            if args.pocket:
                if "[" not in start:
                    sys.exit(f"{variant}: --pocket needs a start FEN with a pocket")
                start = start.replace("]", args.pocket + "]", 1)
            fen = sf.get_fen(variant, start, [])
            for ply in range(args.plies + 1):
                legal = sorted(sf.legal_moves(variant, fen, []))
                end = result(variant, fen, legal)
                move = rng.choice(legal) if legal and ply < args.plies else "-"
                if move != "-" and rng.random() < args.bias:
                    move = rng.choice(toward_end(variant, fen, legal))
                out.write(f"{variant};{fen};{move};{end};{len(legal)};{fnv1a(' '.join(legal))}\n")
                if move == "-":
                    break
                fen = sf.get_fen(variant, fen, [move])


if __name__ == "__main__":
    main()
