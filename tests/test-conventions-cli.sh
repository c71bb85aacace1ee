#!/usr/bin/env bash
# test-conventions-cli.sh: the conventions every weft-cli command shares
# (docs/cli.md): `help CMD` is `CMD --help`; compose picks and says the
# degrees not given; one JSON vocabulary (schema_version, *_us durations,
# *_ns points in time, every field documented in docs/cli.md, edit's and
# apply's metrics the same numbers as analyze's); `-` for standard input and
# output gives what the file gives; progress only where asked for.
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" conventions-cli
DOC="${WEFT_SOURCE_DIR:-$(dirname "$0")/..}/docs/cli.md"

"$W" sample "$T/s1" --ranks 1 >/dev/null
F1="$T/s1/profiling/traces/iteration_1/rank0_trace.json"
"$W" sample "$T/s2" --ranks 2 >/dev/null
F2="$T/s2/profiling/traces/iteration_1"

# ---- help CMD ------------------------------------------------------------------------
cmds=$("$W" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')
[ "$(echo "$cmds" | wc -w)" -ge 9 ] || fail "weft-cli --help lists only: $cmds"
for c in $cmds; do
  if expect_rc 0 "$W" help "$c"; then
    cp "$T/out" "$T/help-$c"
    "$W" "$c" --help >"$T/help2-$c" 2>&1 || fail "$c --help exited non-zero"
    cmp -s "$T/help-$c" "$T/help2-$c" || fail "help $c differs from $c --help"
    grep -q "weft-cli $c" "$T/help-$c" || fail "help $c: no 'weft-cli $c' usage line: $(head -3 "$T/help-$c")"
  fi
done
expect_rc 2 "$W" help no-such-command && grep -q "unknown command 'no-such-command'" "$T/err" ||
  fail "help of an unknown command: $(cat "$T/err")"

# ---- compose: degrees not given --------------------------------------------------------
# Each listed strategy without its degree composes (torchtitan's layout),
# says the degrees it chose on stderr, and writes what it said.
check_defaults () {
  local name=$1; shift
  if expect_rc 0 "$W" compose "$@" --layers 1 --format json --out "$T/d-$name"; then
    python3 - "$T/err" "$T/d-$name" <<'EOF' || fail "compose $name: chosen degrees"
import glob, json, re, sys
said = open(sys.argv[1]).read()
m = re.search(r"degrees not given: (.*); (\d+) GPUs per node", said)
assert m, said
chosen = {k: int(v) for k, v in re.findall(r"\b(dp|tp|cp|ep) (\d+) \(", m.group(1))}
assert chosen, said
files = glob.glob(sys.argv[2] + "/profiling/traces/iteration_*/rank*_trace.json")
meta = json.load(open(files[0]))["weft"]
par = meta.get("parallelism", meta)
def find(o, k):
    if isinstance(o, dict):
        if k in o and isinstance(o[k], int):
            return o[k]
        for v in o.values():
            r = find(v, k)
            if r is not None:
                return r
    return None
world = 1
for k, v in chosen.items():
    assert find(meta, k) == v, (k, v, find(meta, k), said)
for k in ("dp", "tp", "cp"):
    world *= find(meta, k) or 1
assert len(files) == world, (len(files), world)
print("chosen", chosen, "ranks", len(files))
EOF
  fi
}
check_defaults tp --strategy tp
check_defaults fsdp-tp --strategy fsdp,tp
check_defaults cp --strategy cp
check_defaults ddp --strategy ddp
check_defaults fsdp-ep --strategy fsdp,ep --preset moe-small
# tp defaults to the GPUs of a node
expect_rc 0 "$W" compose --strategy tp --layers 1 --gpus-per-node 4 --format json --out "$T/d-tp4" &&
  grep -q "tp 4 (" "$T/err" || fail "tp on 4-GPU nodes: $(cat "$T/err")"
# given degrees: nothing said; --quiet: nothing at all
expect_rc 0 "$W" compose --strategy tp --tp 2 --layers 1 --format json --out "$T/d-given" &&
  ! grep -q "not given" "$T/err" || fail "given degrees: stderr $(cat "$T/err")"
expect_rc 0 "$W" compose --strategy tp --layers 1 --format json --out "$T/d-quiet" --quiet &&
  [ ! -s "$T/err" ] && [ ! -s "$T/out" ] || fail "--quiet: printed $(cat "$T/out" "$T/err")"

# ---- one JSON vocabulary -----------------------------------------------------------------
echo '[]' >"$T/noop.json"
echo '[{"op": "scale", "class": "gemm", "factor": 0.5}]' >"$T/half.json"
"$W" info "$F2" --json >"$T/j-info.json"
"$W" analyze "$F2" --json >"$T/j-analyze.json"
"$W" diff "$F2" "$F2" --json >"$T/j-diff.json"
"$W" edit "$F2" --script "$T/noop.json" --out "$T/e-noop" --json >"$T/j-edit-noop.json"
"$W" edit "$F2" --script "$T/half.json" --out "$T/e-half" --json >"$T/j-edit.json"
"$W" analyze "$T/e-half" --json >"$T/j-analyze-half.json"
"$W" apply "$F1" --blocks --json >"$T/j-blocks.json"
"$W" apply "$F1" --strategy fsdp --degree 2 --out "$T/a" --json >"$T/j-apply.json"
"$W" compose --strategy fsdp --dp 2 --layers 1 --json >"$T/j-compose.json" 2>/dev/null
"$W" compose --strategy pp --pp 2 --layers 4 --mbs 4 --pp-schedule zbv --json >"$T/j-compose-pp.json" 2>/dev/null
python3 - "$DOC" "$T" <<'EOF' || fail "JSON vocabulary"
import json, re, sys
doc, T = sys.argv[1], sys.argv[2]
# a field is documented where its name is in a code span (`whole.step_time_us`, `arrivals[]`)
documented = set()
text = re.sub(r"```.*?```", "", open(doc).read(), flags=re.S)  # fenced examples are not spans
for span in re.findall(r"`([^`\n]+)`", text):
    documented.update(re.findall(r"[a-z_][a-z0-9_]*", span))
OLD = {"step_time_ns", "step_ns", "comm_ns", "exposed_comm_ns", "compute_ns", "idle_ns", "critical_path_ns",
       "overlapped_ns", "duration_ns", "dur_ns", "estimated_ns", "applied_ns", "unknown_bytes"}
# objects whose keys are data (types, classes, categories), not fields
MAPS = {"events_by_phase", "events_by_category", "kernels_by_class", "by_type", "by_method"}
bad = []
def walk(o, path, cmd):
    if isinstance(o, dict):
        for k, v in o.items():
            p = path + "." + k
            if k in OLD:
                bad.append("%s: old name %s" % (cmd, p))
            if k.endswith("_ns") and not (isinstance(v, int) and not isinstance(v, bool)):
                bad.append("%s: %s = %r: *_ns is an integer point in time" % (cmd, p, v))
            if k.endswith(("_us", "_pct", "_gib", "_bytes")) and not isinstance(v, (int, float)):
                bad.append("%s: %s = %r: not a number" % (cmd, p, v))
            if k not in documented:
                bad.append("%s: %s is not documented in docs/cli.md" % (cmd, p))
            if k == "edits" and cmd.startswith("edit"):
                continue  # the edit-script format (docs/editing.md)
            if k in MAPS or (k == "collectives" and isinstance(v, dict)):
                for kk, vv in (v.items() if isinstance(v, dict) else []):
                    walk(vv, p + "." + kk, cmd)
                continue
            walk(v, p, cmd)
    elif isinstance(o, list):
        for x in o:
            walk(x, path + "[]", cmd)
docs = {}
for cmd in ("info", "analyze", "diff", "edit-noop", "edit", "analyze-half", "blocks", "apply", "compose", "compose-pp"):
    d = json.load(open("%s/j-%s.json" % (T, cmd)))
    docs[cmd] = d
    if d.get("schema_version") != 2:
        bad.append("%s: schema_version %r" % (cmd, d.get("schema_version")))
    if not d.get("weft_version"):
        bad.append("%s: no weft_version" % cmd)
    walk(d, "", cmd)
# PP: the memory model per stage rank (one entry per pp rank)
if len(docs["compose-pp"].get("memory_model", {}).get("stages", [])) != 2:
    bad.append("compose --pp 2: memory_model.stages is not one entry per stage rank")
# edit's and apply's metrics are analyze's object, with the same numbers
a, e = docs["analyze"]["whole"], docs["edit-noop"]["before"]
if set(e) - {"step_time_delta_us", "gpu_span_delta_us", "overlap_pct_delta", "exposed_communication_delta_us"} != \
        set(a) - {"step_time_delta_us", "gpu_span_delta_us", "overlap_pct_delta", "exposed_communication_delta_us"}:
    bad.append("edit before has other fields than analyze whole: %s" % (set(e) ^ set(a)))
for k in ("step_time_us", "compute_us", "communication_us", "overlap_pct", "exposed_communication_us", "idle_us"):
    if abs(a[k] - e[k]) > 1e-6:
        bad.append("edit noop before.%s %r != analyze whole.%s %r" % (k, e[k], k, a[k]))
ah, eh = docs["analyze-half"]["whole"], docs["edit"]["after"]
for k in ("step_time_us", "compute_us", "communication_us", "overlap_pct"):
    if abs(ah[k] - eh[k]) > 1e-3 * max(1, abs(ah[k])):
        bad.append("edit after.%s %r != analyze of the saved edit %r" % (k, eh[k], ah[k]))
if not eh["step_time_us"] < docs["edit"]["before"]["step_time_us"]:
    bad.append("halving GEMMs did not shorten the step: %r" % eh)
if set(docs["apply"]["after"]) != set(a):
    bad.append("apply after has other fields than analyze whole: %s" % (set(docs["apply"]["after"]) ^ set(a)))
# info: the step's duration is its span, in microseconds
for r in docs["info"]["ranks"]:
    for s in r["steps"]:
        if abs((s["end_ns"] - s["begin_ns"]) / 1000 - s["duration_us"]) > 1e-6:
            bad.append("info step %r: duration_us is not (end_ns - begin_ns) / 1000" % s)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF

# ---- - for standard input and output -------------------------------------------------------
strip_path () { python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("path",None); [r.pop("path",None) for r in d.get("ranks",[]) if isinstance(r,dict)]; print(json.dumps(d, sort_keys=True))'; }
"$W" analyze "$F1" --json | strip_path >"$T/a-file"
"$W" analyze - --json <"$F1" | strip_path >"$T/a-stdin" || fail "analyze - exited non-zero"
cmp -s "$T/a-file" "$T/a-stdin" || fail "analyze - differs from analyze FILE"
gzip -c "$F1" >"$T/r0.json.gz"
zstd -q -c "$F1" >"$T/r0.json.zst" 2>/dev/null || "$W" convert "$F1" "$T/r0.json.zst"
"$W" info "$F1" --json | strip_path >"$T/i-file"
for z in gz zst; do
  "$W" info - --json <"$T/r0.json.$z" | strip_path >"$T/i-$z" || fail "info - <.$z exited non-zero"
  cmp -s "$T/i-file" "$T/i-$z" || fail "info - of the .$z file differs from info FILE"
done
"$W" info - --json <"$F1" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["path"] == "-" and d["ranks"][0]["path"] == "(standard input)", d["path"]' ||
  fail "info -: path fields"
# convert IN - then - OUT: byte-identical to converting the file
"$W" convert "$F1" "$T/c-file.json"
"$W" convert "$F1" - | "$W" convert - "$T/c-pipe.json" || fail "convert - | convert - exited non-zero"
cmp -s "$T/c-file.json" "$T/c-pipe.json" || fail "convert through two pipes differs from convert FILE"
# render -o -: the same picture as the file
"$W" render "$F2" --out "$T/p-file.png" --width 400
"$W" render "$F2" --out - --width 400 >"$T/p-stdout.png" || fail "render --out - exited non-zero"
cmp -s "$T/p-file.png" "$T/p-stdout.png" || fail "render --out - differs from --out FILE.png"
"$W" render - --out - --format svg --width 400 <"$F1" >"$T/p.svg" && grep -q "<svg" "$T/p.svg" || fail "render - --out - --format svg"
expect_rc 2 "$W" render "$F1" --out - --format gif || true
# edit: the script from stdin, the trace to stdout: the same file as --out DIR
"$W" edit "$F1" --script "$T/half.json" --out "$T/e1" >/dev/null
if "$W" edit "$F1" --script - --out - <"$T/half.json" >"$T/e1-stdout.json" 2>"$T/e1-report"; then
  cmp -s "$T/e1/rank0_trace.json" "$T/e1-stdout.json" || fail "edit --script - --out - differs from --out DIR"
  grep -q "step time" "$T/e1-report" || fail "edit --out -: no report on stderr"
else
  fail "edit --script - --out - exited non-zero: $(cat "$T/e1-report")"
fi
expect_rc 2 "$W" edit - --script - --out "$T/e2" <"$F1" && grep -q "both" "$T/err" || fail "edit - --script -: $(cat "$T/err")"
expect_rc 2 "$W" edit "$F2" --script "$T/half.json" --out - && grep -q "2 ranks" "$T/err" ||
  fail "edit of 2 ranks to -: $(cat "$T/err")"
expect_rc 2 "$W" edit "$F1" --script "$T/half.json" --out - --json || true
expect_rc 2 "$W" compose --strategy ddp --dp 2 --layers 1 --out - && [ ! -e ./- ] || fail "compose --out -"
expect_rc 2 "$W" apply "$F1" --strategy fsdp --degree 2 --out - || true
# empty and malformed standard input: exit 2 naming standard input
expect_rc 2 "$W" analyze - </dev/null && grep -q "(standard input)" "$T/err" || fail "empty stdin: $(cat "$T/err")"
expect_rc 2 "$W" info - <<<'{"traceEvents": [' && grep -q "(standard input): byte" "$T/err" ||
  fail "truncated stdin: $(cat "$T/err")"

# ---- progress: only on a terminal or with --progress ---------------------------------------
"$W" compose --strategy fsdp --dp 4 --layers 1 --out "$T/p1" >"$T/p1.out" 2>"$T/p1.err"
[ ! -s "$T/p1.err" ] || fail "compose with stderr not a terminal printed: $(cat "$T/p1.err")"
"$W" compose --strategy fsdp --dp 4 --layers 1 --out "$T/p2" --progress >"$T/p2.out" 2>"$T/p2.err"
grep -q "simulating the step of 4 ranks" "$T/p2.err" && grep -q "100%, 4 of 4 rank files written" "$T/p2.err" ||
  fail "--progress: $(cat "$T/p2.err")"
sed 's/([0-9.]* s)//' "$T/p1.out" | sed "s|$T/p1|X|" >"$T/p1.norm"
sed 's/([0-9.]* s)//' "$T/p2.out" | sed "s|$T/p2|X|" >"$T/p2.norm"
cmp -s "$T/p1.norm" "$T/p2.norm" || fail "--progress changed stdout"
"$W" info "$F2" --progress >/dev/null 2>"$T/p3.err"
grep -q "reading: 100%" "$T/p3.err" || fail "info --progress: $(cat "$T/p3.err")"
if command -v script >/dev/null; then
  # a terminal (a pty from script(1)): progress redrawn in place, cleared at the end
  script -qec "'$W' compose --strategy fsdp --dp 4 --layers 1 --out '$T/p4'" /dev/null >"$T/p4.tty" </dev/null || true
  grep -q "rank files written" "$T/p4.tty" && grep -q $'\r' "$T/p4.tty" || fail "no progress on a terminal"
fi

if [ "$fails" -gt 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all weft-cli convention checks passed"
