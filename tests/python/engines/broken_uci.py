"""A deliberately broken UCI engine for `menagerie match` tests (chess only).

Usage: broken_uci.py MODE, where MODE is what goes wrong when asked to move:
  illegal  answers a well-formed but illegal move (a3a6)
  garbage  answers a token that is no move at all
  crash    exits with status 3
  silent   never answers
  slow     answers a legal move after 1.5 s (flags on a short clock)
  nomove   answers `bestmove (none)` although moves exist
Otherwise it plays the first legal move (python-chess decides).
"""
import sys
import time

import chess


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    board = chess.Board()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "uci":
            print("id name Broken-" + mode)
            print("uciok", flush=True)
        elif cmd == "isready":
            print("readyok", flush=True)
        elif cmd == "position":
            if words[1] == "startpos":
                board = chess.Board()
                rest = words[2:]
            else:
                i = words.index("moves") if "moves" in words else len(words)
                board = chess.Board(" ".join(words[2:i]))
                rest = words[i:]
            if rest and rest[0] == "moves":
                for m in rest[1:]:
                    board.push_uci(m)
        elif cmd == "go":
            if mode == "crash":
                sys.exit(3)
            if mode == "silent":
                continue
            if mode == "illegal":
                print("bestmove a3a6", flush=True)
            elif mode == "garbage":
                print("bestmove xyzzy", flush=True)
            elif mode == "nomove":
                print("bestmove (none)", flush=True)
            else:
                if mode == "slow":
                    time.sleep(1.5)
                move = next(iter(board.legal_moves))
                print("info depth 1 score cp 0 pv " + move.uci())
                print("bestmove " + move.uci(), flush=True)
        elif cmd == "quit":
            return


if __name__ == "__main__":
    main()
