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
# OpenTelemetry export (an optional cargo feature) against a real OTLP endpoint,
# and trace ids in the access log.
cargo test -p menagerie-analysis-server --features otel --locked --test otel --test metrics

if [ -d tests/python ] && ls tests/python/test_*.py >/dev/null 2>&1; then
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  .venv/bin/pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt
  cargo build --release --locked --bins
  MENAGERIE_BIN_DIR="$PWD/target/release" .venv/bin/python -m pytest -q tests/python
fi
