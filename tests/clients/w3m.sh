#!/usr/bin/env bash
# Real-client test: w3m (links libgc.so.1; imports GC_init, GC_malloc,
# GC_malloc_atomic, GC_realloc, GC_free, GC_set_oom_fn, GC_set_warn_proc,
# GC_get_warn_proc) rendering a generated ~1.5 MB HTML page (tables, nested
# tables, links, nested lists, forms, entities) with -dump, on stock libgc1
# and on bibop's libgc.so.1; stdout and exit status must be identical byte
# for byte, and the loader trace must show each run bound w3m's GC_* imports
# to the intended library.  HOME is a temporary directory for each run.
# Usage: w3m.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup w3m "${1:-}" w3m
check_resolution "$(command -v w3m)"

PAGE=$WORK/page.html
awk -v kb=1500 -f "$here/gen-html.awk" > "$PAGE"
size=$(wc -c < "$PAGE")
[ "$size" -gt 1400000 ] || fail "generated page is only $size bytes"

# 1. The plain dump of the brief.
compare_runs dump 1000000 w3m -dump -cols 100 "$PAGE"
grep -q 'end of generated page' "$WORK/dump.stock.out" ||
    fail "dump: stock w3m did not render the whole page"

# 2. Narrower, with the numbered list of every link appended.
compare_runs dump-links 1000000 w3m -dump -cols 72 -o display_link_number=1 "$PAGE"
grep -q '^References:' "$WORK/dump-links.stock.out" ||
    fail "dump-links: stock w3m printed no link references"

# 3. From standard input, wide, as text/html.
STDIN_FILE=$PAGE compare_runs dump-stdin 1000000 w3m -dump -T text/html -cols 160

echo "PASS [w3m]: $NRUNS w3m renderings identical on stock libgc and on $BIBOP_LIBGC"
