#!/usr/bin/env bash
# Real-client test: FAUhdlc, FAUmachine's VHDL compiler (/usr/bin/fauhdlc
# links libgc.so.1 and libgccpp.so.1: every C++ object of its parser,
# semantic analysis and code generator comes from the collector's operator
# new; it imports GC_init, GC_malloc, GC_free and GC_throw_bad_alloc).
# fauhdlc-design.awk writes a design of 100 units (packages with functions,
# entities with clocked and combinational processes) and a testbench; the
# test compiles
#   1. that design (stock libgc1: 4 collections, GC_PRINT_STATS=1);
#   2. that design and a renamed copy of it in one run (5 collections);
# each time with the Graphviz dump of the syntax tree after parsing on
# stdout, the dump after constant propagation in a file (design run) and
# the intermediate code in a file.  Run on stock libgc1 and on bibop's
# libgc.so.1 (with LD_LIBRARY_PATH, the bibop run also loads bibop's
# libgccpp.so.1); stdout, exit status and the dumps must be identical byte
# for byte, and the loader trace must show fauhdlc's GC_* imports bound to
# the intended library.  The intermediate code is compared with its
# register numbers erased and its lines sorted: fauhdlc orders signal
# drivers, and so numbers registers, by the addresses of its objects (on
# stock libgc alone, GC_DONT_GC=1 reorders them), so the exact text
# depends on where the collector puts objects; what is declared and
# emitted does not.  Usage: fauhdlc.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup fauhdlc "${1:-}" fauhdlc
FAUHDLC=$(command -v fauhdlc)
check_resolution "$FAUHDLC"

for side in stock bibop; do
    awk -v n=100 -f "$here/fauhdlc-design.awk" > "$WORK/$side/design.vhdl"
    sed 's/pkg/qkg/g; s/unit/vnit/g; s/mix/nix/g; s/\btop\b/top2/g' \
        "$WORK/$side/design.vhdl" > "$WORK/$side/copy.vhdl"
done

# ic.norm: the intermediate code with register numbers erased, sorted.
normalize_ic() {
    local side
    for side in stock bibop; do
        [ -s "$WORK/$side/$1.ic" ] || fail "$1: the $side run wrote no intermediate code"
        sed 's/%reg_[0-9]*/%reg_N/g' "$WORK/$side/$1.ic" | LC_ALL=C sort > "$WORK/$side/$1.ic.norm"
    done
    compare_files "$1" "$1.ic.norm"
}

compare_runs design 1000000 "$FAUHDLC" --dot-parse=/dev/stdout --dot-const=const.dot \
    -o design.ic design.vhdl
[ "$(cat "$WORK/design.stock.rc")" = 0 ] || fail "design: stock fauhdlc exited with status $(cat "$WORK/design.stock.rc")"
head -1 "$WORK/design.stock.out" | grep -qx 'digraph AST {' ||
    fail "design: stock fauhdlc's stdout is not the syntax tree in Graphviz"
compare_files design const.dot
normalize_ic design
head -1 "$WORK/stock/design.ic" | grep -qx 'CONTAINER top' ||
    fail "design: stock fauhdlc's intermediate code does not start with 'CONTAINER top'"

compare_runs twodesigns 2000000 "$FAUHDLC" --dot-parse=/dev/stdout -o twodesigns.ic design.vhdl copy.vhdl
[ "$(cat "$WORK/twodesigns.stock.rc")" = 0 ] ||
    fail "twodesigns: stock fauhdlc exited with status $(cat "$WORK/twodesigns.stock.rc")"
normalize_ic twodesigns
grep -q 'nix99' "$WORK/stock/twodesigns.ic" || fail "twodesigns: the copy's units are missing from the code"

echo "PASS [fauhdlc]: $NRUNS fauhdlc runs identical on stock libgc and on $BIBOP_LIBGC"
