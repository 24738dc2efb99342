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
#      exit status must be identical, and right (stock is rerun when its
#      answer is wrong: see the run below).
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
# The right answers (Stalin's fixnums are 32-bit C ints, so sums wrap).
EXPECTED=("long-lived tree: -65536" "trees: 1610448636" "lists: -650710720" "strings: 510000")
prints_expected() {
    local line
    for line in "${EXPECTED[@]}"; do grep -qxF "$line" "$1" || return 1; done
}
# Stalin's code tests for the end of a list by the low 32 bits of the
# pointer, `(unsigned)(unsigned long)p == NULL_TYPE`, so a pair whose
# address is a multiple of 4 GiB ends its list early.  The lists live in
# 64 KiB regions from GC_malloc_atomic_uncollectable; under address-space
# randomisation stock's heap puts a pair there in about 1 run in 100 (with
# or without collections; never with randomisation off) and "lists:" is
# wrong.  Stock is rerun then.  On bibop no pair can sit there: a 4 GiB
# boundary is also a boundary of bibop's 256 MiB heap regions, which no
# object spans, and each Stalin region object starts with its link word,
# not a pair; so bibop must be right on every run.
STOCK_RUN_VALID=prints_expected compare_runs run 60 "$WORK/stalin-trees"
prints_expected "$WORK/run.bibop.out" || fail "run: the program on bibop did not print the right answers"

echo "PASS [stalin]: $NRUNS stalin runs identical on stock libgc and on $BIBOP_LIBGC"
