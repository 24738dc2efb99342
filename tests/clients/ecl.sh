#!/usr/bin/env bash
# Real-client test: ECL, Embeddable Common-Lisp 21.2 (ecl; the object that
# links libgc.so.1 is libecl.so.21.2, which imports 43 GC_* symbols:
# GC_pthread_create, disappearing links, finalizers, GC_push_other_roots,
# GC_set_start_callback, ...) loading three Lisp files with --norc, on stock
# libgc1 and on bibop's libgc.so.1:
#   ecl-list.lsp     a 3,000,000-element list (length, sum, ...)
#   ecl-weak.lsp     (:weakness :key) hash tables churned 2,000,000 times
#   ecl-threads.lsp  4 mp:process-run-function workers, joined, 3 rounds
# stdout and exit status must be identical byte for byte.  The loader trace
# must show every GC_* import of libecl (not only of the ecl executable,
# which imports none) bound to the intended library.  HOME is temporary.
# Usage: ecl.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup ecl "${1:-}" ecl
for tool in readelf sed sort cut; do
    command -v "$tool" >/dev/null 2>&1 || fail "required tool '$tool' is missing"
done
ECL=$(command -v ecl)
check_resolution "$ECL"

LIBECL=$(client_library "$ECL" '^libecl\.so')

for v in $(compgen -e); do
    case $v in ECL*) unset "$v";; esac
done

# ecl_compare LABEL MIN_BYTES FILE: load one file on both libraries.
ecl_compare() {
    compare_with_library "$1" "$2" "$LIBECL" ecl --norc --load "$3" --eval '(quit)'
}

# expect LABEL TEXT: a line stock ECL must have printed.
expect() {
    grep -qxF "$2" "$WORK/$1.stock.out" || fail "$1: stock ECL did not print '$2'"
}

# 1. A 3,000,000-element list.
ecl_compare list 200 "$here/ecl-list.lsp"
expect list "length 3000000"
expect list "sum 4500001500000 (expected 4500001500000)"
expect list "list still intact: length 3000000 sum 4500001500000"

# 2. Weak-key hash tables churned 2,000,000 times.
ecl_compare weak 300 "$here/ecl-weak.lsp"
expect weak "fresh keys inserted: 2000000"
expect weak "kept keys all present with right values: T"
expect weak "live entries per table after the churn: at most 2% of 100000: T"
expect weak "surviving tables: 2, each still holding its 100 kept keys: T"

# 3. Threads: mp:process-run-function workers joined with mp:process-join.
ecl_compare threads 400 "$here/ecl-threads.lsp"
expect threads "total sum 1250000500000"
expect threads "rounds 1 and 2 equal to round 0: T"
expect threads "matches serial: T"

echo "PASS [ecl]: $NRUNS ECL programs identical on stock libgc and on $BIBOP_LIBGC"
