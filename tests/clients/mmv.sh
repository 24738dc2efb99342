#!/usr/bin/env bash
# Real-client test: mmv (links libgc.so.1; imports GC_malloc, GC_realloc,
# GC_free) renaming 20,000 generated files, on stock libgc1 and on bibop's
# libgc.so.1; stdout and exit status must be identical byte for byte, and the
# loader trace must show each run bound mmv's GC_* imports to the intended
# library.  Usage: mmv.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup mmv "${1:-}" mmv
check_resolution "$(command -v mmv)"

NFILES=20000

# make_files DIR: 20,000 *.txt files with varied names (two or three
# '-'-separated parts, mixed case), 1,000 *.log files that must not match,
# and 100 dot files (ignored by mmv without -h).  Deterministic.
make_files() {
    mkdir -p "$1"
    ( cd "$1" && awk -v n="$NFILES" 'BEGIN {
        split("alpha Beta gamma DELTA epsilon zeta Eta theta iota Kappa lambda mu", w, " ")
        for (i = 0; i < n; i++) {
            a = w[1 + i % 12]; b = w[1 + int(i / 12) % 12]
            if (i % 3 == 0) printf "%s-%s-%05d.txt\n", a, b, i
            else if (i % 3 == 1) printf "%s-%05d.txt\n", b, i
            else printf "%s%s-x%d.txt\n", a, b, i
        }
        for (i = 0; i < 1000; i++) printf "log-%04d.log\n", i
        for (i = 0; i < 100; i++) printf ".hidden-%03d.txt\n", i
    }' | xargs touch )
    [ "$(find "$1" -maxdepth 1 -name '*.txt' ! -name '.*' | wc -l)" -eq "$NFILES" ] ||
        fail "could not generate $NFILES files in $1"
}

make_files "$WORK/files"

# 1. The dry run of the brief: every *.txt to #1.dat, 20,000 report lines.
compare_runs dryrun $((NFILES * 25)) mmv -n "$WORK/files/*.txt" "$WORK/files/#1.dat"
lines=$(grep -c ' -> ' "$WORK/dryrun.stock.out" || true)
[ "$lines" -eq "$NFILES" ] || fail "dryrun: expected $NFILES rename lines from stock mmv, got $lines"

# 2. Several wildcards, reordered, upper/lower-cased.
compare_runs dryrun-multi $((NFILES * 10)) \
    mmv -n "$WORK/files/*-*.txt" "$WORK/files/#u2_#l1.renamed"

# 3. Thousands of collisions (many sources onto one target): error paths,
#    exit status 1 on both sides.
compare_runs collisions 20000 mmv -n "$WORK/files/*-*.txt" "$WORK/files/#1.dat"

# 4. Really renaming, each side in its own copy of the directory; then the
#    resulting directories must list the same.
make_files "$WORK/stock/files"
make_files "$WORK/bibop/files"
compare_runs move $((NFILES * 25)) mmv -v 'files/*.txt' 'files/#l1.dat'
for side in stock bibop; do
    ( cd "$WORK/$side/files" && ls -a ) > "$WORK/$side/listing"
    [ "$(grep -c '\.dat$' "$WORK/$side/listing")" -gt $((NFILES / 2)) ] ||
        fail "move: the $side run did not rename the files"
done
compare_files move listing

echo "PASS [mmv]: $NRUNS mmv runs identical on stock libgc and on $BIBOP_LIBGC"
