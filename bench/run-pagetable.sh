#!/usr/bin/env bash
# run-pagetable.sh: runs the pointer-classification micro-benchmark
# (bench/pagetable.c) on bibop and stock libgc1, alternating bibop, stock,
# bibop, ... for R rounds, and prints a Markdown table of the median ns per
# classification for each candidate mix and method (bibop_classify and
# GC_base on bibop, GC_base on stock, and the loop+call baseline), the ratio
# of stock GC_base to bibop_classify, plus the machine and the date.
#
# usage: bench/run-pagetable.sh [ROUNDS] [BUILD_DIR]   (defaults: 5 ./build)
#   Binaries are looked up in BUILD_DIR/bench, then BUILD_DIR.
#   PAGETABLE_ARGS is passed to every run (e.g. PAGETABLE_ARGS="-n 4000000").
#   A run that fails its self-check makes the script exit 1.
#   BENCH_RAW_OUT=FILE also writes the raw result lines there.
# Needs only bash, awk and coreutils.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_args 5 "$@"

variants=(bibop stock)
declare -A bin
find_variants pagetable "${variants[@]}"

results=$(mktemp)
errlog=$(mktemp)
trap 'rm -f "$results" "$errlog"' EXIT
failed=0

for ((r = 1; r <= rounds; r++)); do
  for v in "${present[@]}"; do
    printf 'round %d/%d: %s ... ' "$r" "$rounds" "$v" >&2
    # shellcheck disable=SC2086
    out=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD "${bin[$v]}" ${PAGETABLE_ARGS:-} 2>"$errlog")
    rc=$?
    if [[ $rc -ne 0 ]] || ! grep -q "^pagetable variant=$v " <<<"$out"; then
      echo "FAILED (exit $rc)" >&2
      sed 's/^/    /' "$errlog" >&2
      echo "failed variant=$v" >>"$results"
      failed=1
    else
      echo "ok" >&2
      grep "^pagetable variant=$v " <<<"$out" >>"$results"
    fi
  done
done

# BENCH_RAW_OUT=FILE: keep a copy of the raw result lines (run-papers.sh reads them).
[[ -n ${BENCH_RAW_OUT:-} ]] && cp "$results" "$BENCH_RAW_OUT"
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo
echo "### pagetable: ns per pointer classification"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, kernel $(uname -r)"
echo "- rounds: $rounds, alternating ${present[*]}; median over rounds of each run's median pass${PAGETABLE_ARGS:+; args: $PAGETABLE_ARGS}"

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
function cell(key) { return (key in cnt) ? sprintf("%.2f", median(key, cnt[key])) : "n.a." }
$1 == "failed" { split($2, kv, "="); fails[kv[2]]++; next }
$1 == "pagetable" {
  delete f
  for (i = 2; i <= NF; i++) {
    p = index($i, "=")
    f[substr($i, 1, p - 1)] = substr($i, p + 1)
  }
  key = f["variant"] SUBSEP f["method"] SUBSEP f["mix"]
  vals[key, ++cnt[key]] = f["ns"]
  if (!(f["mix"] in seen)) { seen[f["mix"]] = 1; mixes[++nmix] = f["mix"] }
  objects = f["objects"]; candidates = f["candidates"]; reps = f["reps"]
}
END {
  for (v in fails) printf "\n**%s FAILED its self-check in %d run(s); its figures are not shown.**\n", v, fails[v]
  printf "- heap: %s objects of 8..128 bytes; %s candidates per mix; %s timed passes per run\n\n", objects, candidates, reps
  ncol = split("bibop bibop_classify|bibop GC_base|stock GC_base|bibop baseline|stock baseline", cols, "|")
  hdr = "| mix |"; sep = "|---|"
  for (c = 1; c <= ncol; c++) { hdr = hdr " " cols[c] " (ns) |"; sep = sep "---:|" }
  print hdr " stock GC_base / bibop_classify |"
  print sep "---:|"
  for (m = 1; m <= nmix; m++) {
    line = "| " mixes[m] " |"
    for (c = 1; c <= ncol; c++) {
      split(cols[c], vm, " ")
      key = vm[1] SUBSEP vm[2] SUBSEP mixes[m]
      line = line " " ((vm[1] in fails) ? "FAILED" : cell(key)) " |"
    }
    a = "stock" SUBSEP "GC_base" SUBSEP mixes[m]
    b = "bibop" SUBSEP "bibop_classify" SUBSEP mixes[m]
    if ((a in cnt) && (b in cnt) && !("stock" in fails) && !("bibop" in fails) && median(b, cnt[b]) > 0)
      line = line " " sprintf("%.2f", median(a, cnt[a]) / median(b, cnt[b])) " |"
    else
      line = line " n.a. |"
    print line
  }
  print ""
  print "baseline = the same loop calling a trivial function through a pointer (loop, load and call overhead)."
}' "$results"

exit $failed
