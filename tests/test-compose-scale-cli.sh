#!/usr/bin/env bash
# test-compose-scale-cli.sh: the composer at torchtitan's scale (docs/composer.md,
# "Limits"): a 256-rank FSDP 32 x TP 8 step (one block) composed and analyzed with
# the real CLI, checked against an independent python3 reading of the written
# files:
# - analyze --json has every rank, each with a step and a peak memory;
# - every collective instance analyze matched has all the members of its group:
#   for each group size g, the files hold g x (instances of g members) NCCL
#   kernels of "Group size" g, and each instance lists each of its ranks once;
# - the TP instances are the 32 TP groups, the FSDP ones the 8 DP groups;
# - 514 ranks are refused with a message (the limit is 512).
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" compose-scale

if expect_rc 0 "$W" compose -s fsdp,tp --dp 32 --tp 8 --layers 1 --out "$T/s256" --quiet &&
   expect_rc 0 "$W" analyze --json "$T/s256"; then
  python3 - "$T/s256" "$T/out" <<'EOF' || fail "256 ranks: analyze's results are not consistent with the files"
import collections, glob, gzip, json, os, sys

folder, ana = sys.argv[1], json.load(open(sys.argv[2]))
files = sorted(glob.glob(os.path.join(folder, "profiling/traces/iteration_*/rank*_trace.json.gz")))
assert len(files) == 256, len(files)
kernels = collections.Counter()
groups = collections.defaultdict(set)
for f in files:
    d = json.load(gzip.open(f))
    for e in d["traceEvents"]:
        a = e.get("args", {})
        if e.get("cat") == "kernel" and "Group size" in a and e["name"].startswith("ncclDevKernel"):
            kernels[a["Group size"]] += 1
            groups[a["Group size"]].add(a["Process Group Ranks"])
ranks = ana["ranks"]
assert sorted(r["rank"] for r in ranks) == list(range(256)), "ranks missing"
for r in ranks:
    assert r["step_time_us"] > 0 and r["peak_memory_gib"] > 0, r
instances = collections.Counter()
for c in ana["collectives"]:
    members = [a["rank"] for a in c["arrivals"]]
    assert len(members) == c["members"] == len(set(members)), (c["instance"], c["members"], len(members))
    instances[c["members"]] += 1
assert set(instances) == set(kernels), (instances, kernels)
for g in kernels:
    assert kernels[g] == g * instances[g], (g, kernels[g], instances[g])
assert len(groups[8]) == 32 and len(groups[32]) == 8, {g: len(s) for g, s in groups.items()}
print("256 ranks:", dict(instances), "instances by size")
EOF
fi

expect_rc 2 "$W" compose -s fsdp,cp --dp 257 --cp 2 --layers 1 --out "$T/s514" --quiet &&
  { grep -q "at most 512" "$T/err" || fail "514 ranks: no message: $(cat "$T/err")"; }

[ "$fails" = 0 ] || exit 1
echo "ok"
