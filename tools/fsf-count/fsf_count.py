#!/usr/bin/env python3
"""How many of Fairy-Stockfish's variants Menagerie plays exactly.

For every variant pyffish knows (Fairy-Stockfish's built-ins, plus the
sections of a variants.ini given with --ini, e.g. Fairy-Stockfish's own
src/variants.ini), Menagerie is asked to load it and to count perft from
Fairy-Stockfish's start position and from --positions positions of seeded
random games played by pyffish; pyffish counts the same (by recursion over
its legal_moves). One row per variant:

    exact      every count equal (start perft to --start-depth, the others
               to --depth), and Menagerie's start position is Fairy-Stockfish's
    refused    Menagerie does not load the variant, or refuses a FEN of it
               (the reason: Menagerie's own message)
    mismatch   a count differs (the first position, depth and the move lists'
               difference)
    oracle     pyffish itself cannot play the variant (not counted either way)

and a summary line `exact N of M`. Exit status 0; --fail-on-mismatch makes a
mismatch exit 1.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pyffish
    git --git-dir=FSF.git show HEAD:src/variants.ini > /tmp/fsf-variants.ini
    cargo build --release -p menagerie-cli
    /tmp/venv/bin/python tools/fsf-count/fsf_count.py --ini /tmp/fsf-variants.ini
"""
import argparse
import json
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import time

import pyffish as sf

ROOT = pathlib.Path(__file__).resolve().parents[2]


def default_binary() -> str:
    for profile in ("release", "debug"):
        path = ROOT / "target" / profile / "menagerie"
        if path.exists():
            return str(path)
    return "menagerie"


class Menagerie:
    """Runs the `menagerie` CLI with the variants file loaded (if any)."""

    def __init__(self, binary: str, ini: str | None):
        self.binary = binary
        self.ini = ini

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        cmd = [self.binary]
        if self.ini:
            cmd += ["--variants", self.ini]
        env = dict(os.environ, TERM="dumb")
        return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=timeout, env=env)

    def catalogue(self) -> tuple[dict[str, str], dict[str, str]]:
        """The variants Menagerie loads (name -> start FEN) and the sections
        it skips (name -> reason), from `menagerie --json variants`."""
        proc = self.run("--json", "variants")
        if proc.returncode != 0:
            raise SystemExit(f"error: menagerie variants failed: {proc.stderr.strip()}")
        loaded = {}
        for line in proc.stdout.splitlines():
            obj = json.loads(line)
            if obj.get("type") == "variant" or "start_fen" in obj:
                loaded[obj["name"]] = obj.get("start_fen", "")
        skipped = {}
        for line in proc.stderr.splitlines():
            m = re.match(r"warning: .*?:(\d+): variant '([^']+)' skipped: (.*)", line)
            if m:
                skipped[m.group(2)] = f"line {m.group(1)}: {m.group(3)}"
        return loaded, skipped


def pyffish_perft(variant: str, fen: str, moves: list[str], depth: int) -> int:
    """Fairy-Stockfish's perft of the position `fen` + `moves`, through legal_moves."""
    legal = sf.legal_moves(variant, fen, moves)
    if depth <= 1:
        return len(legal) if depth == 1 else 1
    return sum(pyffish_perft(variant, fen, moves + [m], depth - 1) for m in legal)


def positions(variant: str, count: int, plies: int, seed: int) -> list[str]:
    """`count` FENs spread along one seeded random pyffish game of up to
    `plies` plies (pyffish sets each position up anew: one call per ply)."""
    rng = random.Random(f"{seed}:{variant}")
    start = sf.start_fen(variant)
    moves: list[str] = []
    fens = []
    for _ in range(plies):
        legal = sf.legal_moves(variant, start, moves)
        if not legal:
            break
        moves.append(rng.choice(legal))
        fens.append(moves[:])
    if not fens:
        return []
    picks = sorted({(len(fens) * (i + 1)) // count - 1 for i in range(count)})
    return [sf.get_fen(variant, start, fens[i]) for i in picks if i >= 0]


def budgeted_counts(variant: str, fen: str, want: int, budget: int) -> list[int]:
    """Perft counts of depths 1, 2, ... up to `want`, as deep as `budget`
    pyffish calls allow (depth d costs one call per node of depth d - 1)."""
    counts = [len(sf.legal_moves(variant, fen, []))]
    while len(counts) < want and 0 < counts[-1] <= budget:
        counts.append(pyffish_perft(variant, fen, [], len(counts) + 1))
    return counts


def placement(fen: str) -> tuple[str, str]:
    """A FEN's board with its pocket (an empty pocket left out) and the side
    to move (White if not given): what two forms of one start position share."""
    fields = fen.split()
    board = fields[0].replace("[]", "").replace("[-]", "") if fields else ""
    return board, fields[1] if len(fields) > 1 else "w"


def check(menagerie: Menagerie, variant: str, menagerie_start: str, args) -> tuple[str, str]:
    """Compares one variant Menagerie loads: ('exact' | 'refused' | 'mismatch', detail)."""
    start = sf.start_fen(variant)
    if placement(menagerie_start) != placement(start):
        return "mismatch", f"start position {menagerie_start!r}, Fairy-Stockfish {start!r}"
    fens = [start] + positions(variant, args.positions, args.plies, args.seed)
    lines = []
    for i, fen in enumerate(fens):
        want = args.start_depth if i == 0 else args.depth
        counts = " ".join(f";D{d} {n}" for d, n in enumerate(budgeted_counts(variant, fen, want, args.budget), 1))
        lines.append(f"{fen} ;variant {variant} {counts}")
    with tempfile.NamedTemporaryFile("w", suffix=".epd", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        suite = f.name
    try:
        proc = menagerie.run("--json", "epd", suite, "--variant", variant)
    finally:
        os.unlink(suite)
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    bad = [r for r in results if r.get("type") == "line" and r.get("result") != "passed"]
    if not any(r.get("type") == "line" for r in results):
        return "refused", (proc.stderr.strip().splitlines() or ["no answer"])[-1]
    for r in bad:
        reasons = "; ".join(r.get("reasons", []))
        if r["result"] == "skipped" or "FEN" in reasons or "fen" in reasons:
            return "refused", f"{reasons} ({r['fen']})"
    if bad:
        r = bad[0]
        return "mismatch", f"{'; '.join(r.get('reasons', []))} ({r['fen']}){move_diff(menagerie, variant, r['fen'])}"
    return "exact", f"{len(lines)} positions"


def move_diff(menagerie: Menagerie, variant: str, fen: str) -> str:
    """The difference of the two legal move lists of `fen`, if there is one."""
    proc = menagerie.run("moves", "--variant", variant, "--fen", fen)
    if proc.returncode != 0:
        return ""
    ours, theirs = set(proc.stdout.split()), set(sf.legal_moves(variant, fen, []))
    if ours == theirs:
        return ""
    return f"; only Menagerie {sorted(ours - theirs)[:6]}, only Fairy-Stockfish {sorted(theirs - ours)[:6]}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ini", default=os.environ.get("MENAGERIE_FSF_VARIANTS_INI"), help="a variants.ini (Fairy-Stockfish's src/variants.ini) loaded into both")
    ap.add_argument("--menagerie", default=default_binary(), help="the menagerie binary")
    ap.add_argument("--positions", type=int, default=6, help="positions of a random game per variant")
    ap.add_argument("--plies", type=int, default=60, help="length of the random game")
    ap.add_argument("--depth", type=int, default=2, help="perft depth from the random positions")
    ap.add_argument("--start-depth", type=int, default=3, help="perft depth from the start position")
    ap.add_argument("--budget", type=int, default=500, help="pyffish calls a perft may cost (lowers the depth; about 3 ms each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="comma-separated variant names (default: all)")
    ap.add_argument("--fail-on-mismatch", action="store_true")
    args = ap.parse_args()

    builtins = set(sf.variants())
    if args.ini:
        text = pathlib.Path(args.ini).read_text(encoding="utf-8")
        sf.load_variant_config(text)
        sections = [m.group(1).strip() for m in re.finditer(r"^\[([^\]:]+)(?::[^\]]*)?\]", text, re.M)]
    else:
        sections = []
    names = sorted(builtins) + [s for s in sections if s not in builtins]
    if args.only:
        wanted = args.only.split(",")
        names = [n for n in names if n in wanted]
    menagerie = Menagerie(args.menagerie, args.ini)
    loaded, skipped = menagerie.catalogue()
    tally: dict[str, int] = {}
    t0 = time.time()
    print(f"{'variant':<24} {'from':<8} {'result':<9} detail")
    for name in names:
        origin = "builtin" if name in builtins else "ini"
        if name not in sf.variants():
            verdict, detail = "oracle", "pyffish does not load it"
        elif name in loaded:
            try:
                verdict, detail = check(menagerie, name, loaded[name], args)
            except Exception as e:  # pyffish failing on its own variant
                verdict, detail = "oracle", f"pyffish: {e}"
        else:
            verdict, detail = "refused", skipped.get(name, "not a Menagerie variant")
        tally[verdict] = tally.get(verdict, 0) + 1
        print(f"{name:<24} {origin:<8} {verdict:<9} {detail}", flush=True)
    counted = len(names) - tally.get("oracle", 0)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(tally.items()))
    print(f"exact {tally.get('exact', 0)} of {counted} ({summary}; {time.time() - t0:.0f} s)")
    return 1 if args.fail_on_mismatch and tally.get("mismatch") else 0


if __name__ == "__main__":
    sys.exit(main())
