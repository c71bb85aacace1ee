#!/usr/bin/env bash
# Builds a fuzzing corpus folder from the hand-written seeds: each seed as
# is, gzip-compressed and zstd-compressed (when those tools exist).
# Usage: tests/fuzz/make-corpus.sh OUTDIR
set -euo pipefail
out=${1:?usage: make-corpus.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for f in "$here"/seeds/*.json; do
  b=$(basename "$f" .json)
  cp "$f" "$out/$b.json"
  if command -v gzip >/dev/null; then gzip -c -n "$f" > "$out/$b.json.gz"; fi
  if command -v zstd >/dev/null; then zstd -q -c "$f" > "$out/$b.json.zst"; fi
done
# Top-level values over the 1 MiB packing threshold (a 2.2 MB string, a
# 2.2 MB array): only as zstd, a few hundred bytes (the plain text is over
# the fuzzer's -max_len). Slows the fuzzer to ~40 inputs/s while it mutates them.
if command -v zstd >/dev/null; then
  {
    printf '{"big": "'
    head -c 2200000 /dev/zero | tr '\0' 'x'
    printf '", "traceEvents": [{"ph":"X","ts":1,"dur":2,"pid":0,"tid":1}], "arr": ['
    printf '{"k": [1, "v\\u00e9"]},%.0s' $(seq 100000)
    printf '{}]}'
  } | zstd -q -19 -c > "$out/top-huge.json.zst"
fi
echo "corpus: $(ls "$out" | wc -l) files in $out"
