#!/usr/bin/env bash
# run-gcbench.sh: runs gcbench (bench/gcbench.c) on bibop, stock libgc1 and
# glibc malloc side by side, alternating bibop, stock, malloc, bibop, ... for
# R rounds so that machine noise hits every variant alike, and prints a
# Markdown table of medians (wall time, peak RSS, collections, total and
# maximum pause) with the ratios to stock, plus the machine and the date.
#
# usage: bench/run-gcbench.sh [ROUNDS] [BUILD_DIR]     (defaults: 5 ./build)
#   Binaries are looked up in BUILD_DIR/bench, then BUILD_DIR; variants that
#   were not built are reported as such.  GCBENCH_ARGS is passed to every
#   run (e.g. GCBENCH_ARGS="-r 3").  A run that fails its self-check (or
#   prints no result) makes the variant FAILED and the script exit 1.
#   BENCH_RAW_OUT=FILE also writes the raw result lines there.
# Needs only bash, awk and coreutils.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_args 5 "$@"

variants=(bibop stock malloc)
declare -A bin
find_variants gcbench "${variants[@]}"

results=$(mktemp)
errlog=$(mktemp)
trap 'rm -f "$results" "$errlog"' EXIT
failed=0

for ((r = 1; r <= rounds; r++)); do
  for v in "${present[@]}"; do
    printf 'round %d/%d: %s ... ' "$r" "$rounds" "$v" >&2
    # A clean environment: the stock binary must load the stock libgc.so.1.
    # shellcheck disable=SC2086
    out=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD "${bin[$v]}" ${GCBENCH_ARGS:-} 2>"$errlog")
    rc=$?
    line=$(printf '%s\n' "$out" | grep -m1 "^gcbench variant=$v ")
    if [[ $rc -ne 0 || -z $line ]]; then
      echo "FAILED (exit $rc)" >&2
      sed 's/^/    /' "$errlog" >&2
      echo "failed variant=$v" >>"$results"
      failed=1
    else
      echo "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^wall_s=/) print substr($i, 8) " s" }' >&2
      echo "$line" >>"$results"
    fi
  done
done

# BENCH_RAW_OUT=FILE: keep a copy of the raw result lines (run-papers.sh reads them).
[[ -n ${BENCH_RAW_OUT:-} ]] && cp "$results" "$BENCH_RAW_OUT"
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo
echo "### gcbench: bibop vs stock libgc1 vs glibc malloc"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, kernel $(uname -r)"
echo "- rounds: $rounds, alternating ${present[*]}; medians shown${GCBENCH_ARGS:+; args: $GCBENCH_ARGS}"
echo

awk -v order="${variants[*]}" -v built="${present[*]}" '
function median(v, key, n,    a, i, j, t, k) {
  if (n == 0) return "n.a."
  for (i = 1; i <= n; i++) {
    if (vals[v, key, i] == "n.a.") return "n.a."
    a[i] = vals[v, key, i] + 0
  }
  for (i = 2; i <= n; i++) {          # insertion sort, n is small
    t = a[i]
    for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
    a[j + 1] = t
  }
  k = int((n + 1) / 2)
  return (n % 2) ? a[k] : (a[k] + a[k + 1]) / 2
}
function fmt(x, spec) { return (x == "n.a.") ? "n.a." : sprintf(spec, x) }
function ratio(x, y) {
  return (x == "n.a." || y == "n.a." || y + 0 == 0) ? "n.a." : sprintf("%.2f", x / y)
}
$1 == "failed" { split($2, kv, "="); fails[kv[2]]++; next }
$1 == "gcbench" {
  delete f
  for (i = 2; i <= NF; i++) {
    p = index($i, "=")
    f[substr($i, 1, p - 1)] = substr($i, p + 1)
  }
  v = f["variant"]; n = ++count[v]
  vals[v, "wall", n] = f["wall_s"]
  vals[v, "rss", n] = f["maxrss_kib"] / 1024
  vals[v, "gc", n] = f["gc_no"]
  vals[v, "ptot", n] = f["pause_total_ms"]
  vals[v, "pmax", n] = f["pause_max_ms"]
  lib[v] = f["lib"]
}
END {
  nv = split(order, vs, " ")
  for (i = 1; i <= nv; i++) {
    v = vs[i]
    split("wall rss gc ptot pmax", keys, " ")
    for (k = 1; k <= 5; k++) med[v, keys[k]] = median(v, keys[k], count[v] + 0)
  }
  print "| variant | runs | wall time (s) | peak RSS (MiB) | collections | total pause (ms) | max pause (ms) | time / stock | RSS / stock |"
  print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (i = 1; i <= nv; i++) {
    v = vs[i]
    if (index(" " built " ", " " v " ") == 0) {
      printf "| %s | 0 | not built | | | | | | |\n", v
      continue
    }
    if (fails[v] > 0) {
      printf "| %s | %d | FAILED (%d of %d runs) | | | | | | |\n", v, count[v] + 0, fails[v], fails[v] + count[v]
      continue
    }
    printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", v, count[v],
      fmt(med[v, "wall"], "%.3f"), fmt(med[v, "rss"], "%.1f"),
      (v == "malloc") ? "n.a." : fmt(med[v, "gc"], "%d"),
      fmt(med[v, "ptot"], "%.1f"), fmt(med[v, "pmax"], "%.2f"),
      (count["stock"] && !fails["stock"]) ? ratio(med[v, "wall"], med["stock", "wall"]) : "n.a.",
      (count["stock"] && !fails["stock"]) ? ratio(med[v, "rss"], med["stock", "rss"]) : "n.a."
  }
  print ""
  printf "Collections = GC_get_gc_no() at exit (includes the one GC_init does); pauses are GC_EVENT_START to GC_EVENT_END. Libraries:"
  for (i = 1; i <= nv; i++) if (vs[i] in lib) printf " %s=`%s`", vs[i], lib[vs[i]]
  print ""
}' "$results"

exit $failed
