#!/usr/bin/env bash
# Real-client test: GNU Guile 3.0 (guile-3.0; the object that links
# libgc.so.1 is libguile-3.0.so.1, which imports 52 GC_* symbols: threads,
# custom kinds with mark procedures, GC_generic_malloc_many, disappearing
# links, finalizers) running three Scheme programs with --no-auto-compile,
# on stock libgc1 and on bibop's libgc.so.1:
#   guile-parmap.scm  par-map and n-par-map, 8 workers x 400,000-element lists
#   guile-list.scm    a 3,000,000-element list (length, sum, ...)
#   guile-weak.scm    a weak-key hash table churned 2,000,000 times
# stdout and exit status must be identical byte for byte.  The loader trace
# must show every GC_* import of libguile (not only of the guile-3.0
# executable, which imports none) bound to the intended library.  No
# compiled-file cache may be written (GUILE_AUTO_COMPILE=0, HOME and
# XDG_CACHE_HOME are temporary and must stay empty).
# With a second argument, guile-2.2 (Guile 2.2, as LilyPond uses; its
# libguile-2.2.so.1 links libgc.so.1), parts 1-3 run on that Guile instead
# (the programs print the same on both versions); part 4 is about 3.0.8.
# Usage: guile.sh <bibop lib dir> [guile-2.2]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

GUILE_NAME=${2:-guile-3.0}
case $GUILE_NAME in
    guile-3.0 | guile-2.2) ;;
    *) echo "guile.sh: the Guile is guile-3.0 or guile-2.2, not '$GUILE_NAME'" >&2; exit 2 ;;
esac
name=guile
[ "$GUILE_NAME" = guile-3.0 ] || name=guile22
client_setup "$name" "${1:-}" "$GUILE_NAME"
for tool in readelf sed sort cut find; do
    command -v "$tool" >/dev/null 2>&1 || fail "required tool '$tool' is missing"
done
GUILE=$(command -v "$GUILE_NAME")
check_resolution "$GUILE"

LIBGUILE=$(client_library "$GUILE" "^lib${GUILE_NAME//./\\.}\\.so")

# The same clean Guile environment for both runs: no compiled-file cache,
# no caller's load paths, caches in the (temporary) work directory.
for v in $(compgen -e); do
    case $v in GUILE_*|XDG_*) unset "$v";; esac
done
export GUILE_AUTO_COMPILE=0 XDG_CACHE_HOME=$WORK/cache XDG_CONFIG_HOME=$WORK/config
mkdir -p "$XDG_CACHE_HOME" "$XDG_CONFIG_HOME"

# guile_compare LABEL MIN_BYTES SCRIPT: one program on both libraries.
guile_compare() {
    compare_with_library "$1" "$2" "$LIBGUILE" "$GUILE_NAME" --no-auto-compile -s "$3"
}

# expect LABEL TEXT: a line stock Guile must have printed (the program ran
# to the end and computed the right thing; bibop printed the same bytes).
expect() {
    grep -qxF "$2" "$WORK/$1.stock.out" || fail "$1: stock Guile did not print '$2'"
}

# 1. Threads: par-map (futures) and n-par-map (8 threads).  The workers
#    avoid deep non-tail recursion on purpose: Guile 3.0.8 races with the
#    collector when it grows a thread's VM stack (vm_expand_stack sets
#    vp->sp only after GC_call_with_alloc_lock returns, so a collection in
#    that window makes the thread's mark procedure scan the freed old
#    stack).  On stock libgc1 as on bibop,
#      guile-3.0 -c '(use-modules (ice-9 threads)) (n-par-map 8 (lambda (k)
#        (length (map 1+ (iota 400000)))) (iota 8))'
#    dies in some runs on stock (7 of 30 here; SIGSEGV, "madvise failed:
#    Cannot allocate memory"): a flaky comparison.  bibop puts off a stop
#    that lands just after GC_call_with_alloc_lock (src/stopworld.c) and
#    runs it 30 of 30 times (17 of 30 before it did); part 4 checks that.
#    The workers concatenate with string-concatenate, not (apply
#    string-append ...) of 1,000 arguments, which grows the stack too.
guile_compare parmap 700 "$here/guile-parmap.scm"
expect parmap "n-par-map 8 threads equal to par-map: #t"
expect parmap "total sum 2880004000000"
expect parmap "par-map worker 7: length 400000 sum 640001200000 strlen 3862 last 3199999 doubled-ok #t"

# 2. A 3,000,000-element list.
guile_compare list 150 "$here/guile-list.scm"
expect list "length 3000000"
expect list "sum 4500001500000 (expected 4500001500000)"
expect list "ordered #t"

# 3. A weak-key hash table churned 2,000,000 times.
guile_compare weak 150 "$here/guile-weak.scm"
expect weak "kept keys all present with right values: #t"
expect weak "live entries >= kept: #t"
expect weak "live entries < 1% of 2000000: #t"

# 4. bibop only: the VM stack growth race of part 1, on purpose.  Ten runs
#    of the deep n-par-map must all finish and print the eight lengths
#    (before the fix, 17 of 30 runs died: ten runs all passing by luck had
#    a chance of 0.02%).  Stock libgc1 is not run: it dies in some runs.
if [ "$GUILE_NAME" = guile-3.0 ]; then
    deep='(use-modules (ice-9 threads)) (display (n-par-map 8 (lambda (k) (length (map 1+ (iota 400000)))) (iota 8))) (newline)'
    mkdir -p "$WORK/bibop/home"
    for i in $(seq 1 10); do
        run_client bibop "deep$i" /dev/null guile-3.0 --no-auto-compile -c "$deep"
        rc=$(cat "$WORK/deep$i.bibop.rc")
        if [ "$rc" != 0 ] || ! grep -qxF "(400000 400000 400000 400000 400000 400000 400000 400000)" "$WORK/deep$i.bibop.out"; then
            echo "--- bibop stderr:" >&2; head -5 "$WORK/deep$i.bibop.err" | cut -c1-300 >&2
            fail "deep n-par-map, run $i of 10 on bibop: exit $rc (Guile's VM stack growth raced a collection)"
        fi
    done
    note "deep n-par-map: 10 of 10 runs finished on bibop"
fi

# Nothing may have been compiled or cached anywhere.
written=$(find "$WORK/cache" "$WORK/config" "$WORK/stock" "$WORK/bibop" -type f 2>/dev/null | head -5)
[ -z "$written" ] || fail "Guile wrote files (compiled-file cache?): $(echo $written)"

echo "PASS [$TEST_NAME]: $NRUNS $GUILE_NAME programs identical on stock libgc and on $BIBOP_LIBGC"
