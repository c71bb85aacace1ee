#!/usr/bin/env bash
# test-compose-json-cli.sh: `weft-cli compose --json` (the prediction) and the
# peak memory `weft-cli analyze --json` reads from [memory] events, against an
# independent python3 reading of the written files:
# - tokens_per_second_per_gpu = dp x mbs x seq / world / step time, the step
#   time being the longest rank's last ProfilerStep in the files;
# - mfu_pct from torchtitan's get_nparams_and_flops (6 x non-embedding params
#   + 12 x layers x heads x head_dim x seq, MoE: active experts) over the
#   preset's peak, computed here from the files' "weft" parameters;
# - peak_memory_gib = the largest "Total Reserved" of the files' CUDA
#   [memory] events (max over ranks, and per rank), and analyze of the
#   composed folder reports the same figures;
# - analyze of a real profile with [memory] events (TraceLens Qwen 0.5B,
#   H100) and of a generated file (two devices, CPU events that must not
#   count) reports the largest totals of the GPU events.
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" compose-json

check_compose () {
  local name=$1; shift
  rm -rf "$T/$name"
  expect_rc 0 "$W" compose "$@" --format json --out "$T/$name" --json || return 0
  cp "$T/out" "$T/$name.json"
  expect_rc 0 "$W" analyze "$T/$name" --json || return 0
  cp "$T/out" "$T/$name.analyze.json"
  python3 - "$T/$name" "$T/$name.json" "$T/$name.analyze.json" <<'EOF' || fail "compose --json $name: $*"
import glob, json, math, os, sys

folder, pred, ana = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
files = sorted(glob.glob(os.path.join(folder, "profiling/traces/iteration_*/rank*_trace.json")))
assert files, "no files"
steps, peaks, allocs = {}, {}, {}
for f in files:
    d = json.load(open(f))
    r = d["distributedInfo"]["rank"]
    ps = [e for e in d["traceEvents"] if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#")]
    last = max(ps, key=lambda e: float(e["ts"]))
    steps[r] = float(last["dur"])
    mem = [e["args"] for e in d["traceEvents"] if e.get("name") == "[memory]" and e["args"]["Device Type"] == 1]
    assert mem, "no [memory] events on rank %d" % r
    peaks[r] = max(a["Total Reserved"] for a in mem) / 2**30
    allocs[r] = max(a["Total Allocated"] for a in mem) / 2**30
    # the allocator's totals: what the rank holds when the step begins (its
    # parameters and optimizer state) plus the sum of the Bytes; reserved
    # never below allocated nor decreasing (the cache is warm, nothing flushed)
    tot, res = mem[0]["Total Allocated"] - mem[0]["Bytes"], 0
    assert tot > 0, (r, mem[0])
    for a in mem:
        tot += a["Bytes"]
        assert tot == a["Total Allocated"] and a["Total Allocated"] >= 0, (r, tot, a)
        assert a["Total Reserved"] >= a["Total Allocated"] and a["Total Reserved"] >= res, a
        res = a["Total Reserved"]
    p = d["weft"]

def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)

m, world = p["model"], p["dp"] * p["tp"] * p["cp"]
step_us = max(steps.values())
assert close(pred["step_time_us"], step_us, 1e-6), (pred["step_time_us"], step_us)
tps = p["dp"] * m["mbs"] * m["seq"] / world / (pred["step_time_us"] / 1e6)
assert close(pred["tokens_per_second_per_gpu"], tps), (pred["tokens_per_second_per_gpu"], tps)
h, d_head = m["hidden"], m["hidden"] / m["heads"]
n = m["vocab"] * h + h
for i in range(m["layers"]):
    n += h * m["heads"] * d_head * 2 + h * m["kv_heads"] * d_head * 2 + 2 * h
    moe = m["experts"] > 0 and (m["moe_every"] <= 1 or i % m["moe_every"] == m["moe_every"] - 1)
    n += h * m["experts"] + 3 * h * m["moe_ffn"] * m["top_k"] if moe else 3 * h * m["ffn"]
flops = 6 * n + 12 * m["layers"] * m["heads"] * d_head * m["seq"]
assert close(pred["flops_per_token"], flops), (pred["flops_per_token"], flops)
mfu = 100 * tps * flops / p["hardware"]["peak_flops"]
assert close(pred["mfu_pct"], mfu, 1e-6), (pred["mfu_pct"], mfu)
assert 0 < pred["mfu_pct"] < 100, pred["mfu_pct"]
assert close(pred["peak_memory_gib"], max(peaks.values())), (pred["peak_memory_gib"], peaks)
assert close(pred["peak_allocated_gib"], max(allocs.values()))
assert len(pred["ranks"]) == len(files)
for ro in pred["ranks"]:
    assert close(ro["peak_memory_gib"], peaks[ro["rank"]]), ro
# analyze reads the same figures from the files
assert close(ana["peak_memory_gib"], pred["peak_memory_gib"]), (ana["peak_memory_gib"], pred["peak_memory_gib"])
assert close(ana["peak_allocated_gib"], pred["peak_allocated_gib"])
for ro in ana["ranks"]:
    assert close(ro["peak_memory_gib"], peaks[ro["rank"]]), ro
# the memory model's persistent part: 16 bytes per local parameter (fp32
# params, fp32 grads, AdamW's two fp32 states), below the peak
mm = pred["memory_model"]
assert close(mm["optimizer_gib"], 2 * mm["params_gib"]) and close(mm["grads_gib"], mm["params_gib"])
assert mm["params_gib"] + mm["optimizer_gib"] < pred["peak_memory_gib"] < pred["device_memory_gib"]
EOF
}

check_compose fsdp --strategy fsdp --dp 8 --layers 3
check_compose fsdp-noprefetch --strategy fsdp --dp 4 --layers 2 --no-prefetch --steps 2
check_compose ddp --strategy ddp --dp 4 --layers 2
check_compose tp-sp --strategy tp --tp 4 --sp --layers 1
check_compose ep --strategy fsdp,ep --dp 4 --ep 4 --preset moe-small --layers 2 --ep-overlap
check_compose cp --strategy fsdp,cp --cp 2 --dp 2 --cp-mode ring --layers 1 --seq 16384
check_compose h200 --strategy fsdp --dp 8 --layers 2 --hw h200

# --json without --out: the same prediction, nothing written
expect_rc 0 "$W" compose --strategy fsdp --dp 8 --layers 3 --json && cp "$T/out" "$T/noout.json"
python3 - "$T/noout.json" "$T/fsdp.json" <<'EOF' || fail "compose --json without --out differs"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for k in ("step_time_us", "tokens_per_second_per_gpu", "mfu_pct", "peak_memory_gib"):
    assert a[k] == b[k], (k, a[k], b[k])
EOF

# less memory with more sharding: FSDP over 8 keeps less than over 2 per rank
expect_rc 0 "$W" compose --strategy fsdp --dp 2 --layers 3 --json && cp "$T/out" "$T/dp2.json"
python3 - "$T/dp2.json" "$T/fsdp.json" <<'EOF' || fail "FSDP memory does not fall with the shard count"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["peak_memory_gib"] > b["peak_memory_gib"], (a["peak_memory_gib"], b["peak_memory_gib"])
assert abs(a["memory_model"]["params_gib"] / b["memory_model"]["params_gib"] - 4) < 1e-9
EOF

# analyze of files with [memory] events: the largest GPU totals
check_analyze_memory () {
  local path=$1
  expect_rc 0 "$W" analyze "$path" --json || return 0
  python3 - "$path" "$T/out" <<'EOF' || fail "analyze peak memory of $path"
import glob, gzip, json, os, sys
path, ana = sys.argv[1], json.load(open(sys.argv[2]))
files = sorted(glob.glob(os.path.join(path, "**/*.json*"), recursive=True)) if os.path.isdir(path) else [path]
best = {}
for f in files:
    d = json.load(gzip.open(f) if f.endswith(".gz") else open(f))
    mem = [e["args"] for e in d["traceEvents"] if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1]
    best[f] = (max(a["Total Reserved"] for a in mem), max(a["Total Allocated"] for a in mem))
res = max(v[0] for v in best.values()) / 2**30
alloc = max(v[1] for v in best.values()) / 2**30
assert abs(ana["peak_memory_gib"] - res) < 1e-12, (ana["peak_memory_gib"], res)
assert abs(ana["peak_allocated_gib"] - alloc) < 1e-12, (ana["peak_allocated_gib"], alloc)
assert all("peak_memory_gib" in r for r in ana["ranks"]), ana["ranks"]
print("%s: peak reserved %.3f GiB, allocated %.3f GiB" % (os.path.basename(path), res, alloc))
EOF
}

python3 - "$T/gen.json" <<'EOF'
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 100.0, "dur": 400.0},
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 120.0, "dur": 300.0,
       "args": {"stream": 7, "device": 0, "correlation": 1}}]
tot = {0: 0, 1: 0, -1: 0}
res = {0: 0, 1: 0, -1: 0}
ts = 110.0
for dev, typ, b in [(0, 1, 3 << 20), (1, 1, 5 << 20), (0, 1, 7 << 20), (-1, 0, 900 << 20), (0, 1, -3 << 20),
                    (1, 1, 2 << 20), (0, 1, -7 << 20), (1, 1, -7 << 20)]:
    tot[dev] += b
    res[dev] = max(res[dev], (tot[dev] + (2 << 20) - 1) // (2 << 20) * (2 << 20))
    ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 7, "ts": ts,
               "args": {"Total Reserved": res[dev], "Total Allocated": tot[dev], "Bytes": b, "Addr": 1 << 40,
                        "Device Id": dev, "Device Type": typ}})
    ts += 10
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], "w"))
EOF
check_analyze_memory "$T/gen.json"

QWEN="$TRACES/TraceLens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
if [ -n "$TRACES" ] && [ -f "$QWEN" ]; then
  check_analyze_memory "$QWEN"
else
  echo "note: shared traces not found ($TRACES): the real [memory] trace is skipped"
fi

# no [memory] events: no peak_memory_gib
expect_rc 0 "$W" sample "$T/s" && expect_rc 0 "$W" analyze "$T/s" --json &&
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'peak_memory_gib' not in d" "$T/out" ||
  fail "analyze reports a peak without [memory] events"

[ "$fails" = 0 ] || exit 1
echo "ok"
