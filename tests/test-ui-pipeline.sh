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
#     for the same files;
#  4. the Schedule menu lists the schedules the composer accepts for the
#     same parameters and greys the others with the composer's reason.
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

# ---- 4. the Schedule menu: what the composer refuses is greyed, with its reason ---------------
# Every other schedule is either an item of the menu or a greyed one, and
# which is which (and the reason) is what `weft-cli compose --pp-schedule`
# answers for the same parameters.
[ "$(q 'd["pipeline_ui"]["composed"] and d["pipeline_ui"]["schedule"] == "1f1b"')" = 1 ] || fail "no Schedule menu for the 1f1b step"
NREF=0
for S in gpipe interleaved-1f1b looped-bfs zb zbv dualpipev; do
  RC=0
  ERR=$("$CLI" compose -q -s fsdp,tp,pp --dp 2 --tp 8 --pp 4 -p llama3-70b --layers 4 --mbs 4 --pp-schedule "$S" --json 2>&1 >/dev/null) || RC=$?
  if [ "$RC" = 0 ]; then
    [ "$(q "'$S' in d['pipeline_ui']['items'] and all(r['schedule'] != '$S' for r in d['pipeline_ui']['refused'])")" = 1 ] \
      || fail "$S composes in the CLI but is not an item of the Schedule menu: $(q 'd["pipeline_ui"]')"
  else
    REASON=${ERR#weft-cli: compose: }
    [ "$(q "'$S' not in d['pipeline_ui']['items'] and [r['reason'] for r in d['pipeline_ui']['refused'] if r['schedule'] == '$S'] == ['''$REASON''']")" = 1 ] \
      || fail "$S is refused by the CLI ($REASON) but not greyed with that reason: $(q 'd["pipeline_ui"]')"
    NREF=$((NREF + 1))
  fi
done
[ "$NREF" -gt 0 ] || fail "the CLI refused no schedule: the check could not tell greyed items from others"
ok "Schedule menu: $(q 'len(d["pipeline_ui"]["items"])') schedules to compare with, $NREF greyed with the composer's reason ($(q '"; ".join(r["schedule"] + ": " + r["reason"] for r in d["pipeline_ui"]["refused"])'))"

echo "test-ui-pipeline: passed"
