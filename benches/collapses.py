#!/usr/bin/env python3
"""Where an engine is surprised: the positions of a chess match where its
own score collapsed, and what a stronger engine sees in them.

From a PGN written by `menagerie match` (scores in the move comments,
`{+0.35/12 0.21s}`), the script takes, in each game, the first position
where ENGINE was to move, judged it within ±LIMIT pawns, and two of its
own moves later scored at least DROP pawns worse. On those positions it
then reports

- how far ENGINE's score is above the other engine's at a few fixed depths
  (both searched here, from the side to move: a positive gap is ENGINE's
  optimism), and
- with `--fsf`, Fairy-Stockfish's classical evaluation terms (its `eval`
  command), averaged from ENGINE's side: the terms that say why.

Chess only (python-chess reads the games). A benchmark, never a test.

    python3 benches/collapses.py d12.pgn --engine Menagerie \\
        --ours target/release/menagerie-uci --theirs /path/to/fairy-stockfish \\
        --fsf /path/to/fairy-stockfish --epd collapses.epd
"""
import argparse
import re
import statistics
import subprocess
import sys

import chess
import chess.engine
import chess.pgn

SCORE = re.compile(r"\s*([+-]?)(M?)(\d+(?:\.\d+)?)/(\d+)")
TERM = re.compile(r"\|\s*([A-Za-z ]+?)\s*\|.*\|\s*(-?[\d.]+)\s+(-?[\d.]+)\s*\|\s*$")


def collapses(pgn, engine, limit, drop):
    """(FEN, move played, score, score two own moves later) per game, at most one each."""
    out = []
    with open(pgn) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            if engine not in (game.headers.get("White"), game.headers.get("Black")):
                continue
            side = chess.WHITE if game.headers["White"] == engine else chess.BLACK
            own = []
            node = game
            while node.variations:
                nxt = node.variation(0)
                board = node.board()
                m = SCORE.match(nxt.comment or "")
                if m and board.turn == side:
                    v = float(m.group(3))
                    v = 99.0 if m.group(2) else v
                    own.append((board.fen(), nxt.move.uci(), -v if m.group(1) == "-" else v))
                node = nxt
            for i in range(len(own) - 2):
                fen, mv, v = own[i]
                if abs(v) < limit and v - own[i + 2][2] >= drop:
                    out.append((fen, mv, v, own[i + 2][2]))
                    break
    return out


def fsf_terms(path, fen):
    """Fairy-Stockfish's classical eval terms (mg, eg), from the side to move; {} in check."""
    out = subprocess.run([path], input=f"position fen {fen}\neval\nquit\n", capture_output=True,
                         text=True, timeout=60).stdout
    sign = 1 if fen.split()[1] == "w" else -1
    terms = {}
    for row in out.splitlines():
        m = TERM.match(row)
        if m and m.group(1) != "Term":
            terms[m.group(1)] = (sign * float(m.group(2)), sign * float(m.group(3)))
    return terms


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn")
    ap.add_argument("--engine", default="Menagerie", help="the player whose collapses are looked for")
    ap.add_argument("--limit", type=float, default=2.0, help="only from scores within ±LIMIT pawns")
    ap.add_argument("--drop", type=float, default=1.5, help="pawns lost within two own moves")
    ap.add_argument("--ours", help="ENGINE's UCI binary, to search the positions")
    ap.add_argument("--theirs", help="the other UCI engine, to search the positions")
    ap.add_argument("--depths", default="1,8,12")
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--fsf", help="Fairy-Stockfish binary, for its classical eval terms")
    ap.add_argument("--epd", help="write the positions here")
    opts = ap.parse_args()

    found = collapses(opts.pgn, opts.engine, opts.limit, opts.drop)
    print(f"{len(found)} games with a collapse of {opts.engine} (|score| < {opts.limit}, "
          f"≥ {opts.drop} pawns lost within two of its moves)")
    if opts.epd:
        with open(opts.epd, "w") as f:
            for fen, mv, v, later in found:
                f.write(f"{fen} ;played {mv} {v:+.2f} -> {later:+.2f}\n")
    if not found:
        return 0

    if opts.ours and opts.theirs:
        engines = [chess.engine.SimpleEngine.popen_uci(p) for p in (opts.ours, opts.theirs)]
        for e in engines:
            e.configure({"Hash": opts.hash})
        for depth in (int(d) for d in opts.depths.split(",")):
            gaps = []
            for fen, *_ in found:
                board = chess.Board(fen)
                s = [e.analyse(board, chess.engine.Limit(depth=depth), game=object())["score"]
                     .pov(board.turn).score(mate_score=10000) for e in engines]
                gaps.append(s[0] - s[1])
            print(f"depth {depth:2d}: {opts.engine} − other, centipawns: median {statistics.median(gaps):+.0f}, "
                  f"mean {statistics.mean(gaps):+.0f}, above in {sum(g > 0 for g in gaps)} / {len(gaps)}")
        for e in engines:
            e.quit()

    if opts.fsf:
        sums = {}
        for fen, *_ in found:
            for k, (mg, eg) in fsf_terms(opts.fsf, fen).items():
                sums.setdefault(k, []).append((mg, eg))
        if sums:
            n = max(len(v) for v in sums.values())
            print(f"Fairy-Stockfish classical eval terms from {opts.engine}'s side, mean of {n} positions "
                  "(not in check), pawns:")
            for k, v in sorted(sums.items(), key=lambda kv: statistics.mean(a for a, _ in kv[1])):
                print(f"  {k:12s} mg {statistics.mean(a for a, _ in v):+.2f}  eg {statistics.mean(b for _, b in v):+.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
