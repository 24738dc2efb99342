#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds a release build and a
# UBSan build, and runs every CTest test in both (unit, API, real clients,
# exported symbols), and the release build's again in generational mode.
# Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
scripts/check-layers.sh build   # every call goes down the layers of docs/ARCHITECTURE.md
ctest --test-dir build --output-on-failure
# The whole suite again with generational mode forced on (issue #17).
BIBOP_GENERATIONAL=1 ctest --test-dir build --output-on-failure

cmake -S . -B build-ubsan -DCMAKE_BUILD_TYPE=Debug -DBIBOP_SANITIZE=undefined -DBIBOP_BUILD_BENCH=OFF
cmake --build build-ubsan -j"$jobs"
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir build-ubsan --output-on-failure
