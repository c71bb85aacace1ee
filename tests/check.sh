#!/usr/bin/env bash
# The whole test suite: installs dependencies where missing, builds Weft
# normally and with AddressSanitizer + UBSan, and runs every test in both
# builds under one shared Xvfb display.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/deps.sh
jobs=$(nproc)

build_and_test () {
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
  echo "== ctest in $dir"
  (cd "$dir" && xvfb-run -a -s "-screen 0 1600x1200x24" ctest --output-on-failure -j "$jobs")
}

build_and_test build
build_and_test build-asan -DWEFT_SANITIZE=ON
echo "check: all tests passed in the normal and the sanitizer build"
