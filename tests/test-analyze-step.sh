#!/usr/bin/env bash
# test-analyze-step.sh: `weft-cli analyze` step time = the ProfilerStep#N span
# (docs/solver.md, "Metrics"), against an independent python3 reading of the
# files (ts/dur read as decimal text into integer ns).
#
# For every shared trace with ProfilerStep annotations and every step: the
# unedited trace's step_time_us is the longest ProfilerStep#N span over the
# ranks (within 1 ns), step_time_source is "profiler_step", end_ns - begin_ns
# is the step time, every rank's step time is its own annotation's span, and
# gpu_begin_ns / gpu_end_ns / gpu_span_us agree (the GPU span itself is
# checked against the observed ops by /solver/replay-shared). The
# whole trace (no --step) reports the GPU span as its step time, with
# step_time_source "gpu_span". A composed trace (`weft-cli compose`), whose
# composer writes the ProfilerStep annotation, reports its span.
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" analyze-step

CHECK="$T/check.py"
cat >"$CHECK" <<'EOF'
import decimal, glob, gzip, json, os, subprocess, sys

cli, path = sys.argv[1], sys.argv[2]

def ns(x):
    return int(decimal.Decimal(str(x)) * 1000)

def files(p):
    if os.path.isdir(p):
        out = []
        for root, _, fs in os.walk(p):
            out += [os.path.join(root, f) for f in fs if ".json" in f]
        return sorted(out)
    return [p]

def load(f):
    op = gzip.open if f.endswith(".gz") else open
    with op(f, "rt") as fh:
        d = json.load(fh, parse_float=decimal.Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d

GPU = ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset")
spans, gpu = {}, {}   # step -> [rank span], step -> (lo, hi) relative to each rank's step begin
for f in files(path):
    ev = [e for e in load(f) if e.get("ph") == "X"]
    steps = {}
    for e in ev:
        if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") in ("user_annotation", "cpu_op"):
            n = int(e["name"][len("ProfilerStep#"):])
            b, d = ns(e["ts"]), ns(e.get("dur", 0))
            lo, hi = steps.get(n, (b, b + d))
            steps[n] = (min(lo, b), max(hi, b + d))
    for n, (b, e) in steps.items():
        spans.setdefault(n, []).append(e - b)
if not spans:
    print("%s: no ProfilerStep" % path)
    sys.exit(0)

errors = []
def analyze(*args):
    r = subprocess.run([cli, "analyze", path, "--json", "--top", "0"] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        errors.append("%s %s: exit %d: %s" % (path, args, r.returncode, r.stderr[:300]))
        return None
    return json.loads(r.stdout)

d = analyze()
if d is not None:
    w = d["whole"]
    if d["steps"] != sorted(spans):
        errors.append("%s: steps %s, expected %s" % (path, d["steps"], sorted(spans)))
    if w["step_time_source"] != "gpu_span" or abs(w["step_time_us"] - w["gpu_span_us"]) > 1e-6:
        errors.append("%s: whole trace: step time %s (%s) is not the GPU span %s" %
                      (path, w["step_time_us"], w["step_time_source"], w["gpu_span_us"]))
for n in sorted(spans):
    want = max(spans[n])
    d = analyze("--step", str(n))
    if d is None:
        continue
    w = d["whole"]
    got = round(w["step_time_us"] * 1000)
    line = "%s: ProfilerStep#%d: step %.3f us (ProfilerStep %.3f us), GPU span %.3f us, overlap %.2f %%" % (
        path, n, w["step_time_us"], want / 1e3, w["gpu_span_us"], w["overlap_pct"])
    print(line)
    if abs(got - want) > 1:
        errors.append(line + ": step time is not the ProfilerStep span")
    if w["step_time_source"] != "profiler_step":
        errors.append(line + ": step_time_source %s" % w["step_time_source"])
    if w["end_ns"] - w["begin_ns"] != got and abs(w["end_ns"] - w["begin_ns"] - got) > 1:
        errors.append(line + ": end_ns - begin_ns = %d" % (w["end_ns"] - w["begin_ns"]))
    if w["gpu_span_us"] > 0 and w["gpu_end_ns"] - w["gpu_begin_ns"] != round(w["gpu_span_us"] * 1000):
        errors.append(line + ": gpu_end_ns - gpu_begin_ns != gpu_span_us")
    if w["step_time_delta_us"] != 0 or w["gpu_span_delta_us"] != 0:
        errors.append(line + ": deltas on an unedited trace")
    for r in d["ranks"]:
        if r["step_time_source"] != "profiler_step" or r["step_time_us"] > w["step_time_us"] + 1e-6:
            errors.append(line + ": rank %d: step %s (%s)" % (r["rank"], r["step_time_us"], r["step_time_source"]))
    if sorted(round(r["step_time_us"] * 1000) for r in d["ranks"]) != sorted(spans[n]) and len(d["ranks"]) == len(spans[n]):
        errors.append(line + ": per-rank step times %s vs ProfilerStep spans %s" %
                      (sorted(round(r["step_time_us"] * 1000) for r in d["ranks"]), sorted(spans[n])))
for e in errors:
    print(e, file=sys.stderr)
sys.exit(1 if errors else 0)
EOF

n=0
if [ -n "$TRACES" ] && [ -d "$TRACES" ]; then
  for p in param/et_replay/tests/inputs/dlrm_kineto synthetic/fsdp8 HolisticTraceAnalysis/trace_filter \
           HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz \
           HolisticTraceAnalysis/df_index_resolver/df_index_resolver.json.gz \
           HolisticTraceAnalysis/negative_queue_length_values_check/rank0.json.gz \
           HolisticTraceAnalysis/trace_diff/control/control.json.gz \
           HolisticTraceAnalysis/critical_path/cuda_event_sync HolisticTraceAnalysis/cpu_only \
           HolisticTraceAnalysis/distributed_info_unavailable \
           TraceLens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz \
           TraceLens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz \
           TraceLens/b200/eager_trace.json.gz TraceLens/mi210 TraceLens/torch_compile_triton; do
    if [ ! -e "$TRACES/$p" ]; then
      echo "note: $TRACES/$p absent: skipped"
      continue
    fi
    python3 "$CHECK" "$W" "$TRACES/$p" || fail "step time on $p"
    n=$((n + 1))
  done
else
  echo "note: shared traces not found (${TRACES:-WEFT_TRACES_DIR unset}): only the composed traces are checked"
fi

# composed traces: the composer's ProfilerStep annotation is the step
for args in "-s fsdp --dp 2" "-s ddp --dp 2" "-s tp --tp 2"; do
  rm -rf "$T/c"
  # shellcheck disable=SC2086
  expect_rc 0 "$W" compose $args --layers 2 --out "$T/c" || continue
  python3 "$CHECK" "$W" "$T/c" || fail "step time on 'compose $args'"
done

[ "$fails" -eq 0 ] || exit 1
echo "analyze-step: ok ($n shared traces)"
