#!/usr/bin/env python3
"""Labels positions with a teacher engine's search score, for `menagerie-tune --labels`.

Reads games (PGN of orthodox chess, through python-chess) or positions (one
FEN per line, any variant the engine plays), keeps each distinct position
once (after `--skip-plies` plies of every game), shuffles them, searches
each with a UCI engine to a fixed depth and writes `FEN;score` lines, the
score in centipawns from White's point of view. Mate scores are left out;
with `--no-pockets`, so are positions with pieces in hand (a teacher that
has no gating, such as Fairy-Stockfish's `alpaca`).

    python3 tools/tune/label.py --engine fairy-stockfish --depth 8 \
        --pgn games.pgn --out labels.txt --workers 2

For a variant, pass `--fens` files and the engine's options, e.g.
`--option UCI_Variant=alpaca --option VariantPath=variants.ini`.
"""

import argparse
import multiprocessing as mp
import random
import subprocess
import sys


def positions_from_pgn(path, skip):
    import chess.pgn

    out = []
    with open(path, encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                board.push(move)
                if ply + 1 >= skip and not board.is_game_over():
                    out.append(board.fen())
    return out


class Uci:
    """A UCI engine process driven line by line."""

    def __init__(self, path, options):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        for name, value in options:
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def wait(self, token):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            lines.append(line)
            if line.startswith(token):
                return lines

    def score(self, fen, depth):
        """The score of the last full `info` line, side to move's view: ('cp'|'mate', n)."""
        self.send(f"position fen {fen}")
        self.send(f"go depth {depth}")
        found = None
        for line in self.wait("bestmove"):
            t = line.split()
            if t and t[0] == "info" and "score" in t and "upperbound" not in t and "lowerbound" not in t:
                i = t.index("score")
                found = (t[i + 1], int(t[i + 2]))
        return found

    def quit(self):
        self.send("quit")
        self.p.wait(timeout=10)


def for_teacher(fen, no_pockets):
    """The FEN the teacher reads: with `no_pockets`, None for a position
    with pieces in a pocket (`[...]`) and the FEN without an empty `[]`."""
    if not no_pockets or "[" not in fen:
        return fen
    board, _, rest = fen.partition("[")
    pocket, _, rest = rest.partition("]")
    return None if pocket else board + rest


def work(job):
    engine, options, depth, fens, index, no_pockets = job
    uci = Uci(engine, options)
    out = []
    for n, fen in enumerate(fens):
        teacher_fen = for_teacher(fen, no_pockets)
        if teacher_fen is None:
            continue
        s = uci.score(teacher_fen, depth)
        if s and s[0] == "cp":
            white = fen.split()[1] == "w"
            out.append(f"{fen};{s[1] if white else -s[1]}")
        if n % 2000 == 0:
            print(f"worker {index}: {n}/{len(fens)}", file=sys.stderr, flush=True)
    uci.quit()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, help="UCI engine (the teacher)")
    ap.add_argument("--depth", type=int, default=8, help="search depth a position")
    ap.add_argument("--pgn", action="append", default=[], help="chess games (repeatable)")
    ap.add_argument("--fens", action="append", default=[], help="FEN lines (repeatable)")
    ap.add_argument("--skip-plies", type=int, default=8, help="plies skipped at the start of every game")
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE, a UCI option")
    ap.add_argument("--workers", type=int, default=2, help="engine processes")
    ap.add_argument(
        "--no-pockets",
        action="store_true",
        help="skip positions with pieces in hand (a teacher without gating) and drop an empty []",
    )
    ap.add_argument("--max", type=int, help="at most this many positions")
    ap.add_argument("--seed", type=int, default=1, help="shuffle seed")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    fens = []
    for p in a.pgn:
        fens += positions_from_pgn(p, a.skip_plies)
    for p in a.fens:
        with open(p, encoding="utf-8") as f:
            fens += [line.split(";")[0].strip() for line in f if line.strip()]
    fens = list(dict.fromkeys(fens))
    random.Random(a.seed).shuffle(fens)
    if a.max:
        fens = fens[: a.max]
    print(f"{len(fens)} distinct positions", file=sys.stderr)
    options = [tuple(o.split("=", 1)) for o in a.option]
    chunks = [fens[i :: a.workers] for i in range(a.workers)]
    with mp.Pool(a.workers) as pool:
        results = pool.map(work, [(a.engine, options, a.depth, c, i, a.no_pockets) for i, c in enumerate(chunks)])
    with open(a.out, "w", encoding="utf-8") as f:
        for r in results:
            f.write("".join(line + "\n" for line in r))
    print(f"wrote {sum(map(len, results))} labels to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
