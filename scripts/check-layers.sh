#!/usr/bin/env bash
# check-layers.sh: every call and every shared variable of src/ goes down
# the layers of docs/ARCHITECTURE.md, or is one of the upward edges that
# page names as essential. Reads the built objects (nm): for each object,
# each undefined symbol that another object of the library defines must be
# defined in a layer the table's "may call" column allows (its own layer
# counts), or be listed, with both files, in the upward-edges table. Also
# fails if a file of src/ is missing from the layer table or the table
# names a file that does not exist.
#
# usage: scripts/check-layers.sh [BUILD_DIR=./build]
# Exits 0 and prints one summary line when the code keeps the table; prints
# every offending edge (file -> file: symbol) and exits 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
objdir=$build/src/CMakeFiles/bibop_objects.dir
doc=docs/ARCHITECTURE.md
[[ -d $objdir ]] || { echo "check-layers: no $objdir (build bibop first)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The layer table, between <!-- layers:begin --> and <!-- layers:end -->:
# | N | name | `a.c`, `b.c` | owns | may call | -> "file layer allowed-layers".
awk -F'|' '
  /<!-- layers:begin -->/ { on = 1; next }
  /<!-- layers:end -->/ { on = 0 }
  on && $2 ~ /^ *[0-9]+ *$/ {
    layer = $2 + 0; allowed = "," layer ","
    n = split($6, parts, /[, ]+/)
    for (i = 1; i <= n; i++) {
      p = parts[i]
      if (p ~ /^[0-9]+$/) allowed = allowed p ","
      else if (p ~ /^[0-9]+-[0-9]+$/) {
        split(p, r, "-"); for (j = r[1] + 0; j <= r[2] + 0; j++) allowed = allowed j ","
      }
    }
    m = split($4, files, /[`, ]+/)
    for (i = 1; i <= m; i++) if (files[i] ~ /\.c$/) print files[i], layer, allowed
  }' "$doc" > "$work/layers"
# The upward edges: | `from.c` or any file | `to.c` | `sym`, `sym` | why |.
awk -F'|' '
  /<!-- upward:begin -->/ { on = 1; next }
  /<!-- upward:end -->/ { on = 0 }
  on && $3 ~ /\.c/ {
    from = $2; gsub(/[` ]/, "", from); if (from ~ /^anyfile$/) from = "*"
    to = $3; gsub(/[` ]/, "", to)
    n = split($4, syms, /[`, ]+/)
    for (i = 1; i <= n; i++) if (syms[i] != "") print from, to, syms[i]
  }' "$doc" > "$work/upward"

[[ -s $work/layers ]] || { echo "check-layers: no layer table in $doc" >&2; exit 2; }
status=0
for f in src/*.c; do
  grep -q "^$(basename "$f") " "$work/layers" || { echo "check-layers: $f is in no layer of $doc"; status=1; }
done
while read -r f _; do
  [[ -e src/$f ]] || { echo "check-layers: $doc names src/$f, which does not exist"; status=1; }
done < "$work/layers"

objects=()
for o in "$objdir"/*.c.o; do
  [[ -e src/$(basename "$o" .o) ]] && objects+=("$o")   # skip objects of deleted files
done
for o in "${objects[@]}"; do
  f=$(basename "$o" .o)
  nm --defined-only "$o" | awk -v f="$f" '$2 ~ /^[TDBRCVGS]$/ { print $3, f }'
done | sort -u > "$work/defs"
for o in "${objects[@]}"; do
  f=$(basename "$o" .o)
  nm -u "$o" | awk -v f="$f" '{ print f, $NF }'
done > "$work/uses"

awk -v layers="$work/layers" -v upward="$work/upward" '
  BEGIN {
    while ((getline line < layers) > 0) {
      split(line, a, " "); layer[a[1]] = a[2]; allowed[a[1]] = a[3]
    }
    while ((getline line < upward) > 0) { split(line, a, " "); up[a[1] " " a[2] " " a[3]] = 1 }
  }
  FNR == NR { def[$1] = $2; next }
  {
    from = $1; sym = $2; to = def[sym]
    if (to == "" || to == from) next
    edges++
    if (index(allowed[from], "," layer[to] ",")) next
    if (up[from " " to " " sym] || up["* " to " " sym]) { upward_used++; next }
    printf "check-layers: %s (layer %s) -> %s (layer %s): %s\n", from, layer[from], to, layer[to], sym
    bad++
  }
  END {
    if (bad) exit 1
    printf "check-layers: %d cross-file references, all downward or listed as essential (%d)\n", edges, upward_used
  }' "$work/defs" "$work/uses" || status=1
exit $status
