#!/usr/bin/env bash
# The showcase: builds bibop and runs the GCBench-style benchmark side by side
# on bibop, stock libgc1 and glibc malloc, printing the comparison table,
# then `bibop run` and `bibop compare` on Guile (docs/GUIDE.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
bench/run-gcbench.sh "${1:-5}" build

# The `bibop` command on a real libgc client (Guile), briefly.
scheme='(let loop ((i 0) (l (list))) (if (< i 2000000) (loop (+ i 1) (cons i l)) (begin (display (length l)) (newline))))'
echo
echo "== bibop run -- guile ... (an unmodified libgc program on bibop, with a summary)"
build/bin/bibop run -- guile --no-auto-compile -c "$scheme"
echo
echo "== bibop compare -n 3 -- guile ... (stock libgc1 vs bibop)"
build/bin/bibop compare -n 3 -- guile --no-auto-compile -c "$scheme"
