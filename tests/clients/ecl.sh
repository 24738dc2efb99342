#!/usr/bin/env bash
# Real-client test: ECL, Embeddable Common-Lisp 21.2 (ecl; the object that
# links libgc.so.1 is libecl.so.21.2, which imports 43 GC_* symbols:
# GC_pthread_create, disappearing links, finalizers, GC_push_other_roots,
# GC_set_start_callback, ...) loading three Lisp files with --norc, on stock
# libgc1 and on bibop's libgc.so.1:
#   ecl-list.lsp     a 3,000,000-element list (length, sum, ...)
#   ecl-weak.lsp     (:weakness :key) hash tables churned 2,000,000 times
#   ecl-threads.lsp  4 mp:process-run-function workers, joined, 3 rounds
# stdout and exit status must be identical byte for byte.  The loader trace
# must show every GC_* import of libecl (not only of the ecl executable,
# which imports none) bound to the intended library.  HOME is temporary.
# Usage: ecl.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Each run takes a few seconds of CPU; allow for a loaded 2-core machine.
RUN_TIMEOUT=${RUN_TIMEOUT:-150}
. "$here/common.sh"

client_setup ecl "${1:-}" ecl
for tool in readelf sed sort cut; do
    command -v "$tool" >/dev/null 2>&1 || fail "required tool '$tool' is missing"
done
ECL=$(command -v ecl)
check_resolution "$ECL"

# client_library BIN SONAME_PATTERN: the path the loader uses for the
# library (matching the awk regex) that BIN needs, with and without
# LD_LIBRARY_PATH=$BIBOP_DIR (it must be the same: only libgc.so.1 changes).
client_library() {
    local bin=$1 pat=$2 with without
    without=$(env -u LD_PRELOAD -u LD_LIBRARY_PATH LD_TRACE_LOADED_OBJECTS=1 "$bin" 2>&1 |
              awk -v p="$pat" '$1 ~ p && $2 == "=>" { print $3; exit }') || true
    with=$(env -u LD_PRELOAD LD_TRACE_LOADED_OBJECTS=1 LD_LIBRARY_PATH="$BIBOP_DIR" "$bin" 2>&1 |
           awk -v p="$pat" '$1 ~ p && $2 == "=>" { print $3; exit }') || true
    [ -n "$without" ] && [ -e "$without" ] || fail "$bin does not load a library matching $pat"
    [ "$with" = "$without" ] ||
        fail "$bin loads $pat from '$with' with LD_LIBRARY_PATH=$BIBOP_DIR but from '$without' without it"
    readelf -d "$without" | grep -q 'NEEDED.*\[libgc\.so\.1\]' ||
        fail "$without does not link libgc.so.1 (DT_NEEDED): wrong object for the binding check"
    [ -n "$(imported_gc_symbols "$without")" ] || fail "$without imports no GC_* symbol"
    echo "$without"
}

# check_library_bindings SIDE LABEL LIB: from the loader's trace of the run
# (LD_DEBUG=bindings with LD_BIND_NOW=1, written by run_client), every GC_*
# symbol LIB imports must have been bound, from LIB, to the intended libgc
# (bibop: exactly $BIBOP_LIBGC; stock: the stock file, from outside
# $BIBOP_DIR), and no GC_* binding from LIB may go anywhere else.
check_library_bindings() {
    local side=$1 label=$2 lib=$3 libreal trace triples pairs from bad sym
    libreal=$(readlink -f "$lib")
    trace=$WORK/ld/$side.$label.libtrace
    triples=$WORK/ld/$side.$label.triples
    pairs=$WORK/ld/$side.$label.libpairs
    cat "$WORK/ld/$side.$label".[0-9]* > "$trace" 2>/dev/null ||
        fail "$label ($side run): no dynamic loader trace"
    # "binding file FROM [n] to TO [n]: normal symbol `GC_x'" -> FROM TO GC_x
    sed -n "s/^.*binding file \(.*\) \[[0-9]*\] to \(.*\) \[[0-9]*\]: normal symbol \`\(GC_[A-Za-z0-9_]*\)'.*$/\1	\2	\3/p" \
        "$trace" | sort -u > "$triples"
    : > "$pairs"
    while IFS= read -r from; do
        [ "$(readlink -f "$from")" = "$libreal" ] || continue
        awk -F'\t' -v f="$from" '$1 == f { print $2 "\t" $3 }' "$triples" >> "$pairs"
    done < <(cut -f1 "$triples" | sort -u)
    [ -s "$pairs" ] || fail "$label ($side run): the loader bound no GC_* symbol of $lib"
    bad=$(awk -F'\t' -v side="$side" -v bibop="$BIBOP_LIBGC" -v dir="$BIBOP_DIR/" -v stock="$STOCK_REAL" '
        function real(p,    cmd, r) {
            if (p in cache) return cache[p]
            cmd = "readlink -f \"" p "\""; r = ""
            cmd | getline r; close(cmd)
            return cache[p] = r
        }
        side == "bibop" && $1 != bibop { print $2 " -> " $1 }
        side == "stock" && (substr($1, 1, length(dir)) == dir || real($1) != stock) { print $2 " -> " $1 }
        ' "$pairs" | head -5)
    [ -z "$bad" ] || fail "$label ($side run): $(basename "$lib")'s GC_* imports bound to the wrong library: $(echo $bad)"
    local n=0
    for sym in $(imported_gc_symbols "$lib"); do
        awk -F'\t' -v s="$sym" '$2 == s { f = 1 } END { exit !f }' "$pairs" ||
            fail "$label ($side run): $(basename "$lib") imports $sym but the loader did not bind it to the $side libgc"
        n=$((n + 1))
    done
    LIB_BOUND=$n
}

LIBECL=$(client_library "$ECL" '^libecl\.so')
note "libgc.so.1 is linked by $LIBECL ($(imported_gc_symbols "$LIBECL" | wc -l) GC_* imports)"

for v in $(compgen -e); do
    case $v in ECL*) unset "$v";; esac
done

# ecl_compare LABEL MIN_BYTES FILE: load one file on both libraries, then
# the libecl binding check of each run.
ecl_compare() {
    local label=$1 min=$2 file=$3 side
    compare_runs "$label" "$min" ecl --norc --load "$file" --eval '(quit)'
    for side in stock bibop; do
        check_library_bindings "$side" "$label" "$LIBECL"
    done
    note "$label: all $LIB_BOUND GC_* imports of $(basename "$LIBECL") bound to the intended libgc on both runs"
}

# expect LABEL TEXT: a line stock ECL must have printed.
expect() {
    grep -qxF "$2" "$WORK/$1.stock.out" || fail "$1: stock ECL did not print '$2'"
}

# 1. A 3,000,000-element list.
ecl_compare list 200 "$here/ecl-list.lsp"
expect list "length 3000000"
expect list "sum 4500001500000 (expected 4500001500000)"
expect list "list still intact: length 3000000 sum 4500001500000"

# 2. Weak-key hash tables churned 2,000,000 times.
ecl_compare weak 300 "$here/ecl-weak.lsp"
expect weak "fresh keys inserted: 2000000"
expect weak "kept keys all present with right values: T"
expect weak "live entries per table after the churn: at most 2% of 100000: T"
expect weak "surviving tables: 2, each still holding its 100 kept keys: T"

# 3. Threads: mp:process-run-function workers joined with mp:process-join.
ecl_compare threads 400 "$here/ecl-threads.lsp"
expect threads "total sum 1250000500000"
expect threads "rounds 1 and 2 equal to round 0: T"
expect threads "matches serial: T"

echo "PASS [ecl]: $NRUNS ECL programs identical on stock libgc and on $BIBOP_LIBGC"
