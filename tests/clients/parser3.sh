#!/usr/bin/env bash
# Real-client test: Parser 3, the web scripting language (/usr/bin/parser3
# links libgc.so.1; imports GC_malloc, GC_malloc_atomic, GC_realloc,
# GC_free, GC_disable, GC_enable, GC_gcollect, GC_pthread_create,
# GC_set_free_space_divisor, GC_set_warn_proc, GC_ignore_warn_proc and the
# GC_get_* statistics) running parser3-doc.p from the command line:
# strings built in 40 rounds, a hash of 30,000 keys, a table of 5,000 rows
# sorted and filtered, regular expressions, recursion.  Parser 3 runs a
# document with the collector disabled (GC_disable); ^memory:compact[]
# calls GC_enable, GC_gcollect, GC_disable, and the program calls it 10
# times: stock libgc1 makes 11 collections in the run (GC_PRINT_STATS=1),
# each with all the document's data live in the heap.  Run on stock libgc1
# and on bibop's libgc.so.1; stdout and exit status must be identical
# byte for byte, and the loader trace must show parser3's GC_* imports
# bound to the intended library.  Usage: parser3.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup parser3 "${1:-}" parser3
check_resolution "$(command -v parser3)"

for side in stock bibop; do
    cp "$here/parser3-doc.p" "$WORK/$side/doc.p"
done
compare_runs doc 50000 parser3 doc.p
[ "$(cat "$WORK/doc.stock.rc")" = 0 ] || fail "doc: stock parser3 exited with status $(cat "$WORK/doc.stock.rc")"
for line in "strings: 480000" "hash: 30000 keys, sum 15112739, key4711 = 689" \
            "big: 5 rows" "fizz: 1000 matches, last word3" "fib: 17711"; do
    grep -qxF "$line" "$WORK/doc.stock.out" || fail "doc: stock parser3 did not print '$line'"
done

echo "PASS [parser3]: $NRUNS parser3 runs identical on stock libgc and on $BIBOP_LIBGC"
