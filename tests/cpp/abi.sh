#!/usr/bin/env bash
# Exported-symbol and drop-in test of bibop's C++ libraries, libgccpp.so.1
# and libgctba.so.1 (sibling of tests/clients/symbols.sh, which checks
# libgc.so.1):
#   1. sonames as stock; libgccpp needs libgc.so.1 and resolves it to bibop's
#      (never stock's), libgctba needs no libgc at all;
#   2. every symbol stock's library exports (nm -D --defined-only) is
#      exported by ours, as the same kind (function), apart from the
#      linker-generated end markers older binutils exported;
#   3. a C++ program built against stock headers and libraries, once with
#      -lgccpp -lgc and once with -lgctba -lgc, prints the same with
#      LD_LIBRARY_PATH=<bibop lib dir>, and the loader really bound it to
#      bibop's libraries.
# A missing tool, library or compiler fails the test.
# Usage: abi.sh <bibop lib dir>
set -euo pipefail

STOCK_DIR=/usr/lib/x86_64-linux-gnu
fail() { echo "FAIL [cpp-abi]: $*" >&2; exit 1; }
note() { echo "[cpp-abi] $*"; }

dir=${1:-}
[ -n "$dir" ] && [ -d "$dir" ] || fail "usage: $0 <bibop lib dir>"
dir=$(cd "$dir" && pwd)
for t in nm readelf g++ awk sort comm cmp; do
    command -v "$t" >/dev/null 2>&1 || fail "required tool '$t' is missing"
done
for lib in libgc.so.1 libgccpp.so.1 libgctba.so.1; do
    [ -e "$dir/$lib" ] || fail "$dir/$lib does not exist (build the gc, gccpp and gctba targets)"
    [ -e "$STOCK_DIR/$lib" ] || fail "stock $STOCK_DIR/$lib is missing (apt-get install libgc1 libgc-dev)"
    if [ "$(readlink -f "$dir/$lib")" = "$(readlink -f "$STOCK_DIR/$lib")" ] ||
       cmp -s "$dir/$lib" "$STOCK_DIR/$lib"; then
        fail "$dir/$lib is stock's own library: nothing would be tested"
    fi
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bibop-cpp-abi.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# "name kind" of every defined dynamic symbol, kind T/W/i -> F(unction),
# anything else -> D(ata); linker-generated markers left out.
exports() {
    nm -D --defined-only "$1" |
        awk 'NF >= 3 { n = $3; sub(/@.*/, "", n)
                       if (n ~ /^(_end|_edata|__bss_start|_init|_fini)$/) next
                       print n, ($2 ~ /^[TWi]$/ ? "F" : "D") }' | sort -u
}
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | sort; }
soname() { readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p'; }

errors=0
err() { echo "  error: $*" >&2; errors=$((errors + 1)); }

# 1 and 2.
for lib in libgccpp.so.1 libgctba.so.1; do
    ours=$dir/$lib stock=$STOCK_DIR/$lib
    [ "$(soname "$ours")" = "$(soname "$stock")" ] ||
        err "$lib: soname '$(soname "$ours")', stock '$(soname "$stock")'"
    exports "$stock" > "$WORK/stock.syms"
    exports "$ours" > "$WORK/ours.syms"
    [ -s "$WORK/stock.syms" ] || fail "stock $lib exports nothing: is nm working?"
    missing=$(comm -23 "$WORK/stock.syms" "$WORK/ours.syms" | tr '\n' ' ')
    [ -z "$missing" ] && note "$lib: all $(wc -l < "$WORK/stock.syms") stock exports present ($(awk '{ printf "%s ", $1 }' "$WORK/stock.syms"))" ||
        err "$lib: stock exports missing or of another kind: $missing"
    extra=$(comm -13 "$WORK/stock.syms" "$WORK/ours.syms" | tr '\n' ' ')
    [ -z "$extra" ] || note "info: $lib also exports: $extra"
    for n in $(needed "$ours"); do
        case $n in
            libgc.so.1) [ $lib = libgccpp.so.1 ] || err "$lib needs libgc.so.1 (stock's does not)";;
            libgccpp.so*|libgctba.so*|libgc-*|libgc.so*) err "$lib needs $n";;
        esac
    done
done
needed "$dir/libgccpp.so.1" | grep -qx libgc.so.1 || err "libgccpp.so.1 does not need libgc.so.1"
# Resolved from the build tree (RUNPATH) or from LD_LIBRARY_PATH=<dir>: bibop's.
resolved=$(LD_LIBRARY_PATH=$dir ldd "$dir/libgccpp.so.1" | awk '$1 == "libgc.so.1" { print $3 }')
[ "$(readlink -f "$resolved")" = "$(readlink -f "$dir/libgc.so.1")" ] ||
    err "libgccpp.so.1 resolves libgc.so.1 to '$resolved', not $dir/libgc.so.1"

# 3. A stock-built client.
cat > "$WORK/client.cc" <<'EOF'
#include <gc_cpp.h>
#include <gc/gc_allocator.h>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

static int destroyed;
struct Counted : public gc_cleanup { ~Counted() { destroyed++; } };
struct Cell : public gc { Cell *next; long value; };

static void drop(int n) { for (int i = 0; i < n; i++) (void)new Counted; }

int main()
{
    GC_INIT();
    Cell *list = 0;
    for (long i = 0; i < 100000; i++) {
        Cell *c = new Cell;
        c->next = list;
        c->value = i;
        list = c;
    }
    std::vector<Cell *, gc_allocator<Cell *> > cells;
    for (Cell *c = list; c; c = c->next) cells.push_back(c);
    std::map<int, std::string> names;             // libgccpp's operator new
    for (int i = 0; i < 1000; i++) names[i] = std::string(50, char('a' + i % 26));
    drop(1000);
    for (int i = 0; i < 5; i++) { GC_gcollect(); GC_invoke_finalizers(); }
    long sum = 0;
    for (size_t i = 0; i < cells.size(); i++) sum += cells[i]->value;
    std::printf("sum %ld cells %zu names %zu in-heap %d destroyed-most %d\n", sum, cells.size(),
                names.size(), GC_base(&names[3]) != 0, destroyed > 900);
    try {
        GC_set_max_heap_size(64 << 20);
        (void)new (UseGC) char[1 << 30];
        std::printf("no bad_alloc\n");
    } catch (const std::bad_alloc &) {
        std::printf("bad_alloc\n");
    }
    return 0;
}
EOF
# Built twice: with libgccpp (global new on the collector) and with
# libgctba only (GC_throw_bad_alloc; std::map then uses libstdc++'s new).
for cpplib in gccpp gctba; do
    exe=$WORK/client-$cpplib
    g++ -O1 "$WORK/client.cc" -o "$exe" -L"$STOCK_DIR" -l$cpplib -lgc 2> "$WORK/cc.err" ||
        { cat "$WORK/cc.err" >&2; fail "the stock client does not build with -l$cpplib -lgc"; }
    for l in lib$cpplib.so.1 libgc.so.1; do
        needed "$exe" | grep -qx $l || fail "the -l$cpplib client does not need $l"
    done
    "$exe" > "$WORK/stock.out" 2> "$WORK/stock.err" ||
        fail "the -l$cpplib client failed on stock: $(cat "$WORK/stock.err")"
    rm -f "$WORK"/ld.*
    LD_LIBRARY_PATH=$dir LD_DEBUG=libs LD_DEBUG_OUTPUT=$WORK/ld "$exe" > "$WORK/bibop.out" 2> "$WORK/bibop.err" ||
        err "the -l$cpplib client failed on bibop: $(cat "$WORK/bibop.err")"
    for l in libgc.so.1 lib$cpplib.so.1; do
        grep -hq "calling init: $dir/$l" "$WORK"/ld.* || err "the loader did not bind the -l$cpplib client to $dir/$l"
    done
    if cmp -s "$WORK/stock.out" "$WORK/bibop.out"; then
        note "stock-built -l$cpplib client: identical output on bibop: $(tr '\n' ' ' < "$WORK/bibop.out")"
    else
        err "stock-built -l$cpplib client: output differs"; diff "$WORK/stock.out" "$WORK/bibop.out" >&2 || true
    fi
done

[ "$errors" -eq 0 ] || fail "$errors check(s) failed"
echo "PASS [cpp-abi]: libgccpp.so.1 and libgctba.so.1 export stock's symbols and run stock-built clients"
