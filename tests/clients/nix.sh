#!/usr/bin/env bash
# Real-client test: the Nix evaluator (nix-instantiate from nix-bin 2.8;
# the nix executable imports GC_malloc, GC_malloc_many, GC_free and
# GC_malloc_uncollectable, and libnixexpr.so, which holds the evaluator,
# 15 more GC_* symbols) evaluating expressions with a dummy store, on stock
# libgc1 and on bibop's libgc.so.1:
#   values   nix-values.nix --eval --strict: attribute sets, lists, strings,
#            a lazy fixed point of 12,000 records, JSON out and back,
#            genericClosure, deep recursion, a kept structure checked;
#   json     an expression printed with --json, whose tryEval catches a
#            throw from inside a fold over 30,000 attribute sets;
#   error    an evaluation that fails after allocating (exit status 1).
# stdout and exit status must be identical byte for byte, and the loader
# trace must show the GC_* imports of nix and of libnixexpr.so bound to the
# intended library. Nix starts its heap at a quarter of the RAM (at most
# 384 MiB) unless GC_INITIAL_HEAP_SIZE is set, and then collects about
# three times in the values run; both runs get GC_INITIAL_HEAP_SIZE=4M,
# which bdwgc 8.2 and bibop both read, and stock libgc1 then collects 30
# times (a CLIENT_ENV from the caller is kept: client_nix_stress). The
# state, log, configuration and store directories are temporary; HOME is
# each run's own.
# Usage: nix.sh <bibop lib dir>
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/common.sh"

client_setup nix "${1:-}" nix-instantiate
NIX=$(command -v nix-instantiate)
check_resolution "$NIX"

LIBEXPR=$(client_library "$NIX" '^libnixexpr\.so')

mkdir -p "$WORK/nix/state" "$WORK/nix/log" "$WORK/nix/conf" "$WORK/nix/store"
CLIENT_ENV="${CLIENT_ENV:-} GC_INITIAL_HEAP_SIZE=4M NIX_STATE_DIR=$WORK/nix/state NIX_LOG_DIR=$WORK/nix/log"
CLIENT_ENV+=" NIX_CONF_DIR=$WORK/nix/conf NIX_STORE_DIR=$WORK/nix/store"
for v in $(compgen -e); do
    case $v in NIX_PATH|NIX_REMOTE|NIX_SHOW_STATS*|NIX_COUNT_CALLS) unset "$v";; esac
done

# nix_compare LABEL MIN_BYTES ARGS...: nix-instantiate ARGS on both libraries.
nix_compare() {
    local label=$1 min=$2
    shift 2
    compare_with_library "$label" "$min" "$LIBEXPR" nix-instantiate --store dummy:// "$@"
}

# expect LABEL TEXT: a fixed string stock Nix's output must contain.
expect() {
    grep -qF "$2" "$WORK/$1.stock.out" || fail "$1: stock Nix did not print '$2'"
}

# 1. Values of every kind, most of them garbage phase after phase.
nix_compare values 150 --eval --strict "$here/nix-values.nix"
expect values "keptIntact = true"
expect values "keptCount = 2000"
expect values "deepest = 3999"
expect values "recursion = 200010000"
expect values "lastHalf = 2499.5"

# 2. JSON output; a throw caught by tryEval deep inside a fold.
json_expr='let
  big = builtins.genList (i: { a = i; b = toString i; c = [ i "x${toString i}" ]; }) 30000;
  folded = builtins.tryEval (builtins.foldl'"'"' (acc: x:
    if x.a == 29999 then throw "stopped at ${x.b}" else acc + x.a) 0 big);
  strings = builtins.concatStringsSep "" (map (x: builtins.elemAt x.c 1) big);
in { caught = !folded.success; n = builtins.length big; middle = (builtins.elemAt big 12345).b;
     textLength = builtins.stringLength strings; }'
nix_compare json 50 --eval --strict --json --expr "$json_expr"
expect json '"caught":true'
expect json '"textLength":168890'

# 3. An evaluation error after allocating: exit status 1 on both.
error_expr='let l = builtins.genList (i: "s${toString i}") 50000;
in builtins.seq (builtins.length l) (throw "failed after ${builtins.elemAt l 49999}")'
nix_compare error 0 --eval --strict --expr "$error_expr"
[ "$(cat "$WORK/error.stock.rc")" = 1 ] || fail "error: stock Nix exited $(cat "$WORK/error.stock.rc"), not 1"
grep -qF "failed after s49999" "$WORK/error.stock.err" || fail "error: stock Nix did not report the throw"
grep -qF "failed after s49999" "$WORK/error.bibop.err" || fail "error: Nix on bibop did not report the throw"

echo "PASS [nix]: $NRUNS Nix evaluations identical on stock libgc and on $BIBOP_LIBGC"
