#!/usr/bin/env bash
# test-analyze-sample.sh: the critical-path composition of `weft-cli analyze`
# on the GPU-bound trace of `weft-cli sample`, against the composition derived
# by hand (an independent python3 reading of the files).
#
# The sample's compute stream runs back to back (the CPU launches far ahead)
# except before the optimizer, which waits for the last gradient all-reduce.
# So the path is: the straggler's first op, held only by its own launch
# (launch/CPU: its launch latency and, back to the first op of any rank, the
# time its CPU had not launched yet), its compute stream up to its arrival at the last
# all-reduce (compute), the all-reduce's transfer from the last arrival to
# its end (communication), and the compute after it up to the latest end
# (compute). Nothing waits. (Before the fix, the first all-reduce's ~11 ms
# wait for its producer was taken as the rank's typical launch latency and
# about half the path came out as launch/CPU.)
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" analyze-sample

for args in "" "--ranks 4 --layers 3"; do
  rm -rf "$T/s"
  # shellcheck disable=SC2086
  expect_rc 0 "$W" sample "$T/s" $args || continue
  expect_rc 0 "$W" analyze "$T/s" --json || continue
  cp "$T/out" "$T/analyze.json"
  python3 - "$T/s/profiling/traces/iteration_1" "$T/analyze.json" <<'EOF' || fail "composition on 'sample $args'"
import glob, json, os, sys

folder, analyze = sys.argv[1], sys.argv[2]
ranks = {}
for f in sorted(glob.glob(os.path.join(folder, "rank*_trace.json"))):
    d = json.load(open(f))
    r = d["distributedInfo"]["rank"]
    ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    launches = {e["args"]["correlation"]: float(e["ts"]) for e in ev if e.get("cat") == "cuda_runtime"}
    ops = []
    for e in ev:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            a = e["args"]
            ops.append({"stream": a["stream"], "ts": float(e["ts"]), "end": float(e["ts"]) + float(e["dur"]),
                        "launch": launches.get(a.get("correlation")), "seq": a.get("Seq"),
                        "comm": e["name"].startswith("nccl")})
    ops.sort(key=lambda o: o["ts"])
    ranks[r] = ops

TOL = 1.0  # us: the files carry 3 decimals
errors = []
# the trace is GPU-bound: each rank's compute stream never idles, except
# before the op that waits for the last all-reduce
last_seq = max(o["seq"] for ops in ranks.values() for o in ops if o["comm"])
inst = [o for ops in ranks.values() for o in ops if o["comm"] and o["seq"] == last_seq]
ar_end = max(o["end"] for o in inst)
for r, ops in ranks.items():
    comp = [o for o in ops if not o["comm"]]
    for p, o in zip(comp, comp[1:]):
        if o["ts"] - p["end"] > TOL and abs(o["ts"] - ar_end) > TOL:
            errors.append("rank %d: compute stream idle %.1f us at %.1f" % (r, o["ts"] - p["end"], p["end"]))

arrival = max(o["ts"] for o in inst)
straggler = next(r for r, ops in ranks.items() for o in ops if o["comm"] and o["seq"] == last_seq and o["ts"] == arrival)
first = ranks[straggler][0]
last_end = max(o["end"] for ops in ranks.values() for o in ops)
want = {
    # its launch latency, and before it, back to the first op of any rank
    # (the path completion rule), its CPU that had not launched yet; the
    # path is the step's, clipped to the step's window (it begins at the
    # first op of any rank, so a launch before that is outside it)
    "launch_us": first["ts"] - max(min(first["launch"], min(ops[0]["ts"] for ops in ranks.values())),
                                   min(ops[0]["ts"] for ops in ranks.values())),
    "compute_us": (arrival - first["ts"]) + (last_end - ar_end),
    "communication_us": ar_end - arrival,
    "waiting_us": 0.0,
}
cp = json.load(open(analyze))["critical_path"]
for k, v in want.items():
    if abs(cp[k] - v) > TOL:
        errors.append("critical_path %s = %.3f us, derived %.3f us" % (k, cp[k], v))
total = sum(want.values())
if abs(cp["length_us"] - total) > TOL:
    errors.append("critical_path length %.3f us, derived %.3f us" % (cp["length_us"], total))
for e in errors:
    print(e, file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
done

[ "$fails" -eq 0 ] || exit 1
echo "analyze-sample: ok"
