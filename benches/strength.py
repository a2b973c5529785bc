#!/usr/bin/env python3
"""Playing strength of menagerie-uci against Debian's Stockfish at fixed
UCI_Elo levels, in orthodox chess, driven by python-chess.

    python3 benches/strength.py --games 20 --levels 1500 2000 2500 --tc 10+0.1

Each opening is played with both colours. Prints the score per level, the
Elo difference it implies, and the level at which Menagerie would score 50%
(interpolated). Not a test: the figures go into the notes.
"""
import argparse
import math
import pathlib
import sys
import time

import chess
import chess.engine

OPENINGS = [
    "e2e4 e7e5 g1f3 b8c6",
    "e2e4 c7c5 g1f3 d7d6",
    "d2d4 d7d5 c2c4 e7e6",
    "d2d4 g8f6 c2c4 g7g6",
    "c2c4 e7e5 b1c3 g8f6",
    "g1f3 d7d5 g2g3 g8f6",
    "e2e4 e7e6 d2d4 d7d5",
    "e2e4 c7c6 d2d4 d7d5",
    "d2d4 g8f6 c2c4 e7e6 g1f3 b7b6",
    "e2e4 e7e5 f1c4 g8f6",
]


def play(menagerie, stockfish, opening, menagerie_white, base, inc, max_plies=300):
    board = chess.Board()
    for m in opening.split():
        board.push_uci(m)
    clocks = {chess.WHITE: base, chess.BLACK: base}
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        side = board.turn
        engine = menagerie if (side == chess.WHITE) == menagerie_white else stockfish
        limit = chess.engine.Limit(
            white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK], white_inc=inc, black_inc=inc
        )
        # The clock is the wall time the engine took to answer (the engines'
        # own "time" reports are optional and not to be trusted).
        started = time.monotonic()
        result = engine.play(board, limit, info=chess.engine.INFO_NONE)
        clocks[side] = clocks[side] + inc - (time.monotonic() - started)
        if result.move is None or clocks[side] < -0.5:
            # Flag fall (with a small tolerance for process latency) or resignation.
            return 0.0 if (side == chess.WHITE) == menagerie_white else 1.0
        board.push(result.move)
    outcome = board.outcome(claim_draw=True)
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if (outcome.winner == chess.WHITE) == menagerie_white else 0.0


def elo_diff(score):
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / score - 1)


def main():
    ap = argparse.ArgumentParser()
    root = pathlib.Path(__file__).resolve().parents[1]
    ap.add_argument("--engine", default=str(root / "target" / "release" / "menagerie-uci"))
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--levels", type=int, nargs="+", default=[1500, 2000, 2500])
    ap.add_argument("--games", type=int, default=20, help="games per level (even)")
    ap.add_argument("--tc", default="10+0.1", help="base seconds + increment")
    ap.add_argument("--hash", type=int, default=64)
    args = ap.parse_args()
    base, inc = (float(x) for x in args.tc.split("+"))
    menagerie = chess.engine.SimpleEngine.popen_uci([args.engine])
    menagerie.configure({"Hash": args.hash})
    stockfish = chess.engine.SimpleEngine.popen_uci([args.stockfish])
    results = {}
    try:
        for level in args.levels:
            stockfish.configure({"UCI_LimitStrength": True, "UCI_Elo": level, "Threads": 1, "Hash": 64})
            score = 0.0
            for g in range(args.games):
                opening = OPENINGS[(g // 2) % len(OPENINGS)]
                s = play(menagerie, stockfish, opening, g % 2 == 0, base, inc)
                score += s
                print(f"level {level} game {g + 1}: {s}", file=sys.stderr, flush=True)
            pct = score / args.games
            results[level] = pct
            print(f"UCI_Elo {level}: {score}/{args.games} = {pct:.0%} (Elo diff {elo_diff(pct):+.0f})", flush=True)
    finally:
        menagerie.quit()
        stockfish.quit()
    # Level at which Menagerie scores 50%: each level's estimate is level + diff.
    estimates = [lvl + elo_diff(p) for lvl, p in results.items() if 0 < p < 1]
    if estimates:
        print(f"estimated 50% level: {sum(estimates) / len(estimates):.0f}")


if __name__ == "__main__":
    main()
