#!/usr/bin/env bash
# run-dirty.sh: runs the dirty-page tracking probe (bench/dirty.c) and
# prints its figures as a Markdown table (median, min and max of ROUNDS
# rounds, each round on fresh mappings) under a header recording the
# machine (CPUs, CPU model, kernel), the date, the transparent-huge-page
# mode and the load average before and after. Each round maps, populates
# and unmaps several ranges of MiB (default 1024) bytes.
#
# usage: bench/run-dirty.sh [ROUNDS] [BUILD_DIR] [MiB]   (defaults: 15 ./build 1024)
#   The binary is BUILD_DIR/bench/dirty (cmake --build BUILD_DIR --target dirty).
#   Exits 2 when the kernel has no dirty-page backend (Linux < 6.7), 1 if
#   the probe fails (a written page that is not reported stops it).
#   About 4 s per round on a 2-CPU machine.
set -u
rounds=${1:-15}
build=${2:-./build}
mib=${3:-1024}
bin=$build/bench/dirty
[[ -x $bin ]] || { echo "no $bin (cmake --build $build --target dirty)" >&2; exit 2; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
out=$(nice -n 5 "$bin" -m "$mib" -r "$rounds")
rc=$?
elapsed=$(( $(date +%s) - start ))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
if [[ $rc -ne 0 ]]; then
  echo "$out"
  echo "dirty: probe exited $rc" >&2
  exit "$rc"
fi

cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
echo "### dirty: dirty-page tracking costs ($(head -1 <<<"$out"))"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, kernel $(uname -r), THP ${thp:-unknown}"
echo "- load average (1, 5, 15 min): before $load_before, after $load_after; ${elapsed} s"
echo
echo "| cost | median | min | max | unit |"
echo "|---|---:|---:|---:|---|"
awk '$1 == "dirty" { gsub(/[(),]/, " "); printf "| %s | %s | %s | %s | %s |\n", $2, $3, $6, $9, $4 }' <<<"$out"
echo
echo "Huge pages (AnonHugePages of the range, first round):"
echo
grep "^thp" <<<"$out" | sed "s/^thp /- /"
echo
echo "Decommit and protection:"
echo
grep "^fact" <<<"$out" | sed "s/^fact /- /"
