#!/usr/bin/env bash
# Real-client test: Stalin, the whole-program Scheme compiler (its
# compiler, /usr/lib/stalin/stalin, links libgc.so.1: GC_malloc,
# GC_malloc_atomic, GC_malloc_uncollectable, GC_free; so do the programs it
# builds).
#   1. The compiler turns stalin-trees.sc into C (-c, -k keeps the C file)
#      on each library: stdout, exit status and the C file must be
#      identical (the compiler's heap reaches about 40 MiB, 19 collections).
#   2. That C file, compiled once with gcc -O0 against libgc, runs on each
#      library: binary trees, long lists, a vector of strings; stdout and
#      exit status must be identical.
# The loader trace must show the GC_* imports of the compiler and of the
# program bound to the intended library.  Usage: stalin.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup stalin "${1:-}" stalin gcc
COMPILER=/usr/lib/stalin/stalin
[ -x "$COMPILER" ] || fail "$COMPILER is missing (apt-get install -y --no-install-recommends stalin)"
check_resolution "$COMPILER"

for side in stock bibop; do
    cp "$here/stalin-trees.sc" "$WORK/$side/"
done
# The options /usr/bin/stalin (a shell script) passes, and -On (no
# overflow checks), -c (C only), -k (keep it).
compare_runs compile 0 "$COMPILER" -I /usr/lib/stalin -copt -I -copt /usr/include/gc \
    -copt -fno-strict-aliasing -On -c -k stalin-trees.sc
compare_files compile stalin-trees.c

gcc -O0 -fno-strict-aliasing -I /usr/lib/stalin -I /usr/include/gc -o "$WORK/stalin-trees" \
    "$WORK/stock/stalin-trees.c" -L /usr/lib/stalin -lstalin -lgc -lm ||
    fail "gcc could not build the C file Stalin wrote"
check_resolution "$WORK/stalin-trees"
compare_runs run 60 "$WORK/stalin-trees"
for line in "long-lived tree: -65536" "trees: 1610448636" "lists: -650710720" "strings: 510000"; do
    grep -qxF "$line" "$WORK/run.stock.out" || fail "run: the program on stock libgc did not print '$line'"
done

echo "PASS [stalin]: $NRUNS stalin runs identical on stock libgc and on $BIBOP_LIBGC"
