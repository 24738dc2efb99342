#!/usr/bin/env bash
# Real-client test: chase (links libgc.so.1; imports GC_malloc,
# GC_malloc_atomic, GC_realloc), which follows symbolic links to their
# final targets: a chain of 2,000 links followed from each of its links
# (2 million hops, every file name a GC_malloc'd string), read from a file
# list, and a loop of links it must give up on.  Run on stock libgc1 and on
# bibop's libgc.so.1; stdout and exit status must be identical byte for
# byte, and the loader trace must show chase's GC_* imports bound to the
# intended library.  Usage: chase.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup chase "${1:-}" chase
check_resolution "$(command -v chase)"

# One tree both runs read (chase prints absolute names, so both must see
# the same ones): chain/l1 -> l2 -> ... -> l2000 -> l2001 (a file), and
# loop/a -> b -> a; each side's cwd has the list of the chain's links.
tree=$WORK/tree
mkdir -p "$tree/chain" "$tree/loop"
( cd "$tree/chain" && for i in $(seq 1 2000); do ln -s "l$((i + 1))" "l$i"; done && touch l2001 )
( cd "$tree/loop" && ln -s b a && ln -s a b )
for side in stock bibop; do
    seq 1 2000 | sed "s|^|$tree/chain/l|" > "$WORK/$side/list"
done

compare_runs chain 20000 chase -f -l 3000 -w 0 list
[ "$(sort -u "$WORK/chain.stock.out")" = "$tree/chain/l2001" ] ||
    fail "chain: stock chase did not resolve every link to $tree/chain/l2001"
[ "$(wc -l < "$WORK/chain.stock.out")" -eq 2000 ] || fail "chain: stock chase did not print 2000 lines"

# A loop: chase gives up (a message on stderr, exit status 1 on both sides).
compare_runs loop 0 chase "$tree/loop/a"
[ "$(cat "$WORK/loop.stock.rc")" != 0 ] || fail "loop: stock chase did not fail on the loop"

echo "PASS [chase]: $NRUNS chase runs identical on stock libgc and on $BIBOP_LIBGC"
