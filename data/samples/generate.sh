#!/bin/sh
# Regenerates the composed sample traces in data/samples/ (docs/composer.md,
# "Samples"). Usage: data/samples/generate.sh [path/to/weft-cli]
# Deterministic: the same weft-cli writes the same bytes.
set -eu
CLI=${1:-${WEFT_CLI:-build/weft-cli}}
OUT=$(dirname "$0")

gen ()
{
  name=$1
  shift
  rm -rf "$OUT/$name"
  "$CLI" compose "$@" --out "$OUT/$name" --quiet
  echo "$name: $*"
}

gen fsdp-llama3-8b    --strategy fsdp --dp 8 --preset llama3-8b --layers 3
gen ddp-llama3-8b     --strategy ddp --dp 4 --preset llama3-8b --layers 2
gen tp-llama3-8b      --strategy tp --tp 4 --preset llama3-8b --layers 1
gen tp-sp-llama3-8b   --strategy tp --tp 4 --sp --preset llama3-8b --layers 1
gen ep-moe            --strategy fsdp,ep --dp 4 --ep 4 --preset moe-small --layers 1 --ep-overlap
gen cp-ring-llama3-8b --strategy fsdp,cp --cp 4 --cp-mode ring --preset llama3-8b --layers 1 --seq 32768
