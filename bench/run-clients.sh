#!/usr/bin/env bash
# run-clients.sh: the client suite of issue #16 (and issue #4's six
# workloads): real programs that link libgc.so.1, each run on stock libgc1
# and on bibop's libgc.so.1 (LD_LIBRARY_PATH=BUILD_DIR/lib) in one
# invocation, alternating the two (stock first in odd rounds, bibop first
# in even ones) for ROUNDS rounds.
#
#   guile-list guile-weak guile-parmap    tests/clients/*.scm (issue #4)
#   ecl-list ecl-weak ecl-threads         tests/clients/*.lsp (issue #4)
#   guile-compile  guild compile -O1 of a generated ~3,000-line module
#   guile-interp   bench/clients/guile-interp.scm: a Lisp interpreter in
#                  Scheme (string ports, hash-table environments, closures)
#   ecl-compile    compile-file (C back end, gcc -O0) of a generated Lisp
#                  file, then load it and run it
#   ecl-clos       bench/clients/ecl-clos.lsp: generic functions, method
#                  combination, make-instance, change-class
#   nix-eval       nix-instantiate --eval --strict --store dummy:// of
#                  bench/clients/nix-eval.nix (large attribute sets, lists)
#   neko-st        bench/clients/neko-st.neko (compiled by nekoc)
#   neko-mt        bench/clients/neko-mt.neko: four Neko threads
#   asy-render     asy -f eps of bench/clients/asy-scene.asy
#   w3m-dump       w3m -dump of an ~8 MB page (tests/clients/gen-html.awk)
#
# "more" (not part of issue #16's suite, nor of "suite"): three more
# Debian programs that link libgc1, for a wider view of real clients:
#   lilypond-score LilyPond (Guile 2.2) engraves bench/clients/lilypond-score.ly
#                  to PostScript
#   m2-algebra     Macaulay2 runs bench/clients/m2-algebra.m2 (a resolution,
#                  Groebner bases, big integers, lists, hash tables)
#   crystal-build  the Crystal compiler builds tests/clients/crystal-fibers.cr
#                  (cold cache; its cc and linker runs are in the time)
#
# Every run starts in an empty directory (the same path for every run);
# its stdout, plus a checksum of each file the workload writes (with the
# lines that hold a date removed), must be identical to the first stock
# run's; a difference or a failed run is reported (FAILED/DIFFERS in the
# table, left out of the geometric means) and makes the script exit 1.
# Prints a Markdown table: best wall time and the medians of CPU time
# (user + system, children included) and peak RSS (from /usr/bin/time;
# ecl-compile's is ecl's own VmHWM, which it prints, not gcc's),
# with bibop/libgc1 ratios; collections, their total and largest pause
# (one extra run of each with GC_PRINT_STATS: bdwgc's "--> Marking for
# collection" and "Complete collection took" lines, bibop's "bibop: GC #"
# lines); whether the targets are met (per workload: best time <= 0.9x,
# RSS <= 1.0x; geometric mean: time <= 0.8x, RSS <= 0.9x); and a last row
# of geometric means of the ratios.
#
# usage: bench/run-clients.sh [ROUNDS] [BUILD_DIR] [WORKLOAD...]
#   defaults: 3 ./build, all fifteen workloads; "issue4" stands for the
#   first six, "suite" for all fifteen, "more" for the three above.  RUN_TIMEOUT (seconds, default 300) bounds
#   a run.  BIBOP_ENV="NAME=VALUE ..." is added to bibop's runs only (each
#   run starts from an empty environment).  PROFILE=1 adds one run of each
#   workload per side under `perf record` (software clock) and a second
#   table: the share of the CPU samples spent in libgc.so.1 on each side,
#   and what that share bounds: if bibop's collector cost nothing, the
#   CPU ratio could not go below 1 - stock's share.
#   BASELINE_ENV="NAME=VALUE ..." replaces stock libgc1 by bibop with these
#   settings as the first side (labelled "base"), e.g. generational mode
#   against full-only (issue #17): BASELINE_ENV="BIBOP_GENERATIONAL=0"
#   BIBOP_ENV="BIBOP_GENERATIONAL=1". The collections column then counts
#   bibop's minor collections in parentheses on both sides, and the targets
#   are issue #17's: no workload, nor the mean, above 1.05 x the base.
#   BASELINE_BUILD=DIR makes the first side bibop as built in DIR (its
#   lib/libgc.so.1), e.g. the last commit's build against a change's;
#   BASELINE_ENV applies to it too.
# Needs guile-3.0 (+ guild from guile-3.0-dev), ecl, gcc, nix-bin, neko,
# lilypond, macaulay2, crystal (for "more"),
# asymptote, w3m, /usr/bin/time, awk, coreutils (scripts/install-deps.sh).
# Timings are noisy on a shared machine: the load average before and after
# is printed.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tests=$here/../tests/clients
inputs_src=$here/clients
rounds=3
build=./build
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
if [[ $# -ge 1 && $1 =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
if [[ $# -ge 1 ]]; then build=$1; shift; fi
issue4=(guile-list guile-weak guile-parmap ecl-list ecl-weak ecl-threads)
suite=("${issue4[@]}" guile-compile guile-interp ecl-compile ecl-clos nix-eval
       neko-st neko-mt asy-render w3m-dump)
more=(lilypond-score m2-algebra crystal-build)
workloads=()
for w in "${@:-suite}"; do
  case $w in
    issue4) workloads+=("${issue4[@]}") ;;
    suite) workloads+=("${suite[@]}") ;;
    more) workloads+=("${more[@]}") ;;
    *) [[ " ${suite[*]} ${more[*]} " == *" $w "* ]] || { echo "unknown workload $w" >&2; exit 2; }
       workloads+=("$w") ;;
  esac
done

# Sizes of the generated inputs (about 2-5 s per run on stock, quiet machine).
SCHEME_MODULE_GROUPS=64   # guile-compile: groups of definitions
LISP_FILE_GROUPS=40       # ecl-compile: groups of definitions
HTML_KB=8000              # w3m-dump: page size

STOCK=/usr/lib/x86_64-linux-gnu/libgc.so.1
libdir=$(cd "$build/lib" 2>/dev/null && pwd) || { echo "no $build/lib (build bibop first)" >&2; exit 2; }
[[ -e $libdir/libgc.so.1 ]] || { echo "no $libdir/libgc.so.1" >&2; exit 2; }
[[ -e $STOCK ]] || { echo "stock $STOCK missing (apt-get install libgc1)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "/usr/bin/time missing (apt-get install time)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/run-clients.XXXXXX")
trap 'rm -rf "$work"' EXIT
in=$work/inputs
run_dir=$work/run
mkdir -p "$work/home" "$work/cache" "$work/config" "$in"

# The program a workload runs (its libgc.so.1 is checked with the loader).
program_of() {
  case $1 in
    guile-*) echo guile-3.0 ;;
    ecl-*) echo ecl ;;
    nix-*) echo nix-instantiate ;;
    neko-*) echo neko ;;
    asy-*) echo asy ;;
    w3m-*) echo w3m ;;
    lilypond-*) echo lilypond ;;
    m2-*) echo M2-binary ;;
    crystal-*) echo crystal ;;
  esac
}

# The command of a workload, one word per line; it runs in $run_dir.
command_of() {
  case $1 in
    guile-list | guile-weak | guile-parmap)
      printf '%s\n' guile-3.0 --no-auto-compile -s "$tests/$1.scm" ;;
    ecl-list | ecl-weak | ecl-threads)
      printf '%s\n' ecl --norc --load "$tests/$1.lsp" --eval '(quit)' ;;
    guile-compile) printf '%s\n' guild compile -O1 -o generated.go "$in/generated.scm" ;;
    guile-interp) printf '%s\n' guile-3.0 --no-auto-compile -s "$inputs_src/guile-interp.scm" ;;
    ecl-compile)
      printf '%s\n' ecl --norc --eval '(setf c::*cc-optimize* "-O0")' \
        --eval "(compile-file \"$in/generated.lsp\" :output-file \"$run_dir/generated.fas\" :c-file \"$run_dir/generated.c\")" \
        --eval "(load \"$run_dir/generated.fas\")" \
        --eval '(print (funcall (find-symbol "RUN-ALL" "BENCH-GENERATED")))' \
        --eval "$own_peak_rss_lisp" --eval '(quit)' ;;
    ecl-clos) printf '%s\n' ecl --norc --load "$inputs_src/ecl-clos.lsp" --eval '(quit)' ;;
    nix-eval) printf '%s\n' nix-instantiate --eval --strict --store dummy:// "$inputs_src/nix-eval.nix" ;;
    neko-st | neko-mt) printf '%s\n' neko "$in/$1.n" ;;
    asy-render) printf '%s\n' asy -noV -tex none -f eps -o scene "$inputs_src/asy-scene.asy" ;;
    w3m-dump) printf '%s\n' w3m -dump -cols 100 "$in/page.html" ;;
    lilypond-score) printf '%s\n' lilypond -s -dbackend=ps --ps -o score "$inputs_src/lilypond-score.ly" ;;
    # M2 is a shell script that only runs M2-binary (with a library path
    # Debian's package does not have).
    m2-algebra) printf '%s\n' M2-binary --script "$inputs_src/m2-algebra.m2" ;;
    crystal-build) printf '%s\n' crystal build --no-debug -o fibers "$tests/crystal-fibers.cr" ;;
    *) echo "unknown workload $1" >&2; return 1 ;;
  esac
}

# ecl-compile's peak RSS is ecl's own (VmHWM, written to stderr at the
# end): /usr/bin/time's would be the largest of ecl's and gcc's (cc1).
# (One line: command_of prints one word per line.)
own_peak_rss_lisp='(with-open-file (s "/proc/self/status") (loop for l = (read-line s nil) while l when (eql 0 (search "VmHWM:" l)) do (format *error-output* "~A~%" l)))'

# The files a workload writes in $run_dir that are part of its output.
products_of() {
  case $1 in
    guile-compile) echo generated.go ;;
    ecl-compile) echo generated.c generated.fas ;;
    asy-render) echo scene.eps ;;
    lilypond-score) echo score.ps ;;
    crystal-build) echo fibers ;;
  esac
}

# Generated inputs, made once (with stock libgc for nekoc), outside the timing.
prepare() {
  case $1 in
    guile-compile) awk -v lang=scheme -v n="$SCHEME_MODULE_GROUPS" -f "$inputs_src/gen-source.awk" >"$in/generated.scm" ;;
    ecl-compile) awk -v lang=lisp -v n="$LISP_FILE_GROUPS" -f "$inputs_src/gen-source.awk" >"$in/generated.lsp" ;;
    neko-st | neko-mt) cp "$inputs_src/$1.neko" "$in/" && (cd "$in" && nekoc "$1.neko" >/dev/null) ;;
    w3m-dump) awk -v kb="$HTML_KB" -f "$tests/gen-html.awk" >"$in/page.html" ;;
  esac
}

# The first side: stock libgc1, or bibop under BASELINE_ENV (as built in
# BASELINE_BUILD, or in BUILD_DIR).
base_is_bibop=0
[[ -n ${BASELINE_ENV:-} || -n ${BASELINE_BUILD:-} ]] && base_is_bibop=1
base_libdir=$libdir
if [[ -n ${BASELINE_BUILD:-} ]]; then
  base_libdir=$(cd "$BASELINE_BUILD/lib" 2>/dev/null && pwd) || { echo "no $BASELINE_BUILD/lib" >&2; exit 2; }
  [[ -e $base_libdir/libgc.so.1 ]] || { echo "no $base_libdir/libgc.so.1" >&2; exit 2; }
fi
base_label=libgc1
((base_is_bibop)) && base_label=base

# The library a side loads: stock's, or bibop's for both with BASELINE_ENV or
# BASELINE_BUILD.
lib_of() {
  if [[ $1 == bibop ]]; then echo "$libdir/libgc.so.1"
  elif ((base_is_bibop)); then echo "$base_libdir/libgc.so.1"
  else echo "$STOCK"; fi
}

# The environment of a side: only libgc.so.1 (or, with BASELINE_ENV, the
# settings) differs between the two.
side_env() {
  local side=$1
  echo "HOME=$work/home"
  echo "XDG_CACHE_HOME=$work/cache"
  echo "XDG_CONFIG_HOME=$work/config"
  echo "GUILE_AUTO_COMPILE=0"
  echo "LC_ALL=C.UTF-8"
  # Nix: a dummy store; state, logs and configuration in the scratch dir.
  echo "NIX_STATE_DIR=$work/nix/state"
  echo "NIX_LOG_DIR=$work/nix/log"
  echo "NIX_CONF_DIR=$work/nix/conf"
  echo "NIX_STORE_DIR=$work/nix/store"
  # Crystal: its cache of compiled objects in the run's own (empty) directory.
  echo "CRYSTAL_CACHE_DIR=$run_dir/crystal-cache"
  [[ $(lib_of "$side") != "$STOCK" ]] && echo "LD_LIBRARY_PATH=$(dirname "$(lib_of "$side")")"
  if [[ $side == stock ]]; then for kv in ${BASELINE_ENV:-}; do echo "$kv"; done; fi
  # BIBOP_ENV: settings for bibop's runs only, e.g. BIBOP_ENV="BIBOP_GENERATIONAL=1"
  # (runs start from an empty environment: nothing else reaches them).
  if [[ $side == bibop ]]; then for kv in ${BIBOP_ENV:-}; do echo "$kv"; done; fi
  return 0
}

# The command every run is prefixed with (PROFILE's perf record).
run_wrapper=()

# run_one SIDE WORKLOAD TAG [EXTRA_ENV...]: runs the workload in a fresh
# $run_dir; stdout, then "file NAME SHA256" for each product (date lines
# removed), to $work/TAG.out; stderr to $work/TAG.err; "wall_s maxrss_kib
# user_s sys_s" to $work/TAG.time; returns the exit status.
run_one() {
  local side=$1 wl=$2 tag=$3; shift 3
  local -a cmd envs
  local rc f sum
  mapfile -t cmd < <(command_of "$wl")
  mapfile -t envs < <(side_env "$side")
  rm -rf "$run_dir" && mkdir -p "$run_dir"
  (cd "$run_dir" && env -i PATH="$PATH" "${envs[@]}" "$@" /usr/bin/time -f '%e %M %U %S' -o "$work/$tag.time" \
    timeout -k 10 "$RUN_TIMEOUT" "${run_wrapper[@]}" "${cmd[@]}" </dev/null >"$work/$tag.out" 2>"$work/$tag.err")
  rc=$?
  for f in $(products_of "$wl"); do
    if [[ -f $run_dir/$f ]]; then
      sum=$(grep -av -e '^%%CreationDate:' -e '^/\*  *Date: ' "$run_dir/$f" | sha256sum | cut -d' ' -f1)
    else
      sum=missing
    fi
    echo "file $f $sum" >>"$work/$tag.out"
  done
  return $rc
}

# check_output WORKLOAD TAG: compares the run's output with the workload's
# reference (the first successful run's); records a difference.
check_output() {
  local wl=$1 tag=$2
  [[ -e $work/$wl.reference ]] || cp "$work/$tag.out" "$work/$wl.reference"
  if ! cmp -s "$work/$tag.out" "$work/$wl.reference"; then
    echo "OUTPUT DIFFERS from the first run:" >&2
    diff "$work/$wl.reference" "$work/$tag.out" | head -10 | sed 's/^/    /' >&2
    echo "$wl ${tag#*.} differs" >>"$work/failures"
    keep_run "$tag"
    failed=1
    return 1
  fi
}

# run_failed WORKLOAD TAG WHY: reports and records a failed run.
run_failed() {
  echo "FAILED ($3)" >&2
  tail -5 "$work/$2.err" | sed 's/^/    /' >&2
  echo "$1 ${2#*.} failed ($3)" >>"$work/failures"
  keep_run "$2"
  failed=1
}

# keep_run TAG: copies a bad run's stdout and stderr (and, the first
# time, the generated inputs and the reference outputs) to $kept, which
# outlives the scratch directory, for a bug report.
keep_run() {
  [[ -n $kept ]] || { kept=$(mktemp -d "${TMPDIR:-/tmp}/run-clients-kept.XXXXXX"); cp -r "$in" "$work"/*.reference "$kept/" 2>/dev/null; }
  cp "$work/$1.out" "$work/$1.err" "$kept/" 2>/dev/null
  return 0
}

# Inputs, and the loader must resolve libgc.so.1 of every program (and of
# the libraries it loads) to the intended file on each side.
progs=()
for wl in "${workloads[@]}"; do
  prepare "$wl" || { echo "could not prepare the inputs of $wl" >&2; exit 2; }
  p=$(program_of "$wl")
  [[ " ${progs[*]} " == *" $p "* ]] || progs+=("$p")
done
for prog in "${progs[@]}"; do
  command -v "$prog" >/dev/null || { echo "$prog not installed (scripts/install-deps.sh)" >&2; exit 2; }
  for side in stock bibop; do
    mapfile -t envs < <(side_env "$side")
    got=$(env -i PATH="$PATH" "${envs[@]}" LD_TRACE_LOADED_OBJECTS=1 "$(command -v "$prog")" 2>&1 |
          awk '$1 == "libgc.so.1" { print $3; exit }')
    want=$(lib_of "$side")
    if [[ $(readlink -f "$got") != $(readlink -f "$want") ]]; then
      echo "$prog ($side) loads libgc.so.1 from '$got', expected '$want'" >&2
      exit 2
    fi
  done
done

started=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
failed=0
kept=
: >"$work/failures"
: >"$work/results"   # "workload side wall rss cpu"
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order=(stock bibop); else order=(bibop stock); fi
  for wl in "${workloads[@]}"; do
    for side in "${order[@]}"; do
      tag="$wl.$side.$r"
      printf 'round %d/%d: %-13s %-5s ... ' "$r" "$rounds" "$wl" "$side" >&2
      run_one "$side" "$wl" "$tag"
      rc=$?
      if [[ $rc -ne 0 ]]; then
        run_failed "$wl" "$tag" "exit $rc"
        continue
      fi
      check_output "$wl" "$tag"
      read -r wall rss user sys <"$work/$tag.time"
      own=$(awk '/^VmHWM:/ { print $2 }' "$work/$tag.err")
      [[ -n $own ]] && rss=$own
      cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
      echo "$wl $side $wall $rss $cpu" >>"$work/results"
      echo "$wall s ($cpu s CPU), $((rss / 1024)) MiB" >&2
    done
  done
done

# Collections and pauses: one more run of each with statistics on.
: >"$work/gcstats"   # "workload side collections total_pause_ms max_pause_ms"
for wl in "${workloads[@]}"; do
  for side in stock bibop; do
    tag="$wl.$side.stats"
    printf 'stats: %-13s %-5s ... ' "$wl" "$side" >&2
    run_one "$side" "$wl" "$tag" GC_PRINT_STATS=1
    rc=$?
    if [[ $rc -ne 0 ]]; then
      run_failed "$wl" "$tag" "exit $rc"
      continue
    fi
    check_output "$wl" "$tag"
    lib=bibop
    [[ $(lib_of "$side") == "$STOCK" ]] && lib=stock
    awk -v w="$wl" -v s="$side" -v lib="$lib" '
      function pause(ms) { total += ms; if (ms > max) max = ms }
      lib == "stock" && /^--> Marking for collection #/ { n++ }
      lib == "stock" && /^Complete collection took [0-9]+ ms [0-9]+ ns/ { pause($4 + $6 / 1e6) }
      lib == "bibop" && /^bibop: GC #/ { n++; if (match($0, /: [0-9.]+ ms/)) pause(substr($0, RSTART + 2, RLENGTH - 5) + 0) }
      lib == "bibop" && /^bibop: GC #[0-9]+ \([^)]*, minor\)/ { minors++ }
      END { print w, s, n + 0, total + 0, max + 0, minors + 0 }' "$work/$tag.err" >>"$work/gcstats"
    echo "done" >&2
  done
done
# PROFILE=1: the collector's share of each side's CPU samples, one run each.
: >"$work/shares"   # "workload side gc_samples all_samples"
if [[ ${PROFILE:-0} == 1 ]]; then
  command -v perf >/dev/null || { echo "PROFILE=1 needs perf (linux-perf)" >&2; exit 2; }
  for wl in "${workloads[@]}"; do
    for side in stock bibop; do
      tag="$wl.$side.profile"
      printf 'profile: %-13s %-5s ... ' "$wl" "$side" >&2
      run_wrapper=(perf record -q -F 999 -o "$work/$tag.perf" --)
      run_one "$side" "$wl" "$tag"
      rc=$?
      run_wrapper=()
      if [[ $rc -ne 0 ]]; then
        run_failed "$wl" "$tag" "exit $rc"
        continue
      fi
      perf report -i "$work/$tag.perf" --stdio --no-children --sort dso -n 2>/dev/null |
        awk -v w="$wl" -v s="$side" '
          /^#/ || NF < 3 { next }
          { all += $2; if ($3 ~ /^libgc\.so/) gc += $2 }
          END { print w, s, gc + 0, all + 0 }' >>"$work/shares"
      rm -f "$work/$tag.perf"
      echo "done" >&2
    done
  done
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
elapsed=$(($(date +%s) - started))

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "Date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: ${cpu:-unknown CPU}, $(nproc) cores, $(uname -sr);"
echo "load average (1/5/15 min) before: $load_before, after: $load_after; $rounds alternating rounds; $elapsed s."
echo
((base_is_bibop)) && echo "base: bibop${BASELINE_BUILD:+ built in $BASELINE_BUILD} with ${BASELINE_ENV:-no setting}; bibop: built in $build with ${BIBOP_ENV:-no setting}; GCs: all (minor)."
((base_is_bibop)) && echo
b=$base_label
echo "| workload | $b best time (s) | bibop best time (s) | time ratio | $b CPU (s) | bibop CPU (s) | CPU ratio | $b peak RSS (MiB) | bibop peak RSS (MiB) | RSS ratio | GCs $b / bibop | total pause (ms) $b / bibop | max pause (ms) $b / bibop | output | targets |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|"
awk -v list="${workloads[*]}" -v minors="$base_is_bibop" '
  function median(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function best(a, n,    i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
  function collect(w, s, what,    i, n) {   # fills tmp[] with column what (3 wall, 4 rss, 5 cpu)
    n = 0; for (i = 1; i <= nr; i++) if (rw[i] == w && rs[i] == s) tmp[++n] = rv[i, what]; return n }
  FILENAME ~ /results$/ { nr++; rw[nr] = $1; rs[nr] = $2; rv[nr, 3] = $3; rv[nr, 4] = $4; rv[nr, 5] = $5 }
  FILENAME ~ /gcstats$/ { gcs[$1, $2] = $3; tot[$1, $2] = $4; mx[$1, $2] = $5; mn[$1, $2] = $6 }
  FILENAME ~ /failures$/ { w = $1; sub(/^[^ ]+ /, ""); bad[w] = bad[w] (bad[w] == "" ? "" : "; ") $0 }
  function stat(w, s, k) {
    if (!((w, s) in gcs)) return "?"
    if (k == 1) return minors ? sprintf("%d (%d)", gcs[w, s], mn[w, s]) : sprintf("%d", gcs[w, s])
    return sprintf("%.0f", k == 2 ? tot[w, s] : mx[w, s]) }
  END {
    nw = split(list, ws, " ")
    for (k = 1; k <= nw; k++) {
      w = ws[k]
      if (!collect(w, "stock", 3) || !collect(w, "bibop", 3)) {
        printf "| %s | - | - | - | - | - | - | - | - | - | - | - | - | FAILED (%s) | excluded |\n", w, bad[w]; continue }
      n = collect(w, "stock", 3); t1 = best(tmp, n); n = collect(w, "stock", 4); r1 = median(tmp, n) / 1024
      n = collect(w, "stock", 5); c1 = median(tmp, n)
      n = collect(w, "bibop", 3); t2 = best(tmp, n); n = collect(w, "bibop", 4); r2 = median(tmp, n) / 1024
      n = collect(w, "bibop", 5); c2 = median(tmp, n)
      tr = t2 / t1; rr = r2 / r1; cr = c1 > 0 ? c2 / c1 : 1
      if (bad[w] != "") { out = (bad[w] ~ /differs/ ? "DIFFERS" : "FAILED") " (" bad[w] ")"; ok = "excluded from the means" }
      else {
        out = "identical"; ok = (tr <= (minors ? 1.05 : 0.9) ? "time met" : "time MISSED") ", " (rr <= (minors ? 1.05 : 1.0) ? "RSS met" : "RSS MISSED")
        m++; lt += log(tr); lc += log(cr); lr += log(rr) }
      printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f | %s / %s | %s / %s | %s / %s | %s | %s |\n",
             w, t1, t2, tr, c1, c2, cr, r1, r2, rr, stat(w, "stock", 1), stat(w, "bibop", 1),
             stat(w, "stock", 2), stat(w, "bibop", 2), stat(w, "stock", 3), stat(w, "bibop", 3), out, ok
    }
    if (m) {
      gt = exp(lt / m); gc = exp(lc / m); gr = exp(lr / m)
      printf "| **geometric mean** (%d of %d) | | | **%.2f** | | | **%.2f** | | | **%.2f** | | | | | %s, %s |\n",
             m, nw, gt, gc, gr, (gt <= (minors ? 1.05 : 0.8) ? "time met" : "time MISSED"), (gr <= (minors ? 1.05 : 0.9) ? "RSS met" : "RSS MISSED")
    }
  }' "$work/results" "$work/gcstats" "$work/failures"
if [[ -s $work/shares ]]; then
  echo
  echo "Collector share (PROFILE=1, one run per side under perf record: CPU samples in libgc.so.1 over all of the run's samples, children included):"
  echo
  echo "| workload | libgc1's collector share | bibop's collector share | samples libgc1 / bibop | CPU ratio if bibop's collector cost nothing |"
  echo "|---|--:|--:|--:|--:|"
  awk '{ gc[$1, $2] = $3; all[$1, $2] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
    END { for (i = 1; i <= n; i++) { w = order[i]
      if (!all[w, "stock"] || !all[w, "bibop"]) continue
      printf "| %s | %.1f%% | %.1f%% | %d / %d | %.2f |\n", w, 100 * gc[w, "stock"] / all[w, "stock"],
             100 * gc[w, "bibop"] / all[w, "bibop"], all[w, "stock"], all[w, "bibop"], 1 - gc[w, "stock"] / all[w, "stock"] } }' "$work/shares"
fi
[[ -z $kept ]] || echo "The failed or differing runs' stdout and stderr: $kept" >&2
exit $failed
