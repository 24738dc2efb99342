#!/usr/bin/env bash
# Real-client test: the Neko virtual machine (neko 2.3; the object that
# links libgc.so.1 is libneko.so.2, which imports 19 GC_* symbols: GC_init,
# GC_malloc, GC_malloc_atomic, GC_malloc_ignore_off_page, finalizers,
# GC_pthread_create, GC_register_my_thread, GC_gcollect, ...) running two
# programs compiled beforehand with nekoc (on stock libgc1, outside the
# comparison), on stock libgc1 and on bibop's libgc.so.1:
#   objects  neko-objects.neko: objects with prototypes, arrays, strings,
#            hash tables, closures, exceptions, std buffers, serialized
#            values, merge_sort, explicit full collections, kept records
#            checked at the end (72 collections on bibop);
#   threads  neko-threads.neko: four Neko threads allocating at once, a
#            shared deque and a mutex, kept trees checked by each thread.
# stdout and exit status must be identical byte for byte, and the loader
# trace must show every GC_* import of libneko.so.2 (the neko executable
# imports none) bound to the intended library.
# Usage: neko.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup neko "${1:-}" neko nekoc
NEKO=$(command -v neko)
check_resolution "$NEKO"

LIBNEKO=$(client_library "$NEKO" '^libneko\.so')

# The programs, compiled once with the installed nekoc on stock libgc1.
mkdir -p "$WORK/programs"
for p in neko-objects neko-threads; do
    cp "$here/$p.neko" "$WORK/programs/"
    (cd "$WORK/programs" && env -u LD_LIBRARY_PATH -u LD_PRELOAD nekoc "$p.neko" > nekoc.out 2>&1) ||
        { cat "$WORK/programs/nekoc.out" >&2; fail "nekoc could not compile $p.neko"; }
    [ -s "$WORK/programs/$p.n" ] || fail "nekoc wrote no $p.n"
done

# expect LABEL LINE: a line stock Neko must have printed.
expect() {
    grep -qxF "$2" "$WORK/$1.stock.out" || fail "$1: stock Neko did not print '$2'"
}

# 1. One thread: objects, strings, exceptions, serialization.
compare_with_library objects 80 "$LIBNEKO" neko "$WORK/programs/neko-objects.n"
expect objects "exceptions caught 12000"
expect objects "kept records intact true (3000 in the index)"

# 2. Four threads allocating at once.
compare_with_library threads 200 "$LIBNEKO" neko "$WORK/programs/neko-threads.n"
for k in 0 1 2 3; do
    grep -q "^thread $k: total [0-9]*, text [0-9]*, kept tree intact true\$" "$WORK/threads.stock.out" ||
        fail "threads: stock Neko's thread $k did not report its kept tree intact"
done
expect threads "rounds counted 160 of 160"
expect threads "arrays passed through the deque 160 of 160"

echo "PASS [neko]: $NRUNS Neko programs identical on stock libgc and on $BIBOP_LIBGC"
