#!/usr/bin/env python3
"""Time from `stop` to `bestmove` in menagerie-uci: per variant and thread
count, `go infinite` from the start position, `stop` after a second, and the
wall time until the `bestmove` line arrives (pipe round trip included).
Not a test: the figures go into benches/README.md.

    python3 benches/stop_latency.py [--runs 5]
"""
import argparse
import pathlib
import time

from uci_process import UciProcess

ROOT = pathlib.Path(__file__).resolve().parents[1]


def latency_ms(engine, variant, threads, think=1.0):
    e = UciProcess(engine, variant, threads)
    e.position("startpos")
    e.send("go infinite")
    time.sleep(think)
    t = time.monotonic()
    e.send("stop")
    e.until("bestmove")
    elapsed = (time.monotonic() - t) * 1000
    e.quit()
    return elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default=str(ROOT / "target" / "release" / "menagerie-uci"))
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print("| variant | threads | median ms | max ms |")
    print("|---|---|---|---|")
    for variant in ["chess", "alpaca", "alseid", "camel-rhino"]:
        for threads in [1, 2]:
            xs = sorted(latency_ms(args.engine, variant, threads) for _ in range(args.runs))
            print(f"| {variant} | {threads} | {xs[len(xs) // 2]:.1f} | {xs[-1]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
