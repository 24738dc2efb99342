#!/usr/bin/env bash
# run-gmp.sh: paper 002 (Wang 2006, Caml-GMP) on bibop. Runs listings 2 and
# 3 of the GMP example (examples/gmp) under every memory-management variant,
# alternating the variants in every round, and prints a Markdown table of
# medians (peak RSS, wall time, CPU time, collections) with the machine, the
# date and the load average, then whether the targets are met:
#   - bibop with accounting, listing 2: peak RSS <= 1.5 x plain C and time
#     <= 1.2 x plain C (judged on CPU time, and shown on wall time too: on a
#     loaded machine wall time measures the other jobs as much as ours);
#   - bibop without accounting, listing 2: the paper's failure, a much
#     higher peak RSS (shown when >= 3 x plain C).
#
# Variants (rows):
#   plain          gmp_plain: plain C, reused mpz_t's (listing 6 for listing 2)
#   stock-final    gmp_stock none: stock libgc1, GC handles + finalizers
#   stock-heap     gmp_stock heap: stock libgc1, limbs atomic in its heap
#   bibop-none     gmp_bibop none: bibop, finalizers, no accounting
#   bibop-account  gmp_bibop account: bibop_malloc_external + bibop_resize_external
#   bibop-heap     gmp_bibop heap: bibop, limbs atomic in its heap
#   bibop-hooks    gmp_bibop hooks: GMP memory functions reporting with
#                  bibop_alloc_external/bibop_free_external (extra row)
# Peak RSS is getrusage(RUSAGE_SELF).ru_maxrss inside the program; wall time
# runs from before the collector is initialised to the end; CPU time is
# user + system of the process. Every run's checksum must equal plain C's.
#
# usage: bench/run-gmp.sh [ROUNDS] [BUILD_DIR]      (defaults: 3 ./build)
#   Binaries are looked up in BUILD_DIR/examples/gmp (they are built with the
#   tests: tests/external/CMakeLists.txt includes examples/gmp). About 60 s
#   of CPU per round (default parameters). Environment:
#     GMP_LISTINGS  listings to run          (default "2 3")
#     GMP_ARGS      program arguments        (e.g. "-s", "-p squarings=20")
#     RUN_TIMEOUT   seconds before a run counts as hung (default 600)
#     GMP_VARIANTS  variants to run         (default: all seven)
#     BENCH_RAW_OUT file for a copy of the raw result lines
#   A run that crashes, hangs, prints no result or a wrong checksum makes its
#   row FAILED and the script exit 1.
# Needs only bash, awk and coreutils.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_args 3 "$@"
listings=${GMP_LISTINGS:-2 3}
tmo=${RUN_TIMEOUT:-600}
dir=$build/examples/gmp

configs=(plain stock-final stock-heap bibop-none bibop-account bibop-heap bibop-hooks)
if [[ -n ${GMP_VARIANTS:-} ]]; then read -r -a configs <<<"$GMP_VARIANTS"; fi
declare -A exe mode
exe[plain]=gmp_plain;         mode[plain]=""
exe[stock-final]=gmp_stock;   mode[stock-final]=none
exe[stock-heap]=gmp_stock;    mode[stock-heap]=heap
exe[bibop-none]=gmp_bibop;    mode[bibop-none]=none
exe[bibop-account]=gmp_bibop; mode[bibop-account]=account
exe[bibop-heap]=gmp_bibop;    mode[bibop-heap]=heap
exe[bibop-hooks]=gmp_bibop;   mode[bibop-hooks]=hooks

present=()
for c in "${configs[@]}"; do
  if [[ -x $dir/${exe[$c]} ]]; then present+=("$c"); fi
done
if [[ ! -x $dir/gmp_plain ]]; then
  echo "no $dir/gmp_plain (build the project with its tests first)" >&2
  exit 2
fi

results=$(mktemp)
out=$(mktemp)
errlog=$(mktemp)
trap 'rm -f "$results" "$out" "$errlog"' EXIT
failed=0

# run CONFIG LISTING
run() {
  local c=$1 l=$2 rc line why
  local args=()
  [[ -n ${mode[$c]} ]] && args+=("${mode[$c]}")
  args+=("$l")
  printf 'round %d/%d: listing %s %-13s ... ' "$r" "$rounds" "$l" "$c" >&2
  # A clean environment: gmp_stock must load the stock libgc.so.1.
  # shellcheck disable=SC2086
  env -u LD_LIBRARY_PATH -u LD_PRELOAD \
    timeout -k 10 "$tmo" "$dir/${exe[$c]}" "${args[@]}" ${GMP_ARGS:-} >"$out" 2>"$errlog"
  rc=$?
  line=$(grep -m1 "^listing=$l " "$out")
  if [[ $rc -ne 0 || -z $line ]]; then
    why="exit $rc"
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then why="timed out after ${tmo} s: hung?"; fi
    if [[ $rc -gt 128 && $rc -lt 160 && $rc -ne 137 ]]; then why="killed by signal $((rc - 128))"; fi
    echo "FAILED ($why)" >&2
    sed 's/^/    /' "$errlog" | head -20 >&2
    echo "failed config=$c listing=$l" >>"$results"
    failed=1
  else
    echo "$line" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(time_s|cpu_s|maxrss_kib|gcs)=/) printf "%s ", $i; print "" }' >&2
    echo "run config=$c $line" >>"$results"
  fi
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
date0=$(date -u '+%Y-%m-%d %H:%M UTC')
for ((r = 1; r <= rounds; r++)); do
  for l in $listings; do
    for c in "${present[@]}"; do run "$c" "$l"; done
  done
done
# BENCH_RAW_OUT=FILE: keep a copy of the raw result lines (run-papers.sh reads them).
[[ -n ${BENCH_RAW_OUT:-} ]] && cp "$results" "$BENCH_RAW_OUT"
load1=$(cut -d' ' -f1-3 /proc/loadavg)

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
stocklib=$( [[ -x $dir/gmp_stock ]] && env -u LD_LIBRARY_PATH ldd "$dir/gmp_stock" 2>/dev/null | awk '/libgc\.so/ { print $3; exit }')
gmplib=$(env -u LD_LIBRARY_PATH ldd "$dir/gmp_plain" 2>/dev/null | awk '/libgmp\.so/ { print $3; exit }')
echo
echo "### Paper 002 (GMP): listings 2 and 3, plain C vs stock libgc1 vs bibop"
echo
echo "- date: ${date0}"
echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, kernel $(uname -r)"
echo "- load average before/after: ${load0} / ${load1}"
echo "- rounds: $rounds, variants alternating in every round; medians shown"
echo "- parameters: ${GMP_ARGS:-defaults (listing 2: 22 squarings of 999, 11 times; listing 3: the same with fact 2600 after every squaring and fact 26000 after every calc)}"
echo "- libraries: GMP \`${gmplib:-?}\`; stock \`${stocklib:-not built}\`; bibop from \`$build/lib\`"

awk -v listings="$listings" -v present="${present[*]}" -v order="${configs[*]}" '
function median(key, n,    a, i, j, t, k) {
  if (n == 0) return "n.a."
  for (i = 1; i <= n; i++) a[i] = vals[key, i] + 0
  for (i = 2; i <= n; i++) {
    t = a[i]
    for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
    a[j + 1] = t
  }
  k = int((n + 1) / 2)
  return (n % 2) ? a[k] : (a[k] + a[k + 1]) / 2
}
function fmt(x, spec) { return (x == "n.a.") ? "n.a." : sprintf(spec, x) }
function ratio(x, y) { return (x == "n.a." || y == "n.a." || y + 0 == 0) ? "n.a." : sprintf("%.2f", x / y) }
function isin(list, v) { return index(" " list " ", " " v " ") > 0 }
function ok(g) { return count[g] > 0 && !fails[g] }
function med(g, name) { return ok(g) ? median(g SUBSEP name, count[g]) : "n.a." }
{
  delete f
  for (i = 2; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
}
$1 == "failed" { fails[f["config"] SUBSEP f["listing"]]++; next }
$1 == "run" {
  g = f["config"] SUBSEP f["listing"]; n = ++count[g]
  vals[g, "rss", n] = f["maxrss_kib"] / 1024; vals[g, "wall", n] = f["time_s"]
  vals[g, "cpu", n] = f["cpu_s"]; vals[g, "gcs", n] = f["gcs"]
  ck[g, n] = f["checksum"]
}
END {
  nl = split(listings, ls, " ")
  nc = split(order, cs, " ")
  bad = 0
  for (a = 1; a <= nl; a++) {
    l = ls[a]; p = "plain" SUBSEP l
    ref = count[p] ? ck[p, 1] : ""
    print ""
    printf "#### Listing %s\n\n", l
    print "| variant | runs | checksum | peak RSS (MiB) | wall (s) | CPU (s) | collections | RSS / plain | wall / plain | CPU / plain |"
    print "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
    for (b = 1; b <= nc; b++) {
      c = cs[b]; g = c SUBSEP l
      if (!isin(present, c)) { printf "| %s | 0 | not built | | | | | | | |\n", c; continue }
      if (fails[g]) { printf "| %s | %d | FAILED (%d of %d runs) | | | | | | | |\n", c, count[g] + 0, fails[g], fails[g] + count[g]; continue }
      same = "same"
      for (i = 1; i <= count[g]; i++) if (ck[g, i] != ref) same = "DIFFERS"
      if (same != "same") { bad = 1; failedck = 1 }
      printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", c, count[g], same,
        fmt(med(g, "rss"), "%.1f"), fmt(med(g, "wall"), "%.2f"), fmt(med(g, "cpu"), "%.2f"),
        (c == "plain") ? "n.a." : fmt(med(g, "gcs"), "%d"),
        ratio(med(g, "rss"), med(p, "rss")), ratio(med(g, "wall"), med(p, "wall")),
        ratio(med(g, "cpu"), med(p, "cpu"))
    }
    if (ref != "") printf "\nChecksum (plain C): `%s`; \"same\" = every run of the variant printed it.\n", ref
  }

  if (isin(listings, "2")) {
    p = "plain" SUBSEP 2; g = "bibop-account" SUBSEP 2; n = "bibop-none" SUBSEP 2
    print ""
    print "#### Targets (listing 2)"
    print ""
    rr = ratio(med(g, "rss"), med(p, "rss")); rc = ratio(med(g, "cpu"), med(p, "cpu"))
    rw = ratio(med(g, "wall"), med(p, "wall")); rn = ratio(med(n, "rss"), med(p, "rss"))
    printf "- bibop with accounting, peak RSS <= 1.5 x plain C: %s x -> %s\n", rr,
      (rr == "n.a.") ? "NOT MEASURED" : (rr + 0 <= 1.5) ? "MET" : "NOT MET"
    printf "- bibop with accounting, time <= 1.2 x plain C: CPU %s x -> %s; wall %s x -> %s\n", rc,
      (rc == "n.a.") ? "NOT MEASURED" : (rc + 0 <= 1.2) ? "MET" : "NOT MET", rw,
      (rw == "n.a.") ? "NOT MEASURED" : (rw + 0 <= 1.2) ? "met" : "not met"
    printf "- bibop without accounting shows the failure (peak RSS >= 3 x plain C): %s x -> %s\n", rn,
      (rn == "n.a.") ? "NOT MEASURED" : (rn + 0 >= 3) ? "SHOWN" : "NOT SHOWN"
  }
  exit bad
}' "$results" || failed=1

exit $failed
