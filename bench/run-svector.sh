#!/usr/bin/env bash
# run-svector.sh: Table 1 of Cérat and Feeley, "Structure Vectors and their
# Implementation" (Scheme '14), measured on bibop (bench/svector_table1.c).
#
# Every benchmark runs in four configurations in the same invocation, one
# process per run, alternated within each round so that machine noise hits
# them alike:
#   baseline/bibop   individually allocated structures (bibop_struct_new)
#   baseline/stock   GC_MALLOC'd structures with a type-pointer header word,
#                    on stock libgc1 (svector_table1_stock)
#   svector/bibop    one structure vector (bibop_svector_new)
#   vector/bibop     plain arrays of fields (the paper's "vector" column)
# Each figure is the paper's statistic: drop the highest and the lowest run
# (when there are at least 3), geometric mean of the rest. Times are process
# CPU time (all threads, user + system) by default, which stays meaningful
# on a shared, loaded machine; SVT1_CLOCK=wall reports wall-clock time
# instead (stock libgc1 marks with a helper thread, bibop alone in these
# single-threaded programs: wall time credits stock with the second CPU). Ratios are to the
# bibop baseline (the paper's ratio) and, in brackets, to the stock one.
# Prints a Markdown table with the machine, the date and the load average,
# the paper's 64-bit figures for comparison, and the targets met or not.
#
# usage: bench/run-svector.sh [ROUNDS] [BUILD_DIR]      (defaults: 5 ./build)
#   SVT1_SCALE=x    scale every size (default 1; e.g. 0.1 for a quick look)
#   SVT1_BENCHES="alloc qsort ..."   a subset (default: all of them)
#   SVT1_CLOCK=cpu|wall   which clock the table shows (default cpu)
#   RUN_TIMEOUT=s   seconds before a run counts as hung (default 300)
#   BENCH_RAW_OUT=FILE   also write the raw result lines there
#   SVT1_CORRUPT=1  (passed to the programs) damage every result after the
#                   clock stops: every cell must then be FAILED
# A run that fails its self-check (it then prints no result) makes its cell
# FAILED and the script exit 1. Needs bash, awk, coreutils.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_args 5 "$@"
scale=${SVT1_SCALE:-1}
clock=${SVT1_CLOCK:-cpu}
if [[ $clock != cpu && $clock != wall ]]; then
  echo "SVT1_CLOCK must be cpu or wall" >&2
  exit 2
fi
timeout_s=${RUN_TIMEOUT:-300}

bibop_bin=$(find_bin svector_table1_bibop) || {
  echo "svector_table1_bibop not found under $build (build it first)" >&2
  exit 2
}
stock_bin=$(find_bin svector_table1_stock) || stock_bin=""

all_benches="alloc alloc20 access set type prop hull dsort qsort hull-safe qsort-safe"
benches=${SVT1_BENCHES:-$all_benches}

# The versions a benchmark has (from the program itself).
declare -A has
while read -r b vs; do has[$b]=" $vs "; done < <("$bibop_bin" list)

results=$(mktemp)
errlog=$(mktemp)
trap 'rm -f "$results" "$errlog"' EXIT
failed=0
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u '+%Y-%m-%d %H:%M UTC')

run_one() {   # bench lib version binary
  local out rc line
  # A clean environment: the stock binary must load the stock libgc.so.1.
  out=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD timeout "$timeout_s" "$4" "$1" "$3" -s "$scale" 2>"$errlog")
  rc=$?
  line=$(printf '%s\n' "$out" | grep -m1 "^svt1 lib=$2 bench=$1 version=$3 ")
  if [[ $rc -ne 0 || -z $line ]]; then
    echo "FAILED (exit $rc)" >&2
    sed 's/^/    /' "$errlog" >&2
    echo "failed $1 $2 $3" >>"$results"
    failed=1
  else
    echo "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^(time|wall)=/) printf "%s s ", $i; print "" }' >&2
    echo "$line" >>"$results"
  fi
}

for ((r = 1; r <= rounds; r++)); do
  for b in $benches; do
    if [[ -z ${has[$b]:-} ]]; then echo "unknown benchmark $b" >&2; exit 2; fi
    for cfg in baseline:bibop baseline:stock svector:bibop vector:bibop; do
      v=${cfg%%:*} lib=${cfg##*:}
      [[ ${has[$b]} == *" $v "* ]] || continue
      bin=$bibop_bin
      if [[ $lib == stock ]]; then
        [[ -n $stock_bin ]] || continue
        bin=$stock_bin
      fi
      printf 'round %d/%d: %s %s/%s ... ' "$r" "$rounds" "$b" "$v" "$lib" >&2
      run_one "$b" "$lib" "$v" "$bin"
    done
  done
done

# BENCH_RAW_OUT=FILE: keep a copy of the raw result lines (run-papers.sh reads them).
[[ -n ${BENCH_RAW_OUT:-} ]] && cp "$results" "$BENCH_RAW_OUT"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo
echo "### Structure vectors: Table 1 of Cérat and Feeley (Scheme '14) on bibop"
echo
echo "- date: $started"
echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, kernel $(uname -r)"
echo "- load average (1, 5, 15 min): $load_before before, $load_after after"
echo "- rounds: $rounds (one process per run, configurations alternated); figure = geometric mean after dropping the highest and lowest run; scale $scale"
if [[ $clock == cpu ]]; then
  echo "- clock: process CPU time (user + system, all threads), seconds"
else
  echo "- clock: wall time (CLOCK_MONOTONIC), seconds"
fi
echo "- binaries: \`$bibop_bin\` (bibop), \`${stock_bin:-not built}\` (stock libgc1)"
echo

awk -v benches="$benches" -v have_stock="${stock_bin:+1}" -v clock="$clock" '
function gmean(key,    n, i, j, t, a, lo, hi, s, m) {
  n = cnt[key] + 0
  if (n == 0) return ""
  for (i = 1; i <= n; i++) a[i] = val[key, i] + 0
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  lo = 1; hi = n
  if (n >= 3) { lo = 2; hi = n - 1 }
  s = 0; m = 0
  for (i = lo; i <= hi; i++) { s += log(a[i] > 1e-6 ? a[i] : 1e-6); m++ }
  return exp(s / m)
}
function cell(b, v, lib, metric,    k) {
  k = b SUBSEP v SUBSEP lib
  if (k in fails) return "FAILED"
  return gmean(b SUBSEP v SUBSEP lib SUBSEP metric)
}
function secs(x) {
  if (x == "") return "—"
  if (x == "FAILED") return x
  return sprintf(x < 0.01 ? "%.5f" : "%.3f", x)
}
function ratio(x, y) {
  if (x == "" || y == "" || x == "FAILED" || y == "FAILED" || y + 0 <= 0) return ""
  return x / y
}
function rfmt(x) { return x == "" ? "" : sprintf("%.2f", x) }
$1 == "failed" { fails[$2 SUBSEP $4 SUBSEP $3] = 1; next }
$1 == "svt1" {
  delete f
  for (i = 2; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
  split("time gc noinit", ms, " ")
  split(clock == "wall" ? "wall gc_wall noinit_wall" : "time gc noinit", src, " ")
  for (m = 1; m <= 3; m++) {
    k = f["bench"] SUBSEP f["version"] SUBSEP f["lib"] SUBSEP ms[m]
    val[k, ++cnt[k]] = f[src[m]]
  }
}
END {
  # Rows: label, bench, metric, paper 64-bit baseline, svector, ratio, vector, ratio.
  nrow = split("structure alloc|alloc|time|72.01|1.42|.02|3.07|.04;" \
               "structure20 alloc|alloc20|time|5.17|.65|.12|1.40|.27;" \
               "structure20 alloc gc|alloc20|gc|4.55|.00|.00|.00|.00;" \
               "structure20 alloc no-init|alloc20|noinit|5.23|.57|.11|1.40|.27;" \
               "structure access|access|time|1.24|1.84|1.48|.63|.51;" \
               "structure set!|set|time|4.19|1.24|.30|2.14|.51;" \
               "type access|type|time|1.85|8.35|4.51||;" \
               "prop-access|prop|time|.93|.94|1.01|.63|.68;" \
               "convex envelope|hull|time|.62|.55|.89||;" \
               "distance sort|dsort|time|3.52|3.00|.85||;" \
               "quicksort|qsort|time|.81|.85|1.05||;" \
               "convex envelope safe|hull-safe|time|5.50|5.95|1.08||;" \
               "quicksort safe|qsort-safe|time|1.71|3.58|2.09||", rows, ";")
  print "| benchmark | baseline bibop (s) | baseline stock (s) | structure vector (s) | ratio (vs stock) | vector (s) | ratio (vs stock) | paper 64-bit: baseline | structure vector (ratio) | vector (ratio) |"
  print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (r = 1; r <= nrow; r++) {
    split(rows[r], c, "|")
    b = c[2]; m = c[3]
    if (index(" " benches " ", " " b " ") == 0) continue
    bb = cell(b, "baseline", "bibop", m); bs = have_stock ? cell(b, "baseline", "stock", m) : ""
    sv = cell(b, "svector", "bibop", m); ve = cell(b, "vector", "bibop", m)
    rsv = ratio(sv, bb); rsvs = ratio(sv, bs); rve = ratio(ve, bb); rves = ratio(ve, bs)
    RBIB[b, m] = rsv; RSTK[b, m] = rsvs
    printf "| %s | %s | %s | %s | %s%s | %s | %s%s | %s | %s (%s) | %s |\n", c[1], secs(bb), secs(bs),
      secs(sv), rfmt(rsv), rsvs == "" ? "" : " (" rfmt(rsvs) ")", secs(ve), rfmt(rve),
      rves == "" ? "" : " (" rfmt(rves) ")", c[4], c[5], c[6], c[7] == "" ? "—" : c[7] " (" c[8] ")"
  }
  print ""
  print "Ratios are structure vector (or vector) time / bibop baseline time, as in the paper; in brackets / stock baseline time. Baselines: bibop_struct_new on bibop; on stock, GC_MALLOC-allocated structures whose first word points at a type descriptor. The gc row is time inside collections (GC_EVENT_START..END); no-init excludes the initial allocation of the reference vector, structure vector or array. Paper: Gambit, 64-bit, 2.2 GHz Core i7, seconds (their sizes differ from ours: compare ratios, not seconds)."
  print ""
  print "| target | measured ratio (vs bibop baseline) | vs stock baseline | met |"
  print "|---|---:|---:|---|"
  nt = split("structure alloc|alloc|time|0.05;structure access|access|time|1.1;type access|type|time|1.5;quicksort|qsort|time|1.0;convex envelope|hull|time|1.0", ts, ";")
  for (t = 1; t <= nt; t++) {
    split(ts[t], c, "|")
    if (index(" " benches " ", " " c[2] " ") == 0) continue
    x = RBIB[c[2], c[3]]; y = RSTK[c[2], c[3]]
    printf "| %s ratio <= %s | %s | %s | %s |\n", c[1], c[4], x == "" ? "n.a." : rfmt(x),
      y == "" ? "n.a." : rfmt(y), x == "" ? "n.a." : (x <= c[4] + 0 ? "yes" : "**no**")
  }
}' "$results"

exit $failed
