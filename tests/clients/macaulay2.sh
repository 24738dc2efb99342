#!/usr/bin/env bash
# Real-client test: Macaulay2, the computer algebra system (its interpreter,
# /usr/bin/M2-binary, links libgc.so.1 and imports 29 GC_* symbols, among
# them GC_malloc, GC_malloc_atomic, GC_malloc_uncollectable, GC_realloc,
# GC_free, GC_base, GC_register_finalizer(_ignore_self), GC_gcollect,
# GC_pthread_create, GC_dlopen, GC_expand_hp and GC_set_warn_proc; its
# Groebner-basis engine allocates through the collector too) running
# macaulay2-algebra.m2 as a script: Groebner bases over QQ and ZZ/32003
# (cyclic-5 among them), Hilbert polynomial, degree and codimension, big
# integers (3000!, gcd), expansion and factoring of polynomials, lists of
# 200,000 elements, a hash table of 50,000 strings, and rounds of
# short-lived lists.  Stock libgc1 makes about 25 collections in the run
# (GC_PRINT_STATS=1).  Run on stock libgc1 and on bibop's libgc.so.1;
# stdout and exit status must be identical byte for byte, and the loader
# trace must show M2-binary's GC_* imports bound to the intended library.
# /usr/bin/M2 is a shell script that only prepends a library directory
# this package does not install to LD_LIBRARY_PATH; the test runs
# M2-binary directly.  Usage: macaulay2.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup macaulay2 "${1:-}" M2 M2-binary
M2BIN=$(command -v M2-binary)
check_resolution "$M2BIN"

for side in stock bibop; do
    cp "$here/macaulay2-algebra.m2" "$WORK/$side/algebra.m2"
done
# --script: no banner, no init file, no debugger, exit on error.
compare_runs algebra 1200 "$M2BIN" --script algebra.m2
for line in "gb generators: 14" "hilbert polynomial: 3*i+60" \
            "cyclic-5 gb: 20 elements, degree 70" "digits of 3000!: 9131" \
            "factor: (x-y)*(x+y)*(x^2-x*y+y^2)*(x^2+x*y+y^2)" \
            "sum of squares: 2666686666700000" "keys: 50000, H#4711 = 4711"; do
    grep -qxF "$line" "$WORK/algebra.stock.out" || fail "algebra: stock Macaulay2 did not print '$line'"
done
[ "$(cat "$WORK/algebra.stock.rc")" = 0 ] || fail "algebra: stock Macaulay2 exited with status $(cat "$WORK/algebra.stock.rc")"

echo "PASS [macaulay2]: $NRUNS Macaulay2 runs identical on stock libgc and on $BIBOP_LIBGC"
