#!/usr/bin/env bash
# test-cli.sh: the real weft-cli from $WEFT_BUILD_DIR: --help/--version,
# sample, info (text and --json, checked against an independent python3
# reading of the same files), convert round trips, and every bad-input class
# of issue 2 (exit code 2 and a message naming the file).
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" cli-test

# ---- usage ---------------------------------------------------------------------
expect_rc 0 "$W" --help && grep -q "^Usage: weft-cli COMMAND" "$T/out" || fail "--help text"
grep -q "Exit status: 0 success, 1 failure" "$T/out" || fail "--help documents exit codes"
expect_rc 0 "$W" --version && grep -Eq "^weft-cli [0-9]+\.[0-9]+\.[0-9]+$" "$T/out" || fail "--version text"
for cmd in info convert sample; do
  expect_rc 0 "$W" "$cmd" --help && grep -q "Exit status" "$T/out" || fail "$cmd --help"
done
expect_rc 2 "$W" || true
expect_rc 2 "$W" no-such-command && grep -q "unknown command" "$T/err" || fail "unknown command message"
expect_rc 2 "$W" info || true
expect_rc 2 "$W" info --no-such-option x || true
expect_rc 2 "$W" convert only-one-arg || true
expect_rc 2 "$W" sample "$T/s" --ranks 0 || true
expect_rc 2 "$W" info "$T/does-not-exist.json" && grep -q "does-not-exist.json" "$T/err" || fail "missing path named"

# ---- sample ----------------------------------------------------------------------
expect_rc 0 "$W" sample "$T/s2" || true
expect_rc 0 "$W" sample "$T/s4" --ranks 4 --layers 3 || true
expect_rc 0 "$W" sample "$T/s4b" --ranks 4 --layers 3 || true
S2="$T/s2/profiling/traces/iteration_1"
S4="$T/s4/profiling/traces/iteration_1"
[ -f "$S2/rank0_trace.json" ] && [ -f "$S2/rank1_trace.json" ] && [ ! -e "$S2/rank2_trace.json" ] || fail "sample layout"
for r in 0 1 2 3; do
  cmp -s "$S4/rank${r}_trace.json" "$T/s4b/profiling/traces/iteration_1/rank${r}_trace.json" || fail "sample not deterministic (rank $r)"
done

# info --json against an independent reading (python's json module).
check_info () {
  # $1 trace path, $2 info json, $3 python expectations (extra asserts)
  python3 - "$1" "$2" "$3" <<'EOF'
import collections, glob, gzip, json, os, sys
path, info_path, extra = sys.argv[1], sys.argv[2], sys.argv[3]
info = json.load(open(info_path))
files = [path] if os.path.isfile(path) else sorted(
    f for f in glob.glob(os.path.join(path, "**", "*"), recursive=True)
    if f.endswith((".json", ".json.gz")))
docs = []
for f in files:
    op = gzip.open if f.endswith(".gz") else open
    with op(f, "rb") as fh:
        docs.append(json.load(fh))
assert info["n_ranks"] == len(docs), (info["n_ranks"], len(docs))
by_rank = {}
for d in docs:
    di = d.get("distributedInfo", {})
    by_rank[di.get("rank")] = d
ok = True
for r in info["ranks"]:
    d = by_rank[r["rank"]]
    ev = d["traceEvents"]
    phases = collections.Counter(e.get("ph") for e in ev)
    phases = {("i" if k == "I" else k): v for k, v in phases.items()}
    cats = collections.Counter(e.get("cat", "") for e in ev)
    if r["events"] != len(ev):
        print("rank", r["rank"], "events", r["events"], "!=", len(ev)); ok = False
    if r["events_by_phase"] != dict(phases):
        print("rank", r["rank"], "phases", r["events_by_phase"], "!=", dict(phases)); ok = False
    if r["events_by_category"] != dict(cats):
        print("rank", r["rank"], "categories", r["events_by_category"], "!=", dict(cats)); ok = False
    lanes = collections.Counter((json.dumps(e.get("pid")), json.dumps(e.get("tid")))
                                for e in ev if e.get("ph") in ("X", "i", "I") and "pid" in e)
    got = {(json.dumps(l["pid"]), json.dumps(l["tid"])): l["events"] for l in r["lanes"] if l["events"]}
    if got != dict(lanes):
        print("rank", r["rank"], "lanes", got, "!=", dict(lanes)); ok = False
    steps = sorted(int(e["name"].split("#")[1]) for e in ev
                   if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#"))
    if [s["number"] for s in r["steps"]] != steps:
        print("rank", r["rank"], "steps", r["steps"], "!=", steps); ok = False
exec(extra)
sys.exit(0 if ok else 1)
EOF
}

expect_rc 0 "$W" info "$T/s2" && grep -q "ranks: 2" "$T/out" && grep -q "all_reduce" "$T/out" || fail "info text on the sample"
grep -q "ProfilerStep#1" "$T/out" || fail "info text shows the step"
expect_rc 0 "$W" info --json "$T/s4" && cp "$T/out" "$T/s4.info.json" || true
check_info "$T/s4" "$T/s4.info.json" '
n_ar = sum(1 for e in by_rank[0]["traceEvents"] if e.get("cat") == "kernel" and "AllReduce" in e["name"])
assert n_ar == 3, n_ar
ar = info["instances"]["by_type"]["all_reduce"]
assert ar["count"] == n_ar and ar["spanning_all_ranks"] == n_ar, ar
assert ar["by_method"] == {"seq": n_ar}, ar
for r in info["ranks"]:
    ks = [e for e in by_rank[r["rank"]]["traceEvents"] if e.get("cat") == "kernel" and "AllReduce" in e["name"]]
    nbytes = sum(e["args"]["In msg nelems"] * 4 for e in ks)
    assert r["collectives"]["all_reduce"] == {"count": len(ks), "bytes": nbytes, "unknown_size_count": 0}, r["collectives"]
    assert r["world_size"] == 4 and r["rank_source"] == "distributedInfo"
    assert r["clock_offset"]["estimated_us"] == 0, r["clock_offset"]
' || fail "info --json on the 4-rank sample"

# ---- DLRM: 8 real ranks ---------------------------------------------------------
DLRM="$TRACES/param/et_replay/tests/inputs/dlrm_kineto"
if [ -n "$TRACES" ] && [ -d "$DLRM" ]; then
  expect_rc 0 "$W" info "$DLRM" && grep -q "ranks: 8" "$T/out" || fail "info text on DLRM"
  expect_rc 0 "$W" info --json "$DLRM" && cp "$T/out" "$T/dlrm.info.json" || true
  check_info "$DLRM" "$T/dlrm.info.json" '
inst = info["instances"]
assert inst["by_type"]["all_reduce"]["count"] == 3 and inst["by_type"]["all_reduce"]["spanning_all_ranks"] == 3, inst
assert inst["by_type"]["all_to_all"]["count"] == 5 and inst["by_type"]["all_to_all"]["spanning_all_ranks"] == 5, inst
assert info["clock_offsets_estimated"] is True
for r in info["ranks"]:
    assert r["ts_style"] == "absolute-us", r["ts_style"]
    assert r["kernels_by_class"].get("communication") == 8, r["kernels_by_class"]
' || fail "info --json on DLRM"
else
  echo "note: shared traces not found ($TRACES): DLRM checks skipped"
fi

# ---- convert ---------------------------------------------------------------------
# JSON-equal check of two files (gzip by magic; zstd through the zstd tool).
same_json () {
  python3 - "$1" "$2" <<'EOF'
import gzip, json, subprocess, sys
def load(p):
    raw = open(p, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    elif raw[:4] == b"\x28\xb5\x2f\xfd":
        raw = subprocess.run(["zstd", "-dc", p], check=True, capture_output=True).stdout
    return json.loads(raw)
a, b = load(sys.argv[1]), load(sys.argv[2])
sys.exit(0 if a == b and list(a) == list(b) else 1)
EOF
}
have_zstd=0
command -v zstd >/dev/null && have_zstd=1

expect_rc 0 "$W" convert "$S2/rank0_trace.json" "$T/one.json.gz" || true
same_json "$S2/rank0_trace.json" "$T/one.json.gz" || fail "convert .json -> .json.gz changed the content"
expect_rc 0 "$W" convert "$T/one.json.gz" "$T/one.json.zst" || true
expect_rc 0 "$W" convert "$T/one.json.zst" "$T/one.json" || true
cmp -s "$S2/rank0_trace.json" "$T/one.json" || same_json "$S2/rank0_trace.json" "$T/one.json" || fail "json -> gz -> zst -> json round trip"
[ $have_zstd = 1 ] && { same_json "$S2/rank0_trace.json" "$T/one.json.zst" || fail "zst content"; }

expect_rc 0 "$W" convert "$T/s4" "$T/conv-zst" --format json.zst || true
[ -f "$T/conv-zst/rank3_trace.json.zst" ] || fail "convert folder --format json.zst layout"
# Converting again into the same folder replaces its files; the same rank
# files in another format replace them too, in one commit (the .zst files
# go); other trace files are refused (a later load would mix both sets).
expect_rc 0 "$W" convert "$T/s4" "$T/conv-zst" --format json.zst || true
cp -r "$T/conv-zst" "$T/conv-zst2"
expect_rc 0 "$W" convert "$T/s4" "$T/conv-zst2" --format json || true
[ "$(cd "$T/conv-zst2" && ls -A | tr '\n' ' ')" = "rank0_trace.json rank1_trace.json rank2_trace.json rank3_trace.json " ] \
  || fail "convert over the same ranks in another format: $(ls -A "$T/conv-zst2")"
expect_rc 2 "$W" convert "$S2" "$T/conv-zst" --format json && grep -Eq "holds rank[23]_trace.json.zst" "$T/err" \
  || fail "convert into a folder holding other trace files"
[ ! -e "$T/conv-zst/rank0_trace.json" ] || fail "refused convert wrote files"
expect_rc 0 "$W" convert "$T/conv-zst" "$T/conv-json" --format json || true
for r in 0 1 2 3; do
  same_json "$S4/rank${r}_trace.json" "$T/conv-json/rank${r}_trace.json" || fail "folder round trip rank $r"
done
expect_rc 0 "$W" info --json "$T/conv-json" || true
python3 - "$T/s4.info.json" "$T/out" <<'EOF' || fail "info of the converted trace differs"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for d in (a, b):
    d.pop("path")
    for r in d["ranks"]:
        r.pop("path"); r.pop("json_bytes")
sys.exit(0 if a == b else 1)
EOF

expect_rc 2 "$W" convert "$T/s4" "$T/all-in-one.json" && grep -q "4 ranks" "$T/err" || fail "multi-rank into one file"
expect_rc 2 "$W" convert "$S2/rank0_trace.json" "$T/x.json" --format zst || true
expect_rc 2 "$W" convert "$S2/rank0_trace.json" "$T/x.txt" && grep -q "x.txt" "$T/err" || fail "unknown output extension"
# Writing fails (the parent of OUT is a regular file): exit 1, message names OUT.
echo "not a folder" >"$T/plainfile"
expect_rc 1 "$W" convert "$S2/rank0_trace.json" "$T/plainfile/out.json" && grep -q "plainfile/out.json" "$T/err" || fail "write failure message"
# A failed convert leaves an existing OUT intact.
cp "$T/one.json" "$T/keep.json"
expect_rc 2 "$W" convert "$T/no-such-input.json" "$T/keep.json" || true
cmp -s "$T/one.json" "$T/keep.json" || fail "failed convert touched OUT"

# ---- bad input: exit 2 and a message naming the file ------------------------------
B="$T/bad"
mkdir -p "$B"
SRC="$S2/rank0_trace.json"
: >"$B/empty.json"
head -c 3000 "$SRC" >"$B/truncated.json"
python3 - "$SRC" "$B" <<'EOF'
import gzip, sys
src, out = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
gz = gzip.compress(data, 6)
open(out + "/truncated.json.gz", "wb").write(gz[: len(gz) // 2])
bad = bytearray(gz)
for i in range(200, 260):
    bad[i] ^= 0x5A
open(out + "/corrupt.json.gz", "wb").write(bytes(bad))
def w(name, text):
    open(out + "/" + name, "wb").write(text)
w("wrong-type.json", b'{"traceEvents": [{"ph": "X", "name": 5, "pid": 1, "tid": 1, "ts": 1.0, "dur": 1.0}]}')
w("wrong-type-ts.json", b'{"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": "soon", "dur": 1.0}]}')
w("missing-events.json", b'{"schemaVersion": 1, "displayTimeUnit": "ms"}')
w("nan.json", b'{"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": NaN, "dur": 1.0}]}')
w("out-of-range.json", b'{"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1e400, "dur": 1.0}]}')
w("out-of-range-ns.json", b'{"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 99999999999999999999.5, "dur": 1.0}]}')
w("deep.json", b'{"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1.0, "args": ' + b"[" * 5000 + b"]" * 5000 + b"}]}")
w("non-utf8.json", b'{"traceEvents": [{"ph": "X", "name": "a\xff\xfe", "pid": 1, "tid": 1, "ts": 1.0, "dur": 1.0}]}')
w("not-object.json", b'[{"ph": "X"}]')
# A decompression bomb: 64 MiB of JSON string in a ~65 KiB gzip file.
w("bomb.json.gz", gzip.compress(b'{"traceEvents": [], "pad": "' + b"a" * (64 << 20) + b'"}', 9))
EOF
if [ $have_zstd = 1 ]; then
  zstd -q -c "$SRC" >"$T/full.zst"
  head -c 4000 "$T/full.zst" >"$B/truncated.json.zst"
  python3 - "$T/full.zst" "$B/corrupt.json.zst" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
for i in range(300, 340):
    b[i] ^= 0x33
open(sys.argv[2], "wb").write(bytes(b))
EOF
fi

# name -> whether the message must carry a byte offset
declare -A OFFSET=(
  [empty.json]=1 [truncated.json]=1 [truncated.json.gz]=1 [corrupt.json.gz]=1
  [wrong-type.json]=1 [wrong-type-ts.json]=1 [missing-events.json]=0 [nan.json]=1 [out-of-range.json]=1
  [out-of-range-ns.json]=1 [deep.json]=1 [non-utf8.json]=1 [not-object.json]=1
  [truncated.json.zst]=1 [corrupt.json.zst]=1
)
for name in "${!OFFSET[@]}"; do
  f="$B/$name"
  [ -f "$f" ] || continue
  if expect_rc 2 "$W" info "$f"; then
    grep -qF "$f" "$T/err" || fail "$name: message does not name the file: $(cat "$T/err")"
    if [ "${OFFSET[$name]}" = 1 ]; then
      grep -Eq "byte [0-9]+" "$T/err" || fail "$name: message has no byte offset: $(cat "$T/err")"
    fi
    [ "$(wc -l <"$T/err")" -le 2 ] || fail "$name: more than one clear message"
  fi
  expect_rc 2 "$W" convert "$f" "$T/bad-out.json" || true
  [ ! -e "$T/bad-out.json" ] || fail "$name: convert wrote output for bad input"
done

# The bomb: the cap (env or option) stops it with a message naming the file.
expect_rc 2 env WEFT_MAX_JSON_BYTES=1000000 "$W" info "$B/bomb.json.gz" \
  && grep -qF "$B/bomb.json.gz" "$T/err" && grep -qi "limit" "$T/err" || fail "bomb (env cap)"
expect_rc 2 "$W" info --max-json-bytes 2000000 "$B/bomb.json.gz" \
  && grep -qF "$B/bomb.json.gz" "$T/err" && grep -q "2000000" "$T/err" || fail "bomb (--max-json-bytes)"
expect_rc 2 env WEFT_MAX_JSON_BYTES=lots "$W" info "$SRC" || true

# A folder without any trace.
mkdir -p "$T/notrace"
echo "hello" >"$T/notrace/readme.txt"
expect_rc 2 "$W" info "$T/notrace" && grep -qF "$T/notrace" "$T/err" || fail "folder without trace"

# Two files claiming the same rank.
mkdir -p "$T/dup"
cp "$SRC" "$T/dup/rank0_trace.json"
cp "$SRC" "$T/dup/rank1_trace.json"
expect_rc 2 "$W" info "$T/dup" && grep -q "rank0_trace.json" "$T/err" && grep -q "rank1_trace.json" "$T/err" \
  || fail "duplicate rank"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed" >&2
  exit 1
fi
echo "test-cli: all checks passed"
