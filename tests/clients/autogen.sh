#!/usr/bin/env bash
# Real-client test: AutoGen, the template-driven text generator (its
# templates embed Scheme, run by Guile 3.0: autogen links libguile-3.0.so.1
# and libgc.so.1).  From 3,000 generated definitions (autogen-defs.awk) and
# autogen-table.tpl it writes a C header (an enum of 3,000 entries) and a C
# file: per-group sums through a Guile hash table, sorted; 3,000 quoted
# strings built with string-append and string-reverse; a loop of 200,000
# short-lived number strings (stock libgc1: about 45 collections,
# GC_PRINT_STATS=1).  Run on stock libgc1 and on bibop's libgc.so.1: exit
# status and both files must be identical byte for byte, and the loader
# trace must show autogen's and libguile's GC_* imports bound to the
# intended library.  Usage: autogen.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup autogen "${1:-}" autogen
AUTOGEN=$(command -v autogen)
check_resolution "$AUTOGEN"
LIBGUILE=$(client_library "$AUTOGEN" '^libguile-3\.0\.so')

for side in stock bibop; do
    awk -f "$here/autogen-defs.awk" > "$WORK/$side/table.def"
    cp "$here/autogen-table.tpl" "$WORK/$side/table.tpl"
done
# AutoGen writes the files, not stdout: their contents are compared below.
compare_with_library table 0 "$LIBGUILE" autogen table.def
compare_files table table.h
compare_files table table.c
for line in "  SYM0001 = 7919," "/* g7: 1140907 */" "/* churn: 999 strings, 10989 chars */"; do
    grep -qF -- "$line" "$WORK/stock/table.h" "$WORK/stock/table.c" ||
        fail "table: stock AutoGen did not write '$line'"
done
[ "$(cat "$WORK/table.stock.rc")" = 0 ] || fail "table: stock AutoGen exited with status $(cat "$WORK/table.stock.rc")"

echo "PASS [autogen]: $NRUNS AutoGen runs identical on stock libgc and on $BIBOP_LIBGC"
