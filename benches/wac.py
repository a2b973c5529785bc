#!/usr/bin/env python3
"""Tactical sight: how many positions of an EPD test suite (Win At Chess by
default, 300 positions with `bm`) a UCI engine solves at a fixed time or
node budget per position.

A position counts as solved when the engine's final `bestmove` is one of
the `bm` moves (SAN in the EPD, compared as moves with python-chess). Any
UCI engine runs the same way (Menagerie, Stockfish), so figures are
comparable within one run on one machine. A benchmark, never a test.

    python3 benches/wac.py target/release/menagerie-uci --movetime 1000
    python3 benches/wac.py /usr/games/stockfish --nodes 200000 --label stockfish
"""
import argparse
import pathlib
import sys
import time

import chess

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from uci_process import UciProcess  # noqa: E402

HERE = pathlib.Path(__file__).parent


def parse_suite(path):
    """(board, set of bm moves, id) for every EPD line with a `bm` opcode."""
    out = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        board, ops = chess.Board.from_epd(line)
        bm = ops.get("bm")
        if not bm:
            continue
        out.append((board, set(bm), ops.get("id", f"line {len(out) + 1}")))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engine", help="path of a UCI engine")
    ap.add_argument("--suite", type=pathlib.Path, default=HERE / "suites" / "wac.epd")
    limit = ap.add_mutually_exclusive_group()
    limit.add_argument("--movetime", type=int, help="milliseconds per position (default 1000)")
    limit.add_argument("--nodes", type=int, help="nodes per position")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hash", type=int, default=64, help="hash table MB")
    ap.add_argument("--label", default=None, help="name in the summary line")
    ap.add_argument("--failures", action="store_true", help="list the positions not solved")
    args = ap.parse_args()
    go = f"go nodes {args.nodes}" if args.nodes else f"go movetime {args.movetime or 1000}"

    positions = parse_suite(args.suite)
    engine = UciProcess(args.engine, threads=args.threads, hash_mb=args.hash)
    solved, missed = 0, []
    start = time.monotonic()
    for board, bm, pid in positions:
        engine.send("ucinewgame")
        engine.position(board.fen())
        engine.send(go)
        best = engine.until("bestmove")[-1].split()[1]
        try:
            move = chess.Move.from_uci(best)
        except ValueError:
            move = None
        if move in bm:
            solved += 1
        else:
            missed.append((pid, " ".join(board.san(m) for m in bm), best))
    engine.quit()
    elapsed = time.monotonic() - start
    label = args.label or pathlib.Path(args.engine).name
    budget = go.split(" ", 1)[1]
    print(f"{label}: {solved}/{len(positions)} solved ({budget} per position, {args.threads} thread(s), {elapsed:.0f} s)")
    if args.failures:
        for pid, want, got in missed:
            print(f"  {pid}: bm {want}, played {got}")


if __name__ == "__main__":
    main()
