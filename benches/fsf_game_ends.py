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
(`moveRepetitionIllegal`) occur. With `--chase P` one side, drawn at
random each game, chases: with chance P it plays a move after which the
moved piece attacks the piece its opponent moved last (else any enemy
piece but the king), undoing its own previous move when that does, so
that the chases of xiangqi's chasing rule (`chasingRule = axf`) repeat.
With `--checks P` the games are long and quiet instead: no move takes
unless it must, none goes back to a position of the game nor mates, and a check is given with
chance P when one can be, so that the n-move rule ends them after many
checks (xiangqi's chasing rule stretches it by the checks beyond ten);
`--fen` starts them from another position. With `--given FILE` it plays no games but writes the ends of those in
FILE (lines `variant;start fen;moves`, `#` comments), such as
`benches/fsf_game_ends_given.txt`. Menagerie's test
`crates/rules/tests/fsf_game_ends.rs` reads such a file.

    python3 benches/fsf_game_ends.py --games 40 --plies 80 --shuffle 0.7 --seed 1 janggimodern
    python3 benches/fsf_game_ends.py --games 200 --plies 120 --chase 0.9 --seed 3 xiangqi
    python3 benches/fsf_game_ends.py --given benches/fsf_game_ends_given.txt
    python3 benches/fsf_game_ends.py --games 12 --plies 160 --checks 0.5 --seed 5 \
        --fen '3ak4/4a4/9/9/9/9/9/9/4A4/2NAK1R2 w - - 0 1' xiangqi
"""
import argparse
import random
import re

import pyffish as sf


def undo(move: str) -> str:
    """The move back: `e3e4` for `e4e3`, `a10a9` for `a9a10`."""
    a, b = re.findall(r"[a-z]+[0-9]+", move)[:2]
    return b + a


def end(variant: str, fen: str, moves: list[str]) -> str:
    ended, value = sf.is_optional_game_end(variant, fen, moves)
    if not ended:
        return "-"
    return "win" if value > 0 else "loss" if value < 0 else "draw"


def threats(variant: str, fen: str, moves: list[str], legal: list[str]) -> dict[str, set[str]]:
    """For each legal move, the squares of the enemy pieces (not the king)
    the moved piece attacks after it, found by letting the mover move again."""
    out = {}
    for move in legal:
        after = sf.get_fen(variant, fen, moves + [move]).split(" ")
        after[1] = "b" if after[1] == "w" else "w"
        again = " ".join(after)
        to = re.match(r"[a-z]+[0-9]+([a-z]+[0-9]+)", move)
        if not to:
            continue
        try:
            replies = sf.legal_moves(variant, again, [])
        except Exception:  # the mover's opponent is in check: no threat counted
            continue
        targets = set()
        for reply in replies:
            m = re.match(r"([a-z]+[0-9]+)([a-z]+[0-9]+)", reply)
            if m and m.group(1) == to.group(1) and sf.is_capture(variant, again, [], reply):
                targets.add(m.group(2))
        out[move] = targets
    return out


def quiet_game(variant: str, fen: str, plies: int, checks: float, rng: random.Random) -> list[str]:
    """A game without captures (unless no other move is left), repeated
    positions, mates nor stalemates,
    checking with chance `checks`, until `plies` moves or an optional game
    end."""
    moves: list[str] = []
    seen = {" ".join(fen.split(" ")[:2])}
    now = fen
    while len(moves) < plies and end(variant, fen, moves) == "-":
        fresh, takes = {}, {}
        for m in sorted(sf.legal_moves(variant, now, [])):
            after = sf.get_fen(variant, now, [m])
            # Never mate nor stalemate: the game goes on.
            if " ".join(after.split(" ")[:2]) not in seen and sf.legal_moves(variant, after, []):
                (takes if sf.is_capture(variant, now, [], m) else fresh)[m] = after
        fresh = fresh or takes
        if not fresh:
            break
        giving = [m for m in fresh if sf.gives_check(variant, now, [m])]
        move = rng.choice(giving if giving and rng.random() < checks else list(fresh))
        moves.append(move)
        now = fresh[move]
        seen.add(" ".join(now.split(" ")[:2]))
    return moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", nargs="*")
    ap.add_argument("--given", help="write the ends of the games in this file instead")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--plies", type=int, default=80)
    ap.add_argument("--shuffle", type=float, default=0.7, help="chance of undoing the own previous move")
    ap.add_argument("--chase", type=float, default=0.0, help="chance of a chasing move by the chasing side")
    ap.add_argument("--checks", type=float, default=0.0, help="quiet games: chance of a check")
    ap.add_argument("--fen", help="start position (default: the variant's)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if args.given:
        with open(args.given) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    variant, fen, text = line.strip().split(";")
                    moves = text.split()
                    ends = [end(variant, fen, moves[:i]) for i in range(len(moves) + 1)]
                    print(f"{variant};{fen};{' '.join(moves)};{' '.join(ends)}")
        return
    for variant in args.variants:
        fen = args.fen or sf.start_fen(variant)
        for _ in range(args.games):
            if args.checks > 0:
                moves = quiet_game(variant, fen, args.plies, args.checks, rng)
                ends = [end(variant, fen, moves[:i]) for i in range(len(moves) + 1)]
                print(f"{variant};{fen};{' '.join(moves)};{' '.join(ends)}")
                continue
            chaser = rng.choice("wb")
            moves: list[str] = []
            ends = [end(variant, fen, moves)]
            while len(moves) < args.plies and ends[-1] == "-":
                legal = sf.legal_moves(variant, fen, moves)
                if not legal:
                    break
                back = undo(moves[-2]) if len(moves) >= 2 else None
                side = sf.get_fen(variant, fen, moves).split(" ")[1]
                chase = []
                if args.chase > 0 and side == chaser and rng.random() < args.chase:
                    hits = threats(variant, fen, moves, sorted(legal))
                    last = re.findall(r"[a-z]+[0-9]+", moves[-1])[-1] if moves else None
                    chase = [m for m, t in hits.items() if last in t] or [m for m, t in hits.items() if t]
                if chase:
                    move = back if back in chase else rng.choice(chase)
                elif back in legal and rng.random() < args.shuffle:
                    move = back
                else:
                    move = rng.choice(sorted(legal))
                moves.append(move)
                ends.append(end(variant, fen, moves))
            print(f"{variant};{fen};{' '.join(moves)};{' '.join(ends)}")


if __name__ == "__main__":
    main()
