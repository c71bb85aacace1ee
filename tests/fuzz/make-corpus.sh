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
echo "corpus: $(ls "$out" | wc -l) files in $out"
