#!/usr/bin/env bash
# bench-toplevel.sh: loading a .json.zst whose top level holds a string of
# gigabytes (issue 12, item 2): load time, peak RSS and what the string is
# kept as, for 1, 2 and 4 GiB, each in its own process (the figures are
# those test-toplevel prints: the real loader, the peak RSS of that
# process). With OLD_CLI=path/to/weft-cli, also `weft-cli info` of that
# (older) build on the same file (wall time and peak RSS from
# /usr/bin/time), for the before/after table of docs/benchmarks.md
# ("Huge top-level values").
#
#   bash tests/bench/bench-toplevel.sh [BUILD_DIR] [SIZES_MIB...]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1024 2048 4096)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| string MiB | zstd file bytes | load s | kept as (bytes of zstd) | peak RSS MB |"
echo "|---|---|---|---|---|"
for mb in "${sizes[@]}"; do
  out=$(WEFT_TEST_TOPLEVEL_MB=$mb WEFT_BUILD_DIR=$(realpath "$B") "$B/tests/test-toplevel" -p /toplevel/huge-string --verbose 2>&1)
  file=$(sed -n 's/^# [0-9]* MiB of top-level string: \([0-9]*\) bytes of zstd$/\1/p' <<<"$out")
  line=$(grep '^# loaded in' <<<"$out")
  secs=$(sed -n 's/^# loaded in \([0-9.]*\) s.*/\1/p' <<<"$line")
  kept=$(sed -n 's/.*kept as \([0-9]*\) bytes.*/\1/p' <<<"$line")
  rss=$(sed -n 's/.*peak RSS \([0-9]*\) MB$/\1/p' <<<"$line")
  echo "| $mb | $file | $secs | $kept | $rss |"
done

if [ -n "${OLD_CLI:-}" ]; then
  echo
  echo "| string MiB | weft-cli | wall s | peak RSS MB | result |"
  echo "|---|---|---|---|---|"
  for mb in "${sizes[@]}"; do
    f=$tmp/old_trace.json.zst
    python3 - "$mb" <<'EOF' | zstd -q -3 -o "$f" -f
import sys
n = int(sys.argv[1]) << 20
out = sys.stdout.buffer
out.write(b'{"schemaVersion": 1, "junk": "')
block = b"abcdefghij\\n" * 100000
while n > 0:
    out.write(block[:n])
    n -= len(block[:n])
out.write(b'", "traceEvents": [{"ph":"X","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2}]}')
EOF
    for cli in "$OLD_CLI" "$B/weft-cli"; do
      res=ok
      /usr/bin/time -f '%e %M' -o "$tmp/time" env WEFT_MAX_JSON_BYTES=64G "$cli" info "$f" >/dev/null 2>"$tmp/err" || res="error: $(tail -c 120 "$tmp/err")"
      read -r wall kb < <(tail -1 "$tmp/time")
      echo "| $mb | $cli | $wall | $((kb / 1024)) | $res |"
    done
    rm -f "$f"
  done
fi
