#!/usr/bin/env bash
# bench-scale.sh: a multi-rank set of >= 8 GB of JSON through the window's
# core path (tests/bench/bench-scale.c), optionally side by side with an
# older build (docs/benchmarks.md, "Scale").
#
#   bash tests/bench/bench-scale.sh BUILD [BASE_BUILD] 
#   env: OUT=/tmp/weft-scale (where the set is written; removed at the end
#        unless KEEP=1), RANKS=8, COPIES=20 (df_index_resolver's events per
#        rank, ~49 MB each), FRAMES=20, TRACES=../shared/traces
#
# Rank 0 is df_index_resolver repeated COPIES times in time
# (tests/bench/gen-scaled.py); ranks 1.. are the same file with their
# distributedInfo rank (and the world size) rewritten, as rank<r>_trace.json
# so that the folder loads as one job. Each build runs once per set, in
# its own process; peak RSS is that process's.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:?usage: bench-scale.sh BUILD [BASE_BUILD]}"
base="${2:-}"
out="${OUT:-/tmp/weft-scale}"
ranks="${RANKS:-8}"
copies="${COPIES:-20}"
frames="${FRAMES:-20}"
traces="${TRACES:-$here/../../../shared/traces}"
src="$traces/HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz"

[ -f "$src" ] || { echo "bench-scale: $src not found (set TRACES)"; exit 77; }
need_mb=$(( ranks * copies * 52 + 200 ))
free_mb=$(df -Pm "$(dirname "$out")" | awk 'NR == 2 { print $4 }')
df -h "$(dirname "$out")"
if [ "$free_mb" -lt "$need_mb" ]; then
  echo "bench-scale: need ~${need_mb} MB free in $(dirname "$out"), have ${free_mb}"; exit 1
fi
mkdir -p "$out"
cleanup () { [ "${KEEP:-0}" = 1 ] || rm -rf "$out"; }
trap cleanup EXIT

t0=$(date +%s)
python3 "$here/gen-scaled.py" "$src" "$out/rank0_trace.json" "$copies" --rank 0
# the header (top-level keys before traceEvents) is the first lines
hdr=$(grep -n '"traceEvents"' "$out/rank0_trace.json" | head -1 | cut -d: -f1)
for r in $(seq 1 $(( ranks - 1 ))); do
  { head -n "$hdr" "$out/rank0_trace.json" |
      sed -e "s/\"rank\": 0/\"rank\": $r/" -e "s/\"world_size\": [0-9]*/\"world_size\": $ranks/"
    tail -n +$(( hdr + 1 )) "$out/rank0_trace.json"; } > "$out/rank${r}_trace.json"
done
sed -i -e "1,${hdr}s/\"world_size\": [0-9]*/\"world_size\": $ranks/" "$out/rank0_trace.json"
echo "generated $(du -sh "$out" | cut -f1) in $(( $(date +%s) - t0 )) s: $(ls "$out" | wc -l) files"

run () {  # BUILD LABEL
  echo "== $2 ($1)"
  /usr/bin/time -f "wall_s %e\ncpu_user_s %U\ncpu_sys_s %S\nmax_rss_kb %M" \
    "$1/tests/bench/bench-scale" "$out" "$frames" 2>&1 | tee "$out/$2.txt"
}
run "$build" new
if [ -n "$base" ]; then
  run "$base" base
  echo "== side by side (new / base)"
  awk 'FNR == NR { if (NF == 2) a[$1] = $2; next }
       NF == 2 && ($1 in a) { r = ($2 + 0 != 0) ? sprintf ("%.2fx", a[$1] / $2) : "-";
                              printf "%-34s %12s %12s %8s\n", $1, a[$1], $2, r }' \
    "$out/new.txt" "$out/base.txt"
fi
