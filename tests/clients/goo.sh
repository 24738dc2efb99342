#!/usr/bin/env bash
# Real-client test: GOO, Jonathan Bachrach's dynamic object-oriented
# language (/usr/bin/goo is a shell script that runs /usr/bin/g2c with
# GOO_EVAL_MODE=ast; g2c links libgc.so.1 and imports GC_init, GC_malloc,
# GC_malloc_atomic, GC_realloc, GC_dlopen and the GC_pthread_* wrappers)
# reading goo-repl.goo on stdin in its read-eval-print loop: GOO's own test
# suite (run-all-tests: reader, printer, collections, dependency tracking;
# it reports the same 1 warning and 3 errors on every run), then 50 rounds
# of 400-element lists of fresh strings, string concatenation and a bignum.
# Stock libgc1 makes about 14 collections in the run (GC_PRINT_STATS=1).
# Run on stock libgc1 and on bibop's libgc.so.1; stdout (prompts, results
# and the suite's report) and exit status must be identical byte for byte,
# and the loader trace must show g2c's GC_* imports bound to the intended
# library.  g2c runs directly, with the wrapper's GOO_EVAL_MODE=ast (the
# default mode compiles every form with gcc and takes minutes).
# Usage: goo.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup goo "${1:-}" goo g2c
G2C=$(command -v g2c)
check_resolution "$G2C"

export GOO_EVAL_MODE=ast
STDIN_FILE=$here/goo-repl.goo compare_runs repl 15000 "$G2C"
for line in "Tautology completed with 1 warnings and 3 errors" "goo/user 0<= total 20000"; do
    grep -qxF "$line" "$WORK/repl.stock.out" || fail "repl: stock g2c did not print '$line'"
done
grep -qF 'goo/user 0<= big 136891479058588375991326027382088315966463695625337436471480190078368997177499076593800206155688941388250484440597994042813512732765695774566001' \
    "$WORK/repl.stock.out" || fail "repl: stock g2c did not print 3^300"

echo "PASS [goo]: $NRUNS goo runs identical on stock libgc and on $BIBOP_LIBGC"
