#!/bin/sh
# One game's NNUE from scratch: self-play data, then training.
# Usage: tools/nnue/pipeline.sh <variant> [minutes of self-play, default 15]
# Environment: DATA_DIR (default /tmp/menagerie-nnue), SEED (default 1),
# NODES (default 5000), EPOCHS (default 30), RESUME (a float checkpoint to
# continue from), OUT (default crates/nnue/nets/<variant>.nnue).
set -eu
variant=${1:?usage: tools/nnue/pipeline.sh <variant> [minutes]}
minutes=${2:-15}
data_dir=${DATA_DIR:-/tmp/menagerie-nnue}
seed=${SEED:-1}
out=${OUT:-crates/nnue/nets/$variant.nnue}
cd "$(dirname "$0")/../.."
mkdir -p "$data_dir" "$(dirname "$out")"
cargo build --release -p menagerie-nnue-tools
target/release/menagerie-datagen --variant "$variant" --seed "$seed" --nodes "${NODES:-5000}" \
    --minutes "$minutes" --out "$data_dir/$variant.txt"
set -- --variant "$variant" --seed "$seed" --epochs "${EPOCHS:-30}" --lr 0.003 --lr-decay 0.92 \
    --data "$data_dir/$variant.txt" --out "$out" --checkpoint "$data_dir/$variant.ckpt"
if [ -n "${RESUME:-}" ]; then set -- "$@" --resume "$RESUME"; fi
target/release/menagerie-train "$@"
