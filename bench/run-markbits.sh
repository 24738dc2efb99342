#!/usr/bin/env bash
# run-markbits.sh: runs the mark bits vs mark bytes micro-benchmark
# (bench/markbits.c) for heaps of 64 MiB, 512 MiB and 2 GiB worth of blocks
# and prints Markdown tables: ns per candidate mark (median of RUNS runs)
# for each heap, candidate order (address, random), primitive (plain,
# atomic) and thread count (1, 2), for the three layouts (bits: bitmap in
# the 64-byte descriptor; inline: 256 mark bytes in a 320-byte descriptor;
# side: 64-byte descriptor + 256-byte side table), with the ratios of the
# byte layouts to bits; then the metadata footprint of each layout.  The
# header records the machine (CPUs, CPU model, kernel), the date, the
# transparent-huge-page mode and the load average before and after.
#
# usage: bench/run-markbits.sh [RUNS] [BUILD_DIR]        (defaults: 7 ./build)
#   The binary is looked up in BUILD_DIR/bench, then BUILD_DIR (so the
#   standalone build works: cmake -S bench -B /tmp/mb-build && cmake --build
#   /tmp/mb-build --target markbits && bench/run-markbits.sh 7 /tmp/mb-build).
#   Environment:
#     MARKBITS_HEAPS  heap sizes in MiB       (default "64 512 2048")
#     MARKBITS_ARGS   extra markbits arguments (e.g. "-i slot", "-c 1", "-H")
#     RUN_TIMEOUT     seconds before a run counts as hung (default 300)
#   About 30 s on a 2-CPU machine (80 s when it is heavily loaded).
#   A run that fails its self-check (wrong marks, wrong count, checksums that
#   differ between layouts), crashes or hangs makes the script print FAILED
#   for that heap, no figures for it, and exit 1.
# Needs only bash, awk and coreutils.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_args 7 "$@"
runs=$rounds
heaps=${MARKBITS_HEAPS:-64 512 2048}
timeout_s=${RUN_TIMEOUT:-300}

if ! bin=$(find_bin markbits); then
  echo "no markbits binary under $build (build it first: cmake --build $build --target markbits)" >&2
  exit 2
fi

results=$(mktemp)
errlog=$(mktemp)
trap 'rm -f "$results" "$errlog"' EXIT
failed=0

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
for h in $heaps; do
  printf 'heap %s MiB ... ' "$h" >&2
  # shellcheck disable=SC2086
  out=$(timeout "$timeout_s" "$bin" -h "$h" -r "$runs" ${MARKBITS_ARGS:-} 2>"$errlog")
  rc=$?
  if [[ $rc -ne 0 ]] || ! grep -q "^markbits heap_mib=$h " <<<"$out"; then
    echo "FAILED (exit $rc)" >&2
    sed 's/^/    /' "$errlog" >&2
    echo "failed heap_mib=$h" >>"$results"
    failed=1
  else
    echo "ok" >&2
    grep "^markbits heap_mib=$h " <<<"$out" >>"$results"
  fi
done
elapsed=$(( $(date +%s) - start ))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
echo
echo "### markbits: mark bits vs mark bytes, ns per candidate mark"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, kernel $(uname -r), THP ${thp:-unknown}"
echo "- load average (1, 5, 15 min): before $load_before, after $load_after; ${elapsed} s"
echo "- median of $runs runs per cell, the 9 configurations alternating in every round${MARKBITS_ARGS:+; args: $MARKBITS_ARGS}"

awk '
$1 == "failed" { split($2, kv, "="); fails[kv[2]] = 1; if (!(kv[2] in seenh)) { seenh[kv[2]] = 1; hs[++nh] = kv[2] } next }
$1 == "markbits" {
  delete f
  for (i = 2; i <= NF; i++) { p = index($i, "="); f[substr($i, 1, p - 1)] = substr($i, p + 1) }
  h = f["heap_mib"]
  if (!(h in seenh)) { seenh[h] = 1; hs[++nh] = h }
  key = h SUBSEP f["order"] SUBSEP f["prim"] SUBSEP f["threads"] SUBSEP f["repr"]
  ns[key] = f["ns"]; cpu[key] = f["cpu"]; dup[key] = f["dup"]
  meta[h, f["repr"]] = f["meta_bytes"]
  # the checksum and counts must agree across every row of a heap
  if (!((h, "sum") in info)) {
    info[h, "sum"] = f["checksum"]; info[h, "distinct"] = f["distinct"]
    info[h, "cand"] = f["candidates"]; info[h, "slots"] = f["slots"]
    info[h, "blocks"] = f["blocks"]; index_mode = f["index"]
  } else if (info[h, "sum"] != f["checksum"] || info[h, "distinct"] != f["distinct"]) {
    fails[h] = 1; mismatch[h] = 1; bad = 1
  }
}
function mib(b) { return sprintf("%.1f", b / 1048576) }
function table(title, v,    k, h, o, c, pt, base, b, i, s) {
  printf "\n%s ns per candidate (median of the runs):\n\n", title
  print "| heap | order | primitive | threads | bits | inline bytes | side bytes | inline / bits | side / bits |"
  print "|---:|---|---|---:|---:|---:|---:|---:|---:|"
  for (k = 1; k <= nh; k++) {
    h = hs[k]
    if (h in fails) continue
    for (o = 1; o <= no; o++)
      for (c = 1; c <= nc; c++) {
        split(cfgs[c], pt, " ")
        base = h SUBSEP orders[o] SUBSEP pt[1] SUBSEP pt[2]
        if (!((base SUBSEP "bits") in v)) continue
        b = v[base SUBSEP "bits"]; i = v[base SUBSEP "inline"]; s = v[base SUBSEP "side"]
        printf "| %s MiB | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", \
          h, orders[o], pt[1], pt[2], b, i, s, (b > 0 ? i / b : 0), (b > 0 ? s / b : 0)
      }
  }
}
END {
  if (index_mode == "") index_mode = "?"
  printf "- mark byte index: per %s; candidates: the live objects (each slot live with p = min(0.5, 2^20/slots)), each 1 + geometric(1/3) times (mean 1.5)\n\n", index_mode
  for (k = 1; k <= nh; k++) {
    h = hs[k]
    if (h in fails) { printf "- heap %s MiB: **FAILED its self-check%s; no figures**\n", h, (h in mismatch) ? " (counts or checksums differ between layouts)" : ""; continue }
    printf "- heap %s MiB: %s blocks, %s object slots, %s live (%.1f%%), %s candidates, checksum %s (all layouts)\n", \
      h, info[h, "blocks"], info[h, "slots"], info[h, "distinct"], 100 * info[h, "distinct"] / info[h, "slots"], info[h, "cand"], info[h, "sum"]
  }
  for (k = 1; k <= nh; k++) if (!(hs[k] in fails)) nok++
  if (!nok) exit 1
  no = split("address random", orders, " ")
  nc = split("plain 1|atomic 1|atomic 2", cfgs, "|")
  table("Wall-clock", ns)
  table("CPU-time", cpu)
  print ""
  print "Wall-clock: time of the marking loop / candidates (with 2 threads: from the first start to the last end, both halves together). CPU-time: CLOCK_THREAD_CPUTIME_ID of the loop / candidates (with 2 threads: the thread that used more); it leaves out the time the marker was preempted."
  for (k = 1; k <= nh; k++) {
    h = hs[k]
    if (h in fails) continue
    for (o = 1; o <= no; o++) {
      base = h SUBSEP orders[o] SUBSEP "atomic" SUBSEP 2
      if (((base SUBSEP "inline") in dup) && dup[base SUBSEP "inline"] + dup[base SUBSEP "side"] > 0)
        dups = dups sprintf(" %s MiB %s: inline %d, side %d;", h, orders[o], dup[base SUBSEP "inline"], dup[base SUBSEP "side"])
    }
  }
  if (dups != "") print "Double claims by byte stores with 2 threads (objects both markers took as newly marked), summed over the runs:" dups
  else print "No double claims by byte stores with 2 threads were seen."
  print ""
  print "| heap | bits: metadata (MiB, % of heap) | inline bytes | side bytes (descriptors + side table) |"
  print "|---:|---:|---:|---:|"
  for (k = 1; k <= nh; k++) {
    h = hs[k]
    if (!((h, "bits") in meta)) continue
    hb = h * 1048576
    printf "| %s MiB | %s (%.2f%%) | %s (%.2f%%) | %s (%.2f%%) |\n", h, \
      mib(meta[h, "bits"]), 100 * meta[h, "bits"] / hb, mib(meta[h, "inline"]), 100 * meta[h, "inline"] / hb, \
      mib(meta[h, "side"]), 100 * meta[h, "side"] / hb
  }
  exit bad
}' "$results" || failed=1

exit $failed
