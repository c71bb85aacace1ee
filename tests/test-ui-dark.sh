#!/usr/bin/env bash
# The dark style in the real `weft` under X (Xvfb): with GTK_THEME=Adwaita:dark
# (and, apart, with GTK's prefer-dark setting through WEFT_COLOR_SCHEME=dark)
# the window reports dark, the timeline's background is dark, and the lane
# labels and the per-rank breakdown's labels have a WCAG contrast ratio of at
# least 4.5 against their background, measured from the pixels of a
# screenshot (tests/ui-contrast.py); the same checks in the light style.
#
# Skips (77) without a display, xdotool, python3 or the binaries.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && cat "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }
q () { qfile "$STATE" "$1"; }
wait_for () { wait_for_file "$STATE" "$@"; }

"$CLI" sample "$TMP/trace" >/dev/null
export WEFT_RESTORE=no

# check NAME DARK: screenshot regions of the running window: timeline body
# background, lane labels, breakdown labels
check () {
  local name=$1 dark=$2 shot=$TMP/$1.png sx sy out
  wait_for "d['loaded'] and d['frames'] > 0 and d['screenshots'] > 0 and 'breakdown_box' in d and d['breakdown_box'] is not None" "$name: the trace and its screenshot"
  [ "$(q 'd["dark"]')" = "$dark" ] || fail "$name: the window reports dark=$(q 'd["dark"]'), expected $dark"
  sx=$(q 'd["surface"]["x"]'); sy=$(q 'd["surface"]["y"]')
  # the body: background luminance
  out=$(python3 "$HERE/ui-contrast.py" "$shot" $(q "' '.join(str(v) for v in (d['body']['x'] - $sx + d['body']['w'] - 60, d['body']['y'] - $sy + d['body']['h'] - 40, 50, 30))"))
  if [ "$dark" = 1 ]; then
    python3 -c "import sys; sys.exit(0 if float('${out%% *}') < 0.2 else 1)" || fail "$name: the timeline background is not dark (luminance ${out%% *})"
  else
    python3 -c "import sys; sys.exit(0 if float('${out%% *}') > 0.6 else 1)" || fail "$name: the timeline background is not light (luminance ${out%% *})"
  fi
  ok "$name: timeline background luminance ${out%% *}"
  # the lane labels (the header column beside the first rows)
  out=$(python3 "$HERE/ui-contrast.py" "$shot" $(q "' '.join(str(v) for v in (d['body']['x'] - $sx - int(d['header_width']) + 24, d['body']['y'] - $sy + 24, int(d['header_width']) - 40, 60))"))
  python3 -c "import sys; sys.exit(0 if float('${out##* }') >= 4.5 else 1)" || fail "$name: lane labels' contrast ${out##* } < 4.5 ($out)"
  ok "$name: lane labels contrast ${out##* }:1"
  # the breakdown's rank labels (its left column)
  out=$(python3 "$HERE/ui-contrast.py" "$shot" $(q "' '.join(str(v) for v in (d['breakdown_box']['x'] - $sx, d['breakdown_box']['y'] - $sy + 18, 44, d['breakdown_box']['h'] - 18))"))
  python3 -c "import sys; sys.exit(0 if float('${out##* }') >= 4.5 else 1)" || fail "$name: breakdown labels' contrast ${out##* } < 4.5 ($out)"
  ok "$name: per-rank breakdown labels contrast ${out##* }:1"
}

run () { # run NAME DARK ENV...
  local name=$1 dark=$2; shift 2
  env "$@" WEFT_TEST_SCREENSHOT="$TMP/$name.png" WEFT_TEST_STATE="$TMP/$name.json" "$WEFT" "$TMP/trace" >>"$TMP/weft.log" 2>&1 &
  APP=$!; PIDS+=("$APP"); STATE=$TMP/$name.json
  check "$name" "$dark"
  kill "$APP"; wait "$APP" 2>/dev/null || true
}

run light 0 WEFT_COLOR_SCHEME=light
run gtk-theme-dark 1 GTK_THEME=Adwaita:dark WEFT_COLOR_SCHEME=
run prefer-dark 1 WEFT_COLOR_SCHEME=dark
if grep -E "CRITICAL|WARNING|runtime error|AddressSanitizer" "$TMP/weft.log"; then
  fail "weft logged warnings or errors (above)"
fi
echo "all dark-style checks passed"
