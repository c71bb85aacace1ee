#!/usr/bin/env bash
# test-apply-cli.sh: the real `weft-cli apply` on rank 0 of a composed DDP
# step (a one-rank profile): --blocks finds its 3 layers; FSDP on 4 ranks
# (its all-reduces stripped) writes 4 rank files whose NCCL kernels an
# independent python3 reading checks (all-gathers on stream 15,
# reduce-scatters on 17, the same Seq / Process Group Ranks on every rank);
# the files load again with 9 matched collective instances; bad usage exits 2
# without writing.
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" apply-cli

"$W" compose --strategy ddp --dp 2 --layers 3 --format json --out "$T/c" --quiet
cp "$T/c/profiling/traces/iteration_10/rank0_trace.json" "$T/single.json"

if expect_rc 0 "$W" apply "$T/single.json" --blocks --json; then
  python3 - "$T/out" <<'EOF' || fail "--blocks --json"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema_version"] == 2, doc.keys()
d = doc["ranks"]
assert len(d) == 1, d
assert d[0]["forward"] == 3 and d[0]["backward"] == 3, d[0]
assert d[0]["source"] == "module annotations", d[0]
# each block: its span on the timeline, its length in microseconds
for b in d[0]["blocks"]:
    assert b["duration_us"] > 0 and isinstance(b["begin_ns"], int), b
EOF
fi

if expect_rc 0 "$W" apply "$T/single.json" --strategy fsdp --degree 4 --strip --out "$T/fsdp" --json; then
  python3 - "$T/out" "$T/fsdp" <<'EOF' || fail "fsdp output"
import json, sys, os
rep = json.load(open(sys.argv[1]))
assert rep["collectives"] == 9 and rep["ranks"] == 4, rep
assert rep["after"]["communication_us"] > 0 and rep["after"]["overlap_pct"] > 20, rep
out = sys.argv[2]
files = sorted(os.listdir(out))
assert files == ["rank%d_trace.json" % r for r in range(4)], files
per_rank = []
for r in range(4):
    d = json.load(open(os.path.join(out, "rank%d_trace.json" % r)))
    assert d["distributedInfo"]["rank"] == r, d["distributedInfo"]
    nccl = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"
            and e["name"].startswith("ncclDevKernel")]
    ag = [e for e in nccl if "AllGather" in e["name"]]
    rs = [e for e in nccl if "ReduceScatter" in e["name"]]
    assert len(ag) == 6 and len(rs) == 3, (r, len(ag), len(rs))
    assert {e["tid"] for e in ag} == {15}, r
    assert {e["tid"] for e in rs} == {17}, r
    per_rank.append(sorted((e["args"].get("Process Group Name"), e["args"].get("Seq"), e["name"],
                            e["args"].get("Process Group Ranks")) for e in nccl))
for r in range(1, 4):
    assert per_rank[r] == per_rank[0], (r, per_rank[r][:2], per_rank[0][:2])
assert all(s is not None for _, s, _, _ in per_rank[0]), per_rank[0]
EOF
  if expect_rc 0 "$W" info "$T/fsdp" --json; then
    python3 - "$T/out" <<'EOF' || fail "reload"
import json, sys
d = json.load(open(sys.argv[1]))
inst = d["instances"]
# matched again from the files' Process Group args and Seq
assert inst["count"] == 9 and inst["spanning_all_ranks"] == 9, inst
assert sum(t["by_method"].get("seq", 0) for t in inst["by_type"].values()) == 9, inst
EOF
  fi
fi

# bad usage: exit 2, nothing written
expect_rc 2 "$W" apply "$T/single.json" --strategy zero4 --degree 4 --out "$T/bad1" || true
grep -q "zero4" "$T/err" || fail "unknown strategy message: $(cat "$T/err")"
expect_rc 2 "$W" apply "$T/single.json" --strategy fsdp --degree 1 --out "$T/bad2" || true
expect_rc 2 "$W" apply "$T/fsdp" --strategy tp --degree 3 --out "$T/bad3" || true
grep -q "not a multiple of the degree 3" "$T/err" || fail "degree message: $(cat "$T/err")"
for b in bad1 bad2 bad3; do
  [ ! -e "$T/$b" ] || fail "$b written"
done

if [ "$fails" -gt 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "ok"
