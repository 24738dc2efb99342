#!/usr/bin/env bash
# run-mt.sh: runs the multi-threaded benchmarks on bibop and stock libgc1
# (and glibc malloc for mt_gcbench, when built), alternating the variants in
# every round so that machine noise hits them alike, and prints Markdown
# tables of medians with the machine and the date:
#   - mt_gcbench (bench/mt_gcbench.c) with T=2 and T=4 mutator threads: wall
#     time, peak RSS, collections, total and maximum pause, markers in use,
#     and the ratios bibop/stock;
#   - pause (bench/pause.c) with GC_MARKERS=1 and GC_MARKERS=2 in the
#     environment: median and minimum full-collection pause on a ~200 MiB
#     live heap, the ratios bibop/stock, and for each collector the ratio of
#     its 2-marker pause to its 1-marker pause.
# Each round runs, in this order: mt_gcbench T=2 (bibop stock malloc),
# T=4 (same), pause GC_MARKERS=1 (bibop stock), GC_MARKERS=2 (same).
#
# usage: bench/run-mt.sh [ROUNDS] [BUILD_DIR]      (defaults: 5 ./build)
#   About 20 s per round on a 2-CPU machine.  Binaries are looked up in
#   BUILD_DIR/bench, then BUILD_DIR; variants that were not built are
#   reported as such.  Environment:
#     MT_THREADS   thread counts for mt_gcbench     (default "2 4")
#     MT_ARGS      extra mt_gcbench arguments       (e.g. "-r 2")
#     PAUSE_MARKERS  GC_MARKERS values for pause    (default "1 2")
#     PAUSE_ARGS   extra pause arguments            (e.g. "-m 100 -n 5")
#     RUN_TIMEOUT  seconds before a run counts as hung (default 300)
#   mt_gcbench runs with the caller's GC_MARKERS (normally unset: each
#   collector's default); the markers column shows what was in use.
#   A run that fails its self-check, crashes, hangs or prints no result
#   makes that row FAILED and the script exit 1.
# Needs only bash, awk and coreutils.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_args 5 "$@"
threads_list=${MT_THREADS:-2 4}
markers_list=${PAUSE_MARKERS:-1 2}
tmo=${RUN_TIMEOUT:-300}

declare -A bin
mt_present=()
pause_present=()
for v in bibop stock malloc; do
  if b=$(find_bin "mt_gcbench_$v"); then bin[mt,$v]=$b; mt_present+=("$v"); fi
done
for v in bibop stock; do
  if b=$(find_bin "pause_$v"); then bin[pause,$v]=$b; pause_present+=("$v"); fi
done
if [[ ${#mt_present[@]} -eq 0 && ${#pause_present[@]} -eq 0 ]]; then
  echo "no mt_gcbench_* or pause_* binaries under $build (build them first)" >&2
  exit 2
fi

results=$(mktemp)
out=$(mktemp)
errlog=$(mktemp)
trap 'rm -f "$results" "$out" "$errlog"' EXIT
failed=0

# run PROG CONFIG VARIANT ENV-ASSIGNMENT... -- ARGS...
run() {
  local prog=$1 cfg=$2 v=$3 rc line why
  shift 3
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  printf 'round %d/%d: %s %s %s ... ' "$r" "$rounds" "$prog" "$cfg" "$v" >&2
  # A clean environment: the stock binaries must load the stock libgc.so.1.
  env -u LD_LIBRARY_PATH -u LD_PRELOAD "${envs[@]}" \
    timeout -k 10 "$tmo" "${bin[$prog,$v]}" "$@" >"$out" 2>"$errlog"
  rc=$?
  if [[ $prog == mt ]]; then
    line=$(grep -m1 "^mt_gcbench variant=$v " "$out")
  else
    line=$(grep -m1 "^pause variant=$v " "$out")
  fi
  if [[ $rc -ne 0 || -z $line ]]; then
    why="exit $rc"
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then why="timed out after ${tmo} s: hung?"; fi
    if [[ $rc -gt 128 && $rc -lt 160 && $rc -ne 137 ]]; then
      why="killed by signal $((rc - 128))"
    fi
    echo "FAILED ($why)" >&2
    sed 's/^/    /' "$errlog" >&2
    echo "failed prog=$prog cfg=$cfg variant=$v" >>"$results"
    failed=1
  else
    echo "$line" | awk '{ for (i = 2; i <= NF; i++)
      if ($i ~ /^(wall_s|pause_med_ms)=/) print $i }' >&2
    echo "$line" >>"$results"
  fi
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= rounds; r++)); do
  for t in $threads_list; do
    for v in "${mt_present[@]}"; do
      # shellcheck disable=SC2086
      run mt "$t" "$v" -- "$t" ${MT_ARGS:-}
    done
  done
  for m in $markers_list; do
    for v in "${pause_present[@]}"; do
      # shellcheck disable=SC2086
      run pause "$m" "$v" GC_MARKERS="$m" -- ${PAUSE_ARGS:-}
    done
  done
done

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo
echo "### Multi-threaded benchmarks: bibop vs stock libgc1"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, kernel $(uname -r); load average before/after: ${load0} / $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- rounds: $rounds, variants alternating in every round; medians shown"
echo "- mt_gcbench: threads ${threads_list}; GC_MARKERS ${GC_MARKERS:-unset}${MT_ARGS:+; args: $MT_ARGS}"
echo "- pause: GC_MARKERS ${markers_list}${PAUSE_ARGS:+; args: $PAUSE_ARGS}"

awk -v threads="$threads_list" -v markers="$markers_list" \
    -v mt_built="${mt_present[*]}" -v pause_built="${pause_present[*]}" '
function median(key, n,    a, i, j, t, k) {
  if (n == 0) return "n.a."
  for (i = 1; i <= n; i++) {
    if (vals[key, i] == "n.a.") return "n.a."
    a[i] = vals[key, i] + 0
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
  return (x == "n.a." || y == "n.a." || y == "" || x == "" || y + 0 == 0) ? "n.a." : sprintf("%.2f", x / y)
}
function built(list, v) { return index(" " list " ", " " v " ") > 0 }
function ok(g) { return count[g] > 0 && !fails[g] }
function put(g, name, x) { vals[g SUBSEP name, count[g]] = x }
function med(g, name) { return ok(g) ? median(g SUBSEP name, count[g]) : "n.a." }
{
  delete f
  for (i = 2; i <= NF; i++) {
    p = index($i, "=")
    f[substr($i, 1, p - 1)] = substr($i, p + 1)
  }
}
$1 == "failed" { fails[f["prog"] SUBSEP f["cfg"] SUBSEP f["variant"]]++; next }
$1 == "mt_gcbench" {
  g = "mt" SUBSEP f["threads"] SUBSEP f["variant"]; n = ++count[g]
  put(g, "wall", f["wall_s"]); put(g, "rss", f["maxrss_kib"] / 1024)
  put(g, "gc", f["gc_no"]); put(g, "ptot", f["pause_total_ms"])
  put(g, "pmax", f["pause_max_ms"]); put(g, "mk", f["markers"])
  lib[f["variant"]] = f["lib"]
}
$1 == "pause" {
  g = "pause" SUBSEP f["markers_env"] SUBSEP f["variant"]; n = ++count[g]
  put(g, "med", f["pause_med_ms"]); put(g, "min", f["pause_min_ms"])
  put(g, "ev", f["event_med_ms"]); put(g, "mk", f["markers"])
  put(g, "live", f["live_mib"]); put(g, "rss", f["maxrss_kib"] / 1024)
  put(g, "smt", (f["smt"] == "yes") ? 1 : 0)
  lib[f["variant"]] = f["lib"]
}
function failcell(g, ncols,    s, i) {
  s = sprintf("FAILED (%d of %d runs)", fails[g], fails[g] + count[g])
  for (i = 1; i < ncols; i++) s = s " |"
  return s
}
END {
  nt = split(threads, ts, " ")
  nm = split(markers, ms, " ")
  split("bibop stock malloc", vs, " ")

  print ""
  print "#### mt_gcbench: T threads, each with the same fixed work"
  print ""
  print "| threads | variant | runs | wall time (s) | peak RSS (MiB) | collections | total pause (ms) | max pause (ms) | markers | time / stock | RSS / stock | total pause / stock | max pause / stock |"
  print "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (a = 1; a <= nt; a++) {
    s = "mt" SUBSEP ts[a] SUBSEP "stock"
    for (b = 1; b <= 3; b++) {
      v = vs[b]; g = "mt" SUBSEP ts[a] SUBSEP v
      if (!built(mt_built, v)) { printf "| %s | %s | 0 | not built | | | | | | | | | |\n", ts[a], v; continue }
      if (fails[g]) { printf "| %s | %s | %d | %s |\n", ts[a], v, count[g] + 0, failcell(g, 10); continue }
      gcv = (v == "malloc")
      printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
        ts[a], v, count[g], fmt(med(g, "wall"), "%.3f"), fmt(med(g, "rss"), "%.1f"),
        gcv ? "n.a." : fmt(med(g, "gc"), "%d"), fmt(med(g, "ptot"), "%.1f"),
        fmt(med(g, "pmax"), "%.2f"), fmt(med(g, "mk"), "%d"),
        ratio(med(g, "wall"), med(s, "wall")), ratio(med(g, "rss"), med(s, "rss")),
        gcv ? "n.a." : ratio(med(g, "ptot"), med(s, "ptot")),
        gcv ? "n.a." : ratio(med(g, "pmax"), med(s, "pmax"))
    }
  }
  print ""
  print "Collections = GC_get_gc_no() at exit; pauses are GC_EVENT_START to GC_EVENT_END of every collection, whichever thread triggered it; markers = GC_get_parallel() + 1 at exit."

  print ""
  print "#### pause: explicit full collection (GC_gcollect) of a ~200 MiB live heap of small objects"
  print ""
  print "| GC_MARKERS | variant | runs | markers in use | live (MiB) | peak RSS (MiB) | median pause (ms) | min pause (ms) | START..END median (ms) | median / stock | min / stock |"
  print "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for (a = 1; a <= nm; a++) {
    s = "pause" SUBSEP ms[a] SUBSEP "stock"
    for (b = 1; b <= 2; b++) {
      v = vs[b]; g = "pause" SUBSEP ms[a] SUBSEP v
      if (!built(pause_built, v)) { printf "| %s | %s | 0 | not built | | | | | | | |\n", ms[a], v; continue }
      if (fails[g]) { printf "| %s | %s | %d | %s |\n", ms[a], v, count[g] + 0, failcell(g, 8); continue }
      printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
        ms[a], v, count[g], fmt(med(g, "mk"), "%d"), fmt(med(g, "live"), "%.1f"),
        fmt(med(g, "rss"), "%.1f"), fmt(med(g, "med"), "%.2f"), fmt(med(g, "min"), "%.2f"),
        fmt(med(g, "ev"), "%.2f"),
        ratio(med(g, "med"), med(s, "med")), ratio(med(g, "min"), med(s, "min"))
      if (ok(g) && med(g, "smt") == 0) nosmt[v] = 1
    }
  }
  print ""
  print "Each run times one warm-up and then 7 collections (by default) around the GC_gcollect() call and reports their median and minimum; the table shows the medians of those over the runs. markers in use = GC_get_parallel() + 1."
  for (v in nosmt) printf "%s: the library does not define GC_start_mark_threads (not called).\n", v

  if (nm >= 2) {
    m1 = ms[1]; m2 = ms[nm]
    print ""
    printf "#### pause with GC_MARKERS=%s relative to GC_MARKERS=%s\n", m2, m1
    print ""
    printf "| variant | median pause, %s (ms) | median pause, %s (ms) | median %s/%s | min %s/%s |\n", m1, m2, m2, m1, m2, m1
    print "|---|---:|---:|---:|---:|"
    for (b = 1; b <= 2; b++) {
      v = vs[b]
      g1 = "pause" SUBSEP m1 SUBSEP v; g2 = "pause" SUBSEP m2 SUBSEP v
      if (!built(pause_built, v)) { printf "| %s | not built | | | |\n", v; continue }
      if (!ok(g1) || !ok(g2)) { printf "| %s | FAILED | | | |\n", v; continue }
      printf "| %s | %s | %s | %s | %s |\n", v, fmt(med(g1, "med"), "%.2f"),
        fmt(med(g2, "med"), "%.2f"), ratio(med(g2, "med"), med(g1, "med")),
        ratio(med(g2, "min"), med(g1, "min"))
    }
  }

  print ""
  printf "Libraries:"
  for (b = 1; b <= 3; b++) if (vs[b] in lib) printf " %s=`%s`", vs[b], lib[vs[b]]
  print ""
}' "$results"

exit $failed
