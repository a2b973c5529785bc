#!/usr/bin/env python3
"""How well an engine's shallow search predicts a teacher's deeper scores.

Reads `FEN;score` lines (`tools/tune/label.py`: the teacher's score in
centipawns from White's point of view), takes COUNT of them at random
(seeded), searches each with every ENGINE given to depths 1 and 4 (one
thread, Hash 16) and prints, per engine and depth, the mean squared error
of the expected results, 1 / (1 + 10^(-score/400)), after scaling the
engine's scores by the factor (0.40-1.60) that fits best (each engine is
judged in its own units; the factor says how its centipawns compare with
the teacher's), and the mean absolute difference in centipawns (each
difference capped at 1000; mates count as ±3000). A benchmark, never a
test.

    python3 benches/teacher_agreement.py labels.txt --count 2000 \\
        target/release/menagerie-uci /path/to/fairy-stockfish

An ENGINE is the path of a UCI engine (a wrapper script to set its
environment, e.g. `MENAGERIE_EVAL_WEIGHTS`).
"""
import argparse
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from uci_process import UciProcess  # noqa: E402


def search(path, fens, depth):
    engine = UciProcess(path, hash_mb=16)
    out = []
    for fen in fens:
        engine.position(fen)
        engine.send(f"go depth {depth}")
        words = next(line for line in reversed(engine.until("bestmove")) if " score " in line).split()
        i = words.index("score")
        v = int(words[i + 2])
        if words[i + 1] == "mate":
            v = 3000 if v > 0 else -3000
        out.append(-v if fen.split()[1] == "b" else v)
    engine.quit()
    return out


def expected(cp):
    return 1 / (1 + 10 ** (-cp / 400))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("labels")
    ap.add_argument("engines", nargs="+")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--depths", default="1,4")
    args = ap.parse_args()
    rows = [line.rstrip("\n").rsplit(";", 1) for line in open(args.labels) if ";" in line]
    random.Random(args.seed).shuffle(rows)
    rows = [(fen, int(score)) for fen, score in rows[: args.count]]
    fens = [fen for fen, _ in rows]
    target = [expected(score) for _, score in rows]
    for path in args.engines:
        for depth in (int(d) for d in args.depths.split(",")):
            scores = search(path, fens, depth)
            mse, scale = min(
                (sum((expected(s * k / 100) - t) ** 2 for s, t in zip(scores, target)) / len(rows), k / 100)
                for k in range(40, 161, 5)
            )
            mae = sum(min(abs(s - t), 1000) for s, (_, t) in zip(scores, rows)) / len(rows)
            print(f"{path} depth {depth}: MSE {mse:.5f} (scale {scale:.2f}), mean |difference| {mae:.0f} cp", flush=True)


if __name__ == "__main__":
    main()
