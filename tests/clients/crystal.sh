#!/usr/bin/env bash
# Real-client test: the Crystal compiler and a program it builds, both
# linking libgc.so.1 (imports GC_init, GC_malloc, GC_malloc_atomic,
# GC_realloc, GC_register_finalizer_ignore_self, GC_set_start_callback,
# GC_set_push_other_roots with GC_push_all_eager for the stacks of its
# fibers, the data symbol GC_stackbottom, GC_set_handle_fork, ...).
#   1. `crystal build` of crystal-fibers.cr on each library, from an empty
#      cache at the same path: the executables must be identical byte for
#      byte (the compiler's front end, a few hundred MiB of GC heap).
#   2. That executable on each library: 64 fibers yielding to each other
#      while they build binary trees, a hash of arrays, strings, finalized
#      objects; stdout and exit status must be identical.
# The loader trace must show the GC_* imports of the compiler and of the
# program bound to the intended library.  Usage: crystal.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup crystal "${1:-}" crystal cc
check_resolution "$(command -v crystal)"

for v in $(compgen -e); do
    case $v in CRYSTAL_*) unset "$v";; esac
done
export CRYSTAL_CACHE_DIR=$WORK/crystal-cache
empty_cache() { rm -rf "$CRYSTAL_CACHE_DIR"; }

empty_cache
BETWEEN_RUNS=empty_cache compare_runs build 0 crystal build -o fibers "$here/crystal-fibers.cr"
compare_files build fibers

PROGRAM=$WORK/stock/fibers
check_resolution "$PROGRAM"
compare_runs run 100 "$PROGRAM"
for line in "long-lived tree: 8589869056" "fibers: 117816136000" "table: 7000 13525090884" \
            "strings: 344446" "finalized some: true"; do
    grep -qxF "$line" "$WORK/run.stock.out" || fail "run: the program on stock libgc did not print '$line'"
done

echo "PASS [crystal]: $NRUNS crystal runs identical on stock libgc and on $BIBOP_LIBGC"
