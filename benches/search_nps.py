#!/usr/bin/env python3
"""Search node rate of menagerie-uci against Fairy-Stockfish and Stockfish
(Debian) from the same positions, and menagerie's Lazy SMP scaling from 1 to
2 threads. Driven over UCI; every engine searches each
position for the same wall time with a fresh hash. Not a test: the figures
go into benches/README.md and the notes.

    python3 benches/search_nps.py                    # 3 s a position
    python3 benches/search_nps.py --movetime 5 --threads 1 2

Fairy-Stockfish 11.1 (Debian) cannot load the fairy pieces of RULES.md, so
the engine-to-engine rows are orthodox chess; the variant rows give
menagerie's own rate in each game for scale.
"""
import argparse
import math
import pathlib

from uci_process import UciProcess

CHESS = [
    ("startpos", "startpos"),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("pos4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"),
    ("pos5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"),
    ("pos6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P3/2NP1N2/PPP1QPPP/R4RK1 w - - 0 10"),
]

# (name, UCI_Variant, FEN or "startpos") for menagerie's own rate per game.
VARIANTS = [
    ("alpaca start", "alpaca", "startpos"),
    ("alseid start", "alseid", "startpos"),
    ("camel-rhino start", "camel-rhino", "startpos"),
]


def raw_nps(path, variant, position, movetime, threads):
    """(nodes, nps) of one `go movetime` search in a fresh engine process;
    the last `info ... nodes N ... time T` before bestmove gives the rate."""
    engine = UciProcess(path, variant, threads)
    engine.position(position)
    engine.send(f"go movetime {int(movetime * 1000)}")
    lines = engine.until("bestmove")
    engine.quit()
    nodes = ms = None
    for line in lines:
        words = line.split()
        if words[:1] == ["info"] and "nodes" in words and "time" in words:
            nodes = int(words[words.index("nodes") + 1])
            ms = int(words[words.index("time") + 1])
    return nodes, nodes / max(ms, 1) * 1000


def main():
    root = pathlib.Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default=str(root / "target" / "release" / "menagerie-uci"))
    ap.add_argument("--fairy", default="/usr/games/fairy-stockfish")
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--movetime", type=float, default=3.0, help="seconds per search")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()

    engines = {"menagerie": args.engine, "fairy-stockfish": args.fairy, "stockfish": args.stockfish}
    print(f"## Orthodox chess, {args.movetime:g} s a position, 1 thread, Mnps\n")
    print("| position | menagerie | fairy-stockfish | stockfish | menagerie / fairy-sf | menagerie / sf |")
    print("|---|---|---|---|---|---|")
    ratios_fsf, ratios_sf = [], []
    for name, fen in CHESS:
        rate = {e: raw_nps(path, "chess", fen, args.movetime, 1)[1] for e, path in engines.items()}
        rf = rate["menagerie"] / rate["fairy-stockfish"]
        rs = rate["menagerie"] / rate["stockfish"]
        ratios_fsf.append(rf)
        ratios_sf.append(rs)
        print(
            f"| {name} | {rate['menagerie'] / 1e6:.2f} | {rate['fairy-stockfish'] / 1e6:.2f} | "
            f"{rate['stockfish'] / 1e6:.2f} | {rf:.2f} | {rs:.2f} |",
            flush=True,
        )
    geo = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))  # noqa: E731
    print(f"| geometric mean | | | | {geo(ratios_fsf):.2f} | {geo(ratios_sf):.2f} |\n")

    print(f"## menagerie Lazy SMP, {args.movetime:g} s a position, Mnps by threads\n")
    print("| position | " + " | ".join(f"{t} thread(s)" for t in args.threads) + " | scaling |")
    print("|---|" + "---|" * (len(args.threads) + 1))
    rows = [(n, "chess", f) for n, f in CHESS] + VARIANTS
    for name, variant, fen in rows:
        rates = [raw_nps(args.engine, variant, fen, args.movetime, t)[1] for t in args.threads]
        print(
            f"| {name} | " + " | ".join(f"{r / 1e6:.2f}" for r in rates) + f" | {rates[-1] / rates[0]:.2f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main()
