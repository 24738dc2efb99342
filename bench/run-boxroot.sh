#!/usr/bin/env bash
# run-boxroot.sh: runs the boxroot benchmarks (boxroot_fixpoint.c,
# boxroot_churn.c in random and in LIFO order, boxroot_scan.c) on bibop and
# on stock libgc1, alternating bibop, stock, bibop, ... for R rounds, and
# prints Markdown tables of the medians over the rounds, the machine, the
# load average and the date, and whether the targets of the boxroot issue
# are met.
#
# usage: bench/run-boxroot.sh [ROUNDS] [BUILD_DIR]   (defaults: 3 ./build)
#   Binaries are looked up in BUILD_DIR/bench, then BUILD_DIR.
#   FIXPOINT_ARGS (default "-t 100"), CHURN_ARGS (e.g. "-p 2000000"),
#   SCAN_ARGS (e.g. "-m 500000 -k 9") are passed to every run.
#   BOXROOT_BIBOP_LIBDIR=DIR runs the *_bibop binaries with
#   LD_LIBRARY_PATH=DIR (e.g. the build/lib of a patched bibop); the header
#   says which libbibop was used. The *_stock binaries always run in a clean
#   environment. RUN_TIMEOUT: seconds before a run counts as hung (300).
#   A run that fails its self-check (or crashes) is reported, its figures
#   are left out, and the script exits 1.
#   BENCH_RAW_OUT=FILE also writes the raw result lines there.
# About 40-60 s per round on 2 CPUs. Needs only bash, awk and coreutils.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_args 3 "$@"
tmo=${RUN_TIMEOUT:-300}
fixpoint_args=${FIXPOINT_ARGS--t 100}
churn_args=${CHURN_ARGS:-}
scan_args=${SCAN_ARGS:-}
bibop_libdir=${BOXROOT_BIBOP_LIBDIR:-}

progs=(fixpoint churn scan)
runs=(fixpoint churn churn_lifo scan)   # churn_lifo: boxroot_churn -o lifo
collectors=(bibop stock)
declare -A bin
nbin=0
for p in "${progs[@]}"; do
  for c in "${collectors[@]}"; do
    if b=$(find_bin "boxroot_${p}_$c"); then bin[$p,$c]=$b; nbin=$((nbin + 1)); fi
  done
done
if [[ $nbin -eq 0 ]]; then
  echo "no boxroot_* benchmark binaries under $build (build them first)" >&2
  exit 2
fi

results=$(mktemp)
out=$(mktemp)
errlog=$(mktemp)
trap 'rm -f "$results" "$out" "$errlog"' EXIT
failed=0

# run PROG COLLECTOR ARGS...
run() {
  local p=$1 c=$2 rc why
  shift 2
  printf 'round %d/%d: %s %s ... ' "$r" "$rounds" "$p" "$c" >&2
  if [[ $c == bibop && -n $bibop_libdir ]]; then
    env -u LD_PRELOAD LD_LIBRARY_PATH="$bibop_libdir" \
      timeout -k 10 "$tmo" "${bin[$p,$c]}" "$@" >"$out" 2>"$errlog"
  else
    env -u LD_LIBRARY_PATH -u LD_PRELOAD \
      timeout -k 10 "$tmo" "${bin[$p,$c]}" "$@" >"$out" 2>"$errlog"
  fi
  rc=$?
  if [[ $rc -ne 0 ]] || ! grep -q "^$p collector=$c " "$out"; then
    why="exit $rc"
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then why="timed out after ${tmo} s: hung?"; fi
    if [[ $rc -gt 128 && $rc -lt 160 && $rc -ne 137 ]]; then why="killed by signal $((rc - 128))"; fi
    echo "FAILED ($why)" >&2
    sed 's/^/    /' "$errlog" >&2
    echo "failed prog=$p collector=$c" >>"$results"
    failed=1
  else
    echo "ok" >&2
    grep "^$p collector=$c " "$out" >>"$results"
  fi
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= rounds; r++)); do
  for run_name in "${runs[@]}"; do
    p=$run_name
    case $run_name in
      fixpoint) args=$fixpoint_args ;;
      churn) args=$churn_args ;;
      churn_lifo) p=churn; args="-o lifo $churn_args" ;;
      *) args=$scan_args ;;
    esac
    for c in "${collectors[@]}"; do
      # shellcheck disable=SC2086
      [[ -n ${bin[$p,$c]:-} ]] && run "$p" "$c" $args
    done
  done
done
# BENCH_RAW_OUT=FILE: keep a copy of the raw result lines (run-papers.sh reads them).
[[ -n ${BENCH_RAW_OUT:-} ]] && cp "$results" "$BENCH_RAW_OUT"
load1=$(cut -d' ' -f1-3 /proc/loadavg)

libbibop="n.a."
if [[ -n ${bin[fixpoint,bibop]:-} ]]; then
  if [[ -n $bibop_libdir ]]; then
    libbibop=$(LD_LIBRARY_PATH="$bibop_libdir" ldd "${bin[fixpoint,bibop]}" 2>/dev/null | awk '/libbibop/ { print $3; exit }')
  else
    libbibop=$(env -u LD_LIBRARY_PATH ldd "${bin[fixpoint,bibop]}" 2>/dev/null | awk '/libbibop/ { print $3; exit }')
  fi
fi
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)

echo
echo "### Boxroot benchmarks (fixpoint, churn, scan)"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, kernel $(uname -r); load average before/after: ${load0} / ${load1}"
echo "- rounds: $rounds, alternating bibop and stock; every figure is the median over the rounds"
echo "- bibop library: ${libbibop:-n.a.}${bibop_libdir:+ (BOXROOT_BIBOP_LIBDIR=$bibop_libdir)}; stock: /usr/lib/x86_64-linux-gnu/libgc.so.1"
echo "- args: fixpoint '${fixpoint_args}', churn '${churn_args}', scan '${scan_args}'"
echo "- times are process CPU time (time spent descheduled on a shared machine does not count); wall-clock figures are in the last columns"

awk '
function median(key, n,    a, i, j, t, k) {
  for (i = 1; i <= n; i++) a[i] = vals[key, i] + 0
  for (i = 2; i <= n; i++) {
    t = a[i]
    for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
    a[j + 1] = t
  }
  k = int((n + 1) / 2)
  return (n % 2) ? a[k] : (a[k] + a[k + 1]) / 2
}
function has(key) { return (key in cnt) }
function med(key) { return median(key, cnt[key]) }
function cell(key, fmt) { return has(key) ? sprintf(fmt, med(key)) : "n.a." }
function add(key, v) { vals[key, ++cnt[key]] = v }
$1 == "failed" {
  delete f
  for (i = 2; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
  fails[f["prog"] " " f["collector"]]++
  next
}
{
  delete f
  for (i = 2; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
  c = f["collector"]; v = f["variant"]
}
$1 == "fixpoint" {
  k = c SUBSEP v SUBSEP f["n"]
  add("fx_call" SUBSEP k, f["ns_per_call"])
  add("fx_wall" SUBSEP k, f["wall_ns_per_call"])
  if (f["ns_per_root_op"] != "-") add("fx_op" SUBSEP k, f["ns_per_root_op"])
  ops[k] = f["root_ops_per_call"]
  if (!((c SUBSEP v) in fxrow)) { fxrow[c SUBSEP v] = 1; fxrows[++nfx] = c SUBSEP v }
}
$1 == "churn" {
  o = f["order"]
  k = c SUBSEP v SUBSEP f["threads"] SUBSEP o
  add("ch_pair" SUBSEP k, f["ns_per_pair"])
  add("ch_net" SUBSEP k, f["net_ns_per_pair"])
  add("ch_wall" SUBSEP k, f["wall_ns_per_pair"])
  if (!((c SUBSEP v) in chrow)) { chrow[c SUBSEP v] = 1; chrows[++nch] = c SUBSEP v }
  if (!(f["threads"] in thr)) { thr[f["threads"]] = 1; thrs[++nthr] = f["threads"] }
  pairs = f["pairs"]; live = f["live"]
}
$1 == "scan" {
  k = c SUBSEP v
  add("sc_none" SUBSEP k, f["gc_ms_none"])
  add("sc_roots" SUBSEP k, f["gc_ms_roots"])
  add("sc_ns" SUBSEP k, f["ns_per_root"])
  add("sc_wns" SUBSEP k, f["wall_ns_per_root"])
  add("sc_wnone" SUBSEP k, f["wall_gc_ms_none"])
  add("sc_wroots" SUBSEP k, f["wall_gc_ms_roots"])
  if (!(k in scrow)) { scrow[k] = 1; scrows[++nsc] = k }
  roots = f["roots"]
}
END {
  print ""
  for (x in fails) printf "**%s FAILED (self-check, crash or hang) in %d run(s); its figures are left out.**\n\n", x, fails[x]

  nn = split("1 5 10 1000", N, " ")
  print "#### fixpoint: ns per top-level call (ns per root operation, net of `local`)"
  print ""
  print "Recursion N deep, one allocating callback per level; root operations per call in brackets after the variant."
  print ""
  hdr = "| collector | variant (root ops at N=1/5/10/1000) |"; sep = "|---|---|"
  for (i = 1; i <= nn; i++) { hdr = hdr " N=" N[i] " |"; sep = sep "---:|" }
  print hdr " wall ns/call N=5 |"; print sep "---:|"
  for (r = 1; r <= nfx; r++) {
    split(fxrows[r], cv, SUBSEP)
    o = ""
    for (i = 1; i <= nn; i++) o = o (i > 1 ? "/" : "") ops[cv[1] SUBSEP cv[2] SUBSEP N[i]]
    line = "| " cv[1] " | " cv[2] " (" o ") |"
    for (i = 1; i <= nn; i++) {
      k = cv[1] SUBSEP cv[2] SUBSEP N[i]
      s = cell("fx_call" SUBSEP k, "%.1f")
      if (has("fx_op" SUBSEP k)) s = s sprintf(" (%.1f)", med("fx_op" SUBSEP k))
      line = line " " s " |"
    }
    print line " " cell("fx_wall" SUBSEP cv[1] SUBSEP cv[2] SUBSEP 5, "%.1f") " |"
  }
  print ""

  printf "#### churn: ns per create+delete pair (%s pairs, %s live; random order, and LIFO: delete the top k = 1..64, create k)\n\n", pairs, live
  print "`net` subtracts the `loop` variant (same loop, no root operation) at the same thread count; wall = wall time / pairs (throughput)."
  print ""
  hdr = "| order | collector | variant |"; sep = "|---|---|---|"
  for (t = 1; t <= nthr; t++) { hdr = hdr " " thrs[t] " thr: ns | net | wall |"; sep = sep "---:|---:|---:|" }
  print hdr; print sep
  no = split("random lifo", orders, " ")
  for (oi = 1; oi <= no; oi++)
  for (r = 1; r <= nch; r++) {
    split(chrows[r], cv, SUBSEP)
    line = "| " orders[oi] " | " cv[1] " | " cv[2] " |"
    for (t = 1; t <= nthr; t++) {
      k = cv[1] SUBSEP cv[2] SUBSEP thrs[t] SUBSEP orders[oi]
      line = line " " cell("ch_pair" SUBSEP k, "%.2f") " | " cell("ch_net" SUBSEP k, "%.2f") " | " cell("ch_wall" SUBSEP k, "%.2f") " |"
    }
    print line
  }
  print ""

  printf "#### scan: full collection with %s live roots vs the same heap without them\n\n", roots
  print "| collector | roots | GC ms without | GC ms with | ns per live root | wall GC ms without / with | wall ns per root |"
  print "|---|---|---:|---:|---:|---:|---:|"
  for (r = 1; r <= nsc; r++) {
    split(scrows[r], cv, SUBSEP)
    k = cv[1] SUBSEP cv[2]
    print "| " cv[1] " | " cv[2] " | " cell("sc_none" SUBSEP k, "%.2f") " | " cell("sc_roots" SUBSEP k, "%.2f") " | " \
          cell("sc_ns" SUBSEP k, "%.2f") " | " cell("sc_wnone" SUBSEP k, "%.2f") " / " cell("sc_wroots" SUBSEP k, "%.2f") " | " \
          cell("sc_wns" SUBSEP k, "%.2f") " |"
  }
  print ""

  print "#### targets of the boxroot issue"
  print ""
  for (oi = 1; oi <= no; oi++) {
    k = "ch_net" SUBSEP "bibop" SUBSEP "boxroot" SUBSEP 1 SUBSEP orders[oi]
    if (has(k)) printf "- create+delete pair <= 5 ns on one thread, %s order: %s (%.2f ns net, %.2f ns raw)\n", orders[oi], (med(k) <= 5 ? "met" : "NOT met"), med(k), med("ch_pair" SUBSEP "bibop" SUBSEP "boxroot" SUBSEP 1 SUBSEP orders[oi])
    else printf "- create+delete pair <= 5 ns on one thread, %s order: n.a.\n", orders[oi]
  }
  for (t = 1; t <= nthr; t++) {
    a = "ch_net" SUBSEP "stock" SUBSEP "uncollectable" SUBSEP thrs[t] SUBSEP "random"
    b = "ch_net" SUBSEP "bibop" SUBSEP "boxroot" SUBSEP thrs[t] SUBSEP "random"
    if (has(a) && has(b) && med(b) > 0)
      printf "- boxroots >= 10x faster than uncollectable cells on stock libgc1 (churn, random order, %s thr): %s (%.1fx)\n", thrs[t], (med(a) / med(b) >= 10 ? "met" : "NOT met"), med(a) / med(b)
    else printf "- boxroots >= 10x faster than uncollectable cells on stock libgc1 (churn, %s thr): n.a.\n", thrs[t]
  }
  k = "sc_ns" SUBSEP "bibop" SUBSEP "boxroot"
  if (has(k)) printf "- scanning <= 2 ns per live root: %s (%.2f ns CPU, %.2f ns wall)\n", (med(k) <= 2 ? "met" : "NOT met"), med(k), med("sc_wns" SUBSEP "bibop" SUBSEP "boxroot")
  else print "- scanning <= 2 ns per live root: n.a."
}' "$results"

exit $failed
