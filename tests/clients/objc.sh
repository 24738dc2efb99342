#!/usr/bin/env bash
# Real-client test: the GNU Objective-C runtime's garbage-collected variant
# (libobjc_gc.so.4 from libobjc4; it links libgc.so.1 and imports
# GC_make_descriptor, GC_malloc_explicitly_typed, GC_malloc,
# GC_malloc_atomic and GC_realloc: every instance is a typed object whose
# descriptor says which instance variables are pointers).
# objc-gc-workload.m, compiled here with gcc -x objective-c against
# libobjc_gc (and libgc, for GC_gcollect and disappearing links), builds
# binary trees, lists, strings and growable arrays of objects held through
# instance variables only, objects of 77 words (libgc's extended
# descriptor), objects with unscanned indexed ivars, object_copy copies, a
# class made at run time, and gc-invisible (class_ivar_set_gcinvisible) and
# scalar ivars watched by disappearing links; an explicit GC_gcollect
# separates the phases and everything kept is checked after it (stock
# libgc1: about 20 collections, GC_PRINT_STATS=1).  Run on stock libgc1
# and on bibop's libgc.so.1; stdout (counts, checksums and whether at least
# 90% of the objects referenced only through invisible ivars were
# reclaimed) and exit status must be identical byte for byte, and the
# loader trace must show the GC_* imports of the program and of
# libobjc_gc.so.4 bound to the intended library.
# Usage: objc.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup objc "${1:-}" gcc
[ -x "$(gcc -print-prog-name=cc1obj)" ] ||
    fail "gcc has no Objective-C compiler (apt-get install -y --no-install-recommends gobjc)"
[ -e /usr/include/gc.h ] || fail "/usr/include/gc.h is missing (apt-get install -y --no-install-recommends libgc-dev)"

PROGRAM=$WORK/objc-gc-workload
gcc -x objective-c -O2 -o "$PROGRAM" "$here/objc-gc-workload.m" -lobjc_gc -lgc 2> "$WORK/gcc.err" || {
    head -20 "$WORK/gcc.err" >&2
    fail "gcc could not build objc-gc-workload.m against libobjc_gc (apt-get install -y --no-install-recommends gobjc)"
}
check_resolution "$PROGRAM"
LIBOBJC=$(client_library "$PROGRAM" '^libobjc_gc\.so')
# The program must use the collected runtime only: the plain libobjc.so.4
# would allocate its objects with malloc and test nothing.
if env -u LD_PRELOAD -u LD_LIBRARY_PATH LD_TRACE_LOADED_OBJECTS=1 "$PROGRAM" 2>&1 | grep -q '^[[:space:]]*libobjc\.so'; then
    fail "the program also loads the plain libobjc.so.4"
fi

unset OBJC_GC_WORKLOAD_VERBOSE
compare_with_library workload 1500 "$LIBOBJC" "$PROGRAM"
[ "$(cat "$WORK/workload.stock.rc")" = 0 ] ||
    fail "workload: the program exited with status $(cat "$WORK/workload.stock.rc") on stock libgc"
for line in "instance sizes: Node 48, Str 32, Pair 32, Big 616, WeakCell 32" \
            "long-lived tree after collection: 131071 nodes, check 34" \
            "pairs after collection: 120000, hash 92ca49adb4ed2294, 0 bad" \
            "big after collection: 6000, 0 bad, last label item-5999000-5482" \
            "class DynLink: instance size 32, ivars: next '@' at 8 value 'q' at 16 shadow '|@' at 24" \
            "weak ivars to live objects: 4000 cells, 0 cleared, 0 bad" \
            "weak ivars as the only reference: 4000 cells, at least 90% cleared: yes" \
            "addresses in scalar ivars as the only reference: 70, at least 90% cleared: yes" \
            "checks passed: 9, failed: 0"; do
    grep -qxF "$line" "$WORK/workload.stock.out" || fail "workload: the program on stock libgc did not print '$line'"
done

echo "PASS [objc]: $NRUNS objc runs identical on stock libgc and on $BIBOP_LIBGC"
