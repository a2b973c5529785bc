#!/usr/bin/env bash
# Perft speed of `menagerie` against Stockfish (or Fairy-Stockfish) on the six
# standard positions of tests/perft/chess-standard.epd.
#
# Usage: benches/compare-stockfish.sh [--fairy] [--engine PATH] [--depths "D1 ... D6"] [--repeat N] [--quick] [--no-build]
#
#   --fairy         compare against Fairy-Stockfish (default path /usr/games/fairy-stockfish);
#                   its perft is ~12M nodes/s here, so one pass takes about 2.5 minutes
#   --engine PATH   the UCI engine to compare against (default /usr/games/stockfish)
#   --depths "..."  one depth per position, in file order (default "6 5 7 6 5 5")
#   --repeat N      run each engine N times per position and keep the fastest (default 1)
#   --quick         every depth one less (a smoke test; runs are then too short to compare)
#   --no-build      use target/release/menagerie as it is
#
# Both programs run single-threaded, one process per position, timed on the
# wall clock from process start to exit (start-up included for both); the
# start-up alone is measured too (perft 1 of the start position) and shown
# below the table. Node counts must agree between the two engines (and with
# the EPD file where it lists the depth), or the script exits with 1.
set -euo pipefail
cd "$(dirname "$0")/.."

engine=""
fairy=0
depths=(6 5 7 6 5 5)
quick=0
build=1
repeat=1
while [ $# -gt 0 ]; do
  case "$1" in
    --fairy) fairy=1 ;;
    --engine)
      [ $# -ge 2 ] || { echo "error: --engine needs a path" >&2; exit 2; }
      engine="$2"
      shift
      ;;
    --depths)
      [ $# -ge 2 ] || { echo "error: --depths needs a list" >&2; exit 2; }
      read -r -a depths <<<"$2"
      shift
      ;;
    --repeat)
      [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "error: --repeat needs a positive count" >&2; exit 2; }
      repeat="$2"
      shift
      ;;
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    -h | --help)
      sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "error: unknown argument '$1' (try --help)" >&2
      exit 2
      ;;
  esac
  shift
done

if [ "$fairy" = 1 ]; then
  label="fairy-sf"
  package="fairy-stockfish"
  : "${engine:=/usr/games/fairy-stockfish}"
else
  label="stockfish"
  package="stockfish"
  : "${engine:=/usr/games/stockfish}"
fi
if ! [ -x "$engine" ]; then
  echo "error: $label not found at $engine" >&2
  echo "install it with: apt-get install $package   (Debian puts it in /usr/games), or pass --engine PATH" >&2
  exit 1
fi

epd=tests/perft/chess-standard.epd
names=(startpos kiwipete pos3 pos4 pos5 pos6)
bin=target/release/menagerie
if [ "$build" = 1 ]; then
  cargo build --release -q -p menagerie-cli
fi
[ -x "$bin" ] || { echo "error: $bin not built (run without --no-build)" >&2; exit 1; }

fens=()
lines=()
while IFS= read -r line; do
  case "$line" in '' | '#'*) continue ;; esac
  fen="${line%%;*}"
  fen="${fen%"${fen##*[! ]}"}"
  fens+=("$fen")
  lines+=("$line")
done <"$epd"
if [ "${#fens[@]}" -ne "${#names[@]}" ] || [ "${#depths[@]}" -ne "${#names[@]}" ]; then
  echo "error: expected ${#names[@]} positions in $epd and ${#names[@]} depths, got ${#fens[@]} and ${#depths[@]}" >&2
  exit 1
fi

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# run_menagerie FEN DEPTH -> "NODES SECONDS"
run_menagerie() {
  local t0 t1 out
  t0=$(now)
  out=$("$bin" perft --threads 1 --fen "$1" "$2" 2>/dev/null)
  t1=$(now)
  echo "${out##*$'\n'} $(elapsed "$t0" "$t1")"
}

# run_engine FEN DEPTH -> "NODES SECONDS"
run_engine() {
  local t0 t1 out nodes
  t0=$(now)
  out=$(printf 'setoption name Threads value 1\nposition fen %s\ngo perft %s\nquit\n' "$1" "$2" | "$engine" 2>&1)
  t1=$(now)
  nodes=$(sed -n 's/^Nodes searched: *//p' <<<"$out" | tail -n1)
  echo "${nodes:-?} $(elapsed "$t0" "$t1")"
}

# best_of N CMD ARGS... -> "NODES SECONDS" of the fastest of N runs (all must count the same)
best_of() {
  local n=$1 best="" nodes secs
  shift
  for ((k = 0; k < n; k++)); do
    read -r nodes secs <<<"$("$@")"
    if [ -z "$best" ]; then
      best="$nodes $secs"
    elif [ "$nodes" != "${best%% *}" ]; then
      echo "$nodes/${best%% *} 0"
      return
    elif awk -v a="$secs" -v b="${best##* }" 'BEGIN { exit !(a < b) }'; then
      best="$nodes $secs"
    fi
  done
  echo "$best"
}

mnps() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", (s > 0) ? n / s / 1e6 : 0 }'; }

rev=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
git diff --quiet HEAD -- crates 2>/dev/null || rev="$rev + uncommitted changes in crates/"
echo "menagerie: $bin ($rev)"
echo "$label: $engine ($(printf 'quit\n' | "$engine" 2>&1 | head -n1))"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "one thread each, wall clock incl. process start, best of $repeat"
echo

row() { printf '%-9s %5s %12s %11s %11s %9s %9s %7s\n' "$@"; }
row position depth nodes "menagerie s" "$label s" "m Mnps" "sf Mnps" ratio
total_nodes=0
total_m=0
total_e=0
ratios=()
for i in "${!names[@]}"; do
  depth=${depths[$i]}
  [ "$quick" = 1 ] && depth=$((depth - 1))
  fen=${fens[$i]}
  read -r m_nodes m_secs <<<"$(best_of "$repeat" run_menagerie "$fen" "$depth")"
  read -r e_nodes e_secs <<<"$(best_of "$repeat" run_engine "$fen" "$depth")"
  if [ "$m_nodes" != "$e_nodes" ]; then
    echo "error: ${names[$i]} depth $depth: menagerie counts $m_nodes, $label counts $e_nodes" >&2
    exit 1
  fi
  expected=$(sed -n "s/.*;D$depth \([0-9]*\).*/\1/p" <<<"${lines[$i]}")
  if [ -n "$expected" ] && [ "$expected" != "$m_nodes" ]; then
    echo "error: ${names[$i]} depth $depth: both engines count $m_nodes, $epd says $expected" >&2
    exit 1
  fi
  m_rate=$(mnps "$m_nodes" "$m_secs")
  e_rate=$(mnps "$e_nodes" "$e_secs")
  ratio=$(awk -v m="$m_secs" -v e="$e_secs" 'BEGIN { printf "%.2f", (m > 0) ? e / m : 0 }')
  ratios+=("$ratio")
  row "${names[$i]}" "$depth" "$m_nodes" "$m_secs" "$e_secs" "$m_rate" "$e_rate" "$ratio"
  total_nodes=$((total_nodes + m_nodes))
  total_m=$(awk -v a="$total_m" -v b="$m_secs" 'BEGIN { printf "%.3f", a + b }')
  total_e=$(awk -v a="$total_e" -v b="$e_secs" 'BEGIN { printf "%.3f", a + b }')
done

total_ratio=$(awk -v m="$total_m" -v e="$total_e" 'BEGIN { printf "%.2f", (m > 0) ? e / m : 0 }')
geomean=$(printf '%s\n' "${ratios[@]}" | awk '{ s += log($1); n++ } END { printf "%.2f", exp(s / n) }')
row total "" "$total_nodes" "$total_m" "$total_e" \
  "$(mnps "$total_nodes" "$total_m")" "$(mnps "$total_nodes" "$total_e")" "$total_ratio"
echo
echo "ratio = menagerie nodes/s over $label nodes/s (above 1: menagerie faster)"
echo "geometric mean of the six ratios: $geomean"

# Fixed cost of one process: perft 1 of the start position.
start_fen=${fens[0]}
read -r _ m_start <<<"$(best_of "$repeat" run_menagerie "$start_fen" 1)"
read -r _ e_start <<<"$(best_of "$repeat" run_engine "$start_fen" 1)"
echo "start-up (perft 1, included in every row above): menagerie ${m_start} s, $label ${e_start} s"
n=${#names[@]}
awk -v m="$total_m" -v e="$total_e" -v ms="$m_start" -v es="$e_start" -v n="$n" -v l="$label" 'BEGIN {
  m -= n * ms; e -= n * es
  if (m > 0 && e > 0) printf "total ratio with start-up taken out of each run: %.2f (menagerie %.3f s, %s %.3f s)\n", e / m, m, l, e
}'
