#!/usr/bin/env bash
# run-clients.sh: the Guile and ECL workloads of issue #4 (the programs of
# tests/clients: guile-list.scm, guile-weak.scm, guile-parmap.scm,
# ecl-list.lsp, ecl-weak.lsp, ecl-threads.lsp) on stock libgc1 and on
# bibop's libgc.so.1 (LD_LIBRARY_PATH=BUILD_DIR/lib), alternating the two
# (stock first in odd rounds, bibop first in even ones) for ROUNDS rounds.
# Prints a Markdown table of medians: wall time, CPU time (user + system)
# and peak RSS (from /usr/bin/time), the number of collections, their total
# pause and the largest heap size (one extra run of each with
# GC_PRINT_STATS: bdwgc's "--> Marking for collection" and "Complete
# collection took" lines, bibop's "bibop: GC #" lines), with
# bibop/libgc1 ratios and whether the targets (time <= 0.9x, RSS <= 1.0x)
# are met. Every run's stdout must be identical to the first stock run's;
# a difference or a failed run is reported and makes the script exit 1.
#
# usage: bench/run-clients.sh [ROUNDS] [BUILD_DIR] [WORKLOAD...]
#   defaults: 3 ./build, all six workloads (names: guile-list guile-weak
#   guile-parmap ecl-list ecl-weak ecl-threads).
# Needs guile-3.0, ecl, /usr/bin/time, awk, coreutils. Timings are noisy
# on a shared machine: the load average before and after is printed.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
clients=$here/../tests/clients
rounds=3
build=./build
if [[ $# -ge 1 && $1 =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
if [[ $# -ge 1 ]]; then build=$1; shift; fi
all_workloads=(guile-list guile-weak guile-parmap ecl-list ecl-weak ecl-threads)
if [[ $# -ge 1 ]]; then workloads=("$@"); else workloads=("${all_workloads[@]}"); fi

STOCK=/usr/lib/x86_64-linux-gnu/libgc.so.1
libdir=$(cd "$build/lib" 2>/dev/null && pwd) || { echo "no $build/lib (build bibop first)" >&2; exit 2; }
[[ -e $libdir/libgc.so.1 ]] || { echo "no $libdir/libgc.so.1" >&2; exit 2; }
[[ -e $STOCK ]] || { echo "stock $STOCK missing (apt-get install libgc1)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing (apt-get install time)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/run-clients.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/cache" "$work/config"

# The command of a workload, one word per line.
command_of() {
  case $1 in
    guile-*) printf '%s\n' guile-3.0 --no-auto-compile -s "$clients/$1.scm" ;;
    ecl-*) printf '%s\n' ecl --norc --load "$clients/$1.lsp" --eval '(quit)' ;;
    *) echo "unknown workload $1" >&2; return 1 ;;
  esac
}

# The environment of a side: only libgc.so.1 differs between the two.
side_env() {
  local side=$1
  echo "HOME=$work/home"
  echo "XDG_CACHE_HOME=$work/cache"
  echo "XDG_CONFIG_HOME=$work/config"
  echo "GUILE_AUTO_COMPILE=0"
  echo "LC_ALL=C.UTF-8"
  [[ $side == bibop ]] && echo "LD_LIBRARY_PATH=$libdir"
  return 0
}

# run_one SIDE WORKLOAD TAG [EXTRA_ENV...]: stdout to $work/TAG.out, stderr
# to $work/TAG.err, "wall_s maxrss_kib cpu_s" to $work/TAG.time; returns the exit status.
run_one() {
  local side=$1 wl=$2 tag=$3; shift 3
  local -a cmd envs
  mapfile -t cmd < <(command_of "$wl")
  mapfile -t envs < <(side_env "$side")
  env -i PATH="$PATH" "${envs[@]}" "$@" /usr/bin/time -f '%e %M %U %S' -o "$work/$tag.time" \
    "${cmd[@]}" </dev/null >"$work/$tag.out" 2>"$work/$tag.err"
}

# The loader must resolve libgc.so.1 of guile's and ecl's libraries to the
# intended file on each side.
for prog in guile-3.0 ecl; do
  for side in stock bibop; do
    mapfile -t envs < <(side_env "$side")
    got=$(env -i PATH="$PATH" "${envs[@]}" LD_TRACE_LOADED_OBJECTS=1 "$(command -v $prog)" 2>&1 |
          awk '$1 == "libgc.so.1" { print $3; exit }')
    want=$STOCK
    [[ $side == bibop ]] && want=$libdir/libgc.so.1
    if [[ $(readlink -f "$got") != $(readlink -f "$want") ]]; then
      echo "$prog ($side) loads libgc.so.1 from '$got', expected '$want'" >&2
      exit 2
    fi
  done
done

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
failed=0
: >"$work/results"   # "workload side wall rss cpu"
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order=(stock bibop); else order=(bibop stock); fi
  for wl in "${workloads[@]}"; do
    for side in "${order[@]}"; do
      tag="$wl.$side.$r"
      printf 'round %d/%d: %-12s %-5s ... ' "$r" "$rounds" "$wl" "$side" >&2
      run_one "$side" "$wl" "$tag"
      rc=$?
      if [[ $rc -ne 0 ]]; then
        echo "FAILED (exit $rc)" >&2
        tail -5 "$work/$tag.err" | sed 's/^/    /' >&2
        echo "$wl $side failed" >>"$work/failures"
        failed=1
        continue
      fi
      [[ -e $work/$wl.reference ]] || cp "$work/$tag.out" "$work/$wl.reference"
      if ! cmp -s "$work/$tag.out" "$work/$wl.reference"; then
        echo "OUTPUT DIFFERS from the first run:" >&2
        diff "$work/$wl.reference" "$work/$tag.out" | head -10 | sed 's/^/    /' >&2
        echo "$wl $side differs" >>"$work/failures"
        failed=1
      fi
      read -r wall rss user sys <"$work/$tag.time"
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
      echo "$wl $side $wall $rss $cpu" >>"$work/results"
      echo "$wall s ($cpu s CPU), $((rss / 1024)) MiB" >&2
    done
  done
done

# Collections and largest heap: one run of each with statistics on.
: >"$work/gcstats"   # "workload side collections max_heap_kib pause_ms"
for wl in "${workloads[@]}"; do
  for side in stock bibop; do
    printf 'stats: %-12s %-5s ... ' "$wl" "$side" >&2
    if ! run_one "$side" "$wl" "$wl.$side.stats" GC_PRINT_STATS=1; then
      echo "FAILED" >&2
      echo "$wl $side ? ? ?" >>"$work/gcstats"
      failed=1
      continue
    fi
    if [[ $side == stock ]]; then
      awk -v w="$wl" -v s="$side" '
        /^--> Marking for collection #/ { n++ }
        match($0, /heap [0-9]+ KiB/) { h = substr($0, RSTART + 5, RLENGTH - 9) + 0; if (h > max) max = h }
        /^Complete collection took [0-9]+ ms [0-9]+ ns/ { ms += $4 + $6 / 1e6 }
        END { print w, s, n + 0, max + 0, ms + 0 }' "$work/$wl.$side.stats.err" >>"$work/gcstats"
    else
      awk -v w="$wl" -v s="$side" '
        /^bibop: GC #/ { n++
          if (match($0, /heap [0-9]+ KiB/)) { h = substr($0, RSTART + 5, RLENGTH - 9) + 0; if (h > max) max = h }
          if (match($0, /: [0-9.]+ ms/)) ms += substr($0, RSTART + 2, RLENGTH - 5) }
        END { print w, s, n + 0, max + 0, ms + 0 }' "$work/$wl.$side.stats.err" >>"$work/gcstats"
    fi
    echo "done" >&2
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: ${cpu:-unknown CPU}, $(nproc) cores, $(uname -sr);"
echo "load average (1/5/15 min) before: $load_before, after: $load_after; $rounds alternating rounds."
echo
echo "| workload | libgc1 time (s) | bibop time (s) | time ratio | libgc1 CPU (s) | bibop CPU (s) | CPU ratio | libgc1 peak RSS (MiB) | bibop peak RSS (MiB) | RSS ratio | libgc1 GCs | bibop GCs | libgc1 GC pauses (ms) | bibop GC pauses (ms) | libgc1 max heap (MiB) | bibop max heap (MiB) | output | targets |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for wl in "${workloads[@]}"; do
  awk -v w="$wl" -v fail="$(grep -c "^$wl " "$work/failures" 2>/dev/null || echo 0)" '
    function median(a, n,    i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    FILENAME ~ /results$/ && $1 == w {
      if ($2 == "stock") { st[++ns] = $3; sr[ns] = $4; sc[ns] = $5 } else { bt[++nb] = $3; br[nb] = $4; bc[nb] = $5 } }
    FILENAME ~ /gcstats$/ && $1 == w { gcs[$2] = $3; heap[$2] = $4; pause[$2] = $5 }
    END {
      if (!ns || !nb) { printf "| %s | - | - | - | - | - | - | - | - | - | - | - | - | - | - | - | FAILED | - |\n", w; exit }
      t1 = median(st, ns); t2 = median(bt, nb); r1 = median(sr, ns) / 1024; r2 = median(br, nb) / 1024
      c1 = median(sc, ns); c2 = median(bc, nb)
      tr = t2 / t1; rr = r2 / r1; cr = c1 > 0 ? c2 / c1 : 0
      ok = (tr <= 0.9 ? "time met" : "time MISSED") ", " (rr <= 1.0 ? "RSS met" : "RSS MISSED")
      printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f | %s | %s | %.0f | %.0f | %.1f | %.1f | %s | %s |\n",
             w, t1, t2, tr, c1, c2, cr, r1, r2, rr, gcs["stock"], gcs["bibop"], pause["stock"],
             pause["bibop"], heap["stock"] / 1024, heap["bibop"] / 1024,
             fail + 0 ? "DIFFERS/FAILED" : "identical", ok }' \
    "$work/results" "$work/gcstats"
done
exit $failed
