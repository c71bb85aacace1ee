#!/usr/bin/env bash
# test-edit-cli.sh: the real `weft-cli edit` on a generated 2-rank trace
# (`weft-cli sample`): a script moves every all-reduce to stream 21 and halves
# every GEMM; an independent python3 reading of the input and output files
# checks the result (all-reduce kernels on stream 21, GEMM durations halved,
# Kineto ts/dur text, the "weft" key); the step gets shorter; bad scripts and
# a refused cycle exit 2 without writing; a failed write exits 1.
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" edit-cli

"$W" sample "$T/in" --ranks 2 >/dev/null
IN="$T/in/profiling/traces/iteration_1"

cat >"$T/script.json" <<'EOF'
{"ops": [
  {"op": "move_stream", "match": {"collective": "all_reduce"}, "stream": 21},
  {"op": "scale", "class": "gemm", "factor": 0.5}
]}
EOF

# ---- a good script ------------------------------------------------------------------
if expect_rc 0 "$W" edit "$IN" --script "$T/script.json" --out "$T/out1"; then
  grep -q "applied 2 operations" "$T/out" || fail "edit: no 'applied 2 operations' line: $(cat "$T/out")"
  grep -q "step time" "$T/out" || fail "edit: no step time in the output"
  grep -q "overlap" "$T/out" || fail "edit: no overlap in the output"
  grep -q "exposed communication" "$T/out" || fail "edit: no exposed communication in the output"
fi

python3 - "$IN" "$T/out1" <<'EOF' || fail "independent check of the edited files"
import json, re, sys, os
src, out = sys.argv[1], sys.argv[2]

def raw_times(text):
    # the ts/dur text of every event
    return re.findall(r'"(ts|dur)": *(-?[0-9.eE+]+)', text)

ok = True
for r in range(2):
    a_text = open(os.path.join(src, 'rank%d_trace.json' % r)).read()
    b_text = open(os.path.join(out, 'rank%d_trace.json' % r)).read()
    a, b = json.loads(a_text), json.loads(b_text)
    for kind, num in raw_times(b_text):
        if not re.fullmatch(r'-?[0-9]+\.[0-9]{3}', num):
            print('rank %d: %s written as %s' % (r, kind, num)); ok = False
    ak = [e for e in a['traceEvents'] if e.get('cat') == 'kernel']
    bk = [e for e in b['traceEvents'] if e.get('cat') == 'kernel']
    if len(ak) != len(bk):
        print('rank %d: %d kernels in, %d out' % (r, len(ak), len(bk))); ok = False
    ar_in = [e for e in ak if e.get('args', {}).get('Collective name') == 'allreduce']
    ar_out = [e for e in bk if e.get('args', {}).get('Collective name') == 'allreduce']
    if not ar_in or len(ar_in) != len(ar_out):
        print('rank %d: all-reduces %d in, %d out' % (r, len(ar_in), len(ar_out))); ok = False
    for e in ar_out:
        if e['tid'] != 21:
            print('rank %d: all-reduce on tid %s, expected 21' % (r, e['tid'])); ok = False
    # GEMM durations halved (from the text: ns exact, rounded to the nearest ns)
    # GEMM durations halved, kernel by kernel in file order (durations are
    # small: round(us * 1000) of the parsed number is exact)
    gi = [round(e['dur'] * 1000) for e in ak if 'gemm' in e['name'].lower()]
    go = [round(e['dur'] * 1000) for e in bk if 'gemm' in e['name'].lower()]
    if not gi or len(gi) != len(go):
        print('rank %d: gemms %d in, %d out' % (r, len(gi), len(go))); ok = False
    for x, y in zip(gi, go):
        if abs(y * 2 - x) > 1:
            print('rank %d: gemm %d ns -> %d ns, expected half' % (r, x, y)); ok = False
    others_in = [round(e['dur'] * 1000) for e in ak if 'gemm' not in e['name'].lower() and e not in ar_in]
    others_out = [round(e['dur'] * 1000) for e in bk if 'gemm' not in e['name'].lower() and e not in ar_out]
    if others_in != others_out:
        print('rank %d: other kernels changed duration' % r); ok = False
    weft = b.get('weft')
    if not weft or not weft.get('edits'):
        print('rank %d: no "weft" edits key' % r); ok = False
    else:
        # the all-reduces moved together (one "moves" entry), the GEMMs scaled as a class
        ops = [e['op'] for e in weft['edits']]
        if ops != ['move_to_position', 'scale'] or len(weft['edits'][0].get('moves', [])) != len(ar_out) * 2 \
           or weft['edits'][1].get('class') != 'gemm' or weft['edits'][1].get('factor') != 0.5:
            print('rank %d: weft edits ops %s' % (r, sorted(ops))); ok = False
sys.exit(0 if ok else 1)
EOF

# the edited trace loads again
expect_rc 0 "$W" info "$T/out1" || true

# ---- --json: the step gets shorter with every GEMM twice as fast -------------------------
if expect_rc 0 "$W" edit "$IN" --script "$T/script.json" --out "$T/out2" --format json.zst --json; then
  python3 - "$T/out" <<'EOF' || fail "edit --json: step time not shorter"
import json, sys
d = json.load(open(sys.argv[1]))
b, a = d['before']['step_time_us'] * 1000, d['after']['step_time_us'] * 1000
print('step', b, '->', a)
sys.exit(0 if a < b and d['applied'] == 2 and len(d['edits']) == 2 else 1)
EOF
  ls "$T/out2"/rank0_trace.json.zst >/dev/null 2>&1 || fail "--format json.zst: no rank0_trace.json.zst"
fi

# ---- bad usage and bad scripts: exit 2, nothing written --------------------------------
expect_rc 2 "$W" edit "$IN" --out "$T/bad0" || true
grep -q "script" "$T/err" || fail "missing --script: message does not say so"
expect_rc 2 "$W" edit "$IN" --script "$T/script.json" || true

printf '[{"op": "scale", "class": "gemm", "factor": 0.5},' >"$T/trunc.json"
expect_rc 2 "$W" edit "$IN" --script "$T/trunc.json" --out "$T/bad1" || true
grep -q "trunc.json" "$T/err" || fail "truncated script: message does not name the file: $(cat "$T/err")"

echo '[{"op": "teleport"}]' >"$T/unknown.json"
expect_rc 2 "$W" edit "$IN" --script "$T/unknown.json" --out "$T/bad2" || true
grep -q "op 0" "$T/err" || fail "unknown op: message does not name the op: $(cat "$T/err")"

# rank 0 issues its second all-reduce before its first, rank 1 does not: a deadlock
echo '[{"op": "reorder", "match": {"collective": "all_reduce", "rank": 0, "nth": 1}, "position": 0}]' >"$T/cycle.json"
expect_rc 2 "$W" edit "$IN" --script "$T/cycle.json" --out "$T/bad3" || true
grep -qi "cycle" "$T/err" || fail "refused cycle: message does not say cycle: $(cat "$T/err")"

for d in bad0 bad1 bad2 bad3; do
  [ ! -e "$T/$d" ] || fail "$d was written although the edit failed"
done

# ---- a failed write: exit 1 -------------------------------------------------------------
touch "$T/plainfile"
expect_rc 1 "$W" edit "$IN" --script "$T/script.json" --out "$T/plainfile/sub" || true

if [ "$fails" -gt 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all weft-cli edit checks passed"
