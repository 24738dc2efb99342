#!/usr/bin/env bash
# run-markheap.sh: the synthetic marking benchmark of paper 000
# (bench/markheap.c) in one command: for each heap size, the five
# configurations alternating in every round so that machine noise hits them
# alike, plus the machine's random-load limit, and the prefetch-FIFO curve;
# writes the Markdown tables (OUT/markheap.md, also on stdout) and the plot
# of ns per marked object against heap size (OUT/markheap.svg, by
# plot-markheap.awk).
#
# Configurations (all with GC_MARKERS=1 unless -m):
#   bibop           as built: one-load page table, prefetching, THP
#   bibop-nopf      BIBOP_PREFETCH=0 (both prefetch FIFOs off)
#   bibop-hash      BIBOP_PAGEHASH=1 (OCaml-4-style hash page table)
#   bibop-nothp     BIBOP_THP=0 (MADV_NOHUGEPAGE on the heap)
#   stock           Debian libgc1 8.2.2, same program, same heap shape
#   limit           markheap_bibop -L: independent random loads over an
#                   array as large as the heap (ns per load)
#
# usage: bench/run-markheap.sh [options]
#   -r ROUNDS    rounds per size (default 3); medians over rounds
#   -s "SIZES"   heap sizes in MiB (default "200 500 1000")
#   --big        add 2000 and 4000 MiB (needs ~12 GB free; ~25 min more)
#   -l LAYOUT    random (default) or seq
#   -i PCT       share of immediate fields (default 25)
#   -t PCT       share of pointers into the static area (default 5)
#   -n RUNS      timed collections per program run (default 5)
#   -m MARKERS   GC_MARKERS for both collectors (default 1)
#   -c MiB       heap size for the prefetch curves (default 500; 0: skip):
#                BIBOP_PREFETCH (candidate FIFO; 0 = all prefetching off)
#                and BIBOP_PREFETCH_SCAN (popped entries prefetched ahead)
#   -o DIR       where markheap.md and markheap.svg go (default docs)
#   -b BUILD     build directory (default ./build)
#   -C "CONFIGS" configurations to run (default: all five above)
#   BENCH_RAW_OUT=FILE also writes the raw result lines there.
# Times: the table gives wall and process-CPU medians; ratios and ns per
# object use CPU time, which on a loaded machine excludes waiting for a CPU
# (with one marker the collection runs on one thread). On a quiet machine
# the two agree. Default run: about 12 minutes on a quiet 2-core machine.
# Needs only bash, awk and coreutils.
set -u

only=()
rounds=3 sizes="200 500 1000" layout=random imm=25 stat=5 runs=5 markers=1
curve=500 out=docs build=./build
while [[ $# -gt 0 ]]; do
  case $1 in
    -r) rounds=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    --big) sizes="$sizes 2000 4000"; shift ;;
    -l) layout=$2; shift 2 ;;
    -i) imm=$2; shift 2 ;;
    -t) stat=$2; shift 2 ;;
    -n) runs=$2; shift 2 ;;
    -m) markers=$2; shift 2 ;;
    -c) curve=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -b) build=$2; shift 2 ;;
    -C) read -r -a only <<<"$2"; shift 2 ;;
    *) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
bibop=$build/bench/markheap_bibop stock=$build/bench/markheap_stock
for b in "$bibop" "$stock"; do
  [[ -x $b ]] || { echo "$b not built" >&2; exit 2; }
done
mkdir -p "$out"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT

# run CONFIG SIZE: one program run; appends "CONFIG SIZE key=value..." to raw.
run() {
  local config=$1 size=$2 line envs=()
  case $config in
    bibop-nopf) envs=(BIBOP_PREFETCH=0) ;;
    bibop-hash) envs=(BIBOP_PAGEHASH=1) ;;
    bibop-nothp) envs=(BIBOP_THP=0) ;;
    pf-*) envs=("BIBOP_PREFETCH=${config#pf-}") ;;
    sa-*) envs=("BIBOP_PREFETCH_SCAN=${config#sa-}") ;;
  esac
  local prog=$bibop args=(-s "$size" -l "$layout" -i "$imm" -t "$stat" -n "$runs")
  [[ $config == stock ]] && prog=$stock
  [[ $config == limit ]] && args=(-L -s "$size")
  printf '%s %s MiB ... ' "$config" "$size" >&2
  line=$(env -u LD_PRELOAD GC_MARKERS="$markers" "${envs[@]}" "$prog" "${args[@]}" | grep -m1 '^markheap ')
  if [[ -z $line ]]; then echo FAILED >&2; echo "$config $size failed=1" >>"$raw"; return; fi
  echo "$line" | grep -o 'cpu_ns_per_obj=[0-9.]*\|ns_per_load=[0-9.]*' >&2
  echo "$config $size $line" >>"$raw"
}

configs=(bibop bibop-nopf bibop-hash bibop-nothp stock)
[[ ${#only[@]} -gt 0 ]] && configs=("${only[@]}")
start=$(date +%s)
for size in $sizes; do
  for ((r = 1; r <= rounds; r++)); do
    for c in "${configs[@]}"; do run "$c" "$size"; done
  done
  run limit "$size"
done
if [[ $curve != 0 ]]; then
  for ((r = 1; r <= rounds; r++)); do
    for pf in 0 4 8 16 32 64 128 256; do run "pf-$pf" "$curve"; done
    for sa in 1 2 4 8 16 32; do run "sa-$sa" "$curve"; done
  done
fi
# BENCH_RAW_OUT=FILE: keep a copy of the raw result lines (run-papers.sh reads them).
[[ -n ${BENCH_RAW_OUT:-} ]] && cp "$raw" "$BENCH_RAW_OUT"
elapsed=$(( $(date +%s) - start ))

machine="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo)"
{
  echo "Machine: $machine; $(date -u '+%Y-%m-%d %H:%M UTC'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); ${elapsed} s."
  echo "Heap: $layout layout, ${imm}% immediates, ${stat}% static pointers; GC_MARKERS=$markers; $runs collections per run, medians of $rounds runs."
  echo
  awk -v sizes="$sizes" -f "$here/markheap-table.awk" "$raw"
} | tee "$out/markheap.md"
awk -v sizes="$sizes" -v title="markheap: $layout heap, ${imm}% immediates, ${stat}% static" \
  -f "$here/plot-markheap.awk" "$raw" >"$out/markheap.svg"
echo "wrote $out/markheap.md and $out/markheap.svg" >&2
