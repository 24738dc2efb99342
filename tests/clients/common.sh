# Shared helpers for the real-client tests (mmv, debfoster, w3m, guile, ecl, asy):
# run an unmodified libgc client once on stock libgc1 and once on bibop's
# libgc.so.1 (LD_LIBRARY_PATH=<bibop lib dir>), prove from the dynamic
# loader's own trace that each run bound the client's GC_* imports to the
# intended library, and compare stdout and exit status byte for byte.
# Sourced by the test scripts (which set -euo pipefail); not run directly.

STOCK_LIBGC=/usr/lib/x86_64-linux-gnu/libgc.so.1
# Seconds per client run: CTest passes BIBOP_CLIENT_RUN_TIMEOUT
# (tests/clients/CMakeLists.txt); this default is for runs by hand.
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
NRUNS=0                          # comparisons passed so far

fail() {
    echo "FAIL [${TEST_NAME:-client}]: $*" >&2
    exit 1
}

note() { echo "[${TEST_NAME:-client}] $*"; }

# client_setup TEST_NAME LIB_DIR CLIENT...
# Checks the arguments, the client binaries and the two libraries, makes
# $WORK (removed on exit) and sets BIBOP_DIR (absolute, symlinks in the
# path kept as given, which is how the loader will print it) and
# BIBOP_LIBGC="$BIBOP_DIR/libgc.so.1".
client_setup() {
    TEST_NAME=$1
    local dir=${2:-}
    shift 2 || true
    [ -n "$dir" ] || fail "usage: $0 <bibop lib dir>"
    [ -d "$dir" ] || fail "bibop lib dir '$dir' does not exist (is the 'gc' target built?)"
    BIBOP_DIR=$(cd "$dir" && pwd -L)
    BIBOP_LIBGC=$BIBOP_DIR/libgc.so.1
    [ -e "$BIBOP_LIBGC" ] || fail "$BIBOP_LIBGC does not exist (the 'gc' target must produce it)"
    [ -e "$STOCK_LIBGC" ] || fail "stock libgc $STOCK_LIBGC is missing (apt-get install libgc1)"
    STOCK_REAL=$(readlink -f "$STOCK_LIBGC")
    if [ "$(readlink -f "$BIBOP_DIR")" = "$(dirname "$STOCK_REAL")" ]; then
        fail "$BIBOP_DIR is the system library directory: the comparison would be stock against stock"
    fi
    # bibop's library must not be stock libgc itself (a symlink to it or a
    # copy), or every comparison passes vacuously.  Validating the harness
    # stock-against-stock is the one legitimate use: BIBOP_CLIENTS_SELFTEST=1.
    if [ "$(readlink -f "$BIBOP_LIBGC")" = "$STOCK_REAL" ] || cmp -s "$BIBOP_LIBGC" "$STOCK_REAL"; then
        [ "${BIBOP_CLIENTS_SELFTEST:-}" = 1 ] ||
            fail "$BIBOP_LIBGC is stock libgc itself (symlink or copy): nothing would be tested (set BIBOP_CLIENTS_SELFTEST=1 only to validate the harness)"
        note "SELFTEST: $BIBOP_LIBGC is stock libgc; validating the harness stock against stock"
    fi

    local c
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 ||
            fail "client '$c' is not installed (apt-get install -y --no-install-recommends $c)"
    done
    for c in cmp diff nm timeout readlink awk; do
        command -v "$c" >/dev/null 2>&1 || fail "required tool '$c' is missing"
    done

    WORK=$(mktemp -d "${TMPDIR:-/tmp}/bibop-client-$TEST_NAME.XXXXXX")
    if [ -n "${BIBOP_KEEP_WORK:-}" ]; then
        trap 'echo "[$TEST_NAME] work directory kept: $WORK"' EXIT
    else
        trap 'rm -rf "$WORK"' EXIT
    fi
    mkdir -p "$WORK/stock" "$WORK/bibop" "$WORK/ld"
}

# imported_gc_symbols BINARY: the GC_* symbols BINARY imports, one a line.
imported_gc_symbols() {
    nm -D --undefined-only "$1" | awk '{ s = $NF; sub(/@.*/, "", s); if (s ~ /^GC_/) print s }' | sort -u
}

# check_resolution CLIENT_PATH: before running anything, ask the loader
# (LD_TRACE_LOADED_OBJECTS, what ldd does) where libgc.so.1 resolves with
# and without LD_LIBRARY_PATH.  With it, the answer must be exactly
# $BIBOP_LIBGC; without it, the stock library; and the two must differ.
check_resolution() {
    local bin=$1 with without
    with=$(env -u LD_PRELOAD LD_TRACE_LOADED_OBJECTS=1 LD_LIBRARY_PATH="$BIBOP_DIR" "$bin" 2>&1 |
           awk '$1 == "libgc.so.1" && $2 == "=>" { print $3 }') || true
    without=$(env -u LD_PRELOAD -u LD_LIBRARY_PATH LD_TRACE_LOADED_OBJECTS=1 "$bin" 2>&1 |
           awk '$1 == "libgc.so.1" && $2 == "=>" { print $3 }') || true
    [ "$with" = "$BIBOP_LIBGC" ] ||
        fail "with LD_LIBRARY_PATH=$BIBOP_DIR, $bin loads libgc.so.1 from '${with:-nothing}', not $BIBOP_LIBGC (not a loadable x86-64 ELF library?)"
    [ -n "$without" ] && [ "$(readlink -f "$without")" = "$STOCK_REAL" ] ||
        fail "without LD_LIBRARY_PATH, $bin loads libgc.so.1 from '${without:-nothing}', not stock $STOCK_LIBGC"
    [ "$without" != "$with" ] ||
        fail "$BIBOP_DIR is the system library directory: the comparison would be stock against stock"
    note "libgc.so.1 for $bin: stock run -> $without, bibop run -> $with"
}

# check_bindings SIDE LABEL BINARY: read the loader's binding trace of the
# run (LD_DEBUG=bindings,libs with LD_BIND_NOW=1, so every import is bound at
# start-up) and require that every GC_* symbol BINARY imports was bound to
# the intended libgc (bibop: exactly $BIBOP_LIBGC; stock: the stock file,
# from outside $BIBOP_DIR), and that no GC_* symbol went anywhere else.
check_bindings() {
    local side=$1 label=$2 bin=$3 trace pairs sym bad
    local ran
    ran="exit status $(cat "$WORK/$label.$side.rc"), stderr: $(head -c 300 "$WORK/$label.$side.err" | head -1)"
    trace=$WORK/ld/$side.$label.trace
    cat "$WORK/ld/$side.$label".[0-9]* > "$trace" 2>/dev/null ||
        fail "$label ($side): no dynamic loader trace was written (LD_DEBUG_OUTPUT unsupported?; $ran)"
    # "binding file FROM [n] to TO [n]: normal symbol `GC_x'" -> "TO<TAB>GC_x"
    pairs=$WORK/ld/$side.$label.pairs
    sed -n "s/^.*binding file .* \[[0-9]*\] to \(.*\) \[[0-9]*\]: normal symbol \`\(GC_[A-Za-z0-9_]*\)'.*$/\1	\2/p" \
        "$trace" | sort -u > "$pairs"

    bad=$(awk -F'\t' -v side="$side" -v bibop="$BIBOP_LIBGC" -v dir="$BIBOP_DIR/" -v stock="$STOCK_REAL" '
        function real(p,    cmd, r) {
            if (p in cache) return cache[p]
            cmd = "readlink -f \"" p "\""; r = ""
            cmd | getline r; close(cmd)
            return cache[p] = r
        }
        side == "bibop" && $1 != bibop && substr($1, 1, length(dir)) != dir { print $2 " -> " $1 }
        side == "stock" && (substr($1, 1, length(dir)) == dir || real($1) != stock) { print $2 " -> " $1 }
        ' "$pairs" | head -5)
    [ -z "$bad" ] || fail "$label ($side run): GC_* symbols bound to the wrong library: $(echo $bad) ($ran)"

    # The bibop run must not have loaded the stock library at all (e.g. as a
    # dependency or dlopen of a wrapper): the loader's "calling init: PATH"
    # lines name every initialised object (stock libgc has initialisers).
    if [ "$side" = bibop ]; then
        local path
        for path in $(sed -n 's/^.*calling init: \(.*\)$/\1/p' "$trace" | sort -u); do
            case $path in "$BIBOP_DIR"/*) continue;; esac
            [ "$(readlink -f "$path")" != "$STOCK_REAL" ] ||
                fail "$label (bibop run): stock libgc was loaded too ($path)"
        done
    fi

    local want
    if [ "$side" = bibop ]; then want=$BIBOP_LIBGC; else want=; fi
    for sym in $(imported_gc_symbols "$bin"); do
        if [ "$side" = bibop ]; then
            awk -F'\t' -v t="$want" -v s="$sym" '$1 == t && $2 == s { f = 1 } END { exit !f }' "$pairs" ||
                fail "$label ($side run): $(basename "$bin") imports $sym but the loader did not bind it to $want ($ran)"
        else
            awk -F'\t' -v s="$sym" '$2 == s { f = 1 } END { exit !f }' "$pairs" ||
                fail "$label ($side run): $(basename "$bin") imports $sym but the loader did not bind it to stock libgc ($ran)"
        fi
    done
}

# run_client SIDE LABEL STDIN CMD...: run CMD in $WORK/SIDE (its own cwd and
# HOME) under the given library with the loader tracing its bindings; stdout
# to $WORK/LABEL.SIDE.out, stderr to .err, exit status to .rc.  Then check
# the bindings.  CMD[0] must be the client (it is looked up in PATH).
# CLIENT_ENV, if set, holds VAR=value words both runs get after the
# cleaning below (a test's own GC_* setting, say).
run_client() {
    local side=$1 label=$2 input=$3 bin rc=0
    shift 3
    bin=$(command -v "$1")
    local libenv
    if [ "$side" = bibop ]; then libenv="LD_LIBRARY_PATH=$BIBOP_DIR"; else libenv="BIBOP_STOCK_RUN=1"; fi
    # Both runs get the same clean environment: no preload or audit
    # libraries, no GC_* tuning variables from the caller.
    local -a clean=(-u LD_PRELOAD -u LD_AUDIT -u LD_LIBRARY_PATH)
    local v
    for v in $(compgen -e); do
        case $v in GC_*) clean+=(-u "$v");; esac
    done
    rm -f "$WORK/ld/$side.$label".[0-9]*
    local -a extra=()
    [ -z "${CLIENT_ENV:-}" ] || read -r -a extra <<< "$CLIENT_ENV"
    ( cd "$WORK/$side" &&
      exec env "${clean[@]}" "$libenv" "${extra[@]}" HOME="$WORK/$side/home" LC_ALL=C.UTF-8 TZ=UTC TERM=dumb \
          LD_BIND_NOW=1 LD_DEBUG=bindings,libs LD_DEBUG_OUTPUT="$WORK/ld/$side.$label" \
          timeout -k 5 "$RUN_TIMEOUT" "$bin" "${@:2}" \
          < "$input" > "$WORK/$label.$side.out" 2> "$WORK/$label.$side.err" ) || rc=$?
    echo "$rc" > "$WORK/$label.$side.rc"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        fail "$label ($side run): $(basename "$bin") timed out after ${RUN_TIMEOUT}s (or was killed; exit $rc)"
    fi
    check_bindings "$side" "$label" "$bin"
}

# compare_runs LABEL MIN_BYTES CMD...: run CMD on stock and on bibop and
# require identical stdout and exit status, with stdout at least MIN_BYTES
# long (so a crash that prints nothing on both sides cannot pass).
# If STOCK_RUN_VALID names a function, it is called with the stock run's
# stdout file; while it fails, stock runs again (3 tries in all), for
# programs whose own code makes stock's answer depend on where its heap
# lands.  The bibop run is never retried.
# Stdin is /dev/null unless STDIN_FILE is set; BETWEEN_RUNS, if set, is a
# command run after the stock run and before the bibop run (to empty a
# cache both runs use, say).
compare_runs() {
    local label=$1 min=$2 input=${STDIN_FILE:-/dev/null}
    shift 2
    mkdir -p "$WORK/stock/home" "$WORK/bibop/home"
    run_client stock "$label" "$input" "$@"
    local attempt=1
    while [ -n "${STOCK_RUN_VALID:-}" ] && ! $STOCK_RUN_VALID "$WORK/$label.stock.out"; do
        [ "$attempt" -lt 3 ] || fail "$label: the stock run printed a wrong answer 3 times in a row"
        note "$label: stock run $attempt printed a wrong answer; running stock again (see the client's script)"
        attempt=$((attempt + 1))
        run_client stock "$label" "$input" "$@"
    done
    [ -z "${BETWEEN_RUNS:-}" ] || $BETWEEN_RUNS
    run_client bibop "$label" "$input" "$@"
    local so=$WORK/$label.stock.out bo=$WORK/$label.bibop.out
    local src brc ssize
    src=$(cat "$WORK/$label.stock.rc"); brc=$(cat "$WORK/$label.bibop.rc")
    ssize=$(wc -c < "$so")
    if [ "$ssize" -lt "$min" ]; then
        echo "--- stock stderr:" >&2; head -5 "$WORK/$label.stock.err" | cut -c1-300 >&2
        fail "$label: stock run printed only $ssize bytes (expected at least $min; exit $src): harness or client problem"
    fi
    if ! cmp -s "$so" "$bo"; then
        echo "--- first differences (stock vs bibop) of: $*" >&2
        diff "$so" "$bo" | head -20 | cut -c1-300 >&2 || true
        echo "--- bibop stderr:" >&2; head -10 "$WORK/$label.bibop.err" | cut -c1-300 >&2
        fail "$label: stdout differs between stock libgc and bibop ($ssize vs $(wc -c < "$bo") bytes; exit $src vs $brc)"
    fi
    if [ "$src" != "$brc" ]; then
        echo "--- bibop stderr:" >&2; head -10 "$WORK/$label.bibop.err" | cut -c1-300 >&2
        fail "$label: exit status differs: stock $src, bibop $brc"
    fi
    note "$label: identical ($ssize bytes of stdout, exit $src): $*"
    NRUNS=$((NRUNS + 1))
}

# compare_files LABEL FILE: a file each side's run wrote in its own cwd must
# be identical (and not empty).
compare_files() {
    local label=$1 f=$2
    [ -s "$WORK/stock/$f" ] || fail "$label: stock run left no (or an empty) $f"
    [ -e "$WORK/bibop/$f" ] || fail "$label: bibop run did not write $f"
    if ! cmp -s "$WORK/stock/$f" "$WORK/bibop/$f"; then
        echo "--- first differences in $f (stock vs bibop):" >&2
        diff "$WORK/stock/$f" "$WORK/bibop/$f" | head -20 | cut -c1-300 >&2 || true
        fail "$label: $f written by the client differs between stock and bibop"
    fi
    note "$label: $f identical ($(wc -c < "$WORK/stock/$f") bytes)"
}

# client_library BIN SONAME_PATTERN: the path the loader uses for the
# library (matching the awk regex) that BIN needs, with and without
# LD_LIBRARY_PATH=$BIBOP_DIR (it must be the same: only libgc.so.1 changes).
# Notes (on stderr: the path is the output) how many GC_* symbols it imports.
client_library() {
    local bin=$1 pat=$2 with without
    without=$(env -u LD_PRELOAD -u LD_LIBRARY_PATH LD_TRACE_LOADED_OBJECTS=1 "$bin" 2>&1 |
              awk -v p="$pat" '$1 ~ p && $2 == "=>" { print $3; exit }') || true
    with=$(env -u LD_PRELOAD LD_TRACE_LOADED_OBJECTS=1 LD_LIBRARY_PATH="$BIBOP_DIR" "$bin" 2>&1 |
           awk -v p="$pat" '$1 ~ p && $2 == "=>" { print $3; exit }') || true
    [ -n "$without" ] && [ -e "$without" ] || fail "$bin does not load a library matching $pat"
    [ "$with" = "$without" ] ||
        fail "$bin loads $pat from '$with' with LD_LIBRARY_PATH=$BIBOP_DIR but from '$without' without it"
    # Not `grep -q`: it would stop reading at the match, and readelf, killed
    # by SIGPIPE on a long dynamic section (Inkscape's), would fail the
    # pipeline under pipefail.
    readelf -d "$without" | grep 'NEEDED.*\[libgc\.so\.1\]' >/dev/null ||
        fail "$without does not link libgc.so.1 (DT_NEEDED): wrong object for the binding check"
    local imports
    imports=$(imported_gc_symbols "$without" | wc -l)
    [ "$imports" -gt 0 ] || fail "$without imports no GC_* symbol"
    note "libgc.so.1 is linked by $without ($imports GC_* imports)" >&2
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

# compare_with_library LABEL MIN_BYTES LIB CMD...: compare_runs of CMD on
# both libraries, then the binding check of LIB (the client's shared library
# that links libgc.so.1) in each run.
compare_with_library() {
    local label=$1 min=$2 lib=$3 side
    shift 3
    compare_runs "$label" "$min" "$@"
    for side in stock bibop; do
        check_library_bindings "$side" "$label" "$lib"
    done
    note "$label: all $LIB_BOUND GC_* imports of $(basename "$lib") bound to the intended libgc on both runs"
}

