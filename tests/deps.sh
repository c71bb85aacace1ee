#!/usr/bin/env bash
# Installs what Weft needs to build, test and run on Debian 12, where missing.
# Runs as root (or through sudo when available).
set -euo pipefail
pkgs=(build-essential cmake pkg-config clang libclang-rt-14-dev
      libglib2.0-dev libgtk-4-dev libjson-c-dev libzstd-dev zlib1g-dev libcairo2-dev libpango1.0-dev
      xvfb xauth xdotool x11-utils python3 zstd
      # tests/test-install.sh (AppStream, .desktop, man pages, MIME types) and
      # tests/test-ui-unique.sh (a private session bus); script(1) of bsdutils
      # gives test-conventions-cli.sh a terminal
      appstream desktop-file-utils groff-base man-db shared-mime-info libglib2.0-bin dbus bsdutils)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
