#!/usr/bin/env bash
# Real-client test: GNU poke (the object that links libgc.so.1 is
# libpoke.so.0, which imports GC_malloc, GC_malloc_uncollectable,
# GC_realloc, GC_free, GC_strdup, GC_add_roots, GC_remove_roots,
# GC_register_finalizer_no_order, GC_gcollect, GC_init) running
# poke-maps.pk: loops that build and drop arrays and strings, an array of
# structs grown by appending, and 20,000 structs mapped from a file (IO
# spaces).  Run on stock libgc1 and on bibop's libgc.so.1 from the same
# data file; stdout and exit status must be identical byte for byte, and
# the loader trace must show every GC_* import of libpoke bound to the
# intended library.  Usage: poke.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup poke "${1:-}" poke perl
POKE=$(command -v poke)
check_resolution "$POKE"
LIBPOKE=$(client_library "$POKE" '^libpoke\.so')

# data.bin in each side's cwd: 20,000 records of (int32 a, int32 b,
# uint16 c), little-endian, a = 7i mod 1000, b = i, c = i.
for side in stock bibop; do
    perl -e 'for my $i (0 .. 19999) { print pack("l<l<S<", (7 * $i) % 1000, $i, $i % 65536) }' \
        > "$WORK/$side/data.bin"
done

compare_with_library maps 80 "$LIBPOKE" poke -q --no-init-file -L "$here/poke-maps.pk"
for line in "loop total 450352784" "points 3000 sum 8997000" \
            "records 20000: 9990000 199990000 199990000"; do
    grep -qxF "$line" "$WORK/maps.stock.out" || fail "maps: stock poke did not print '$line'"
done

echo "PASS [poke]: $NRUNS poke runs identical on stock libgc and on $BIBOP_LIBGC"
