#!/usr/bin/env bash
# test-badinput-cli.sh: issue 12 through the real weft-cli: FIFOs, bad
# WEFT_MAX_JSON_BYTES values, bad edit scripts, render of traces without GPU
# ops (ASan aborted there), warnings on stderr. Every failure exits 2 and
# names the file; a timeout guards every call against hangs.
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" badinput-cli
TO="timeout 60"

EV='{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2}'
mkdir -p "$T/d"
echo "{\"traceEvents\":[$EV]}" >"$T/d/rank0_trace.json"

# ---- FIFOs: refused, never waited on -------------------------------------------
mkfifo "$T/f.json"
expect_rc 2 $TO "$W" info "$T/f.json" && grep -q "f.json: is a FIFO" "$T/err" || fail "FIFO refused"
mkfifo "$T/d/config.json"
expect_rc 0 $TO "$W" info "$T/d" && grep -q "warning: .*config.json: is a FIFO" "$T/err" || fail "FIFO in a folder"

# ---- WEFT_MAX_JSON_BYTES ---------------------------------------------------------
for bad in -1 0 abc 1.5 " 10" 10X 99999999999999999999 18446744073709551615T; do
  expect_rc 2 env WEFT_MAX_JSON_BYTES="$bad" $TO "$W" info "$T/d" &&
    grep -q "WEFT_MAX_JSON_BYTES=.*expected a positive number" "$T/err" || fail "WEFT_MAX_JSON_BYTES=$bad refused"
done
for good in 4096 1K 64M 2G 1GiB; do
  expect_rc 0 env WEFT_MAX_JSON_BYTES="$good" $TO "$W" info "$T/d" || fail "WEFT_MAX_JSON_BYTES=$good"
done
expect_rc 2 env WEFT_MAX_JSON_BYTES=20 $TO "$W" info "$T/d" && grep -q "rank0_trace.json: byte 20: .*exceeds the limit" "$T/err" ||
  fail "a small cap names file and byte"

# ---- negative dur: a warning, exit 0 --------------------------------------------
echo '{"traceEvents":[{"ph":"X","name":"k","pid":0,"tid":7,"ts":10,"dur":-5}]}' >"$T/neg_trace.json"
expect_rc 0 $TO "$W" info "$T/neg_trace.json" && grep -q "warning: .*neg_trace.json: 1 events with a negative" "$T/err" ||
  fail "negative dur warned"
echo '{"traceEvents":[{"ph":"X","name":"k","pid":0,"tid":7,"ts":9223372036854775.807,"dur":1}]}' >"$T/big.json"
expect_rc 2 $TO "$W" info "$T/big.json" && grep -q "big.json: byte 58: .*2^62" "$T/err" || fail "int64 ts refused"

# ---- edit scripts ----------------------------------------------------------------
: >"$T/empty.json"
printf '[{"op":"move_stream"' >"$T/trunc.json"
echo '[{"op":"move_stream","match":{"name":"k"},"stream":-1}]' >"$T/negstream.json"
echo '[{"op":"move_stream","match":{"name":"k"},"stream":3,"device":-5}]' >"$T/negdev.json"
expect_rc 2 $TO "$W" edit "$T/d/rank0_trace.json" --script "$T/empty.json" --out "$T/o" &&
  grep -q "empty.json: byte 0: unexpected end of script" "$T/err" || fail "empty script"
expect_rc 2 $TO "$W" edit "$T/d/rank0_trace.json" --script "$T/trunc.json" --out "$T/o" &&
  grep -q "trunc.json: byte 20: unexpected end of script" "$T/err" || fail "truncated script"
grep -q "continue" "$T/err" && fail "json-c's state name leaks into the message"
expect_rc 2 $TO "$W" edit "$T/d/rank0_trace.json" --script "$T/negstream.json" --out "$T/o" &&
  grep -q 'negstream.json: .*"stream" >= 0' "$T/err" || fail "stream -1 refused"
expect_rc 2 $TO "$W" edit "$T/d/rank0_trace.json" --script "$T/negdev.json" --out "$T/o" &&
  grep -q 'negdev.json: .*"device" must be an integer >= 0' "$T/err" || fail "device -5 refused"

# ---- render without GPU ops; a huge kernel name -----------------------------------
if [ -n "$TRACES" ] && [ -d "$TRACES/HolisticTraceAnalysis/cpu_only" ]; then
  for d in cpu_only distributed_info_unavailable; do
    expect_rc 0 $TO "$W" render "$TRACES/HolisticTraceAnalysis/$d" --out "$T/$d.png" || fail "render $d"
  done
else
  echo "SKIP (part): HolisticTraceAnalysis traces absent; the render of CPU-only traces is not checked"
fi
python3 - "$T/longname_trace.json" <<'PY'
import sys
name = "void at::native::vectorized_elementwise_kernel<" + "x" * (8 << 20) + ">"
ev = lambda ts: '{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":1000,"args":{"stream":7}}' % (name, ts)
open(sys.argv[1], "w").write('{"traceEvents":[%s,%s]}' % (ev(0), ev(2000)))
PY
start=$(date +%s)
expect_rc 0 $TO "$W" render "$T/longname_trace.json" --out "$T/long.png" || fail "render of an 8 MB kernel name"
[ $(( $(date +%s) - start )) -le 20 ] || fail "render of an 8 MB kernel name took more than 20 s"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
