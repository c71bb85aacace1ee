#!/bin/bash
# load-pipe-rounds.sh: one big file loaded with main's build, this build and this build without
# its pipeline (WEFT_LOAD_SEQUENTIAL=1), alternating, `bench-load --one FILE 2`; each round is
# framed by two probes (main's build on the 4-rank set with 2 threads: CPU / wall ~1.5-2 when both
# cores were free, ~1.0 when another job held one). docs/benchmarks.md, "One big file on both cores".
#
#   tests/bench/load-pipe-rounds.sh BASE_BENCH_LOAD FOUR_DIR SECONDS FILE... > rounds.txt
#   python3 tests/bench/load-pipe-summary.py rounds.txt
set -u
B=$1; FOUR=$2; SECS=$3; shift 3
N=$(dirname "$0")/../../build/tests/bench/bench-load
run() { local out; out=$(env ${5:-} "$2" --one "$3" "$4" 2>&1); echo "$1 $4 $(basename "$3") $out"; }
end=$(( $(date +%s) + SECS )); r=0
while [ "$(date +%s)" -lt $end ]; do
  r=$((r + 1))
  echo "# round $r $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  run probe "$B" "$FOUR" 2
  for f in "$@"; do
    run base "$B" "$f" 2; run pipe "$N" "$f" 2; run seq "$N" "$f" 2 WEFT_LOAD_SEQUENTIAL=1
  done
  run probe "$B" "$FOUR" 2
  run base "$B" "$FOUR" 2; run pipe "$N" "$FOUR" 2
done
echo "# end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
