#!/usr/bin/env bash
# Real-client test: GNU Mailutils' MH inc (/usr/bin/mu-mh/inc, package
# mailutils-mh, the one Mailutils program that links libgc.so.1; its GC_*
# imports are those of Guile 3.0's libguile-3.0.so.1, which inc links for
# its -script option) incorporating a generated mbox of 200 messages into
# an MH folder with mailutils-filter.scm as a Guile filter run on every
# message: the filter reads headers and body through Mailutils' Guile
# bindings, builds and drops 2,000 strings and keeps a word count in a hash
# table.  Stock libgc1 makes about 40 collections in the run
# (GC_PRINT_STATS=1).  Run on stock libgc1 and on bibop's libgc.so.1;
# stdout (inc's scan lines and the filter's lines), exit status and the
# folder's first and last messages and its context file must be identical byte
# for byte, and the loader trace must show libguile-3.0's GC_* imports
# bound to the intended library.  (The folder's .mu-prop holds a UID
# validity stamp taken from the clock, so it is not compared.)
# Usage: mailutils.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

INC=/usr/bin/mu-mh/inc
client_setup mailutils "${1:-}"
[ -x "$INC" ] || fail "$INC is missing (apt-get install -y --no-install-recommends mailutils-mh)"
check_resolution "$INC"
LIBGUILE=$(client_library "$INC" '^libguile-3\.0\.so')

# mbox: 200 messages from 17 senders, 20 body lines each.  Each side gets
# its own copy, an MH profile and the filter in its cwd.
for side in stock bibop; do
    awk 'BEGIN {
        for (i = 0; i < 200; i++) {
            printf "From sender%d@example.org Mon Jan  1 00:00:%02d 2024\n", i % 17, i % 60
            printf "From: Sender %d <sender%d@example.org>\nTo: rcpt@example.org\n", i % 17, i % 17
            printf "Subject: message %d about topic %d\n", i, i % 7
            printf "Date: Mon, 1 Jan 2024 00:%02d:%02d +0000\nMessage-ID: <%d@example.org>\n\n", int(i / 60) % 60, i % 60, i
            for (j = 0; j < 20; j++) {
                line = ""
                for (k = 0; k < 12; k++) line = line (k ? " " : "") "word" ((i * j + k) % 97)
                print line
            }
            print ""
        } }' > "$WORK/$side/mbox"
    mkdir -p "$WORK/$side/home"
    printf 'Path: Mail\n' > "$WORK/$side/home/.mh_profile"
    cp "$here/mailutils-filter.scm" "$WORK/$side/filter.scm"
done

compare_with_library inc 20000 "$LIBGUILE" "$INC" -file mbox -notruncate \
    -script filter.scm -language scheme +inbox
[ "$(cat "$WORK/inc.stock.rc")" = 0 ] || fail "inc: stock inc exited with status $(cat "$WORK/inc.stock.rc")"
[ "$(grep -c '^filter ' "$WORK/inc.stock.out")" -eq 200 ] || fail "inc: the filter did not run on all 200 messages on stock"
grep -q '^ 200  01/01 Sender 12 ' "$WORK/inc.stock.out" || fail "inc: stock inc did not scan message 200"
for f in inbox/1 inbox/200 context; do
    compare_files inc "home/Mail/$f"
done

echo "PASS [mailutils]: $NRUNS inc runs identical on stock libgc and on $BIBOP_LIBGC"
