#!/usr/bin/env bash
# The GC trace and the `bibop` command, on an unmodified libgc program
# (built against the system's gc.h and libgc.so.1, run through the drop-in):
#   trace    one "gc" line per collection (GC_get_gc_no), numbered 1..N,
#            times monotone, an exit line last; an unwritable BIBOP_TRACE
#            warns once and the program runs on
#   run      summary, the program's exit status, clear errors for a non-libgc
#            program (/bin/true) and a missing one
#   plot     one <line class="pause"> per collection; malformed/missing trace
#   compare  progress lines, table, identical output
#   browser  (with BROWSER=1) headless Chromium renders the plot to a PNG of
#            the SVG's size, and counts the .pause elements in the page
# Usage: tool.sh BIBOP_COMMAND DROPIN_DIR [browser]
set -euo pipefail
bibop=$(realpath "$1") dropin=$(realpath "$2") mode=${3:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/bibop-tool.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
cat > prog.c <<'C'
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  GC_INIT();
  void **keep = 0;
  for (int i = 0; i < 300000; i++) { void **p = GC_MALLOC(48); p[0] = keep; if (i % 50 == 0) keep = p; }
  for (int i = 0; i < 3; i++) GC_gcollect();
  fprintf(stderr, "gc_no %lu\n", (unsigned long)GC_get_gc_no());
  printf("done\n");
  return argc > 1 ? atoi(argv[1]) : 0;
}
C
gcc -O1 prog.c -lgc -o prog

# --- trace, written by the library itself
BIBOP_TRACE=$work/t.jsonl LD_LIBRARY_PATH=$dropin ./prog > /dev/null 2> err.txt
n=$(sed -n 's/^gc_no //p' err.txt)
[ "$n" -gt 3 ] || fail "too few collections: $n"
awk -v n="$n" '
  /^\{"type":"gc","gc":[0-9]+,"start_ns":[0-9]+,"end_ns":[0-9]+,"pause_ns":[0-9]+,"reason":"[a-z ]+","heap_bytes":[0-9]+,"live_bytes":[0-9]+,"external_bytes":[0-9]+,"marked_objects":[0-9]+,"marked_bytes":[0-9]+/ {
    if (exited) { print "gc line after exit"; bad = 1 }
    split($0, f, /[:,]/); gc = f[4]; s = f[6]; e = f[8]; p = f[10]
    if (gc != count + 1) { print "gc number " gc " after " count; bad = 1 }
    if (e < s || p != e - s || s < last_end) { print "times not monotone at " gc; bad = 1 }
    last_end = e; count++; next }
  /^\{"type":"exit","end_ns":[0-9]+,"collections":[0-9]+,"heap_bytes":[0-9]+,"live_bytes":[0-9]+,"external_bytes":[0-9]+,"peak_heap_bytes":[0-9]+\}$/ {
    split($0, f, /[:,]/); if (f[4] < last_end || f[6] != count) { print "bad exit record"; bad = 1 }
    exited++; next }
  { print "unexpected line: " $0; bad = 1 }
  END { if (count != n) { print count " gc records for " n " collections"; bad = 1 }
        if (exited != 1) { print exited " exit records"; bad = 1 }
        exit bad }' t.jsonl || fail "trace check"
echo "ok: trace has $n gc records"
BIBOP_TRACE=/nonexistent-dir/t.jsonl LD_LIBRARY_PATH=$dropin ./prog > out.txt 2> err.txt \
  || fail "program failed with an unwritable trace"
[ "$(grep -c 'cannot write the GC trace' err.txt)" = 1 ] || fail "no single warning: $(cat err.txt)"
echo "ok: unwritable trace warns once"

# --- bibop run
set +e
"$bibop" run --trace run.jsonl --initial-heap 8M -- ./prog 7 > out.txt 2> err.txt; rc=$?
set -e
[ $rc = 7 ] || fail "run exit status $rc, expected the program's 7"
[ "$(cat out.txt)" = done ] || fail "program output lost"
n=$(sed -n 's/^gc_no //p' err.txt)
grep -Eq "^  collections +$n " err.txt || fail "summary does not say $n collections: $(cat err.txt)"
for w in "time in GC" pauses "peak heap" "peak RSS" "at exit"; do grep -q "$w" err.txt || fail "summary lacks $w"; done
grep -q '"heap_bytes":8388608' run.jsonl || fail "--initial-heap 8M not passed on"
echo "ok: run summary, exit status, settings"
set +e
"$bibop" run -- /bin/true 2> err.txt; rc=$?
set -e
[ $rc = 3 ] && grep -q "does not use libgc" err.txt || fail "/bin/true: status $rc, $(cat err.txt)"
set +e
"$bibop" run -- ./no-such-program 2> err.txt; rc=$?
set -e
[ $rc = 127 ] && grep -q "cannot run ./no-such-program" err.txt || fail "missing program: $rc"
set +e
"$bibop" run --max-heap lots -- ./prog 2> err.txt; rc=$?
set -e
[ $rc = 2 ] && grep -q "expected a size" err.txt || fail "bad --max-heap accepted"
echo "ok: run errors"

# --- plot
"$bibop" plot t.jsonl -o t.svg
n=$(grep -c '"type":"gc"' t.jsonl)
[ "$(grep -o 'class="pause"' t.svg | wc -l)" = "$n" ] || fail "plot: pause marks != $n"
sed 's/}$/,"future_key":[1,{"a":"b"}]}/' t.jsonl > extra.jsonl
"$bibop" plot extra.jsonl -o extra.svg || fail "unknown keys not ignored"
printf '{"type":"gc","gc":1,"start_ns":5\n' > bad.jsonl
if "$bibop" plot bad.jsonl -o bad.svg 2> err.txt; then fail "malformed trace accepted"; fi
grep -q "bad.jsonl:1: malformed" err.txt || fail "malformed: $(cat err.txt)"
if "$bibop" plot missing.jsonl -o m.svg 2> err.txt; then fail "missing trace accepted"; fi
grep -q "cannot read trace missing.jsonl" err.txt || fail "missing: $(cat err.txt)"
echo "ok: plot has $n pause marks, errors"

# --- compare
"$bibop" compare -n 1 -- ./prog > table.txt 2> err.txt || fail "compare failed: $(cat table.txt err.txt)"
grep -q "run 2/2 " err.txt || fail "no progress"
for w in "wall time" "peak RSS" collections "max pause" "stdout: identical in all 2 runs"; do
  grep -q "$w" table.txt || fail "compare table lacks $w: $(cat table.txt)"
done
echo "ok: compare"

[ "$mode" = browser ] || exit 0
# --- browser: Chromium renders the SVG at its own size, and the page's DOM
# holds one .pause element per collection.
chromium=$(command -v chromium) || fail "chromium not installed (scripts/install-deps.sh)"
"$bibop" plot t.jsonl -o plot.svg --width 800 --height 500
"$chromium" --headless --no-sandbox --disable-gpu --screenshot="$work/plot.png" \
  --window-size=800,500 "file://$work/plot.svg" > chrome.log 2>&1 || { cat chrome.log; fail "chromium"; }
read -r w h < <(od -An -tu1 -j16 -N8 plot.png | awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}')
[ "$(head -c 8 plot.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "not a PNG"
[ "$w" = 800 ] && [ "$h" = 500 ] || fail "PNG is ${w}x$h, expected 800x500"
{ echo '<!DOCTYPE html><html><body>'; sed 1d plot.svg
  echo '<script>document.body.setAttribute("data-pauses", document.querySelectorAll(".pause").length)</script></body></html>'
} > page.html
"$chromium" --headless --no-sandbox --disable-gpu --dump-dom "file://$work/page.html" > dom.html 2> chrome.log
got=$(sed -n 's/.*data-pauses="\([0-9]*\)".*/\1/p' dom.html | head -1)
[ "$got" = "$n" ] || fail "browser counts '$got' pause marks, trace has $n"
echo "ok: chromium renders ${w}x$h and counts $got pause marks"
