"""Command line front end for the reference implementation.

    python3 cli.py moves VARIANT FEN          one line per legal move: "MOVE FEN_AFTER"
    python3 cli.py perft VARIANT FEN DEPTH    the perft count
    python3 cli.py divide VARIANT FEN DEPTH   "MOVE COUNT" per legal move, then the total
    python3 cli.py batch                      JSON lines on stdin, JSON lines on stdout

Batch requests: {"variant": ..., "fen": ...} -> {"moves": {move: fen_after, ...}}
                optional "play": [moves...] applied first; optional "depth": N adds "perft".
On any error the reply is {"error": message}.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rules  # noqa: E402


def _fen_arg(variant, fen):
    if fen in ("startpos", "start"):
        return rules.START_FENS[variant]
    return fen


def handle_request(req):
    try:
        variant = req["variant"]
        fen = req.get("fen") or rules.START_FENS.get(variant)
        if fen is None:
            raise ValueError("unknown variant: %r" % variant)
        pos = rules.parse_fen(variant, _fen_arg(variant, fen))
        for move in req.get("play", []):
            pos = rules.play(pos, move)
        reply = {}
        succ = rules.legal_successors(pos)
        reply["moves"] = {m: rules.format_fen(succ[m]) for m in sorted(succ)}
        if "depth" in req:
            reply["perft"] = rules.perft(pos, int(req["depth"]))
        return reply
    except (ValueError, KeyError, TypeError) as exc:
        return {"error": str(exc)}


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[1]
    try:
        if cmd == "moves" and len(argv) == 4:
            pos = rules.parse_fen(argv[2], _fen_arg(argv[2], argv[3]))
            succ = rules.legal_successors(pos)
            for m in sorted(succ):
                print(m, rules.format_fen(succ[m]))
            return 0
        if cmd in ("perft", "divide") and len(argv) == 5:
            pos = rules.parse_fen(argv[2], _fen_arg(argv[2], argv[3]))
            depth = int(argv[4])
            if depth < 0:
                raise ValueError("negative depth")
            if cmd == "perft":
                print(rules.perft(pos, depth))
            else:
                total = 0
                succ = rules.legal_successors(pos)
                for m in sorted(succ):
                    n = rules.perft(succ[m], depth - 1) if depth >= 1 else 0
                    total += n
                    print(m, n)
                print(total if depth >= 1 else 1)
            return 0
        if cmd == "batch" and len(argv) == 2:
            for line in sys.stdin:
                line = line.strip()
                if not line:
                    continue
                try:
                    req = json.loads(line)
                    reply = handle_request(req) if isinstance(req, dict) \
                        else {"error": "request must be a JSON object"}
                except json.JSONDecodeError as exc:
                    reply = {"error": "bad JSON: %s" % exc}
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()
            return 0
    except (ValueError, KeyError) as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
