#!/usr/bin/env bash
# test-diff-cli.sh: the real `weft-cli diff` against the real `weft-cli
# analyze` and an independent python3 reading of the files.
#
# - A composed FSDP step (compose -s fsdp --dp 4 -p llama3-8b --layers 2)
#   against the same with --no-prefetch, whole trace and every step: `a` and
#   `b` are analyze's `whole` of each, field by field; `delta` is b - a for
#   every number; each rank's a / b / delta the same against analyze's
#   ranks, and its collective / kernel rows add up to the whole step's
#   (counts) and average to its times; the collective counts are the NCCL kernels of the files by type;
#   matched + unmatched ops = analyze's GPU ops; B is slower, and its
#   exposed all-gather is the largest contribution, named first.
# - A trace against itself (the composed one and shared real traces, whole
#   and their first step): every delta 0, every op matched, nothing moved.
# - Two iterations of one composed run (--steps 2; --step N --step-b M):
#   a / b / delta are analyze's of each step, every op of one matched.
# - A trace against its edit (`weft-cli edit`: a kernel to another stream, a
#   kernel shifted by 800 us): the diff lists both, the first matched on
#   another stream, the second with the shift as its start delta.
# - Bad usage and bad input: exit 2 with a message naming what.
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" diff-cli

"$W" compose -s fsdp --dp 4 -p llama3-8b --layers 2 --out "$T/a" >/dev/null
"$W" compose -s fsdp --dp 4 -p llama3-8b --layers 2 --no-prefetch --out "$T/b" >/dev/null

CHECK="$T/check.py"
cat >"$CHECK" <<'PYEOF'
import gzip, json, os, re, subprocess, sys

cli, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
errors = []

def run(*argv):
    r = subprocess.run([cli] + list(argv), capture_output=True, text=True)
    if r.returncode != 0:
        errors.append("%s: exit %d: %s" % (" ".join(argv), r.returncode, r.stderr[:300]))
        return None
    return json.loads(r.stdout)

def numeric(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)

def same_fields(where, got, want):
    # every field of analyze's metrics object, the same value
    for k, v in want.items():
        if k in ("rank", "peak_memory_gib", "peak_allocated_gib", "memory_events"):
            continue
        if k not in got:
            errors.append("%s: field %s missing" % (where, k))
        elif got[k] != v:
            errors.append("%s: %s = %r, analyze says %r" % (where, k, got[k], v))

def check_delta(where, a, b, d):
    n = 0
    for k, va in a.items():
        if not numeric(va):
            if k in d:
                errors.append("%s: delta has the non-number %s" % (where, k))
            continue
        n += 1
        if k not in d:
            errors.append("%s: delta lacks %s" % (where, k))
        elif d[k] != b[k] - va:
            errors.append("%s: delta %s = %r, b - a = %r" % (where, k, d[k], b[k] - va))
    if n < 20:
        errors.append("%s: only %d numeric fields" % (where, n))

def files(p):
    if os.path.isfile(p):
        return [p]
    out = []
    for root, _, fs in os.walk(p):
        out += [os.path.join(root, f) for f in fs if ".json" in f]
    return sorted(out)

def load(f):
    op = gzip.open if f.endswith(".gz") else open
    with op(f, "rt") as fh:
        d = json.load(fh)
    return d["traceEvents"] if isinstance(d, dict) else d

NCCL = {"AllGather": "all_gather", "ReduceScatter": "reduce_scatter", "AllReduce": "all_reduce"}

def nccl_counts(path):
    c = {}
    for f in files(path):
        for e in load(f):
            if e.get("ph") != "X" or e.get("cat") != "kernel":
                continue
            m = re.match(r"ncclDevKernel_([A-Za-z]+?)(_|\()", e.get("name", ""))
            if m and m.group(1) in NCCL:
                c[NCCL[m.group(1)]] = c.get(NCCL[m.group(1)], 0) + 1
    return c

def step_args(step):
    return [] if step is None else ["--step", str(step)]

def against_analyze(pa, pb, step):
    """diff's a / b / delta and ranks against two runs of analyze"""
    sa = step_args(step)
    d = run("diff", pa, pb, "--json", *sa)
    xa = run("analyze", pa, "--json", "--top", "0", *sa)
    xb = run("analyze", pb, "--json", "--top", "0", *sa)
    if d is None or xa is None or xb is None:
        return None
    where = "diff %s %s %s" % (pa, pb, sa)
    same_fields(where + ": a", d["a"], xa["whole"])
    same_fields(where + ": b", d["b"], xb["whole"])
    check_delta(where, d["a"], d["b"], d["delta"])
    ra = {r["rank"]: r for r in xa["ranks"]}
    rb = {r["rank"]: r for r in xb["ranks"]}
    if sorted(r["rank"] for r in d["ranks"]) != sorted(set(ra) | set(rb)):
        errors.append("%s: ranks %s, analyze has %s / %s" % (where, [r["rank"] for r in d["ranks"]], sorted(ra), sorted(rb)))
        return d
    for r in d["ranks"]:
        w = "%s: rank %d" % (where, r["rank"])
        same_fields(w + " a", r["a"], ra[r["rank"]])
        same_fields(w + " b", r["b"], rb[r["rank"]])
        check_delta(w, r["a"], r["b"], r["delta"])
    for rows, key in ((d["kernels"], "class"), (d["collectives"], "type")):
        for row in rows:
            if abs(row["delta_us"] - (row["b_us"] - row["a_us"])) > 1e-6:
                errors.append("%s: %s %s: delta_us %r, b_us - a_us %r" % (where, key, row[key], row["delta_us"], row["b_us"] - row["a_us"]))
    # each rank's rows: counts add up to the whole step's, times average to its (rounded to the ns)
    n = len(d["ranks"])
    for key, name in (("collectives", "type"), ("kernels", "class")):
        for row in d[key]:
            per = [x for r in d["ranks"] for x in r[key] if x[name] == row[name]]
            for f in ("count_a", "count_b"):
                if sum(x[f] for x in per) != row[f]:
                    errors.append("%s: %s %s: %s of the ranks %d, whole %d" % (where, key, row[name], f, sum(x[f] for x in per), row[f]))
            for f in ("a_us", "b_us", "exposed_a_us", "exposed_b_us"):
                mean = sum(x[f] for x in per) / n
                if abs(mean - row[f]) > 0.0015:
                    errors.append("%s: %s %s: %s mean of the ranks %r, whole %r" % (where, key, row[name], f, mean, row[f]))
    # every GPU op is compared: matched + one side only = analyze's GPU ops (whole trace)
    if step is None:
        for side, x in (("a", xa), ("b", xb)):
            n = d["matched"]["total"] + d["unmatched"][side]["total"]
            if n != x["graph"]["gpu_ops"]:
                errors.append("%s: %d ops matched + %s only, analyze counts %d GPU ops" % (where, n, side, x["graph"]["gpu_ops"]))
    return d

def mode_compare(pa, pb):
    x = run("analyze", pa, "--json", "--top", "0")
    d = against_analyze(pa, pb, None)
    if x is None or d is None:
        return
    if not x["steps"]:
        errors.append("%s: the composer wrote no ProfilerStep" % pa)
    for s in x["steps"]:
        against_analyze(pa, pb, s)
    for side, p in (("a", pa), ("b", pb)):
        want = nccl_counts(p)
        got = {r["type"]: r["count_" + side] for r in d["collectives"] if r["count_" + side]}
        if got != want or not want:
            errors.append("%s: collectives %s, the files have %s" % (p, got, want))
    if not d["delta"]["step_time_us"] > 0:
        errors.append("no prefetch is not slower: step time delta %r" % d["delta"]["step_time_us"])
    if not d["delta"]["exposed_communication_us"] > 0:
        errors.append("no prefetch exposes no more communication: %r" % d["delta"]["exposed_communication_us"])
    if d["matched"]["total"] == 0 or d["unmatched"]["a"]["total"] or d["unmatched"]["b"]["total"]:
        errors.append("the same ops in both: matched %s, unmatched %s" % (d["matched"], d["unmatched"]))
    ag = [r for r in d["collectives"] if r["type"] == "all_gather"]
    top = max(d["collectives"] + d["kernels"], key=lambda r: abs(r["contribution_us"]))
    if not ag or ag[0]["exposed_delta_us"] <= 0 or top is not ag[0]:
        errors.append("exposed all-gather is not the largest contribution: %s" % top)
    if not re.match(r"B is [0-9.]+ ms slower than A .*: \+[0-9.]+ ms exposed all_gather", d["summary"]):
        errors.append("summary: %r" % d["summary"])

def mode_self(p, n_steps="1"):
    x = run("analyze", p, "--json", "--top", "0")
    if x is None:
        return
    for step in [None] + x["steps"][:int(n_steps)]:
        d = against_analyze(p, p, step)
        if d is None:
            continue
        where = "%s against itself %s" % (p, step_args(step))
        for k, v in d["delta"].items():
            if v != 0:
                errors.append("%s: delta %s = %r" % (where, k, v))
        for r in d["ranks"]:
            for k, v in r["delta"].items():
                if v != 0:
                    errors.append("%s: rank %d delta %s = %r" % (where, r["rank"], k, v))
        for row in d["kernels"] + d["collectives"]:
            if row["delta_us"] != 0 or row["exposed_delta_us"] != 0 or row["count_a"] != row["count_b"]:
                errors.append("%s: row %s" % (where, row))
        if d["unmatched"]["a"]["total"] or d["unmatched"]["b"]["total"] or d["matched"]["kernels_other_stream"]:
            errors.append("%s: matched %s, unmatched %s" % (where, d["matched"], d["unmatched"]))
        if step is None and d["matched"]["total"] != x["graph"]["gpu_ops"]:
            errors.append("%s: %d matched of %d GPU ops" % (where, d["matched"]["total"], x["graph"]["gpu_ops"]))
        if d["changed_ops"] or d["only_a"] or d["only_b"]:
            errors.append("%s: changed %s, only %s / %s" % (where, d["changed_ops"][:2], d["only_a"][:2], d["only_b"][:2]))
        if "same step time" not in d["summary"] or "every op matched" not in d["summary"]:
            errors.append("%s: summary %r" % (where, d["summary"]))

def mode_edit(pa, pc, step):
    d = run("diff", pa, pc, "--json", "--step", step, "--top", "100000")
    if d is None:
        return
    # the first flash_fwd_kernel of rank 0 (the second, left on stream 7, may move up)
    moved = [o for o in d["changed_ops"] if o["match"] == "rank"]
    if (len(moved) != 1 or moved[0]["rank"] != 0 or "flash_fwd_kernel" not in moved[0]["name"] or
            moved[0]["stream_a"] != 7 or moved[0]["stream_b"] != 99):
        errors.append("the kernel moved to stream 99: %s" % moved)
    if d["matched"]["kernels_other_stream"] != 1:
        errors.append("kernels on another stream: %s" % d["matched"])
    shifted = [o for o in d["changed_ops"] if o["rank"] == 1 and "cunn_SoftMaxForward" in o["name"]]
    if len(shifted) != 1 or abs(shifted[0]["delta_start_us"] - 800.0) > 0.0015:
        errors.append("the kernel shifted by 800 us: %s" % shifted)
    if d["unmatched"]["a"]["total"] or d["unmatched"]["b"]["total"]:
        errors.append("an edit that moves ops leaves none unmatched: %s" % d["unmatched"])
    if not d["delta"]["step_time_us"] > 0:
        errors.append("the shift makes no later step: %r" % d["delta"]["step_time_us"])

def mode_iterations(p):
    """two iterations of one run: --step s0 --step-b s1"""
    x = run("analyze", p, "--json", "--top", "0")
    if x is None or len(x["steps"]) < 2:
        errors.append("%s: expected two steps, got %s" % (p, x and x["steps"]))
        return
    s0, s1 = x["steps"][:2]
    d = run("diff", p, p, "--json", "--step", str(s0), "--step-b", str(s1))
    xa = run("analyze", p, "--json", "--top", "0", "--step", str(s0))
    xb = run("analyze", p, "--json", "--top", "0", "--step", str(s1))
    if d is None or xa is None or xb is None:
        return
    where = "%s step %d against step %d" % (p, s0, s1)
    if d["steps"] != {"a": s0, "b": s1}:
        errors.append("%s: steps %s" % (where, d["steps"]))
    same_fields(where + ": a", d["a"], xa["whole"])
    same_fields(where + ": b", d["b"], xb["whole"])
    check_delta(where, d["a"], d["b"], d["delta"])
    # the same work each iteration: every op of the one matched with the other's
    if d["matched"]["total"] == 0 or d["unmatched"]["a"]["total"] or d["unmatched"]["b"]["total"]:
        errors.append("%s: matched %s, unmatched %s" % (where, d["matched"], d["unmatched"]))
    if 2 * d["matched"]["total"] != xa["graph"]["gpu_ops"]:
        errors.append("%s: %d matched, the trace has %d GPU ops in 2 steps" % (where, d["matched"]["total"], xa["graph"]["gpu_ops"]))

{"compare": mode_compare, "self": mode_self, "edit": mode_edit, "iterations": mode_iterations}[mode](*args)
for e in errors[:40]:
    print(e)
sys.exit(1 if errors else 0)
PYEOF

# ---- FSDP against FSDP without prefetch: the deltas are analyze's differences ------------
python3 "$CHECK" "$W" compare "$T/a" "$T/b" || fail "diff of FSDP against FSDP --no-prefetch"

# ---- two iterations of one run: --step N --step-b M --------------------------------------------
"$W" compose -s fsdp --dp 2 -p llama3-8b --layers 2 --steps 2 --out "$T/two" >/dev/null
python3 "$CHECK" "$W" iterations "$T/two" || fail "diff of two iterations"

# ---- a trace against itself: all zeros, every op matched -------------------------------------
python3 "$CHECK" "$W" self "$T/a" || fail "diff of a composed trace with itself"
if [ -n "$TRACES" ] && [ -d "$TRACES" ]; then
  # (the largest, DLRM's 8 ranks, whole trace only: each check loads it 4 times)
  for p in param/et_replay/tests/inputs/dlrm_kineto:0 synthetic/fsdp8:1 \
           HolisticTraceAnalysis/nccl_parser_config/nccl_data.json.gz:1 \
           TraceLens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz:1; do
    n=${p##*:}; p=${p%:*}
    if [ -e "$TRACES/$p" ]; then
      python3 "$CHECK" "$W" self "$TRACES/$p" "$n" || fail "diff of $p with itself"
    else
      echo "SKIP: $TRACES/$p absent"
    fi
  done
  # two different traces (H100 against MI300): a sentence, ops matched across streams
  H="$TRACES/TraceLens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
  M="$TRACES/TraceLens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
  if [ -e "$H" ] && [ -e "$M" ] && expect_rc 0 "$W" diff "$H" "$M"; then
    grep -q "^B is .* than A (" "$T/out" || fail "H100 against MI300: no sentence: $(head -3 "$T/out")"
  fi
else
  echo "SKIP: the shared traces are absent (WEFT_TRACES_DIR); composed traces only"
fi

# ---- a trace against its edit: the moved ops are listed -------------------------------------------
STEP=$("$W" analyze "$T/a" --json --top 0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["steps"][0])')
cat >"$T/edit.json" <<'JSONEOF'
{"ops": [
  {"op": "move_stream", "match": {"name": "flash_fwd_kernel", "rank": 0, "nth": 0}, "stream": 99},
  {"op": "shift", "match": {"name": "cunn_SoftMaxForward", "rank": 1}, "shift_us": 800}
]}
JSONEOF
if expect_rc 0 "$W" edit "$T/a" --script "$T/edit.json" --out "$T/c"; then
  python3 "$CHECK" "$W" edit "$T/a" "$T/c" "$STEP" || fail "diff of a trace with its edit"
fi

# ---- bad usage and bad input -----------------------------------------------------------------------------
if expect_rc 2 "$W" diff "$T/a"; then
  grep -q "two traces" "$T/err" || fail "one path: $(cat "$T/err")"
fi
if expect_rc 2 "$W" diff "$T/a" "$T/missing"; then
  grep -q "$T/missing" "$T/err" || fail "missing B not named: $(cat "$T/err")"
fi
if expect_rc 2 "$W" diff "$T/a" "$T/b" --step 12345; then
  grep -q "ProfilerStep#12345" "$T/err" || fail "missing step not named: $(cat "$T/err")"
fi
if expect_rc 2 "$W" diff "$T/a" "$T/b" --align sideways; then
  grep -q "sideways" "$T/err" || fail "bad --align not named: $(cat "$T/err")"
fi
printf '{"traceEvents": [{"ph": "X", "ts": 1, ' >"$T/broken.json"
if expect_rc 2 "$W" diff "$T/a" "$T/broken.json"; then
  grep -q "broken.json" "$T/err" || fail "broken B not named: $(cat "$T/err")"
fi

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "OK"
