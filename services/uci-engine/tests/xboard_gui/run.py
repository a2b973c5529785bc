#!/usr/bin/env python3
"""XBoard 4.9 runs Menagerie's variants with two `menagerie-uci` engines over CECP.

For every variant, XBoard plays one game under Xvfb in TwoMachines mode
(`-matchGames 1`, so it exits by itself) and saves the game (PGN) and the
final position (FEN). The script then

- checks that the game ended by a result (no forfeit, no illegal move),
- decodes the moves XBoard accepted from the engines (its debug file) from
  XBoard's notation to Menagerie's, replaying them with the `menagerie` CLI
  (`moves` at each ply, `validate` for the last), and
- compares the final position Menagerie computes with XBoard's own.

Every game is played with XBoard's legality testing on and off
(`--legality both`, the default) and must show the mechanisms XBoard can
display: gating in every gating variant, swaps in camel-rhino (and no
kidnap or takeover, which XBoard cannot show), drops in crazyhouse and
shogi, a promotion in shogi, captures in atomic, giveaway and losers (see
MECHANISMS). In the drop games the holdings of XBoard's final FEN must be
Menagerie's pockets; xiangqi's FEN letters are XBoard's (`H`, `E`).

Then three human moves are typed into XBoard with xdotool (a prelude choice in
alpaca, a move on the 10x10 board of camel-rhino, one on xiangqi's 9x10 board), in the same legality
modes, and the engine's side of XBoard's debug file must show the move
arriving and the engine answering.

Needs `xboard`, `Xvfb` and `xdotool` (Debian: `apt-get install xboard xvfb
xdotool`; nothing is installed here) and the binaries `menagerie-uci` and
`menagerie` in `$MENAGERIE_BIN_DIR` (default `target/release`:
`cargo build --release -p menagerie-uci-engine -p menagerie-cli`).

Usage: run.py [--variants a,b,...] [--keep DIR] [--no-human] [--legality on|off|both]
Exit status 0 when every check passed, 1 otherwise, 2 when a tool is missing.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
BIN_DIR = Path(os.environ.get("MENAGERIE_BIN_DIR", ROOT / "target" / "release"))
ENGINE = BIN_DIR / "menagerie-uci"
CLI = BIN_DIR / "menagerie"
# The compiled games, then variants defined as data (variants.ini): one XBoard
# knows by name, one the engine describes (`setup`, `piece`).
# Last, XBoard's own drop, Asian and capture games (holdings, shogi
# promotions, the 9x10 board of xiangqi, explosions, compulsory captures).
VARIANTS = ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino", "chess960",
            "capablanca", "embassy", "crazyhouse", "shogi", "xiangqi", "atomic", "giveaway", "losers", "asean"]
# Games whose holdings XBoard's final FEN must show as Menagerie's.
DROP_GAMES = {"crazyhouse", "shogi"}
# Boards of ten ranks, counted from 0 by XBoard.
TEN_RANKS = {"camel-rhino", "xiangqi"}
# XBoard's FEN letters where Menagerie's differ (xiangqi's horse and elephant).
XBOARD_LETTERS = {"xiangqi": {"H": "N", "E": "B", "h": "n", "e": "b"}}
# XBoard's names where they differ from Menagerie's.
XBOARD_NAMES = {"chess": "normal", "chess960": "fischerandom"}
GATING = {"alpaca": "A", "alpaca2": "A", "alpaca-samefile": "A", "alseid": "S", "alseid-weak": "S"}
GAME_TIMEOUT = 90
# XBoard's search depth for the engines (`-depth`): 3, or another where the
# game at depth 3 shows too little (repetition before any capture).
DEPTH = {"giveaway": 2, "losers": 4}
# What each game must show in the moves played (the SAN `menagerie validate`
# prints), with legality testing on and off: a reserve piece entering
# (`Nf3(A@g1)`) in every gating variant and a swap (`Bd2<>Qe2`) in
# Camel-Rhino. Kidnaps (`Sd4-d6(Nd1-d4)`) and takeovers (`Cxd5(=c3)`) cannot
# occur: XBoard 4.9 has no move that changes a piece's colour or carries a
# second piece to the square the mover left (its ApplyMove moves one piece,
# empties the "kill" squares of a multi-leg move, swaps with a friend,
# castles, gates on the square left and promotes the mover), so the engine
# does not play them to XBoard (services/uci-engine/README.md); the test
# asserts that none was played.
MECHANISMS = {
    **{v: {"gating": r"\([AS]@"} for v in GATING},
    "camel-rhino": {"swap": r"<>"},
    # A piece dropped from the holdings; in shogi also a promotion (`+`).
    "crazyhouse": {"drop": r"^[PNBRQ]@"},
    "shogi": {"drop": r"^[PLNSGBR]@", "promotion": r"\+$"},
    # A capture (an explosion in atomic).
    **{v: {"capture": r"x"} for v in ("atomic", "giveaway", "losers")},
}
# Checked on the coordinate moves (Menagerie's) rather than the SAN.
COORDINATE_MECHANISMS = {"promotion"}
NEVER = {"kidnap": r"^S[a-j]\d+-[a-j]\d+\(", "takeover": r"\(=[a-j]\d"}


def tool(name):
    """The path of a program, also looked for in /usr/games (Debian's xboard)."""
    found = shutil.which(name) or shutil.which(name, path="/usr/games")
    return found


class Display:
    """An Xvfb server on a free display number."""

    def __init__(self):
        for n in range(90, 140):
            if not os.path.exists(f"/tmp/.X11-unix/X{n}") and not os.path.exists(f"/tmp/.X{n}-lock"):
                break
        self.name = f":{n}"
        self.proc = subprocess.Popen(
            [tool("Xvfb"), self.name, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            if os.path.exists(f"/tmp/.X11-unix/X{n}"):
                break
            time.sleep(0.05)

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def xboard_args(variant, work, extra, legality=False):
    xb_variant = XBOARD_NAMES.get(variant, variant)
    return [
        tool("xboard"),
        "-fcp", str(ENGINE), "-fd", str(work), "-firstIsUCI", "false",
        "-variant", xb_variant,
        "-testLegality", "true" if legality else "false",
        "-saveGameFile", str(work / "game.pgn"),
        "-savePositionFile", str(work / "final.fen"),
        "-debug", "-nameOfDebugFile", str(work / "xboard.debug"),
        "-popupExitMessage", "false", "-popupMoveErrors", "false",
        "-autoCallFlag", "false", "-animateMoving", "false", "-flashCount", "0",
        "-settingsFile", str(work / "xboard.settings"), "-saveSettingsFile", str(work / "xboard.settings"),
    ] + extra


def cli(*args):
    out = subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"menagerie {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def position_args(variant, fen):
    """CLI arguments for the game's variant and start (XBoard shuffles Chess960 starts)."""
    return ["--variant", variant] + (["--fen", fen] if fen else [])


def legal_moves(variant, moves, fen=None):
    args = ["moves", *position_args(variant, fen)]
    if moves:
        args += ["--moves", " ".join(moves)]
    return set(cli(*args).split())


SQUARE = re.compile(r"([a-z])(\d+)")


def decode(variant, xb, white, legal, castle=None):
    """Menagerie moves for one move in XBoard's notation (see xboard.rs);
    `castle(san)` gives the coordinate form of `O-O`/`O-O-O` (Chess960)."""
    ten = variant in TEN_RANKS
    if re.fullmatch(r"[A-Z]@[a-z]\d+", xb):
        if xb in legal:
            return [xb]
        raise ValueError(f"XBoard drop {xb} is not legal here")
    if xb in ("O-O", "O-O-O") and castle:
        return [castle(xb)]
    if xb == "@@@@":
        return ["decline"]
    if "," in xb or "-" in xb:
        sq = SQUARE.findall(xb)
        first = sq[0]
        kill = sq[2] if "," in xb else sq[1]
        files = "".join(sorted({first[0], kill[0]}))
        place = f"{GATING[variant]}@{files}"
        if "accept" in legal:
            return ["accept", place] if white else ["accept"]
        return [place]
    m = re.fullmatch(r"([a-z])(\d+)([a-z])(\d+)([a-z+]?)=?", xb)
    if not m:
        raise ValueError(f"not an XBoard move: {xb}")
    f, r1, t, r2, suffix = m.groups()
    r1, r2 = int(r1) + ten, int(r2) + ten
    base = f"{f}{r1}{t}{r2}"
    for cand in (base + suffix, base + "t" if suffix else None, base, f"{t}{r2}{f}{r1}"):
        if cand and cand in legal:
            return [cand]
    raise ValueError(f"XBoard move {xb} ({base}{suffix}) is not legal here")


def engine_moves(debug):
    """The moves XBoard took from the engines, in order."""
    return re.findall(r"^\d+ <(?:first |second): move (\S+)", debug, re.M)


def pgn_plies(pgn):
    body = pgn.split("\n\n", 1)[1] if "\n\n" in pgn else pgn
    body = re.sub(r"\{[^}]*\}", " ", body)
    toks = [t for t in body.split() if not re.fullmatch(r"\d+\.+|1-0|0-1|1/2-1/2|\*", t)]
    return len(toks)


def play_game(variant, work, legality):
    display = Display()
    try:
        env = dict(os.environ, DISPLAY=display.name, HOME=str(work))
        args = xboard_args(
            variant,
            work,
            ["-scp", str(ENGINE), "-sd", str(work), "-secondIsUCI", "false",
             "-mode", "TwoMachines", "-matchGames", "1",
             "-depth", str(DEPTH.get(variant, 3)), "-tc", "5", "-inc", "1", "-adjudicateDrawMoves", "400"],
            legality,
        )
        t = time.monotonic()
        subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=GAME_TIMEOUT, check=False)
        return time.monotonic() - t
    finally:
        display.close()


def check_game(variant, work):
    """Returns (ok, summary) for the game saved in `work`."""
    pgn = (work / "game.pgn").read_text(errors="replace")
    debug = (work / "xboard.debug").read_text(errors="replace")
    result = re.search(r'\[Result "([^"]*)"\]', pgn)
    result = result.group(1) if result else "?"
    term = re.findall(r"\{([^}]*)\}\s*(?:1-0|0-1|1/2-1/2|\*)\s*$", pgn)
    term = term[-1] if term else ""
    problems = []
    if result not in ("1-0", "0-1", "1/2-1/2"):
        problems.append(f"no result ({result})")
    if re.search(r"forfeit|illegal|invalid|false (win|draw) claim", term, re.I) or re.search(r"Illegal move", debug):
        problems.append(f"forfeit or illegal move: {term}")
    xb = engine_moves(debug)
    plies = pgn_plies(pgn)
    if "adjudication" in term and plies < len(xb):
        xb = xb[:plies]  # a move that arrived after XBoard adjudicated is not played
    if plies != len(xb):
        problems.append(f"PGN has {plies} plies, the engines made {len(xb)} moves")
    # A shuffled start (Chess960) is in the PGN's FEN tag; the other games
    # start from the variant's own start (XBoard's FEN tag for them is in
    # its own dialect).
    start = re.search(r'\[FEN "([^"]*)"\]', pgn) if variant == "chess960" else None
    start = start.group(1) if start else None

    def castle(san):
        out = cli("validate", *position_args(variant, start), "--moves", " ".join(moves), san)
        return re.search(r"^move: (\S+)", out, re.M).group(1)

    moves = []
    sans = []
    try:
        for i, m in enumerate(xb):
            ms = decode(variant, m, i % 2 == 0, legal_moves(variant, moves, start), castle)
            if variant in MECHANISMS:
                for one in ms:
                    out = cli("validate", *position_args(variant, start), "--moves", " ".join(moves), one)
                    sans += re.findall(r"^san: (\S+)", out, re.M)
                    moves.append(one)
            else:
                moves += ms
        for name, pattern in MECHANISMS.get(variant, {}).items():
            shown = moves if name in COORDINATE_MECHANISMS else sans
            if not any(re.search(pattern, one) for one in shown):
                problems.append(f"no {name} in the game")
        for name, pattern in NEVER.items():
            shown = [san for san in sans if re.search(pattern, san)]
            if shown:
                problems.append(f"a {name} XBoard cannot show was played: {shown[0]}")
        last = cli("validate", *position_args(variant, start), "--moves", " ".join(moves[:-1]), moves[-1])
        fen = re.search(r"([^\s]+/[^\s]+(?:\[[^\]]*\])? [wb] \S+ \S+ \d+ \d+)", last)
        mine = fen.group(1) if fen else ""
        theirs = (work / "final.fen").read_text().strip().splitlines()[-1] if (work / "final.fen").exists() else ""
        letters = XBOARD_LETTERS.get(variant, {})
        theirs = "".join(letters.get(c, c) for c in theirs.split(" ")[0]) + theirs[len(theirs.split(" ")[0]):]
        # The board, and the holdings (in any order; `-` is none) of the drop games.
        board = lambda f: (re.split(r"[\[ ]", f, maxsplit=1)[0],
                           "".join(sorted(re.sub(r"[^A-Za-z]", "", f.split("[", 1)[1].split("]")[0])))
                           if variant in DROP_GAMES and "[" in f.split(" ")[0] else "")
        side = lambda f: f.split()[1] if len(f.split()) > 1 else "?"
        before = ""
        if "adjudication" in term:
            # XBoard may save the position from before the move it adjudicated on.
            out = cli("validate", *position_args(variant, start), "--moves", " ".join(moves[:-2]), moves[-2])
            before = re.search(r"([^\s]+/[^\s]+(?:\[[^\]]*\])? [wb] \S+ \S+ \d+ \d+)", out)
            before = before.group(1) if before else ""
        if (board(mine), side(mine)) != (board(theirs), side(theirs)) and (board(before), side(before)) != (
                board(theirs), side(theirs)):
            problems.append(f"final position differs: Menagerie {mine} / XBoard {theirs}")
    except (RuntimeError, ValueError) as e:
        problems.append(str(e))
    summary = f"{result} in {len(xb)} XBoard moves ({len(moves)} Menagerie plies), {term}"
    return not problems, summary, problems


def human_move(variant, typed, work, expect_sent, legality):
    """Types `typed` into XBoard (engine plays Black) and checks what the
    engine received and that it answered."""
    display = Display()
    try:
        env = dict(os.environ, DISPLAY=display.name, HOME=str(work))
        args = xboard_args(variant, work, ["-mode", "MachineBlack", "-depth", "2", "-tc", "5"], legality)
        xb = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        debug = work / "xboard.debug"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "pong" not in (debug.read_text(errors="replace") if debug.exists() else ""):
            time.sleep(0.2)
        time.sleep(1.0)
        wins = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "xboard"], env=env,
                              capture_output=True, text=True).stdout.split()
        if wins:
            subprocess.run(["xdotool", "windowactivate", "--sync", wins[0]], env=env, capture_output=True)
            subprocess.run(["xdotool", "windowfocus", "--sync", wins[0]], env=env, capture_output=True)
        subprocess.run(["xdotool", "type", "--delay", "60", typed], env=env, capture_output=True)
        time.sleep(0.5)
        subprocess.run(["xdotool", "key", "Return"], env=env, capture_output=True)
        text = ""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            text = debug.read_text(errors="replace") if debug.exists() else ""
            if re.search(r"<first : move \S+", text):
                break
            time.sleep(0.2)
        xb.terminate()
        try:
            xb.wait(5)
        except subprocess.TimeoutExpired:
            xb.kill()
        # XBoard logs `usermove` and the move as two writes on one line.
        sent = re.findall(r">first : usermove (?:\d+ >first : )?(\S+)", text)
        reply = re.findall(r"<first : move (\S+)", text)
        refused = re.findall(r"<first : (Illegal move.*)", text)
        ok = expect_sent in sent and bool(reply) and not refused
        return ok, f"typed {typed!r}: engine got {sent}, answered {reply}{' REFUSED ' + str(refused) if refused else ''}"
    finally:
        display.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--keep", help="keep the XBoard files (PGN, FEN, debug) in this directory")
    ap.add_argument("--no-human", action="store_true", help="skip the typed human moves")
    ap.add_argument("--legality", choices=["on", "off", "both"], default="both",
                    help="XBoard's -testLegality for the engine games (default: both, one game each)")
    opts = ap.parse_args()
    missing = [t for t in ("xboard", "Xvfb", "xdotool") if not tool(t)]
    if missing:
        print(f"missing: {', '.join(missing)} (apt-get install xboard xvfb xdotool)", file=sys.stderr)
        return 2
    for b in (ENGINE, CLI):
        if not b.exists():
            print(f"missing {b}: cargo build --release -p menagerie-uci-engine -p menagerie-cli, "
                  "or set MENAGERIE_BIN_DIR", file=sys.stderr)
            return 2
    base = Path(opts.keep) if opts.keep else Path(tempfile.mkdtemp(prefix="menagerie-xboard-"))
    base.mkdir(parents=True, exist_ok=True)
    all_ok = True
    t0 = time.monotonic()
    modes = {"on": [True], "off": [False], "both": [False, True]}[opts.legality]
    for v in [v for v in opts.variants.split(",") if v]:
        for legality in modes:
            label = f"{v} (legality {'on' if legality else 'off'})"
            work = base / f"{v}-legality-{'on' if legality else 'off'}"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            secs = play_game(v, work, legality)
            if not (work / "game.pgn").exists():
                print(f"FAIL {label}: no game saved ({secs:.1f} s)")
                all_ok = False
                continue
            ok, summary, problems = check_game(v, work)
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {summary} ({secs:.1f} s)")
            for p in problems:
                print(f"     {p}")
            all_ok &= ok
    if not opts.no_human:
        # A user accepts and places on g with the g-pawn's visit.
        # A xiangqi cannon to the centre, ranks counted from 0 (Menagerie's h3e3).
        for v, typed, sent in (("alpaca", "g2g3-g2", "g2g3,g3g2"), ("camel-rhino", "e3e4", "e3e4"),
                               ("xiangqi", "h2e2", "h2e2")):
            for legality in modes:
                label = f"human {v} (legality {'on' if legality else 'off'})"
                work = base / f"human-{v}-legality-{'on' if legality else 'off'}"
                shutil.rmtree(work, ignore_errors=True)
                work.mkdir(parents=True)
                t = time.monotonic()
                ok, summary = human_move(v, typed, work, sent, legality)
                print(f"{'ok  ' if ok else 'FAIL'} {label}: {summary} ({time.monotonic() - t:.1f} s)")
                all_ok &= ok
    print(f"{'passed' if all_ok else 'FAILED'} in {time.monotonic() - t0:.1f} s; files in {base}")
    if not opts.keep and all_ok:
        shutil.rmtree(base, ignore_errors=True)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
