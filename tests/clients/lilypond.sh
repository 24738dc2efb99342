#!/usr/bin/env bash
# Real-client test: GNU LilyPond, the music engraver (/usr/bin/lilypond
# links libgc.so.1 itself, importing GC_expand_hp, GC_get_gc_no and
# GC_get_heap_size, and through Guile 2.2's libguile-2.2.so.1, which
# imports 53 GC_* symbols: allocation of every kind, finalizers,
# disappearing links, roots, GC_gcollect, threads) engraving
# lilypond-score.ly to SVG: Guile loads LilyPond's Scheme code, the parser
# builds the music, \displayLilyMusic prints both voices on stdout, and
# the layout engine breaks and draws the score (tens of thousands of
# finalized smobs).  Stock libgc1 makes about 27 collections in the run
# (GC_PRINT_STATS=1).  Run on stock libgc1 and on bibop's libgc.so.1;
# stdout, exit status and the SVG file must be identical byte for byte
# (-dno-point-and-click keeps the absolute path of the input file out of
# the SVG), and the loader trace must show the GC_* imports of lilypond
# and of libguile-2.2 bound to the intended library.
# Usage: lilypond.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup lilypond "${1:-}" lilypond
LILYPOND=$(command -v lilypond)
check_resolution "$LILYPOND"
LIBGUILE=$(client_library "$LILYPOND" '^libguile-2\.2\.so')

for side in stock bibop; do
    cp "$here/lilypond-score.ly" "$WORK/$side/score.ly"
done
compare_with_library score 400 "$LIBGUILE" lilypond -dno-point-and-click -dbackend=svg -o score score.ly
[ "$(cat "$WORK/score.stock.rc")" = 0 ] || fail "score: stock lilypond exited with status $(cat "$WORK/score.stock.rc")"
grep -qF '\tuplet 3/2 { g'"''"'8 fis'"''"'8 e'"''"'8 }' "$WORK/score.stock.out" ||
    fail "score: stock lilypond did not print the tuplet of the upper voice"
compare_files score score.svg
grep -q '<svg' "$WORK/stock/score.svg" || fail "score: stock lilypond's score.svg is not SVG"

echo "PASS [lilypond]: $NRUNS lilypond runs identical on stock libgc and on $BIBOP_LIBGC"
