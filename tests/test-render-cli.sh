#!/usr/bin/env bash
# test-render-cli.sh: the real `weft-cli render` from $WEFT_BUILD_DIR on a
# generated sample (weft-cli sample) and, when present, the shared DLRM
# folder: PNG/SVG/PDF written and valid (PNG size read independently from
# the IHDR chunk with python3), --width/--height/--range/--ranks honoured,
# and the documented exit codes for bad usage, bad input and write failures.
set -euo pipefail

. "$(dirname "$0")/cli-lib.sh" render-cli

# png_size FILE -> "W H" from the IHDR chunk (independent of cairo)
png_size () {
  python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read(32)
assert d[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
assert d[12:16] == b'IHDR', 'no IHDR'
w, h = struct.unpack('>II', d[16:24])
print(w, h)
EOF
}

# ---- a generated trace ---------------------------------------------------------
expect_rc 0 "$W" sample -n 4 "$T/sample"
S="$T/sample"

expect_rc 0 "$W" render "$S" --out "$T/a.png"
read -r w h < <(png_size "$T/a.png") || fail "a.png: not a PNG"
[ "$w" = 1600 ] || fail "default width $w, expected 1600"
[ "$h" -gt 100 ] || fail "auto height $h too small for 4 ranks"
a_h=$h

expect_rc 0 "$W" render "$S" --out "$T/b.png" --width 900 --height 300 --dark
read -r w h < <(png_size "$T/b.png")
[ "$w" = 900 ] && [ "$h" = 300 ] || fail "b.png is ${w}x$h, expected 900x300"

# fewer ranks: a shorter auto height
expect_rc 0 "$W" render "$S" --out "$T/c.png" --ranks 0-1
read -r w h < <(png_size "$T/c.png")
[ "$h" -lt "$a_h" ] || fail "--ranks 0-1 height $h not below all ranks' $a_h"

# a range gives a different picture than the whole trace
expect_rc 0 "$W" render "$S" --out "$T/d.png" --range 25%:50%
cmp -s "$T/a.png" "$T/d.png" && fail "--range 25%:50% drew the same picture as the whole trace"
expect_rc 0 "$W" render "$S" --out "$T/e.png" --range 0.1:0.2
expect_rc 0 "$W" render "$S" --out "$T/f.png" --range :1ms
expect_rc 0 "$W" render "$S" --out "$T/g.png" --range 500us: --cpu

expect_rc 0 "$W" render "$S" --out "$T/a.svg"
head -c 200 "$T/a.svg" | grep -q '<svg' || fail "a.svg has no <svg element"
expect_rc 0 "$W" render "$S" --out "$T/a.PDF"
[ "$(head -c 4 "$T/a.PDF")" = "%PDF" ] || fail "a.PDF is not a PDF"

# ---- bad usage / bad input: exit 2 --------------------------------------------
expect_rc 2 "$W" render "$S"                                   # no --out
expect_rc 2 "$W" render --out "$T/x.png"                       # no PATH
expect_rc 2 "$W" render "$S" --out "$T/x.bmp"                  # extension
expect_rc 2 "$W" render "$S" --out "$T/x.png" --range 5ms:4ms  # empty range
expect_rc 2 "$W" render "$S" --out "$T/x.png" --range 12parsecs:
expect_rc 2 "$W" render "$S" --out "$T/x.png" --range 1.5:
expect_rc 2 "$W" render "$S" --out "$T/x.png" --range 5ms
expect_rc 2 "$W" render "$S" --out "$T/x.png" --ranks 3-1
expect_rc 2 "$W" render "$S" --out "$T/x.png" --ranks x
expect_rc 2 "$W" render "$S" --out "$T/x.png" --ranks 40-41     # not in the trace
grep -q "ranks" "$T/err" || fail "no-rank message does not mention ranks: $(cat "$T/err")"
expect_rc 2 "$W" render "$S" --out "$T/x.png" --width 10
expect_rc 2 "$W" render "$S" --out "$T/x.png" --height 5
expect_rc 2 "$W" render "$S" --out "$T/x.png" --width 32000 --height 32000   # 1 Gpx
expect_rc 2 "$W" render "$T/does-not-exist" --out "$T/x.png"
printf '{"traceEvents": [' > "$T/bad.json"
expect_rc 2 "$W" render "$T/bad.json" --out "$T/x.png"
grep -q "bad.json" "$T/err" || fail "bad-input message does not name the file: $(cat "$T/err")"
[ -e "$T/x.png" ] && fail "a failed render left $T/x.png"

# ---- write failure: exit 1 -------------------------------------------------------
expect_rc 1 "$W" render "$S" --out "$T/no-such-dir/x.png"

# ---- the DLRM 8 ranks ------------------------------------------------------------
D="$TRACES/param/et_replay/tests/inputs/dlrm_kineto"
if [ -n "$TRACES" ] && [ -d "$D" ]; then
  expect_rc 0 "$W" render "$D" --out "$T/dlrm.png" --width 1200
  read -r w h < <(png_size "$T/dlrm.png")
  [ "$w" = 1200 ] || fail "dlrm width $w"
  # 8 rank groups: header row (22 px) + lanes each; far taller than one rank
  expect_rc 0 "$W" render "$D" --out "$T/dlrm0.png" --width 1200 --ranks 0
  read -r w0 h0 < <(png_size "$T/dlrm0.png")
  [ "$h" -gt $((h0 * 6)) ] || fail "8 ranks ($h px) not ~8x one rank ($h0 px)"
  # the solver's critical path drawn over the same picture changes it
  expect_rc 0 "$W" render "$D" --out "$T/dlrm-cp.png" --width 1200 --critical-path
  cmp -s "$T/dlrm.png" "$T/dlrm-cp.png" && fail "--critical-path drew nothing"
else
  echo "note: shared DLRM traces absent, that part skipped"
fi

if [ "$fails" -gt 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "ok"
