#!/usr/bin/env bash
# Real-client test: libhomfly (libhomfly0, Robert J Jenkins' HOMFLY
# polynomial program made a library; libhomfly.so.0 links libgc.so.1 and
# imports GC_init, GC_malloc and GC_realloc: every intermediate link and
# polynomial of its skein-relation recursion is in the collected heap).
# homfly-braids.c, compiled here with gcc against libhomfly and libgc,
# computes through homfly_str() and homfly() the polynomials of the
# closures of 23 named braids (unknot to the torus knot T(5,6)) and of 240
# pseudo-random braids, each also conjugated and stabilized (the Markov
# moves: all three polynomials must agree), keeps every result string in a
# GC_malloc'd array and re-hashes them all after GC_gcollect (stock libgc1:
# about 30 collections, GC_PRINT_STATS=1).  Run on stock libgc1 and on
# bibop's libgc.so.1; stdout (every polynomial) and exit status must be
# identical byte for byte, and the loader trace must show the GC_* imports
# of the program and of libhomfly.so.0 bound to the intended library.
# Usage: homfly.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup homfly "${1:-}" gcc
[ -e /usr/include/homfly.h ] ||
    fail "/usr/include/homfly.h is missing (apt-get install -y --no-install-recommends libhomfly-dev)"
[ -e /usr/include/gc.h ] || fail "/usr/include/gc.h is missing (apt-get install -y --no-install-recommends libgc-dev)"

PROGRAM=$WORK/homfly-braids
gcc -O2 -o "$PROGRAM" "$here/homfly-braids.c" -lhomfly -lgc 2> "$WORK/gcc.err" || {
    head -20 "$WORK/gcc.err" >&2
    fail "gcc could not build homfly-braids.c against libhomfly"
}
check_resolution "$PROGRAM"
LIBHOMFLY=$(client_library "$PROGRAM" '^libhomfly\.so')

compare_with_library braids 40000 "$LIBHOMFLY" "$PROGRAM"
[ "$(cat "$WORK/braids.stock.rc")" = 0 ] ||
    fail "braids: the program exited with status $(cat "$WORK/braids.stock.rc") on stock libgc"
for line in "trefoil 3_1: 3 crossings, 1 component, 3 terms (-1896): - L^-4 - 2L^-2 + M^2L^-2" \
            "figure eight 4_1: 4 crossings, 1 component, 4 terms (-1938): - L^-2 - 1 - L^2 + M^2" \
            "random braids: 240, Markov moves agree: 240, components: 548, terms: 2243, term checksum: -19208"; do
    grep -qxF "$line" "$WORK/braids.stock.out" || fail "braids: the program on stock libgc did not print '$line'"
done
grep -qE '^results kept: 263, hash [0-9a-f]{16}, after collection [0-9a-f]{16}: unchanged$' "$WORK/braids.stock.out" ||
    fail "braids: the kept results did not survive the collection on stock libgc"
[ "$(grep -c '^b[0-9][0-9][0-9] ' "$WORK/braids.stock.out")" -eq 240 ] ||
    fail "braids: the program on stock libgc did not print the 240 random braids"

echo "PASS [homfly]: $NRUNS homfly runs identical on stock libgc and on $BIBOP_LIBGC"
