#!/usr/bin/env bash
# run-papers.sh: the five reference papers' headline tables, each with the
# paper's figures beside bibop's (and stock libgc1's / malloc's), measured
# in one run on this machine; writes docs/PAPERS.md and prints it.
#
# usage: bench/run-papers.sh [BUILD_DIR]          (default ./build)
#        bench/run-papers.sh --from DIR           (rewrite the page from the
#                     raw lines a PAPERS_KEEP=DIR run kept: no measuring)
#   PAPERS_OUT=FILE   where the page goes (default docs/PAPERS.md)
#   PAPERS_QUICK=1    small sizes and one round everywhere (a check of the
#                     script, about 3 minutes; the figures mean little)
#   PAPERS_KEEP=DIR   keep the raw result lines and every sub-script's own
#                     report in DIR (default: a temporary directory, removed)
#
# It reuses the per-paper runners (each prints its own, fuller report into
# the raw directory): run-markheap.sh (paper 000), run-boxroot.sh (001),
# run-gmp.sh (002), run-svector.sh (003), run-gcbench.sh and
# run-pagetable.sh (004), plus markstack_* and stopworld_* for paper 004's
# list of costs; the runners hand their raw lines over through
# BENCH_RAW_OUT. bench/papers.awk turns the raw lines into the page, with
# the papers' figures (constants there, each citing its table or section).
# Every step records its start and end time and the load average, which the
# page shows beside its table. Build first (Release):
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2
# About 15-20 minutes on a 2-core machine. Needs bash, awk, coreutils.
set -u

here=$(cd "$(dirname "$0")" && pwd)
out=${PAPERS_OUT:-$here/../docs/PAPERS.md}
if [[ ${1:-} == --from ]]; then
  [[ -f ${2:-}/all.txt ]] || { echo "usage: $0 --from DIR (DIR/all.txt from a PAPERS_KEEP run)" >&2; exit 2; }
  { grep -v '^regen ' "$2/all.txt"; echo "regen commit=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"; } |
    awk -f "$here/papers.awk" >"$out.tmp" && mv "$out.tmp" "$out" || { echo "papers.awk failed" >&2; exit 1; }
  cat "$out"
  exit 0
fi
build=${1:-./build}
quick=${PAPERS_QUICK:-0}
if [[ -n ${PAPERS_KEEP:-} ]]; then
  raw=$PAPERS_KEEP
  mkdir -p "$raw"
else
  raw=$(mktemp -d)
  trap 'rm -rf "$raw"' EXIT
fi
for b in bench/markheap_bibop bench/markheap_stock bench/markstack_bibop bench/markstack_stock \
         bench/stopworld_bibop bench/stopworld_stock bench/gcbench_bibop examples/gmp/gmp_bibop \
         bench/svector_table1_bibop bench/boxroot_fixpoint_bibop; do
  [[ -x $build/$b ]] || { echo "$build/$b not built (build the project, Release, with its tests)" >&2; exit 2; }
done

# Sizes. The full run is what docs/PAPERS.md shows; quick is for checking.
if [[ $quick == 1 ]]; then
  mh_small=64 mh_big=128 mh_r=1 mh_n=2 mh_big_r=1 mh_big_n=2 mh_static_r=1
  box_rounds=1 box_churn="-p 1000000" box_scan="-m 200000 -k 3"
  gmp_rounds=1 gmp_args="-s" svt_rounds=3 svt_scale=0.1
  gcb_rounds=1 gcb_args="" pt_rounds=1 ms_objects=1000000 ms_rounds=1 sw_gcs=51 sw_rounds=1
else
  mh_small=200 mh_big=1000 mh_r=3 mh_n=3 mh_big_r=2 mh_big_n=2 mh_static_r=5
  box_rounds=3 box_churn="" box_scan=""
  gmp_rounds=2 gmp_args="" svt_rounds=5 svt_scale=1
  gcb_rounds=5 gcb_args="-r 3" pt_rounds=3 ms_objects=10000000 ms_rounds=3 sw_gcs=501 sw_rounds=3
fi

all=$raw/all.txt
: >"$all"
failed=0
start_all=$(date +%s)
load_all0=$(cut -d' ' -f1-3 /proc/loadavg)

# step NAME TAG COMMAND...: runs a runner with BENCH_RAW_OUT, its report to
# $raw/NAME.md and its progress to the terminal; tags its raw lines.
step() {
  local name=$1 tag=$2 t0 l0 rc
  shift 2
  t0=$(date +%s) l0=$(cut -d' ' -f1 /proc/loadavg)
  echo "== $name: $*" >&2
  BENCH_RAW_OUT=$raw/$name.raw "$@" >"$raw/$name.md"
  rc=$?
  [[ $rc -eq 0 ]] || { echo "== $name: exit $rc" >&2; failed=1; }
  [[ -f $raw/$name.raw ]] && sed "s/^/$tag /" "$raw/$name.raw" >>"$all"
  finish "$name" "$t0" "$l0"
}
finish() {   # NAME START_EPOCH LOAD_BEFORE: one meta line for the page
  echo "meta step=$1 start=$(date -u -d "@$2" '+%H:%M') end=$(date -u '+%H:%M') secs=$(( $(date +%s) - $2 )) load0=$3 load1=$(cut -d' ' -f1 /proc/loadavg)" >>"$all"
}
# prog TAG CONFIG ENV... -- BINARY ARGS...: one run of a small program; its
# key=value line, prefixed by the tag and config=CONFIG, goes to the raw
# lines; stderr to $raw/TAG.err (stock's GC_PRINT_STATS lines are counted).
prog() {
  local tag=$1 config=$2 envs=() line rc
  shift 2
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  printf '%s %s %s ... ' "$tag" "$config" "${*:2}" >&2
  line=$(env -u LD_PRELOAD -u LD_LIBRARY_PATH GC_MARKERS=1 "${envs[@]}" timeout 600 "$@" 2>"$raw/$tag.err" | tail -1)
  rc=$?
  if [[ -z $line ]]; then
    echo "FAILED" >&2; sed 's/^/    /' "$raw/$tag.err" | tail -5 >&2
    echo "$tag failed config=$config" >>"$all"; failed=1; return
  fi
  local ov
  ov=$(grep -c 'Mark stack overflow' "$raw/$tag.err")
  echo "$line" | grep -o 'rest_med_ms=[0-9.]*\|med_us=[0-9.]*' | head -1 >&2
  echo "$tag config=$config overflows=$ov ${line#* }" >>"$all"
}

# ---- paper 000: markheap --------------------------------------------------
mh() { "$here/run-markheap.sh" -b "$build" -c 0 -o "$raw/mh-docs" "$@"; }
step markheap-small mh mh -s "$mh_small" -r "$mh_r" -n "$mh_n"
step markheap-big mh mh -s "$mh_big" -r "$mh_big_r" -n "$mh_big_n"
step markheap-static mhs mh -s "$mh_small" -r "$mh_static_r" -n "$mh_n" -C "bibop" -t 0
step markheap-static9 mhs mh -s "$mh_small" -r "$mh_static_r" -n "$mh_n" -C "bibop" -t 9
step markheap-seq mhq mh -s "$mh_small" -r 1 -n "$mh_n" -C "bibop bibop-nopf stock" -l seq

# ---- paper 001: boxroots ----------------------------------------------------
step boxroot box env CHURN_ARGS="$box_churn" SCAN_ARGS="$box_scan" "$here/run-boxroot.sh" "$box_rounds" "$build"

# ---- paper 002: GMP ---------------------------------------------------------
step gmp gmp env GMP_LISTINGS="1 2 3" GMP_VARIANTS="plain stock-final bibop-none bibop-account" \
  GMP_ARGS="$gmp_args" "$here/run-gmp.sh" "$gmp_rounds" "$build"

# ---- paper 003: structure vectors -------------------------------------------
step svector svt env SVT1_SCALE="$svt_scale" "$here/run-svector.sh" "$svt_rounds" "$build"

# ---- paper 004: GCBench, pointer checks, mark stack, thread stopping --------
step gcbench gcb env GCBENCH_ARGS="$gcb_args" "$here/run-gcbench.sh" "$gcb_rounds" "$build"
step pagetable pt "$here/run-pagetable.sh" "$pt_rounds" "$build"

t0=$(date +%s) l0=$(cut -d' ' -f1 /proc/loadavg)
echo "== markstack" >&2
for ((r = 1; r <= ms_rounds; r++)); do
  for shape in list tree comb; do
    prog ms bibop -- "$build/bench/markstack_bibop" -k "$shape" -N "$ms_objects" -n 4
    prog ms stock GC_PRINT_STATS=1 -- "$build/bench/markstack_stock" -k "$shape" -N "$ms_objects" -n 4
  done
  prog ms bibop-nopf BIBOP_PREFETCH=0 -- "$build/bench/markstack_bibop" -k comb -N "$ms_objects" -n 4
  prog ms bibop-fixed BIBOP_MARK_STACK_MAX=65536 -- "$build/bench/markstack_bibop" -k comb -N "$ms_objects" -n 4
  prog ms bibop-nopf-fixed BIBOP_PREFETCH=0 BIBOP_MARK_STACK_MAX=65536 -- \
    "$build/bench/markstack_bibop" -k comb -N "$ms_objects" -n 4
done
finish markstack "$t0" "$l0"

t0=$(date +%s) l0=$(cut -d' ' -f1 /proc/loadavg)
echo "== stopworld" >&2
for ((r = 1; r <= sw_rounds; r++)); do
  for v in bibop stock; do
    for t in 0 1 4 16; do prog sw "$v" -- "$build/bench/stopworld_$v" -T "$t" -n "$sw_gcs"; done
    prog sw "$v" -- "$build/bench/stopworld_$v" -T 1 -m busy -n "$sw_gcs"
  done
done
finish stopworld "$t0" "$l0"

# ---- the page ---------------------------------------------------------------
secs=$(( $(date +%s) - start_all ))
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
mhz=$(awk -F': *' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
{
  echo "machine cpu=${cpu// /_} mhz=${mhz:-0} nproc=$(nproc) mem_gb=$(awk '/MemTotal/ {printf "%.0f", $2/1048576}' /proc/meminfo)" \
       "kernel=$(uname -r) thp=${thp:-unknown} date=$(date -u '+%Y-%m-%d') start=$(date -u -d "@$start_all" '+%H:%M')" \
       "end=$(date -u '+%H:%M') secs=$secs load0=${load_all0// /,} load1=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)" \
       "quick=$quick mh_r=$mh_r mh_big_r=$mh_big_r mh_static_r=$mh_static_r box_rounds=$box_rounds gmp_rounds=$gmp_rounds svt_rounds=$svt_rounds svt_scale=$svt_scale gcb_rounds=$gcb_rounds gcb_args=${gcb_args// /_} ms_rounds=$ms_rounds sw_rounds=$sw_rounds sw_gcs=$sw_gcs libbibop=$(ldd "$build/bench/gcbench_bibop" | awk '/libbibop/ { print $3; exit }')" \
       "commit=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >>"$all"
mkdir -p "$(dirname "$out")"
awk -f "$here/papers.awk" "$all" >"$out.tmp" && mv "$out.tmp" "$out" || { echo "papers.awk failed" >&2; exit 1; }
cat "$out"
echo "wrote $out in ${secs} s${PAPERS_KEEP:+; raw lines and reports in $raw}" >&2
exit $failed
