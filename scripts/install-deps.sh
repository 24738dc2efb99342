#!/usr/bin/env bash
# Installs, from Debian's packages, what building bibop and running its tests
# and benchmarks needs: the toolchain, stock libgc1 (the comparison baseline)
# and the real libgc clients the tests run. Does nothing when all are present;
# otherwise needs root.
set -euo pipefail
packages=(cmake make gcc g++ binutils libc6-dev pkg-config libgc1 libgc-dev libgmp-dev mmv debfoster w3m guile-3.0 asymptote ecl chromium guile-3.0-dev nix-bin neko time poke chase crystal stalin guile-2.2 macaulay2 lilypond parser3-cgi goo fauhdlc mailutils-mh inkscape gobjc libhomfly-dev maxima-sage maxima-sage-share autogen)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing Debian packages: ${missing[*]}; run as root to install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
