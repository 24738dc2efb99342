# common.sh: what the bench/run-*.sh scripts share; sourced, never run.
#
# bench_args DEFAULT "$@"   sets rounds (DEFAULT unless the first argument
#                           is a number >= 1) and build (./build unless
#                           given next) from [ROUNDS] [BUILD_DIR]; any other
#                           argument prints the usage and exits 2.
# find_bin NAME             prints the path of the benchmark binary NAME
#                           under $build/bench or $build; fails if neither
#                           holds it.
# find_variants PREFIX V... for each variant V whose binary PREFIX_V was
#                           built: bin[V] (an associative array the caller
#                           declares) and V appended to present[]; exits 2
#                           if none was built.

bench_args() {
  rounds=$1
  shift
  build=./build
  if [[ $# -ge 1 && $1 =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
  if [[ $# -ge 1 ]]; then build=$1; shift; fi
  if [[ $# -ge 1 || $rounds -lt 1 ]]; then
    echo "usage: $0 [ROUNDS>=1] [BUILD_DIR]" >&2
    exit 2
  fi
}

find_bin() {
  local d
  for d in "$build/bench" "$build"; do
    if [[ -x $d/$1 ]]; then echo "$d/$1"; return 0; fi
  done
  return 1
}

find_variants() {
  local prefix=$1 v b
  shift
  present=()
  for v in "$@"; do
    if b=$(find_bin "${prefix}_$v"); then bin[$v]=$b; present+=("$v"); fi
  done
  if [[ ${#present[@]} -eq 0 ]]; then
    echo "no ${prefix}_* binaries under $build (build them first)" >&2
    exit 2
  fi
}
