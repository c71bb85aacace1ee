#!/usr/bin/env bash
# A 3D (FSDP + TP + PP) composed step opens in the window with its pipeline
# (issue 17, item 3), in the real `weft` under X (Xvfb):
#
#  1. Llama-3-70B (4 blocks) on 64 ranks: pp 4 x dp 2 (FSDP) x tp 8,
#     torchtitan's mesh order (pp outermost), composed with the real CLI,
#     opens: 64 rank groups, in pipeline order (stage = rank / 16 never goes
#     down along the rows);
#  2. its P2P send/recv pairs are drawn as arrows between ranks (the
#     painter's count of arrows in view, fitted: every pair);
#  3. the bubble chip shows the mean pipeline bubble analyze --json reports
#     for the same files.
#
# Skips (77) without a display, xdotool, python3 or the binaries.
set -euo pipefail

. "$(dirname "$0")/ui-lib.sh"
CLI=${WEFT_BUILD_DIR:?}/weft-cli
[ -x "$WEFT" ] && [ -x "$CLI" ] || { echo "weft / weft-cli not built: skipped"; exit 77; }

fail () { echo "FAIL: $*"; [ -f "${STATE:-/nonexistent}" ] && head -c 4000 "$STATE"; [ -f "$TMP/weft.log" ] && cat "$TMP/weft.log"; exit 1; }

q () { qfile "$STATE" "$1"; }

wait_for () { wait_for_file "$STATE" "$@"; }

"$CLI" compose -q -s fsdp,tp,pp --dp 2 --tp 8 --pp 4 -p llama3-70b --layers 4 --mbs 4 --out "$TMP/p3d"
"$CLI" analyze --json "$TMP/p3d" >"$TMP/analyze.json"
BUBBLE=$(qfile "$TMP/analyze.json" 'd["whole"]["bubble_pct"]')
PAIRS=$(qfile "$TMP/analyze.json" 'sum(1 for c in d["collectives"] if c["type"] in ("send", "recv"))')
ok "composed 64 ranks: analyze says bubble $BUBBLE %"

export WEFT_RESTORE=no
TIMEOUT=${TIMEOUT:-120}
launch "$TMP/state.json" "$TMP/p3d"
wait_for 'd["loaded"] and d["frames"] > 0 and "body" in d and "pipeline" in d and d["pipeline"]["bubble_pct"] >= 0'  "the trace is open with its bubble chip"

# ---- 1. 64 ranks in pipeline order ---------------------------------------------------
[ "$(q 'd["n_ranks"]')" = 64 ] || fail "expected 64 ranks"
[ "$(q 'len(d["groups"]) == 64 and all(a["rank"] // 16 <= b["rank"] // 16 for a, b in zip(d["groups"], d["groups"][1:]))')" = 1 ] \
  || fail "rank groups are not in pipeline-stage order: $(q '[g["rank"] for g in d["groups"]]')"
ok "64 rank groups, stages in order"

# ---- 2. P2P arrows ---------------------------------------------------------------------
NP=$(q 'd["pipeline"]["p2p_pairs"]')
NA=$(q 'd["pipeline"]["p2p_arrows"]')
[ "$NP" -gt 0 ] || fail "no P2P pairs matched"
[ "$NA" -gt 0 ] || fail "no P2P arrow in view"
ok "$NP P2P pairs matched, $NA arrows in view"

# ---- 3. the bubble chip = analyze ------------------------------------------------------------
python3 - "$STATE" "$BUBBLE" <<'PY' || fail "the bubble chip does not show analyze's bubble"
import json, sys
shown = json.load(open(sys.argv[1]))["pipeline"]["bubble_pct"]
want = float(sys.argv[2])
assert abs(shown - want) <= 0.05, (shown, want)
print("ok - bubble chip %.2f %% = analyze --json whole.bubble_pct %.2f %%" % (shown, want))
PY

echo "test-ui-pipeline: passed"
