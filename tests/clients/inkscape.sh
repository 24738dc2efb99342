#!/usr/bin/env bash
# Real-client test: Inkscape, the vector graphics editor, run headless (the
# object that links libgc.so.1 is Inkscape's libinkscape_base.so, which
# imports 24 GC_* symbols: GC_malloc(_atomic)(_uncollectable), the
# GC_debug_* variants, GC_free, GC_base, GC_register_finalizer_ignore_self,
# GC_general_register_disappearing_link, GC_enable/GC_disable, GC_gcollect,
# GC_set_no_dls, GC_set_all_interior_pointers, ...; Inkscape keeps its XML
# document nodes and observers in the collected heap).  On a generated SVG
# of 400 groups, each a rectangle, a Bezier path and a text:
#   1. --query-all: the bounding box of every object on stdout (stock
#      libgc1: 9 collections, GC_PRINT_STATS=1);
#   2. actions select-all, object-to-path and a 15-degree rotation, then
#      the plain SVG document on stdout (10 collections).
# Run on stock libgc1 and on bibop's libgc.so.1; stdout and exit status
# must be identical byte for byte, and the loader trace must show every
# GC_* import of libinkscape_base bound to the intended library (Inkscape
# finds libgc.so.1 through RUNPATH, which LD_LIBRARY_PATH overrides).
# Usage: inkscape.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup inkscape "${1:-}" inkscape
INKSCAPE=$(command -v inkscape)
check_resolution "$INKSCAPE"
LIBINK=$(client_library "$INKSCAPE" '^libinkscape_base\.so')

for side in stock bibop; do
    awk 'BEGIN {
        print "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"800\">"
        for (i = 0; i < 400; i++)
            printf "<g id=\"g%d\" transform=\"translate(%d,%d) rotate(%d)\">" \
                   "<rect id=\"r%d\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" style=\"fill:#%06x\"/>" \
                   "<path id=\"p%d\" d=\"M 0,0 C 10,%d 20,%d 30,0 L %d,%d Z\"/>" \
                   "<text id=\"t%d\" x=\"1\" y=\"2\">item %d</text></g>\n",
                   i, i % 40 * 20, int(i / 40) * 20, i % 360, i, 5 + i % 13, 3 + i % 11,
                   i * 2654435 % 16777216, i, i % 17, i % 23, i % 31, i % 37, i, i
        print "</svg>" }' > "$WORK/$side/shapes.svg"
done

compare_with_library query 50000 "$LIBINK" "$INKSCAPE" --query-all shapes.svg
[ "$(wc -l < "$WORK/query.stock.out")" -eq 1601 ] || fail "query: stock inkscape did not print 1,601 bounding boxes"
grep -qx 'r399,776.224,180,14.656,13.4734' "$WORK/query.stock.out" || fail "query: stock inkscape did not print the box of r399"

compare_with_library actions 1000000 "$LIBINK" "$INKSCAPE" \
    --actions='select-all:all;object-to-path;transform-rotate:15' \
    --export-plain-svg --export-type=svg --export-filename=- shapes.svg
[ "$(grep -c '<path' "$WORK/actions.stock.out")" -ge 1200 ] ||
    fail "actions: stock inkscape's SVG does not have the 1,200 converted paths"

echo "PASS [inkscape]: $NRUNS inkscape runs identical on stock libgc and on $BIBOP_LIBGC"
