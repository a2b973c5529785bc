#!/usr/bin/env bash
# The project's test command: every Rust test of the workspace, then the
# Python tests that drive Menagerie through foreign clients and oracles
# (installed into .venv on first use).
set -euo pipefail
cd "$(dirname "$0")/.."

# Fairy-Stockfish for the match tests of variants defined as data (Debian's
# package, or a build of your own via MENAGERIE_FAIRY_STOCKFISH).
if [ -z "${MENAGERIE_FAIRY_STOCKFISH:-}" ] && [ -x /usr/games/fairy-stockfish ]; then
  export MENAGERIE_FAIRY_STOCKFISH=/usr/games/fairy-stockfish
fi
cargo test --workspace --locked

# The Python tests run the binaries `cargo test` has just built for the
# workspace's integration tests (target/debug: the rules and search crates are
# optimised there, and overflow checks stay on); a release build would cost
# minutes and test the same code. MENAGERIE_BIN_DIR picks other binaries.
if [ -d tests/python ] && ls tests/python/test_*.py >/dev/null 2>&1; then
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt
  MENAGERIE_BIN_DIR="${MENAGERIE_BIN_DIR:-$PWD/target/debug}" .venv/bin/python -m pytest -q tests/python
fi

# OpenTelemetry export (an optional cargo feature) against a real OTLP endpoint,
# and trace ids in the access log. (After the Python tests: it rebuilds
# target/debug/menagerie-server with the feature.)
cargo test -p menagerie-analysis-server --features otel --locked --test otel --test metrics
