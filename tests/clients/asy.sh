#!/usr/bin/env bash
# Real-client test: Asymptote (asy links libgc.so.1 itself; imports
# GC_malloc_ignore_off_page, GC_malloc_atomic_ignore_off_page,
# GC_malloc_uncollectable, GC_free, GC_gcollect, GC_pthread_create/join/
# detach, GC_set_free_space_divisor, ...) running asy-alloc.asy, which
# builds and drops strings, arrays, thousands of paths and pictures and
# linked structures, collecting explicitly with purge() now and then, and
# writes deterministic results to stdout and to alloc-data.txt in its cwd,
# with the default collector pacing and with -divisor 200 and 16 (far more
# collections); and asy-paths.asy (path concatenation, -divisor 200).
# Run on stock libgc1 and on bibop's libgc.so.1; stdout, exit status and
# the data file must be identical byte for byte, and the loader trace must
# show asy's GC_* imports bound to the intended library.  -noV (never view),
# -tex none (no TeX), nothing drawn on currentpicture (no output file); HOME
# and the cwd are temporary.  asy's only thread (-threads, on by default)
# is its OpenGL render thread, which it does not start without viewing, so
# these runs are single-threaded (apart from the collectors' markers).
# Usage: asy.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup asy "${1:-}" asy
check_resolution "$(command -v asy)"

for v in $(compgen -e); do
    case $v in ASYMPTOTE_*) unset "$v";; esac
done

SCRIPT=$here/asy-alloc.asy

# expect LABEL TEXT: a line stock asy must have printed.
expect() {
    grep -qxF "$2" "$WORK/$1.stock.out" || fail "$1: stock asy did not print '$2'"
}

# asy_compare LABEL ASY_OPTIONS...: run the script on both libraries from a
# fresh cwd each, compare stdout, status and the data file; no other file
# may appear in the cwd.
asy_compare() {
    local label=$1 side
    shift
    for side in stock bibop; do
        rm -f "$WORK/$side/alloc-data.txt"
    done
    compare_runs "$label" 350 asy "$@" "$SCRIPT"
    expect "$label" "arrays: checksum 314396382"
    expect "$label" "paths: points 48000"
    expect "$label" "pictures: summed area 72000"
    expect "$label" "lists: sum 12005170"
    expect "$label" "data file: written"
    compare_files "$label" alloc-data.txt
    [ "$(wc -l < "$WORK/stock/alloc-data.txt")" -eq 2000 ] ||
        fail "$label: stock asy wrote $(wc -l < "$WORK/stock/alloc-data.txt") lines to alloc-data.txt, not 2000"
    for side in stock bibop; do
        local extra
        extra=$(cd "$WORK/$side" && find . -maxdepth 1 -type f ! -name alloc-data.txt | head -3)
        [ -z "$extra" ] || fail "$label ($side run): asy wrote unexpected files: $(echo $extra)"
    done
}

# 1. Default collector settings.
asy_compare alloc -noV -tex none

# 2. A collection every ~100 KiB of allocation (GC_set_free_space_divisor
#    (200)): before ffa9331 this run (or run 4) crashed bibop most of the
#    time (a small-object cursor kept handing out slots of a block that had
#    been released and reused for a large object).
asy_compare alloc-divisor200 -noV -tex none -divisor 200

# 3. The reduced reproduction of that crash: path concatenation only.
compare_runs paths-divisor200 50 asy -noV -tex none -divisor 200 "$here/asy-paths.asy"
expect paths-divisor200 "paths: points 36000"

# 4. Collections more often (GC_set_free_space_divisor(16)) and
#    asymptote's memory-conserving mode.
asy_compare alloc-divisor16 -noV -tex none -divisor 16 -compact

echo "PASS [asy]: $NRUNS asy runs identical on stock libgc and on $BIBOP_LIBGC"
