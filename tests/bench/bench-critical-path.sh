#!/usr/bin/env bash
# bench-critical-path.sh: for every shared trace, one row per ProfilerStep
# (the whole trace where it has none): step time, GPU busy %, and the
# critical path's length and composition, as `weft-cli analyze --json`
# reports them. Prints the markdown table of docs/solver.md ("The critical
# path on the shared traces").
#
#   bash tests/bench/bench-critical-path.sh [BUILD_DIR] [TRACES_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
T=${2:-${WEFT_TRACES_DIR:-../shared/traces}}
[ -d "$T" ] || { echo "bench-critical-path: $T absent: skipped"; exit 0; }
traces=(
  param/et_replay/tests/inputs/dlrm_kineto
  synthetic/fsdp8
  HolisticTraceAnalysis/critical_path/alexnet
  HolisticTraceAnalysis/critical_path/cuda_event_sync
  HolisticTraceAnalysis/critical_path/cuda_event_sync_multi_stream
  HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz
  HolisticTraceAnalysis/negative_queue_length_values_check/rank0.json.gz
  HolisticTraceAnalysis/trace_diff/control/control.json.gz
  HolisticTraceAnalysis/trace_filter
  HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz
  HolisticTraceAnalysis/cpu_only
  HolisticTraceAnalysis/distributed_info_unavailable
  TraceLens/b200/eager_trace.json.gz
  TraceLens/h100
  TraceLens/mi300
  TraceLens/mi210/gpu_only_trace
  TraceLens/torch_compile_triton
)
echo "| trace | step | step time ms | GPU busy % | critical path ms | compute % | comm % | launch/CPU % | inferred % | waiting % |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for t in "${traces[@]}"; do
  [ -e "$T/$t" ] || continue
  steps=$("$B/weft-cli" analyze "$T/$t" --json | python3 -c 'import json,sys; print(" ".join(str(s) for s in json.load(sys.stdin)["steps"]) or "all")')
  for s in $steps; do
    if [ "$s" = all ]; then args=(); else args=(--step "$s"); fi
    "$B/weft-cli" analyze "$T/$t" "${args[@]}" --json | python3 -c '
import json, sys
t, s = sys.argv[1], sys.argv[2]
d = json.load(sys.stdin)
w, c = d["whole"], d["critical_path"]
st = w["step_time_us"]
L = c["length_us"]
pct = lambda x: "%.1f" % (100.0 * x / L) if L > 0 else "-"
busy = "%.1f" % (100.0 * (st - w["idle_us"]) / st) if st > 0 else "-"
print("| %s | %s | %.3f | %s | %.3f | %s | %s | %s | %s | %s |" % (t, s, st / 1e3, busy, L / 1e3, pct(c["compute_us"]),
      pct(c["communication_us"]), pct(c["launch_us"]), pct(c["inferred_us"]), pct(c["waiting_us"])))
' "$t" "$s"
  done
done
