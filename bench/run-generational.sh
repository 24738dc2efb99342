#!/usr/bin/env bash
# Generational mode (issue #17) side by side, in one invocation, alternating
# the variants round by round: stock libgc1, stock libgc1 with
# GC_ENABLE_INCREMENTAL (its own incremental/generational mode, mprotect
# based), bibop full collections only (BIBOP_GENERATIONAL=0), and bibop
# generational (BIBOP_GENERATIONAL=1).
#   genheap: a long-lived tree of HEAP_MIB (default 1024) with 1% of its
#            pages written per cycle (bench/genheap.c): minor/major pauses;
#   gcbench: GCBench-style binary trees with a long-lived structure;
#   mt_gcbench: binary trees from 4 threads.
# Prints each run's line with /usr/bin/time's wall, CPU and peak RSS.
# The client workloads in generational mode: BIBOP_ENV="BIBOP_GENERATIONAL=1"
# bench/run-clients.sh (bibop generational against stock); against full-only
# bibop in one invocation, add BASELINE_ENV="BIBOP_GENERATIONAL=0".
# usage: bench/run-generational.sh [ROUNDS] [BUILD_DIR]
set -u
rounds=${1:-3}
build=${2:-./build}
heap=${HEAP_MIB:-1024}
cycles=${CYCLES:-20}
b=$build/bench
for p in genheap gcbench mt_gcbench; do
  for v in stock bibop; do [[ -x $b/${p}_$v ]] || { echo "missing $b/${p}_$v (build first)" >&2; exit 2; }; done
done
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
variants=("stock" "stock GC_ENABLE_INCREMENTAL=1" "bibop BIBOP_GENERATIONAL=0" "bibop BIBOP_GENERATIONAL=1")
run() {   # run PROGRAM ARGS... under each variant, in rotated order
  local prog=$1; shift
  for r in $(seq 1 "$rounds"); do
    for k in 0 1 2 3; do
      local v=${variants[$(((k + r) % 4))]}
      local side=${v%% *} envs=()
      [[ $v == *" "* ]] && envs=("${v#* }")
      local label="$side${envs[0]:+ ${envs[0]}}"
      local out
      out=$(env "${envs[@]}" /usr/bin/time -f 'TIME %e s wall, %U+%S s CPU, %M KiB peak RSS' \
            "$b/${prog}_$side" "$@" 2>&1 | grep -v '^$' | tail -3 | tr '\n' ' ')
      echo "$prog round $r [$label]: $out"
    done
  done
}
run genheap "$heap" "$cycles" 10
run gcbench
run mt_gcbench 4
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
