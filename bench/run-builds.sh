#!/usr/bin/env bash
# run-builds.sh: one client workload of issue #4 (ecl-weak, ecl-list,
# ecl-threads, guile-weak, guile-list or guile-parmap; or the suite's
# guile-interp and ecl-clos) on several bibop
# builds, alternating them round by round, each run from an empty
# environment with GC_PRINT_STATS: what run-clients.sh cannot show, two
# bibop builds side by side (session 9: finalization cost, and trigger
# rules tried in scratch builds). Prints a line per run, then the medians
# per build: CPU (user + system, s), peak RSS (MiB), collections, total
# pause (ms), mean pause (ms) and pause minus marking (ms: what a
# collection spends outside the mark phase, finalization included).
#
# usage: bench/run-builds.sh ROUNDS WORKLOAD BUILD_DIR...
# Needs ecl or guile-3.0, /usr/bin/time, python3.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tests=$here/../tests/clients
[[ $# -ge 3 ]] || { echo "usage: $0 ROUNDS WORKLOAD BUILD_DIR..." >&2; exit 2; }
rounds=$1 workload=$2
shift 2
case $workload in
  ecl-weak|ecl-list|ecl-threads) cmd=(ecl --norc --load "$tests/$workload.lsp" --eval '(quit)') ;;
  guile-weak|guile-list|guile-parmap) cmd=(guile-3.0 --no-auto-compile -s "$tests/$workload.scm") ;;
  guile-interp) cmd=(guile-3.0 --no-auto-compile -s "$here/clients/guile-interp.scm") ;;
  ecl-clos) cmd=(ecl --norc --load "$here/clients/ecl-clos.lsp" --eval '(quit)') ;;
  *) echo "unknown workload $workload (ecl-weak, ecl-list, ecl-threads, ecl-clos, guile-weak, guile-list, guile-parmap, guile-interp)" >&2; exit 2 ;;
esac
builds=()
for b in "$@"; do
  d=$(cd "$b/lib" 2>/dev/null && pwd) || { echo "no $b/lib" >&2; exit 2; }
  builds+=("$d")
done

work=$(mktemp -d "${TMPDIR:-/tmp}/run-builds.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  for lib in "${builds[@]}"; do
    (cd "$work" && env -i PATH="$PATH" HOME="$work" GUILE_AUTO_COMPILE=0 LC_ALL=C.UTF-8 \
      LD_LIBRARY_PATH="$lib" GC_PRINT_STATS=1 /usr/bin/time -f '%U %S %M' -o "$work/time" \
      "${cmd[@]}" >/dev/null 2>"$work/err") || { echo "run failed: $lib" >&2; exit 1; }
    echo "$lib $(cat "$work/time")" >"$work/line"
    python3 - "$work/err" >>"$work/line" <<'EOF'
import re, sys
pauses, marks = [], 0.0
for l in open(sys.argv[1]):
    m = re.search(r'bibop: GC #\d+ \([^)]*\): ([0-9.]+) ms', l)
    if m: pauses.append(float(m.group(1)))
    m = re.search(r'bibop: mark: .*?KiB, ([0-9.]+) ms', l)
    if m: marks += float(m.group(1))
print(len(pauses), round(sum(pauses)), round(sum(pauses) - marks))
EOF
    tr '\n' ' ' <"$work/line" | tee -a "$work/all"
    echo | tee -a "$work/all"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/all" <<'EOF'
import statistics as st, sys
runs = {}
for l in open(sys.argv[1]):
    p = l.split()
    if p: runs.setdefault(p[0], []).append([float(x) for x in p[1:]])
print("| build | CPU (s) | peak RSS (MiB) | collections | total pause (ms) | mean pause (ms) | pause minus marking (ms) |")
print("|---|--:|--:|--:|--:|--:|--:|")
for b, v in runs.items():
    med = lambda f: st.median(f(r) for r in v)
    print(f"| {b} | {med(lambda r: r[0] + r[1]):.2f} | {med(lambda r: r[2]) / 1024:.1f} | {med(lambda r: r[3]):.0f} "
          f"| {med(lambda r: r[4]):.0f} | {med(lambda r: r[4] / max(1, r[3])):.2f} | {med(lambda r: r[5]):.0f} |")
EOF
