#!/usr/bin/env bash
# install_three_ways: installs the build tree into a temporary prefix and
# builds a small libgc program against it with pkg-config bibop, pkg-config
# bdw-gc and CMake find_package(bibop); each must run and must be bound to
# the installed bibop (bibop_classify is found at run time, and ldd shows
# the prefix's libraries, not /usr/lib's libgc).
# Usage: install.sh BUILD_DIR SOURCE_DIR [EXTRA_CFLAGS]
set -euo pipefail
build=$1 src=$2 extra=${3:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/bibop-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/bibop lib/bibop/libgc.so.1 lib/libbibop.a include/bibop/gc.h include/bibop/bibop.h \
         lib/pkgconfig/bibop.pc lib/pkgconfig/bdw-gc.pc lib/cmake/bibop/bibopConfig.cmake; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
ls "$prefix"/lib/libbibop.so.* > /dev/null || { echo "FAIL: no libbibop.so.N"; exit 1; }
[ ! -e "$prefix/lib/libgc.so.1" ] || { echo "FAIL: libgc.so.1 in the public libdir"; exit 1; }

cat > "$work/prog.c" <<'C'
#include <gc.h>
#include <dlfcn.h>
#include <stdio.h>
int main(void) {
  GC_INIT();
  void **keep = 0;
  for (int i = 0; i < 100000; i++) { void **p = GC_MALLOC(32); p[0] = keep; if (i % 64 == 0) keep = p; }
  GC_gcollect();
  printf("collections %d bibop %d\n", GC_get_gc_no() > 0, dlsym(RTLD_DEFAULT, "bibop_classify") != 0);
  return 0;
}
C
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
check() {   # name binary
  out=$("$2") || { echo "FAIL: $1 program failed"; exit 1; }
  [ "$out" = "collections 1 bibop 1" ] || { echo "FAIL: $1 printed '$out'"; exit 1; }
  if ldd "$2" | grep -E 'lib(gc|bibop)\.so' | grep -qv "$prefix"; then
    echo "FAIL: $1 binds a library outside $prefix:"; ldd "$2"; exit 1
  fi
  echo "ok: $1"
}
# shellcheck disable=SC2046
gcc $extra "$work/prog.c" $(pkg-config --cflags --libs bibop) \
    -Wl,-rpath,"$(pkg-config --variable=libdir bibop)" -ldl -o "$work/p_bibop"
check "pkg-config bibop" "$work/p_bibop"
# shellcheck disable=SC2046
gcc $extra "$work/prog.c" $(pkg-config --cflags --libs bdw-gc) -ldl -o "$work/p_bdwgc"
check "pkg-config bdw-gc" "$work/p_bdwgc"
mkdir "$work/cm"
cp "$work/prog.c" "$work/cm/"
cat > "$work/cm/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.20)
project(prog C)
find_package(bibop REQUIRED)
add_executable(prog prog.c)
target_link_libraries(prog PRIVATE bibop::bibop ${CMAKE_DL_LIBS})
C
cmake -S "$work/cm" -B "$work/cm/b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$extra" > "$work/cm.log"
cmake --build "$work/cm/b" > "$work/cm-build.log"
check "find_package(bibop)" "$work/cm/b/prog"
