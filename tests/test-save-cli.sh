#!/usr/bin/env bash
# test-save-cli.sh: how the real weft-cli writes files (docs/editing.md,
# "Saving"; docs/cli.md, convert):
#
#  1. a multi-rank edit that fails midway (the file size limit, RLIMIT_FSIZE
#     via ulimit -f, hit by the last and largest rank) exits 1 naming the
#     file and the cause, and leaves the earlier set in the folder whole
#     (byte for byte) with no temporary file; the same with named
#     temporaries (WEFT_SAVE_NO_TMPFILE=1) and, where a tmpfs can be
#     mounted (root or a user namespace), with a full file system;
#  2. stale temporaries of a killed save (.weft-tmp-*, the old .<name>.XXXXXX)
#     are removed by the next save there, unless locked by a save in
#     progress or newer than the save; other hidden files stay;
#  3. edit, apply and compose refuse a folder holding other traces (exit 2,
#     the message names the file, nothing written), and replace exactly the
#     same rank files, also in another format (the old format's files go);
#  4. convert --merge: one file for Perfetto, checked with python3: every
#     rank's events in file order, one pid per rank named "rank N", flow ids
#     apart, times aligned (a constant offset per rank, the recorded clock
#     offset); on the shared fsdp8 trace where present, else on a sample;
#  5. convert IN - writes JSON to standard output; a multi-rank IN needs
#     --merge (exit 2 with a message), and no file named - is created.
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" save-cli
cd "$T"

"$W" sample s4 --ranks 4 --layers 2 >/dev/null
S=$T/s4/profiling/traces/iteration_1
echo '[{"op": "scale", "class": "gemm", "factor": 0.5}]' >half.json
# duplicating every GEMM of rank 3 makes its file the largest
echo '[{"op": "duplicate", "match": {"class": "gemm", "rank": 3}}]' >dup.json

sums () { (cd "$1" && ls -A | sort | xargs sha1sum); }
only_rank_files () {  # DIR N EXT
  local want="" r
  for r in $(seq 0 $(($2 - 1))); do want="$want rank${r}_trace$3"; done
  [ "$(cd "$1" && ls -A | sort -V | tr '\n' ' ')" = "${want# } " ]
}

# ---- 1. a failed multi-rank save keeps the old set whole ----------------------------
expect_rc 0 "$W" edit "$S" --script half.json --out old || true
expect_rc 0 "$W" edit "$S" --script dup.json --out scratch || true
s0=$(stat -c %s scratch/rank0_trace.json); s3=$(stat -c %s scratch/rank3_trace.json)
[ "$s3" -gt $((s0 + 4096)) ] || fail "the test needs rank 3 larger than rank 0 ($s0, $s3)"
blocks=$(((s0 + s3) / 2 / 1024))   # bash: ulimit -f counts 1024-byte blocks
for mode in tmpfile named; do
  rm -rf dst && cp -a old dst
  before=$(sums dst)
  rc=0
  ( ulimit -f "$blocks"; trap '' XFSZ
    [ $mode = named ] && export WEFT_SAVE_NO_TMPFILE=1
    exec "$W" edit "$S" --script dup.json --out dst ) >/dev/null 2>e1 || rc=$?
  [ $rc = 1 ] || fail "$mode: a save over the size limit exited $rc, expected 1"
  grep -q "dst/rank3_trace.json: cannot write: File too large" e1 || fail "$mode: the error does not name the file and why: $(cat e1)"
  grep -q "nothing was replaced" e1 || fail "$mode: the error does not say that nothing was replaced: $(cat e1)"
  [ "$(sums dst)" = "$before" ] || fail "$mode: the old set changed after a failed save"
  only_rank_files dst 4 .json || fail "$mode: files left in the folder: $(ls -A dst)"
done
expect_rc 0 "$W" info dst && grep -q "ranks: 4," "$T/out" || fail "the old set does not load as 4 ranks"

# a full file system (tmpfs with size=): needs root or a user namespace
if command -v unshare >/dev/null && unshare -m true 2>/dev/null || unshare -rm true 2>/dev/null; then
  NS="unshare -m"; unshare -m true 2>/dev/null || NS="unshare -rm"
  mkdir -p fs
  size=$(( $(du -sb old | cut -f1) / 1024 + (s0 + s3) / 2048 + 64 ))
  rc=0
  $NS bash -c "mount -t tmpfs -o size=${size}k tmpfs fs && cp -a old fs/out && (cd fs/out && ls -A | sort | xargs sha1sum) >fs.before \
    && { '$W' edit '$S' --script dup.json --out fs/out >/dev/null 2>fs.err; echo \$? >fs.rc; } \
    && (cd fs/out && ls -A | sort | xargs sha1sum) >fs.after && ls -A fs/out >fs.ls" 2>fs.mount || rc=$?
  if [ $rc != 0 ] || [ ! -f fs.rc ]; then
    echo "SKIP (part): cannot mount a tmpfs here: $(head -c 200 fs.mount)"
  else
    [ "$(cat fs.rc)" = 1 ] || fail "full tmpfs: exited $(cat fs.rc), expected 1 ($(cat fs.err))"
    grep -q "No space left on device" fs.err || fail "full tmpfs: the error does not say why: $(cat fs.err)"
    cmp -s fs.before fs.after || fail "full tmpfs: the old set changed"
    [ "$(wc -l <fs.ls)" = 4 ] || fail "full tmpfs: files left: $(cat fs.ls)"
  fi
else
  echo "SKIP (part): no mount namespace here for the tmpfs variant"
fi

# ---- 2. stale temporaries are cleaned by the next save --------------------------------
rm -rf dst && cp -a old dst
stale=dst/.weft-tmp-rank0_trace.json.Ab12Cd
legacy=dst/.rank1_trace.json.Zx98Yw
locked=dst/.weft-tmp-rank2_trace.json.Lk00Lk
fresh=dst/.weft-tmp-rank3_trace.json.Nw00Nw
for f in "$stale" "$legacy" "$locked" "$fresh"; do head -c 100000 /dev/zero >"$f"; done
echo keep >dst/.keep
touch -d '1 hour ago' "$stale" "$legacy" "$locked"
touch -d 'now + 1 hour' "$fresh"
flock "$locked" sleep 20 &
LOCKER=$!
sleep 0.3
expect_rc 0 "$W" edit "$S" --script half.json --out dst || true
[ ! -e "$stale" ] || fail "a stale .weft-tmp-* file was not removed"
[ ! -e "$legacy" ] || fail "a stale .<name>.XXXXXX temporary was not removed"
[ -e "$locked" ] || fail "a temporary locked by a save in progress was removed"
[ -e "$fresh" ] || fail "a temporary newer than the save was removed"
[ -e dst/.keep ] || fail "another hidden file was removed"
kill "$LOCKER" 2>/dev/null || true; wait "$LOCKER" 2>/dev/null || true

# ---- 3. refusing folders with other traces ---------------------------------------------
"$W" sample s2 --ranks 2 >/dev/null
S2=$T/s2/profiling/traces/iteration_1
rm -rf dst && cp -a old dst
before=$(sums dst)
expect_rc 2 "$W" edit "$S2" --script half.json --out dst && grep -q "already holds rank2_trace.json" "$T/err" \
  || fail "edit into a folder of 4 ranks with a 2-rank trace was not refused"
[ "$(sums dst)" = "$before" ] || fail "a refused edit changed the folder"
expect_rc 2 "$W" apply "$S2" -s fsdp -n 2 -o dst && grep -q "already holds" "$T/err" || fail "apply into a folder with other traces"
[ "$(sums dst)" = "$before" ] || fail "a refused apply changed the folder"
mkdir -p other && cp "$S/rank0_trace.json" other/worker7.pt.trace.json
expect_rc 2 "$W" convert "$S" other && grep -q "worker7.pt.trace.json" "$T/err" || fail "convert next to another trace"
mkdir -p sub/nested && cp "$S/rank0_trace.json" sub/nested/rank0_trace.json
expect_rc 2 "$W" edit "$S" --script half.json --out sub && grep -q "nested/rank0_trace.json" "$T/err" \
  || fail "a trace in a subfolder (the loader walks into it) was not refused"
# the same rank files: replaced; in another format: the old format's files go in the same commit
expect_rc 0 "$W" edit "$S" --script dup.json --out dst || true
only_rank_files dst 4 .json || fail "edit over its own set: $(ls -A dst)"
expect_rc 0 "$W" edit "$S" --script dup.json --out dst --format json.gz || true
only_rank_files dst 4 .json.gz || fail "edit over its own set as json.gz left: $(ls -A dst)"
expect_rc 0 "$W" info dst && grep -q "ranks: 4," "$T/out" || fail "the replaced set does not load as 4 ranks"
# compose: the same again is fine; another world size is refused
expect_rc 0 "$W" compose -q --preset llama3-8b -s fsdp --dp 4 --out comp || true
expect_rc 0 "$W" compose -q --preset llama3-8b -s fsdp --dp 4 --out comp || true
expect_rc 2 "$W" compose -q --preset llama3-8b -s fsdp --dp 2 --out comp && grep -q "already holds" "$T/err" \
  || fail "compose of 2 ranks over 4 was not refused"
expect_rc 0 "$W" info comp && grep -q "ranks: 4," "$T/out" || fail "the composed folder changed"

# ---- 4. convert --merge ------------------------------------------------------------------
M_IN=$S
[ -n "$TRACES" ] && [ -d "$TRACES/synthetic/fsdp8" ] && M_IN=$TRACES/synthetic/fsdp8
expect_rc 0 "$W" convert "$M_IN" merged.json --merge || true
expect_rc 0 "$W" info --json "$M_IN" && cp "$T/out" in.info.json
python3 - "$M_IN" merged.json in.info.json <<'EOF' || fail "convert --merge check"
import decimal, glob, gzip, json, os, sys
src, merged_path, info_path = sys.argv[1:]
D = decimal.Decimal
m = json.load(open(merged_path), parse_float=D, parse_int=D)
files = sorted(f for f in glob.glob(os.path.join(src, "**", "*"), recursive=True) if f.endswith((".json", ".json.gz")))
info = {r["rank"]: r for r in json.load(open(info_path))["ranks"]}
ranks = {}
for f in files:
    d = json.load((gzip.open if f.endswith(".gz") else open)(f, "rb"), parse_float=D, parse_int=D)
    ranks[int(d["distributedInfo"]["rank"])] = d
meta = {(e["pid"], e["name"]): e for e in m["traceEvents"] if e.get("ph") == "M" and e["name"] == "process_name"}
ok = True
def bad(*a):
    global ok; ok = False; print(*a)
offsets = {r["rank"]: int(r["clock_offset_ns"]) for r in m["weft"]["merged_ranks"]}
flow_ids = {}
for r, d in ranks.items():
    if meta.get((r, "process_name"), {}).get("args", {}).get("name") != "rank %d" % r:
        bad("rank", r, "has no process_name 'rank %d'" % r)
    orig = [e for e in d["traceEvents"] if e.get("ph") != "M"]
    got = [e for e in m["traceEvents"] if e.get("ph") != "M" and e.get("pid") == r]
    if len(orig) != len(got):
        bad("rank", r, "events", len(got), "!=", len(orig)); continue
    base = int(d.get("baseTimeNanoseconds", 0))
    diffs = set()
    for a, b in zip(orig, got):
        if a.get("name") != b.get("name") or a.get("dur") != b.get("dur") or a.get("args") != b.get("args"):
            bad("rank", r, "event differs:", a.get("name"), b.get("name")); break
        if "ts" in a:
            diffs.add(int(D(m["baseTimeNanoseconds"]) + b["ts"] * 1000) - int(base + a["ts"] * 1000))
        if a.get("ph") in ("s", "f", "t"):
            flow_ids.setdefault(r, set()).add(b["id"])
    if diffs != {offsets[r]}:
        bad("rank", r, "time shifts", sorted(diffs)[:5], "expected only the clock offset", offsets[r])
    info_offset = int((D(info[r]["clock_offset"]["applied_us"]) * 1000).to_integral_value())
    if offsets[r] != info_offset:
        bad("rank", r, "offset", offsets[r], "!= info's", info_offset, "ns")
pids = {e.get("pid") for e in m["traceEvents"]}
if pids != set(ranks):
    bad("pids", sorted(pids), "!= ranks", sorted(ranks))
seen = set()
for r, ids in flow_ids.items():
    if seen & ids:
        bad("flow ids of rank", r, "collide with another rank's")
    seen |= ids
threads = [e for e in m["traceEvents"] if e.get("ph") == "M" and e["name"] == "thread_name"]
lanes = {(e["pid"], e["tid"]) for e in m["traceEvents"] if e.get("ph") in ("X", "i", "s", "f") and "tid" in e}
named = {(e["pid"], e["tid"]) for e in threads}
if not lanes <= named:
    bad("lanes without thread_name:", sorted(lanes - named)[:5])
print("merged:", len(ranks), "ranks,", len(m["traceEvents"]), "events,", len(named), "named threads")
sys.exit(0 if ok else 1)
EOF
# flow ids that an offset of R * stride cannot keep apart (near G_MAXINT64, negative):
# renumbered per rank; each arrow still joins the same two events, and no two ranks share an id
mkdir -p wide-ids
python3 - wide-ids <<'EOF'
import json, os, sys
for r in (0, 1):
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}}]
    for k, fid in enumerate((9223372036854775807, -5, 7, 9223372036854775806 - r)):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                   "ts": 10.0 + 20 * k, "dur": 2.0, "args": {"correlation": fid}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % k, "pid": 0, "tid": 7, "ts": 14.0 + 20 * k,
                   "dur": 5.0, "args": {"device": 0, "stream": 7, "correlation": fid}})
        ev.append({"ph": "s", "id": fid, "pid": 100, "tid": 100, "ts": 10.0 + 20 * k, "cat": "ac2g", "name": "ac2g"})
        ev.append({"ph": "f", "id": fid, "pid": 0, "tid": 7, "ts": 14.0 + 20 * k, "cat": "ac2g", "name": "ac2g", "bp": "e"})
    d = {"schemaVersion": 1, "distributedInfo": {"rank": r, "world_size": 2}, "baseTimeNanoseconds": 1700000000000000000,
         "traceEvents": ev}
    json.dump(d, open(os.path.join(sys.argv[1], "rank%d_trace.json" % r), "w"))
EOF
expect_rc 0 "$W" convert wide-ids wide-merged.json --merge || true
python3 - wide-ids wide-merged.json <<'EOF' || fail "convert --merge of ids near G_MAXINT64 and negative"
import json, sys
src, merged = sys.argv[1:]
m = json.load(open(merged))
ok = True
if m["weft"].get("flow_ids") != "renumbered per rank":
    ok = False; print("the weft key does not say the flow ids were renumbered:", m["weft"])
per_rank = {}
for r in (0, 1):
    d = json.load(open("%s/rank%d_trace.json" % (src, r)))
    orig = [e for e in d["traceEvents"] if e["ph"] in ("s", "f")]
    got = [e for e in m["traceEvents"] if e["ph"] in ("s", "f") and e["pid"] == r]
    if len(orig) != len(got):
        ok = False; print("rank", r, "flows", len(got), "!=", len(orig)); continue
    pairs = {}
    for a, b in zip(orig, got):
        if not (-2**63 <= b["id"] < 2**63):
            ok = False; print("rank", r, "id out of int64:", b["id"])
        pairs.setdefault(a["id"], set()).add(b["id"])
    if any(len(v) != 1 for v in pairs.values()):
        ok = False; print("rank", r, "an arrow's two ends got different ids:", pairs)
    new = [next(iter(v)) for v in pairs.values()]
    if len(set(new)) != len(new):
        ok = False; print("rank", r, "two arrows got the same id:", pairs)
    per_rank[r] = set(new)
if per_rank.get(0, set()) & per_rank.get(1, set()):
    ok = False; print("flow ids of the two ranks collide:", per_rank)
print("wide ids merged:", per_rank)
sys.exit(0 if ok else 1)
EOF
expect_rc 2 "$W" convert "$S" merged-dir --merge || true

# ---- 5. - is standard output ---------------------------------------------------------------
"$W" convert "$S/rank1_trace.json" - >stdout.json 2>e1 || fail "convert FILE - exited $?"
python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a!=b)" \
  "$S/rank1_trace.json" stdout.json || fail "convert FILE - does not write the same JSON to stdout"
"$W" convert "$S" - --merge | python3 -c "import json,sys; d=json.load(sys.stdin); assert len({e['pid'] for e in d['traceEvents']}) == 4" \
  || fail "convert DIR - --merge | json.load"
"$W" convert "$S/rank1_trace.json" - --format json.gz | python3 -c "import gzip,json,sys; json.loads(gzip.decompress(sys.stdin.buffer.read()))" \
  || fail "convert FILE - --format json.gz"
expect_rc 2 "$W" convert "$S" - && grep -q -- "--merge" "$T/err" || fail "convert DIR - without --merge: no clear refusal"
[ ! -e ./- ] || fail "convert created a file or folder named -"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all save checks passed"
