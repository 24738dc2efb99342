#!/usr/bin/env bash
# The showcase: builds bibop and runs the GCBench-style benchmark side by side
# on bibop, stock libgc1 and glibc malloc, printing the comparison table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
bench/run-gcbench.sh "${1:-5}" build
