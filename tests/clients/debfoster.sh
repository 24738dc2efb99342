#!/usr/bin/env bash
# Real-client test: debfoster (links libgc.so.1; imports GC_malloc,
# GC_malloc_atomic, GC_strdup) on stock libgc1 and on bibop's libgc.so.1;
# stdout, exit status and the keeper files it writes must be identical byte
# for byte, and the loader trace must show each run bound debfoster's GC_*
# imports to the intended library.  Usage: debfoster.sh <bibop lib dir>
#
# Nothing touches the system: debfoster gets its own configuration file (-c)
# naming a generated dpkg status database and keeper file, the install,
# remove and info commands are /bin/echo, the query options (-s -a -d -r)
# only read, and the runs that write (-q -m, mark-only: no package is
# installed or removed) write keeper files inside the test's temporary
# directory.  The last read-only queries use the real /var/lib/dpkg/status
# with a keeper file listing every other installed package.
#
# Not used: -e (show dependents) and -p (show providers).  Their output
# depends on where the allocator puts objects: with stock libgc alone it
# changes from run to run under ASLR and with GC_INITIAL_HEAP_SIZE /
# GC_FREE_SPACE_DIVISOR / GC_DONT_GC, so it cannot be compared.  Every run
# used here gave one output under all of those and under two malloc-based
# fake libgc.so.1.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup debfoster "${1:-}" debfoster
check_resolution "$(command -v debfoster)"

DB=$WORK/db
mkdir -p "$DB"
NPKG=3000
awk -v n="$NPKG" -v status="$DB/status" -v keepers="$DB/keepers" \
    -f "$here/gen-dpkg-status.awk"
[ "$(grep -c '^Package: ' "$DB/status")" -eq "$NPKG" ] || fail "could not generate the dpkg status database"

# write_conf FILE STATUS: a complete debfoster configuration (every option
# set, so /etc/debfoster.conf, which debfoster also reads, cannot matter).
write_conf() {
    cat > "$1" <<EOF
# debfoster configuration for the bibop client test (generated)
InstallCmd = /bin/echo INSTALL
RemoveCmd = /bin/echo REMOVE
InfoCmd = /bin/echo INFO
KeeperFile = $WORK/no-such-keeper-file
DpkgStatus = $2
DpkgAvailable = /dev/null
MaxPriority = standard
UseHold = yes
UseEssential = yes
UsePreDepends = yes
UseRecommends = yes
UseSuggests = no
UseTasks = no
KeepSections = doc
NokeepSections = oldlibs
GuessDepends = dev, doc
NegativeKeepers = no
Verbose = no
Force = no
Quiet = no
EOF
}
write_conf "$DB/conf" "$DB/status"

# the package with the longest Depends line (the last one if several)
deep=$(awk '/^Package: / { p = $2 } /^Depends: / { k = gsub(/,/, ","); if (k >= best) { best = k; b = p } }
            END { print b }' "$DB/status")
# the last package that has dependencies (-r lists what only it brings in)
last=$(awk '/^Package: / { p = $2 } /^Depends: / { q = p } END { print q }' "$DB/status")

C=(-c "$DB/conf" -k "$DB/keepers")
compare_runs show-orphans   2000 debfoster "${C[@]}" -s
compare_runs show-keepers   2000 debfoster "${C[@]}" -a
compare_runs orphans-norule 2000 debfoster "${C[@]}" -i -s
compare_runs show-depends   1000 debfoster "${C[@]}" -d "$deep"
compare_runs depends-norec  1000 debfoster "${C[@]}" -o UseRecommends=no -o UseSuggests=yes -d "$deep"
compare_runs related          40 debfoster "${C[@]}" -r "$last"
compare_runs related-norule   40 debfoster "${C[@]}" -i -r "$last"

# Runs that write a keeper file: each side gets its own copy (relative path
# in its own working directory); mark-only, so nothing is installed/removed.
cp "$DB/keepers" "$WORK/stock/keepers"
cp "$DB/keepers" "$WORK/bibop/keepers"
compare_runs quiet-update 5000 debfoster -c "$DB/conf" -k keepers -q -v -m
compare_files quiet-update keepers
compare_runs fresh-keepers 5000 debfoster -c "$DB/conf" -k fresh-keepers -n -q -v -m
compare_files fresh-keepers fresh-keepers
for side in stock bibop; do
    cmp -s "$DB/keepers" "$WORK/$side/fresh-keepers" &&
        fail "fresh-keepers: the $side run did not write a new keeper file"
done

# The machine's real dpkg database (read only), keeper file listing every
# other installed package.
if [ -r /var/lib/dpkg/status ]; then
    write_conf "$WORK/real.conf" /var/lib/dpkg/status
    awk '/^Package: / { p = $2 } /^Status: .* installed$/ && (n++ % 2 == 0) { print p }' \
        /var/lib/dpkg/status > "$WORK/real-keepers"
    [ -s "$WORK/real-keepers" ] || fail "no installed package found in /var/lib/dpkg/status"
    R=(-c "$WORK/real.conf" -k "$WORK/real-keepers")
    compare_runs real-keepers 500 debfoster "${R[@]}" -a
    compare_runs real-orphans  20 debfoster "${R[@]}" -s
    compare_runs real-depends  20 debfoster "${R[@]}" -d debfoster
else
    fail "/var/lib/dpkg/status is not readable (not a Debian system?)"
fi

echo "PASS [debfoster]: $NRUNS debfoster runs identical on stock libgc and on $BIBOP_LIBGC"
