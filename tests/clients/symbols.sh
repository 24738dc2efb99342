#!/usr/bin/env bash
# Exported-symbol test of bibop's drop-in libgc.so.1: soname libgc.so.1, no
# dependency on stock libgc, no -Bsymbolic; exports every libgc function in
# the required list; exports the data objects programs read or
# copy-relocate, with exactly stock libgc1's sizes, default visibility and no
# direct (non-GOT) access by the library's own code, so that a program's
# copy relocation is the variable the collector uses; exports every GC_*
# symbol that the installed real clients (mmv, debfoster, w3m) import.  The lists are checked against stock libgc1 too.  Symbols
# that stock exports and bibop does not are printed for information only.
# The C++ libraries (libgccpp.so.1, libgctba.so.1) are checked by
# tests/cpp/abi.sh.
# Usage: symbols.sh <bibop lib dir>
set -euo pipefail

STOCK=/usr/lib/x86_64-linux-gnu/libgc.so.1
fail() { echo "FAIL [symbols]: $*" >&2; exit 1; }
note() { echo "[symbols] $*"; }

dir=${1:-}
[ -n "$dir" ] || fail "usage: $0 <bibop lib dir>"
[ -d "$dir" ] || fail "bibop lib dir '$dir' does not exist (is the 'gc' target built?)"
LIB=$dir/libgc.so.1
[ -e "$LIB" ] || fail "$LIB does not exist (the 'gc' target must produce it)"
[ -e "$STOCK" ] || fail "stock libgc $STOCK is missing (apt-get install libgc1)"
for t in nm readelf objdump awk sort comm cmp; do
    command -v "$t" >/dev/null 2>&1 || fail "required tool '$t' is missing"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bibop-symbols.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

readelf -h "$LIB" > "$WORK/header" 2>&1 || fail "$LIB is not an ELF file"
grep -q 'Type:.*DYN' "$WORK/header" || fail "$LIB is not a shared object"
readelf -h "$STOCK" > "$WORK/stock.header"
for field in Class Machine; do
    mine=$(sed -n "s/^ *$field: *//p" "$WORK/header")
    theirs=$(sed -n "s/^ *$field: *//p" "$WORK/stock.header")
    [ "$mine" = "$theirs" ] || fail "$LIB is not loadable where stock libgc is: $field '$mine', stock '$theirs'"
done
# bibop's library must not be stock libgc itself (symlink or copy), or the
# test passes vacuously; BIBOP_CLIENTS_SELFTEST=1 allows it to validate the
# harness (the required lists must then all hold on stock).
if [ "$(readlink -f "$LIB")" = "$(readlink -f "$STOCK")" ] || cmp -s "$LIB" "$STOCK"; then
    [ "${BIBOP_CLIENTS_SELFTEST:-}" = 1 ] ||
        fail "$LIB is stock libgc itself (symlink or copy): nothing would be tested (set BIBOP_CLIENTS_SELFTEST=1 only to validate the harness)"
    note "SELFTEST: $LIB is stock libgc; validating the required lists on stock"
fi

FUNCTIONS="GC_init GC_malloc GC_malloc_atomic GC_malloc_uncollectable
GC_malloc_atomic_uncollectable GC_malloc_ignore_off_page
GC_malloc_atomic_ignore_off_page GC_malloc_many GC_realloc GC_free GC_strdup
GC_strndup GC_base GC_size GC_is_heap_ptr GC_gcollect GC_gcollect_and_unmap
GC_enable GC_disable GC_expand_hp GC_set_max_heap_size
GC_set_free_space_divisor GC_set_dont_expand GC_get_heap_size
GC_get_free_bytes GC_get_total_bytes GC_get_heap_usage_safe GC_get_gc_no
GC_set_oom_fn GC_get_oom_fn GC_set_warn_proc GC_get_warn_proc
GC_set_all_interior_pointers GC_get_all_interior_pointers GC_add_roots
GC_remove_roots GC_clear_roots GC_set_no_dls GC_get_version
GC_init_finalized_malloc GC_finalized_malloc GC_register_disclaim_proc"

# name:size in bytes
OBJECTS="GC_gc_no:8 GC_all_interior_pointers:4 GC_java_finalization:4 GC_no_dls:4
GC_least_plausible_heap_addr:8 GC_greatest_plausible_heap_addr:8
GC_push_other_roots:8 GC_on_abort:8 GC_is_valid_displacement_print_proc:8
GC_is_visible_print_proc:8"

CLIENTS="mmv debfoster w3m"
# Other libgc clients named in the design brief; checked only if installed,
# for information (their imports live partly in their shared libraries).
OPTIONAL_CLIENTS="/usr/bin/guile-3.0 /usr/lib/x86_64-linux-gnu/libguile-3.0.so.1
/usr/bin/ecl /usr/lib/x86_64-linux-gnu/libecl.so.21.2 /usr/bin/neko
/usr/lib/x86_64-linux-gnu/libneko.so.2 /usr/bin/asy /usr/bin/nix
/usr/lib/x86_64-linux-gnu/libnixexpr.so /usr/lib/x86_64-linux-gnu/libnixmain.so
/usr/bin/poke /usr/lib/x86_64-linux-gnu/libpoke.so.0 /usr/bin/chase /usr/bin/crystal
/usr/lib/x86_64-linux-gnu/libguile-2.2.so.1 /usr/lib/stalin/stalin
/usr/bin/M2-binary /usr/bin/lilypond /usr/bin/parser3 /usr/bin/g2c /usr/bin/fauhdlc
/usr/lib/x86_64-linux-gnu/inkscape/libinkscape_base.so
/usr/lib/x86_64-linux-gnu/libobjc_gc.so.4 /usr/lib/x86_64-linux-gnu/libhomfly.so.0
/usr/bin/autogen"

# defined_syms LIB > FILE: "name type" for every defined dynamic symbol,
# from nm -D --defined-only (T/W/i functions, D/B/R/V/G/S data, ...).
defined_syms() {
    nm -D --defined-only "$1" | awk 'NF >= 3 { n = $3; sub(/@.*/, "", n); print n, $2 }' | sort -u
}
# dyn_objects LIB > FILE: "name size" of every defined OBJECT in .dynsym.
dyn_objects() {
    readelf --dyn-syms -W "$1" |
        awk 'function hex(h,    i, v) {   # readelf prints big sizes as 0x...
                 v = 0
                 for (i = 3; i <= length(h); i++)
                     v = v * 16 + index("0123456789abcdef", tolower(substr(h, i, 1))) - 1
                 return v
             }
             $4 == "OBJECT" && $7 != "UND" {
                 n = $8; sub(/@.*/, "", n); s = $3
                 if (s ~ /^0x/) s = hex(s)
                 print n, s }' | sort -u
}

defined_syms "$LIB" > "$WORK/bibop.defs" || fail "nm -D failed on $LIB"
defined_syms "$STOCK" > "$WORK/stock.defs"
dyn_objects "$LIB" > "$WORK/bibop.objs"
dyn_objects "$STOCK" > "$WORK/stock.objs"
[ -s "$WORK/bibop.defs" ] || fail "$LIB exports no dynamic symbols at all"
errors=0
err() { echo "  error: $*" >&2; errors=$((errors + 1)); }

# 1. Dynamic section: soname, no stock libgc underneath, no -Bsymbolic.
readelf -d "$LIB" > "$WORK/dynamic"
soname=$(sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p' "$WORK/dynamic")
[ "$soname" = libgc.so.1 ] || err "soname is '${soname:-none}', expected libgc.so.1"
needed=$(sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' "$WORK/dynamic" | tr '\n' ' ')
note "soname ${soname:-none}; NEEDED: ${needed:-none}"
for n in $needed; do
    case $n in
        libgc.so*|libgccpp.so*|libgctba.so*|libgc-*) err "links against stock libgc ($n)";;
    esac
done
if grep -q '(SYMBOLIC)' "$WORK/dynamic" || grep -E '\((FLAGS)\).*SYMBOLIC' "$WORK/dynamic" >/dev/null; then
    err "linked with -Bsymbolic (DT_SYMBOLIC): copy-relocated data would split in two"
fi

# 2. Required functions (checked on stock first: the list itself must be right).
missing_stock=
missing=
for f in $FUNCTIONS; do
    awk -v f="$f" '$1 == f && $2 ~ /^[TWi]$/ { ok = 1 } END { exit !ok }' "$WORK/stock.defs" ||
        missing_stock="$missing_stock $f"
    awk -v f="$f" '$1 == f && $2 ~ /^[TWi]$/ { ok = 1 } END { exit !ok }' "$WORK/bibop.defs" ||
        missing="$missing $f"
done
[ -z "$missing_stock" ] || fail "the required list is wrong: stock libgc does not export functions:$missing_stock"
nfun=$(echo $FUNCTIONS | wc -w)
if [ -n "$missing" ]; then
    err "required functions not exported (as functions):$missing"
else
    note "all $nfun required functions exported"
fi

# 3. Data objects: type OBJECT, default visibility, exact stock size, and
#    never accessed by the library's own code except through the GOT (a
#    program's copy relocation must be the one the collector reads and
#    writes).  Direct access shows as a RIP-relative memory operand, or a
#    RIP-relative lea / R_X86_64_RELATIVE pointer, into the object, or as
#    a second (hidden) symbol at its address (hidden alias, protected
#    visibility, -Bsymbolic, -fno-semantic-interposition).  A lea/RELATIVE
#    pointer exactly at the object's first byte is ambiguous when the
#    library also reaches the object through the GOT or when the object
#    before it ends there (a one-past-the-end pointer): only reported.
readelf -rW "$LIB" > "$WORK/relocs"
readelf --dyn-syms -W "$LIB" > "$WORK/dynsyms"
# "kind address": mem = RIP-relative memory operand, lea = RIP-relative
# address computation, rel = R_X86_64_RELATIVE addend
objdump -d --no-show-raw-insn "$LIB" > "$WORK/disasm" 2> "$WORK/objdump.err" ||
    fail "objdump -d failed on $LIB: $(head -1 "$WORK/objdump.err")"
{ awk -F'\t' '/\(%rip\)/ && match($0, /# [0-9a-f]+/) {
          a = substr($0, RSTART + 2, RLENGTH - 2); split($2, w, " ")
          print (w[1] == "lea" ? "lea" : "mem"), a }' "$WORK/disasm"
  awk '$3 ~ /_RELATIVE$/ { print "rel", $4 }' "$WORK/relocs"
} | sort -u > "$WORK/direct"
# "address size name" of all sized symbols (symtab if not stripped, and dynsym)
readelf -sW "$LIB" |
    awk 'function hex(h,    i, v) { v = 0
             for (i = 3; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", tolower(substr(h, i, 1))) - 1
             return v }
         $2 ~ /^[0-9a-f]+$/ && $8 != "" { z = ($3 ~ /^0x/) ? hex($3) : $3 + 0; n = $8; sub(/@.*/, "", n)
                                           if (z > 0) print $2, z, n }' | sort -u > "$WORK/symspans"
for entry in $OBJECTS; do
    name=${entry%%:*} size=${entry##*:}
    ssize=$(awk -v n="$name" '$1 == n { print $2 }' "$WORK/stock.objs")
    [ "$ssize" = "$size" ] ||
        fail "the required list is wrong: stock libgc has $name as ${ssize:-no} OBJECT of size ${ssize:-?}, list says $size"
    bsize=$(awk -v n="$name" '$1 == n { print $2 }' "$WORK/bibop.objs")
    if [ -z "$bsize" ]; then
        if awk -v n="$name" '$1 == n { ok = 1 } END { exit !ok }' "$WORK/bibop.defs"; then
            err "$name is exported but not as an OBJECT (readelf --dyn-syms)"
        else
            err "$name (OBJECT, $size bytes) is not exported"
        fi
        continue
    fi
    [ "$bsize" = "$size" ] || { err "$name has size $bsize, stock libgc1 has $size"; continue; }
    read -r addr vis <<< "$(awk -v n="$name" '$4 == "OBJECT" && $7 != "UND" { s = $8; sub(/@.*/, "", s); if (s == n) { print $2, $6; exit } }' "$WORK/dynsyms")"
    [ "$vis" = DEFAULT ] || { err "$name has $vis visibility, not DEFAULT: the library would keep its own copy"; continue; }
    got=0
    awk -v n="$name" '{ s = $5; sub(/@.*/, "", s); if (s == n) ok = 1 } END { exit !ok }' "$WORK/relocs" && got=1
    alias=$(awk -v a="$addr" -v n="$name" '$1 == a && $3 != n { print $3 }' "$WORK/symspans" | head -3)
    [ -z "$alias" ] || { err "$name has alias symbol(s) at its address: $(echo $alias) (the library may use them directly)"; continue; }
    # -> "<direct> <ambiguous>" reference counts
    read -r ndirect nambig <<< "$(awk -v a="$addr" -v sz="$size" -v got="$got" '
        function hex(h,    i, v) { v = 0; h = tolower(h); sub(/^0x/, "", h)
            for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
            return v }
        BEGIN { lo = hex(a); hi = lo + sz }
        FILENAME ~ /symspans$/ { if (hex($1) + $2 == lo) ends_here = 1; next }
        { v = hex($2)
          if (v < lo || v >= hi) next
          if ($1 == "mem" || v > lo) d++; else amb++ }
        END { if (!ends_here && !got) { d += amb; amb = 0 }; print d + 0, amb + 0 }' "$WORK/symspans" "$WORK/direct")"
    if [ "$ndirect" -gt 0 ]; then
        err "$name is accessed directly by the library ($ndirect RIP-relative or RELATIVE references, not through the GOT): hidden alias, protected, -Bsymbolic or -fno-semantic-interposition?"
        continue
    fi
    [ "$nambig" -eq 0 ] ||
        note "info: $name: $nambig lea/RELATIVE pointer(s) to its first byte (ambiguous: $([ $got = 1 ] && echo 'the library also uses the GOT for it' || echo 'the preceding object ends there'))"
    [ "$got" = 1 ] ||
        note "info: $name is never read or written by the library itself through the GOT: what clients store there has no effect"
done
[ "$errors" -gt 0 ] || note "all $(echo $OBJECTS | wc -w) data objects exported with stock sizes, default visibility, no direct access"

# 4. What the installed real clients import must all be exported.
for c in $CLIENTS; do
    bin=$(command -v "$c" 2>/dev/null) ||
        fail "client '$c' is not installed (apt-get install -y --no-install-recommends $c)"
    imports=$(nm -D --undefined-only "$bin" | awk '{ s = $NF; sub(/@.*/, "", s); if (s ~ /^GC_/) print s }' | sort -u)
    [ -n "$imports" ] || fail "$bin imports no GC_* symbol: is it really a libgc client?"
    miss=
    for s in $imports; do
        awk -v s="$s" '$1 == s { ok = 1 } END { exit !ok }' "$WORK/bibop.defs" || miss="$miss $s"
    done
    if [ -n "$miss" ]; then
        err "$c imports GC_* symbols that bibop does not export:$miss"
    else
        note "$c: all $(echo $imports | wc -w) GC_* imports exported ($(echo $imports))"
    fi
done
for f in $OPTIONAL_CLIENTS; do
    [ -e "$f" ] || continue
    miss=
    for s in $(nm -D --undefined-only "$f" 2>/dev/null | awk '{ s = $NF; sub(/@.*/, "", s); if (s ~ /^GC_/) print s }' | sort -u); do
        awk -v s="$s" '$1 == s { ok = 1 } END { exit !ok }' "$WORK/bibop.defs" || miss="$miss $s"
    done
    note "info: $f: ${miss:+GC_* imports missing from bibop:}${miss:-all GC_* imports exported}"
done

# 5. Information only: the gap to stock.
awk '$1 ~ /^GC_/ { print $1 }' "$WORK/stock.defs" | sort -u > "$WORK/stock.names"
awk '{ print $1 }' "$WORK/bibop.defs" | sort -u > "$WORK/bibop.names"
comm -23 "$WORK/stock.names" "$WORK/bibop.names" > "$WORK/gap"
note "info: stock libgc1 exports $(wc -l < "$WORK/stock.names") GC_* symbols; bibop lacks $(wc -l < "$WORK/gap") of them${BIBOP_SYMBOLS_QUIET:+ (list suppressed)}"
if [ -s "$WORK/gap" ] && [ -z "${BIBOP_SYMBOLS_QUIET:-}" ]; then
    awk '{ printf "%s%s", (NR % 4 == 1 ? "    " : " "), $1; if (NR % 4 == 0) print "" } END { if (NR % 4) print "" }' "$WORK/gap"
fi

[ "$errors" -eq 0 ] || fail "$errors check(s) failed on $LIB (see above)"
echo "PASS [symbols]: $LIB exports the required libgc ABI"
