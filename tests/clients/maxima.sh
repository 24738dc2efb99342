#!/usr/bin/env bash
# Real-client test: Maxima, the computer algebra system, as Debian builds it
# on ECL (package maxima-sage): its image binary-ecl/maxima links libecl.so
# and, through it, libgc.so.1 (libecl imports 43 GC_* symbols).  It runs
# maxima-algebra.mac in batch mode: integration and differentiation,
# factoring, expansion, 60-digit bigfloats, 1000!, an exact 8x8 Hilbert
# determinant and inverse, primality, a polynomial system, Taylor series,
# a 20,000-term rational sum, 2,000 big powers, a limit, and 200 rounds of
# short-lived expansions (stock libgc1: about 65 collections,
# GC_PRINT_STATS=1).  Run on stock libgc1 and on bibop's
# libgc.so.1; stdout and exit status must be identical byte for byte, and
# the loader trace must show libecl's GC_* imports bound to the intended
# library.  /usr/bin/maxima-sage is a shell script that execs the image
# with these options; the test runs the image directly.
# Usage: maxima.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup maxima "${1:-}" maxima-sage
MAXIMA=$(ls /usr/lib/maxima-sage/*/binary-ecl/maxima 2>/dev/null | head -1)
[ -n "$MAXIMA" ] && [ -x "$MAXIMA" ] || fail "no /usr/lib/maxima-sage/*/binary-ecl/maxima (apt-get install maxima-sage)"
check_resolution "$MAXIMA"
LIBECL=$(client_library "$MAXIMA" '^libecl\.so')

for v in $(compgen -e); do
    case $v in ECL* | MAXIMA*) unset "$v";; esac
done
for side in stock bibop; do
    cp "$here/maxima-algebra.mac" "$WORK/$side/algebra.mac"
done
# batchload: the results without the echo of each input, whose first line
# names the file by its absolute path (each side's directory).
compare_with_library algebra 500 "$LIBECL" "$MAXIMA" --frame-stack 4096 --lisp-stack 65536 \
    -- --very-quiet '--batch-string=batchload("algebra.mac")$'
# Lines stock Maxima must have printed (print ends each with a space).
for line in "integral check: 0 " "factor: (x-1)*(x+1)*(x^2+1)*(x^2-x+1)*(x^2+x+1)*(x^4-x^2+1) " \
            "digits of 1000!: 2568 " "hilbert det: 1/365356847125734485878112256000000 " \
            "solve: [[x = 4,y = 3],[x = -3,y = -4]] " "harmonic: 10.48072821722933 " \
            "powers: 2000 6603 " "limit: %e " "gcd: x^4-1 " "array: key-4711 "; do
    grep -qxF "$line" "$WORK/algebra.stock.out" || fail "algebra: stock Maxima did not print '$line'"
done
[ "$(cat "$WORK/algebra.stock.rc")" = 0 ] || fail "algebra: stock Maxima exited with status $(cat "$WORK/algebra.stock.rc")"

echo "PASS [maxima]: $NRUNS Maxima runs identical on stock libgc and on $BIBOP_LIBGC"
