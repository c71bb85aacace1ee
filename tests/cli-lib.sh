# cli-lib.sh: sourced by the tests/test-*cli*.sh tests of the real weft-cli.
# Usage: . "$(dirname "$0")/cli-lib.sh" NAME
# Sets W (the weft-cli binary), TRACES (the shared traces folder or ""),
# T (a temporary folder removed at exit) and fails (the failure count);
# skips (exit 77) when weft-cli is not built or python3 is missing (the
# tests check the CLI's output with an independent python3 reading).
W="${WEFT_BUILD_DIR:-.}/weft-cli"
TRACES="${WEFT_TRACES_DIR:-}"
if [ ! -x "$W" ]; then
  echo "SKIP: $W not built"
  exit 77
fi
if ! command -v python3 >/dev/null; then
  echo "SKIP: python3 is needed for the independent checks"
  exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/weft-${1:-cli}-XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0

fail () {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}

# expect_rc RC CMD...: runs CMD, stdout to $T/out, stderr to $T/err; counts
# a failure unless it exits RC.
expect_rc () {
  local want=$1; shift
  local rc=0
  "$@" >"$T/out" 2>"$T/err" || rc=$?
  if [ "$rc" != "$want" ]; then
    fail "'$*' exited $rc, expected $want; stderr: $(head -c 400 "$T/err")"
    return 1
  fi
  return 0
}
