#!/usr/bin/env bash
# Check bibop's public headers (include/gc.h, include/gc/*.h) against the
# installed bdwgc 8.2 headers (/usr/include/gc, Debian libgc-dev):
#   1. every header compiles alone and in a usage TU, as C (gcc/clang,
#      -Wall -Wextra -Werror) and C++ (g++/clang++), with and without
#      GC_DEBUG / GC_THREADS;
#   2. macros: `-E -dM` of all headers, ours vs bdwgc's, in many client
#      configurations, plus the full expansions of the public macros;
#   3. ABI: sizeof/alignof/offsetof of every public struct and typedef and
#      the value of every enum constant, printed by a program built twice;
#   4. declarations: every GC_* function and variable of bdwgc's headers is
#      declared by ours with the same type (pointer assignments generated
#      from bdwgc's prototypes must compile with -Werror in C and C++) and
#      the same attributes (from clang's AST);
#   5. behaviour of the inline-allocation macros (gc_inline.h) against
#      logging stubs, traced with both header sets;
#   6. a program built with our headers runs on stock libgc.so.1 exactly
#      like the same program built with bdwgc's headers;
#   7. the C++ headers (gc_cpp.h, gc/gc_cpp.h, gc/gc_allocator.h): compile
#      alone and in a usage TU (g++/clang++, C++98 to C++20, client
#      configurations), macros (-dM), sizes/enum values, member signatures,
#      the library symbols a client TU needs and the inline functions it
#      defines, and a program run on stock libgc + libgccpp.
# Exits non-zero on any mismatch and prints what differs.
# Usage: scripts/check-headers.sh [-v]     (needs gcc, g++, clang, python3)

set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OURS=$ROOT/include
BDW_DIR=${BDW_INCLUDE_DIR:-/usr/include}     # holds bdwgc's gc/*.h
VERBOSE=0
[ "${1:-}" = "-v" ] && VERBOSE=1

W=$(mktemp -d "${TMPDIR:-/tmp}/check-headers.XXXXXX")
trap 'rm -rf "$W"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
info() { [ $VERBOSE = 1 ] && echo "  $*"; return 0; }
section() { echo "== $*"; }

[ -f "$BDW_DIR/gc/gc.h" ] || { echo "bdwgc headers not found in $BDW_DIR/gc"; exit 2; }
for t in gcc g++ clang clang++ python3; do
  command -v $t >/dev/null || { echo "missing tool: $t"; exit 2; }
done

# Include flags selecting one header set.  bdwgc's are found through the
# default /usr/include (or BDW_INCLUDE_DIR); ours take precedence with -I.
inc_ours="-I$OURS"
inc_bdw="-isystem $BDW_DIR"
[ "$BDW_DIR" = /usr/include ] && inc_bdw=""

HEADERS="gc.h gc_version.h gc_config_macros.h gc_mark.h gc_typed.h
gc_inline.h gc_tiny_fl.h gc_pthread_redirects.h javaxfc.h gc_disclaim.h
leak_detector.h gc_backptr.h gc_gcj.h"
for h in $HEADERS; do
  [ -f "$OURS/gc/$h" ] || fail "missing header include/gc/$h"
done
[ -f "$OURS/gc.h" ] || fail "missing forwarder include/gc.h"
# Top-level forwarders that Debian installs next to gc/ (gc_cpp.h among
# them; the C++ headers themselves are checked in section 7).
for f in "$BDW_DIR"/*.h; do
  if grep -q '#include <gc/' "$f" 2>/dev/null; then
    b=$(basename "$f")
    inner=$(sed -n 's/^#include <gc\/\(.*\)>.*/\1/p' "$f")
    if [ -f "$OURS/gc/$inner" ] && [ ! -f "$OURS/$b" ]; then
      fail "bdwgc installs forwarder $b -> gc/$inner; ours has none"
    fi
  fi
done

# All headers except leak_detector.h (which redefines malloc & co).
cat > "$W/all.c" <<'EOF'
#include <gc.h>
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_typed.h>
#include <gc/gc_inline.h>
#include <gc/gc_tiny_fl.h>
#include <gc/gc_pthread_redirects.h>
#include <gc/javaxfc.h>
#include <gc/gc_disclaim.h>
#include <gc/gc_backptr.h>
#include <gc/gc_gcj.h>
EOF
{ cat "$W/all.c"; echo '#include <gc/leak_detector.h>'; } > "$W/leak.c"

CONFIGS=(
  ""
  "-DGC_DEBUG"
  "-DGC_THREADS"
  "-DGC_DEBUG -DGC_THREADS"
)

###########################################################################
section "1. compile each header and a usage TU (C and C++)"

cat > "$W/usage.c" <<'EOF'
#include <gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_typed.h>
#include <gc/gc_inline.h>
#include <gc/javaxfc.h>
#include <gc/gc_disclaim.h>
#include <gc/gc_backptr.h>
#include <gc/gc_gcj.h>
#include <string.h>

struct pair { void *a; GC_word b; };
static void fin(void *obj, void *cd) { (void)obj; (void)cd; }
static struct GC_ms_entry *mark(GC_word *addr, struct GC_ms_entry *sp,
                                struct GC_ms_entry *lim, GC_word env)
{
  (void)env;
  return GC_MARK_AND_PUSH((void *)addr[0], sp, lim, (void **)addr);
}
static void *tiny[GC_TINY_FREELISTS];
static void *on_oom(size_t n) { (void)n; return 0; }
static void on_event(GC_EventType e) { (void)e; }
#ifdef GC_THREADS
static void *thr(void *arg) { return arg; }
#endif

int use_all(void);
int use_all(void)
{
  struct pair *p;
  char *s, *q;
  void *r, *lst;
  GC_word bm[GC_BITMAP_SIZE(struct pair)];
  GC_descr d;
  unsigned k;
  GC_hidden_pointer h;
  struct GC_stack_base sb;
  struct GC_prof_stats_s st;
  struct GC_finalizer_closure fc;
  struct GC_timeval_s tv;
  GC_finalization_proc ofn;
  void *ocd;
  GC_ref_kind rk;
  size_t off;
  int n = 0;

  GC_INIT();
  GC_set_oom_fn(on_oom);
  GC_set_on_collection_event(on_event);
  p = GC_NEW(struct pair);
  p = (struct pair *)GC_REALLOC(p, 64);
  s = (char *)GC_MALLOC_ATOMIC(10);
  q = GC_STRDUP("xy");
  q = GC_STRNDUP(q, 1);
  r = GC_MALLOC_UNCOLLECTABLE(8);
  GC_FREE(r);
  r = GC_MALLOC_ATOMIC_UNCOLLECTABLE(8);
  r = GC_MALLOC_IGNORE_OFF_PAGE(100000);
  r = GC_MALLOC_ATOMIC_IGNORE_OFF_PAGE(100000);
  r = GC_NEW_ATOMIC(int);
  r = GC_NEW_UNCOLLECTABLE(int);
  r = GC_MALLOC_STUBBORN(8);
  GC_REGISTER_FINALIZER(p, fin, 0, &ofn, &ocd);
  GC_REGISTER_FINALIZER_IGNORE_SELF(p, fin, 0, 0, 0);
  GC_REGISTER_FINALIZER_NO_ORDER(p, fin, 0, 0, 0);
  GC_REGISTER_FINALIZER_UNREACHABLE(p, fin, 0, 0, 0);
  n += GC_GENERAL_REGISTER_DISAPPEARING_LINK(&p->a, s);
  n += GC_REGISTER_LONG_LINK(&p->a, s);
  GC_REGISTER_DISPLACEMENT(8);
  q = GC_PTR_ADD(q, 1);
  (void)GC_PRE_INCR(q, 1);
  (void)GC_POST_INCR(q);
  (void)GC_POST_DECR(q);
  GC_PTR_STORE(&p->a, q);
  GC_PTR_STORE_AND_DIRTY(&p->a, q);
  GC_END_STUBBORN_CHANGE(p);
  GC_reachable_here(p);
  lst = GC_malloc_many(16);
  lst = GC_NEXT(lst);
  memset(bm, 0, sizeof bm);
  GC_set_bit(bm, GC_WORD_OFFSET(struct pair, a));
  n += (int)GC_get_bit(bm, 0);
  d = GC_make_descriptor(bm, GC_WORD_LEN(struct pair));
  p = (struct pair *)GC_MALLOC_EXPLICITLY_TYPED(sizeof *p, d);
  p = (struct pair *)GC_CALLOC_EXPLICITLY_TYPED(4, sizeof *p, d);
  k = GC_new_kind(GC_new_free_list(),
                  GC_MAKE_PROC(GC_new_proc(mark), 0), 0, 1);
  r = GC_GENERIC_OR_SPECIAL_MALLOC(16, (int)k);
  r = GC_USR_PTR_FROM_BASE(r);
  GC_MALLOC_WORDS(r, 3, tiny);
  GC_MALLOC_ATOMIC_WORDS(r, 2, tiny);
  GC_CONS(r, p, q, tiny);
  GC_FAST_MALLOC_GRANS(r, 2, tiny, 0, GC_I_NORMAL,
                       GC_malloc_kind(32, GC_I_NORMAL), (void)0);
  r = GC_malloc_kind_global(16, GC_I_PTRFREE);
  h = GC_HIDE_POINTER(p);
  p = (struct pair *)GC_REVEAL_POINTER(h);
  GC_alloc_lock();
  GC_alloc_unlock();
  n += GC_get_stack_base(&sb);
  n += (int)GC_get_prof_stats(&st, sizeof st);
  tv = GC_get_time_limit_tv();
  GC_set_time_limit_tv(tv);
  fc.proc = fin;
  fc.cd = 0;
  GC_init_finalized_malloc();
  r = GC_finalized_malloc(16, &fc);
  GC_init_gcj_malloc(GC_GCJ_RESERVED_MARK_PROC_INDEX, (void *)mark);
  r = GC_GCJ_MALLOC(32, p);
  r = GC_GCJ_MALLOC_IGNORE_OFF_PAGE(32, p);
  rk = GC_get_back_ptr_info(r, &lst, &off);
  GC_finalize_all();
#ifdef GC_THREADS
  {
    pthread_t t;
    n += pthread_create(&t, 0, thr, 0);
    GC_suspend_thread(t);
    n += GC_is_thread_suspended(t);
    GC_resume_thread(t);
    n += pthread_join(t, 0);
    n += GC_get_parallel();
  }
#endif
  n += GC_get_version() == ((GC_VERSION_MAJOR << 16) | (GC_VERSION_MINOR << 8)
                            | GC_VERSION_MICRO);
  return n + (int)k + (int)rk + (int)off + (r != 0) + (h != 0) + (d != 0)
         + (GC_TIME_UNLIMITED > 0) + GC_SUCCESS + GC_NO_MEMORY;
}
EOF

cat > "$W/leakuse.c" <<'EOF'
#include <gc/leak_detector.h>
int use_leak(void);
int use_leak(void)
{
  char *p = (char *)malloc(10), *q = (char *)calloc(2, 3);
  p = (char *)realloc(p, 20);
  q = strdup("x");
  free(q);
  free(p);
  CHECK_LEAKS();
  return 0;
}
EOF

compile() {   # compile <label> <compiler + flags...>: quiet on success
  local label=$1; shift
  if ! "$@" > "$W/cc.out" 2>&1; then
    fail "compile: $label"
    sed 's/^/    /' "$W/cc.out" | head -20
    return 1
  fi
  info "ok: $label"
}

n1=0
for cfg in "${CONFIGS[@]}"; do
  for h in gc.h $(printf 'gc/%s ' $HEADERS); do
    printf '#include <%s>\nint dummy_%s;\n' "$h" x > "$W/one.c"
    compile "gcc $cfg <$h>" gcc -std=c11 -Wall -Wextra -Werror $cfg $inc_ours -c "$W/one.c" -o "$W/one.o"
    compile "g++ $cfg <$h>" g++ -Wall -Wextra -Werror $cfg $inc_ours -x c++ -c "$W/one.c" -o "$W/one.o"
    n1=$((n1 + 2))
  done
  for tu in usage leakuse; do
    compile "gcc $cfg $tu" gcc -std=c11 -Wall -Wextra -Werror $cfg $inc_ours -c "$W/$tu.c" -o "$W/$tu.o"
    compile "clang $cfg $tu" clang -std=c11 -Wall -Wextra -Werror $cfg $inc_ours -c "$W/$tu.c" -o "$W/$tu.o"
    compile "g++ $cfg $tu" g++ -Wall -Wextra -Werror $cfg $inc_ours -x c++ -c "$W/$tu.c" -o "$W/$tu.o"
    compile "g++ -std=c++98 $cfg $tu" g++ -std=c++98 -Wall -Werror $cfg $inc_ours -x c++ -c "$W/$tu.c" -o "$W/$tu.o"
    compile "clang++ $cfg $tu" clang++ -Wall -Wextra -Werror $cfg $inc_ours -x c++ -c "$W/$tu.c" -o "$W/$tu.o"
    # The usage TU itself must be valid bdwgc code.
    compile "gcc $cfg $tu (bdwgc headers)" gcc -std=c11 -Wall -Wextra -Werror $cfg $inc_bdw -c "$W/$tu.c" -o "$W/$tu.o"
    n1=$((n1 + 6))
  done
done
echo "   $n1 compilations"

###########################################################################
section "2. macros (-dM) and macro expansions, ours vs bdwgc"

cat > "$W/macros.py" <<'EOF'
# Compare two `-E -dM` outputs; whitespace inside bodies is ignored.
import re, sys
ALLOWED = {
  # Ours exports with default visibility (the library uses -fvisibility=hidden).
  'GC_API',
  # Same control flow, written differently; its behaviour is checked in step 5.
  'GC_FAST_MALLOC_GRANS',
}
def load(path):
    d = {}
    for line in open(path):
        m = re.match(r'#define (\w+)(\([^)]*\))?(?: (.*))?$', line.rstrip('\n'))
        if m:
            d[m.group(1)] = ((m.group(2) or '').replace(' ', ''),
                             re.sub(r'\s+', '', m.group(3) or ''))
    return d
a, b, label = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
bad = 0
for k in sorted(set(a) | set(b)):
    if k in ALLOWED:
        continue
    if k not in b:
        print('  [%s] missing in ours: #define %s%s %s' % (label, k, a[k][0], a[k][1])); bad += 1
    elif k not in a:
        print('  [%s] only in ours: #define %s%s %s' % (label, k, b[k][0], b[k][1])); bad += 1
    elif a[k] != b[k]:
        print('  [%s] differs: %s\n      bdwgc: %s%s\n      ours : %s%s'
              % (label, k, a[k][0], a[k][1], b[k][0], b[k][1])); bad += 1
sys.exit(1 if bad else 0)
EOF

# compare_macros LABEL TU COMPILER [FLAGS...]: `-E -dM` of TU with bdwgc's
# headers and with ours, compared by macros.py.
compare_macros() {
  local label=$1 tu=$2
  shift 2
  "$@" -E -dM $inc_bdw "$tu" > "$W/bdw.dm" 2> "$W/err" \
    || { fail "bdwgc -dM: $label"; cat "$W/err"; return 1; }
  "$@" -E -dM $inc_ours "$tu" > "$W/ours.dm" 2> "$W/err" \
    || { fail "ours -dM: $label"; cat "$W/err"; return 1; }
  python3 "$W/macros.py" "$W/bdw.dm" "$W/ours.dm" "$label" || fail "macros differ: $label"
}

# Client-side configuration macros that change what the headers define.
MCONFIGS=(
  ""
  "-DGC_DEBUG"
  "-DGC_THREADS"
  "-DGC_DEBUG -DGC_THREADS"
  "-DGC_LINUX_THREADS"
  "-DLINUX_THREADS"
  "-DGC_THREADS -D_GNU_SOURCE"
  "-DGC_THREADS -DGC_NO_THREAD_REDIRECTS"
  "-DGC_THREADS -DGC_USE_LD_WRAP"
  "-DGC_THREADS -DUSE_LD_WRAP"
  "-DGC_THREADS -DGC_PTHREAD_REDIRECTS_ONLY"
  "-DGC_THREADS -DGC_NO_DLOPEN -DGC_NO_PTHREAD_SIGMASK -DGC_NO_PTHREAD_CANCEL"
  "-DGC_DEBUG_REPLACEMENT"
  "-DGC_REQUIRE_WCSDUP -DGC_DEBUG"
  "-DGC_REQUIRE_WCSDUP"
  "-DI_HIDE_POINTERS"
  "-DGC_I_HIDE_POINTERS"
  "-DGC_DONT_GC"
  "-DGC_OOM_FUNC_RETURNS_ALIAS"
  "-DGC_MISSING_EXECINFO_H"
  "-DGC_BUILD"
  "-DNOT_GCBUILD"
  "-DNDEBUG"
  "-DGC_NO_PREFETCH_FOR_WRITE"
  "-DGC_THREADS -DGC_DONT_EXPAND -DGC_FORCE_UNMAP_ON_GCOLLECT -DGC_MAX_RETRIES=3 -DGC_ALLOCD_BYTES_PER_FINALIZER=5 -DGC_FREE_SPACE_DIVISOR=4 -DGC_FULL_FREQ=7 -DGC_TIME_LIMIT=9 -DGC_MARKERS=2 -DGC_SIG_SUSPEND=10 -DGC_SIG_THR_RESTART=12 -DGC_MAXIMUM_HEAP_SIZE=1000000 -DGC_IGNORE_WARN -DGC_INITIAL_HEAP_SIZE=100000"
)
COMPILERS=("gcc -std=c11" "gcc -std=gnu99" "g++ -x c++" "g++ -x c++ -std=c++98"
           "clang -std=c11" "clang++ -x c++ -std=c++17")
n2=0
for cc in "${COMPILERS[@]}"; do
  for cfg in "${MCONFIGS[@]}"; do
    for tu in all leak; do
      compare_macros "$cc $cfg $tu" "$W/$tu.c" $cc $cfg
      n2=$((n2 + 1))
    done
  done
done
echo "   $n2 -dM comparisons"

# Full expansions of the public function-like macros (one per line, tagged).
cat > "$W/expand.c" <<'EOF'
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_typed.h>
#include <gc/gc_inline.h>
#include <gc/javaxfc.h>
#include <gc/gc_disclaim.h>
#include <gc/gc_backptr.h>
#include <gc/gc_gcj.h>
@@START@@
@@INIT@@ GC_INIT()
@@MALLOC@@ GC_MALLOC(n)
@@MALLOC_ATOMIC@@ GC_MALLOC_ATOMIC(n)
@@REALLOC@@ GC_REALLOC(p, n)
@@FREE@@ GC_FREE(p)
@@STRDUP@@ GC_STRDUP(s)
@@STRNDUP@@ GC_STRNDUP(s, n)
@@UNCOLL@@ GC_MALLOC_UNCOLLECTABLE(n)
@@AUNCOLL@@ GC_MALLOC_ATOMIC_UNCOLLECTABLE(n)
@@IOP@@ GC_MALLOC_IGNORE_OFF_PAGE(n)
@@AIOP@@ GC_MALLOC_ATOMIC_IGNORE_OFF_PAGE(n)
@@STUB@@ GC_MALLOC_STUBBORN(n) GC_NEW_STUBBORN(T) GC_CHANGE_STUBBORN(p)
@@NEW@@ GC_NEW(T) GC_NEW_ATOMIC(T) GC_NEW_UNCOLLECTABLE(T)
@@FIN@@ GC_REGISTER_FINALIZER(p, f, d, of, od)
@@FIN2@@ GC_REGISTER_FINALIZER_IGNORE_SELF(p, f, d, of, od)
@@FIN3@@ GC_REGISTER_FINALIZER_NO_ORDER(p, f, d, of, od)
@@FIN4@@ GC_REGISTER_FINALIZER_UNREACHABLE(p, f, d, of, od)
@@LINK@@ GC_GENERAL_REGISTER_DISAPPEARING_LINK(l, o) GC_REGISTER_LONG_LINK(l, o)
@@DISP@@ GC_REGISTER_DISPLACEMENT(n)
@@DIRTY@@ GC_END_STUBBORN_CHANGE(p) GC_PTR_STORE_AND_DIRTY(p, q)
@@PTR@@ GC_PTR_ADD(x, n) GC_PRE_INCR(x, n) GC_POST_INCR(x) GC_POST_DECR(x)
@@STORE@@ GC_PTR_STORE(p, q)
@@HIDE@@ GC_HIDE_POINTER(p) GC_REVEAL_POINTER(p)
@@NEXT@@ GC_NEXT(p)
@@REACH@@ GC_reachable_here(p)
@@LOCK@@ GC_alloc_lock() GC_alloc_unlock()
@@EXTRAS@@ GC_EXTRAS
@@MARK@@ GC_MARK_AND_PUSH(o, m, l, s) GC_MAKE_PROC(i, e) GC_USR_PTR_FROM_BASE(p)
@@GOS@@ GC_GENERIC_OR_SPECIAL_MALLOC(n, k)
@@TYPED@@ GC_MALLOC_EXPLICITLY_TYPED(n, d) GC_CALLOC_EXPLICITLY_TYPED(m, n, d)
@@BITS@@ GC_get_bit(b, i) GC_set_bit(b, i) GC_WORD_OFFSET(T, f) GC_WORD_LEN(T) GC_BITMAP_SIZE(T)
@@GCJ@@ GC_GCJ_MALLOC(s, d) GC_GCJ_MALLOC_IGNORE_OFF_PAGE(s, d)
@@TINY@@ GC_WORDS_TO_GRANULES(n) GC_RAW_BYTES_FROM_INDEX(i) GC_WORDS_TO_WHOLE_GRANULES(n)
@@INLINE@@ GC_EXPECT(e, o) GC_PREFETCH_FOR_WRITE(x) GC_FAST_M_AO_STORE(f, n) GC_ASSERT(e)
@@KINDG@@ GC_malloc_kind_global(n, k)
@@THREADS@@ pthread_create pthread_join pthread_detach pthread_sigmask pthread_cancel pthread_exit dlopen
EOF
n2e=0
for cc in "gcc -std=c11" "g++ -x c++"; do
  for cfg in "${MCONFIGS[@]}"; do
    $cc -E -P $cfg $inc_bdw "$W/expand.c" 2>/dev/null | sed -n '/@@START@@/,$p' | tr -s ' \t' ' ' > "$W/bdw.exp"
    $cc -E -P $cfg $inc_ours "$W/expand.c" 2>/dev/null | sed -n '/@@START@@/,$p' | tr -s ' \t' ' ' > "$W/ours.exp"
    # Compare ignoring whitespace.
    if ! diff <(sed 's/[[:space:]]//g' "$W/bdw.exp") <(sed 's/[[:space:]]//g' "$W/ours.exp") > "$W/exp.diff"; then
      fail "macro expansions differ: $cc $cfg"
      sed 's/^/    /' "$W/exp.diff" | head -20
    fi
    n2e=$((n2e + 1))
  done
done
echo "   $n2e expansion comparisons"

###########################################################################
section "3. ABI: struct layouts, typedef sizes, enum values"

# Extract GC_* declarations from a clang AST text dump: functions and
# variables (type + attributes), typedefs, records (fields), enum constants.
cat > "$W/astinfo.py" <<'EOF'
import json, re, sys
unnamed = re.compile(r'\((?:unnamed|anonymous) [^)]*\)')
def norm(t):
    return unnamed.sub('(unnamed)', t) if t else t
decls, records, enums, typedefs = {}, {}, {}, {}
cur = None
for line in open(sys.argv[1], errors='replace'):
    line = line.rstrip('\n')
    m = re.match(r'^[|`]-(\w+) 0x[0-9a-f]+ (.*)$', line)
    if m:
        kind, rest = m.groups()
        cur = None
        if kind in ('FunctionDecl', 'VarDecl', 'TypedefDecl'):
            n = re.search(r"\b(GC_\w+) '([^']*)'(?::'([^']*)')?", rest)
            if n:
                name, t, dt = n.group(1), norm(n.group(2)), norm(n.group(3))
                if kind == 'TypedefDecl':
                    typedefs[name] = [t, dt]
                else:
                    e = decls.setdefault(name, {'kind': kind, 'type': t,
                                                'dtype': dt, 'attrs': []})
                    cur = ('decl', name)
        elif kind == 'RecordDecl':
            n = re.search(r'\b(struct|union) (GC_\w+) definition', rest)
            if n:
                records[n.group(2)] = []
                cur = ('rec', n.group(2))
        elif kind == 'EnumDecl':
            cur = ('enum', None)
        continue
    m = re.match(r'^[| ] [|`]-(\w+) 0x[0-9a-f]+ (.*)$', line)
    if m and cur:
        kind, rest = m.groups()
        if cur[0] == 'decl' and kind.endswith('Attr') and kind != 'VisibilityAttr':
            args = re.sub(r'^<[^>]*>\s*', '', rest).strip()
            a = kind + ((' ' + args) if args else '')
            if a not in decls[cur[1]]['attrs']:
                decls[cur[1]]['attrs'].append(a)
                decls[cur[1]]['attrs'].sort()
        elif cur[0] == 'rec' and kind == 'FieldDecl':
            n = re.findall(r"\b(\w+) '([^']*)'(?::'([^']*)')?", rest)
            if n:
                records[cur[1]].append([n[-1][0], norm(n[-1][1]), norm(n[-1][2])])
        elif cur[0] == 'enum' and kind == 'EnumConstantDecl':
            n = re.search(r"\b(GC_\w+) '", rest)
            if n:
                enums[n.group(1)] = True
json.dump({'decls': decls, 'records': records, 'enums': sorted(enums),
           'typedefs': typedefs}, open(sys.argv[2], 'w'), indent=1, sort_keys=True)
EOF

AST_CONFIGS=("-DGC_THREADS -DGC_REQUIRE_WCSDUP" "")
i=0
for cfg in "${AST_CONFIGS[@]}"; do
  i=$((i + 1))
  for set in bdw ours; do
    if [ $set = bdw ]; then inc=$inc_bdw; else inc=$inc_ours; fi
    clang -Xclang -ast-dump -fsyntax-only -fno-color-diagnostics $cfg $inc "$W/all.c" \
      > "$W/$set$i.ast" 2> "$W/err" || { fail "clang AST dump ($set $cfg)"; cat "$W/err"; }
    python3 "$W/astinfo.py" "$W/$set$i.ast" "$W/$set$i.json"
  done
done

# Generate the layout printer from bdwgc's declarations (config 1 = superset).
python3 - "$W/bdw1.json" > "$W/abi.c" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print('#include <stdio.h>\n#include <stddef.h>')
for h in ('gc.h', 'gc_mark.h', 'gc_typed.h', 'gc_inline.h', 'javaxfc.h',
          'gc_disclaim.h', 'gc_backptr.h', 'gc_gcj.h'):
    print('#include <gc/%s>' % h)
print('#define ALIGNOF(t) offsetof(struct { char c; t x; }, x)')
print('int main(void) {')
for r, fields in sorted(d['records'].items()):
    print('  printf("struct %s: size %%zu align %%zu\\n", sizeof(struct %s), ALIGNOF(struct %s));' % (r, r, r))
    for f in fields:
        print('  printf("  .%s: offset %%zu size %%zu\\n", offsetof(struct %s, %s), sizeof(((struct %s *)0)->%s));'
              % (f[0], r, f[0], r, f[0]))
for t in sorted(d['typedefs']):
    print('  printf("typedef %s: size %%zu align %%zu\\n", sizeof(%s), ALIGNOF(%s));' % (t, t, t))
for e in d['enums']:
    print('  printf("enum %s = %%lld\\n", (long long)%s);' % (e, e))
print('  return 0;\n}')
EOF
abi_ok=1
for set in bdw ours; do
  if [ $set = bdw ]; then inc=$inc_bdw; else inc=$inc_ours; fi
  gcc -std=gnu11 -w -DGC_THREADS -DGC_REQUIRE_WCSDUP $inc "$W/abi.c" -o "$W/abi_$set" 2> "$W/err" \
    || { fail "ABI program does not build with $set headers"; cat "$W/err"; abi_ok=0; continue; }
  "$W/abi_$set" > "$W/abi_$set.txt"
done
if [ $abi_ok = 1 ]; then
  if diff -u "$W/abi_bdw.txt" "$W/abi_ours.txt" > "$W/abi.diff"; then
    echo "   $(grep -c '^struct' "$W/abi_bdw.txt") structs, $(grep -c '^typedef' "$W/abi_bdw.txt") typedefs, $(grep -c '^enum' "$W/abi_bdw.txt") enum constants: identical"
  else
    fail "ABI layout differs"; sed 's/^/    /' "$W/abi.diff"
  fi
fi

###########################################################################
section "4. declarations: names, types and attributes"

# Names, types, attributes, typedefs and struct fields from the two ASTs.
cat > "$W/cmpdecl.py" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2])); label = sys.argv[3]
# Declared by bdwgc but deliberately not by us (Windows-only, not exported
# by the Linux library).
DROPPED = {'GC_win32_free_heap'}
bad = 0
def out(msg):
    global bad
    print('  [%s] %s' % (label, msg)); bad += 1
for n, x in sorted(a['decls'].items()):
    if n in DROPPED:
        continue
    y = b['decls'].get(n)
    if y is None:
        out('missing in ours: %s %s' % (x['kind'], n)); continue
    for k in ('kind', 'type', 'dtype', 'attrs'):
        if x[k] != y[k]:
            out('%s %s: bdwgc %r, ours %r' % (n, k, x[k], y[k]))
for n in sorted(set(b['decls']) - set(a['decls'])):
    print('  [%s] note: only in ours: %s %s' % (label, b['decls'][n]['kind'], n))
for n, x in sorted(a['typedefs'].items()):
    if b['typedefs'].get(n) != x:
        out('typedef %s: bdwgc %r, ours %r' % (n, x, b['typedefs'].get(n)))
for n in sorted(set(b['typedefs']) - set(a['typedefs'])):
    out('typedef only in ours: %s' % n)
for n, x in sorted(a['records'].items()):
    if b['records'].get(n) != x:
        out('struct %s: bdwgc %r, ours %r' % (n, x, b['records'].get(n)))
for n in sorted(set(b['records']) - set(a['records'])):
    out('struct only in ours: %s' % n)
if a['enums'] != b['enums']:
    out('enum constants differ: %r' % sorted(set(a['enums']) ^ set(b['enums'])))
print('  [%s] %d declarations, %d typedefs, %d structs compared'
      % (label, len(a['decls']), len(a['typedefs']), len(a['records'])))
sys.exit(1 if bad else 0)
EOF
i=0
for cfg in "${AST_CONFIGS[@]}"; do
  i=$((i + 1))
  python3 "$W/cmpdecl.py" "$W/bdw$i.json" "$W/ours$i.json" "ast ${cfg:-default}" \
    || fail "declarations differ (${cfg:-default})"
done

# Compile-time check: bdwgc's prototypes (gcc -aux-info) turned into
# function-pointer typedefs; each of our functions must be assignable to it.
# Variables: __builtin_types_compatible_p against bdwgc's declared type.
i=0
for cfg in "${AST_CONFIGS[@]}"; do
  i=$((i + 1))
  gcc -std=gnu11 -fsyntax-only $cfg $inc_bdw -aux-info "$W/aux.txt" "$W/all.c" 2> "$W/err" \
    || { fail "gcc -aux-info on bdwgc headers"; cat "$W/err"; }
  python3 - "$W/aux.txt" "$W/bdw$i.json" > "$W/decl_check.c" <<'EOF'
import json, re, sys
aux, astj = sys.argv[1], sys.argv[2]
DROPPED = {'GC_win32_free_heap'}
seen = {}
for line in open(aux):
    m = re.search(r'\*/ (extern .*;)\s*$', line)
    if not m:
        continue
    proto = m.group(1)
    n = re.search(r'\b(GC_\w+) \(', proto)
    if not n or n.group(1) in DROPPED:
        continue
    seen.setdefault(n.group(1), proto)
print('#include "all.c"')
print('#include <gc/leak_detector.h>')
print('void check_functions(void);\nvoid check_functions(void) {')
for name, proto in sorted(seen.items()):
    td = proto[len('extern '):].rstrip(';')
    td = re.sub(r'\b%s \(' % name, '(*T_%s) (' % name, td, count=1)
    print('  { typedef %s; T_%s p = %s; (void)p; }' % (td, name, name))
print('}')
d = json.load(open(astj))
print('#ifndef __cplusplus')
for name, x in sorted(d['decls'].items()):
    if x['kind'] != 'VarDecl':
        continue
    print('_Static_assert(__builtin_types_compatible_p(__typeof__(%s), %s), "type of %s");'
          % (name, x['type'], name))
    print('void *ref_%s(void);\nvoid *ref_%s(void) { return (void *)&%s; }' % (name, name, name))
print('#endif')
EOF
  compile "declarations C ${cfg:-default}" gcc -std=gnu11 -Wall -Wextra -Werror -Wno-deprecated-declarations \
    $cfg $inc_ours -I"$W" -c "$W/decl_check.c" -o "$W/decl.o"
  compile "declarations C++ ${cfg:-default}" g++ -Wall -Wextra -Werror -Wno-deprecated-declarations \
    $cfg $inc_ours -I"$W" -x c++ -c "$W/decl_check.c" -o "$W/decl.o"
  echo "   ${cfg:-default}: $(grep -c 'T_GC' "$W/decl_check.c") functions, $(grep -c '_Static_assert' "$W/decl_check.c") variables assigned/asserted against bdwgc's types"
done

###########################################################################
section "5. inline-allocation macros against logging stubs"

cat > "$W/inline_trace.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <gc/gc_inline.h>

static void *fl[GC_TINY_FREELISTS];
static void *fl_direct[GC_TINY_FREELISTS];

/* Stubs standing in for the library: every call is logged. */
static GC_word pool[4096];
static size_t pool_used;
static int fail_refills;
static void *take(size_t bytes)
{
  void *p = &pool[pool_used];
  pool_used += (bytes + sizeof(GC_word) - 1) / sizeof(GC_word) + 1;
  return p;
}
#define OFF(p) ((p) ? (long)((GC_word *)(p) - pool) : -1L)
void GC_generic_malloc_many(size_t lb, int k, void **result)
{
  int i;
  void *head = 0;
  printf("  many(%zu, %d)%s\n", lb, k, fail_refills ? " -> NULL" : "");
  if (fail_refills) { *result = 0; return; }
  for (i = 0; i < 3; i++) {
    void **o = (void **)take(lb);
    o[0] = head;
    head = o;
  }
  *result = head;
}
void *GC_malloc_kind(size_t lb, int k)
{
  void *p = take(lb);
  printf("  kind(%zu, %d) -> %ld\n", lb, k, OFF(p));
  return p;
}
#ifdef GC_THREADS
void *GC_malloc_kind_global(size_t lb, int k) { return GC_malloc_kind(lb, k); }
#endif
void GC_end_stubborn_change(const void *p)
{
  int i;
  for (i = 0; i < GC_TINY_FREELISTS; i++)
    if (p == &fl[i] || p == &fl_direct[i])
      break;
  printf("  dirty(%s[%d])\n", p == &fl_direct[i] ? "fl_direct" : "fl", i);
}
size_t GC_size(const void *p) { (void)p; return 1 << 20; }
void GC_ptr_store_and_dirty(void *p, const void *q) { *(const void **)p = q; printf("  store_and_dirty\n"); }
void GC_debug_ptr_store_and_dirty(void *p, const void *q) { GC_ptr_store_and_dirty(p, q); }
void GC_debug_end_stubborn_change(const void *p) { GC_end_stubborn_change(p); }
static void *oom(size_t n) { printf("  oom(%zu)\n", n); return 0; }
GC_oom_func GC_get_oom_fn(void) { return oom; }

int main(void)
{
  void *r, *res;
  int i, g;
  for (g = 0; g < 4; g++)
    for (i = 0; i < 5; i++) {
      GC_FAST_MALLOC_GRANS(r, g, fl, 0, GC_I_NORMAL,
                           GC_malloc_kind(g * 16, GC_I_NORMAL), (void)0);
      printf("grans %d #%d -> %ld, fl[%d] = %ld\n", g, i, OFF(r), g, OFF(fl[g]));
    }
  GC_FAST_MALLOC_GRANS(r, GC_TINY_FREELISTS, fl, 0, GC_I_NORMAL,
                       GC_malloc_kind(999, GC_I_NORMAL), (void)0);
  printf("big -> %ld\n", OFF(r));
  for (g = 0; g < GC_TINY_FREELISTS; g++) fl_direct[g] = (void *)1;
  for (i = 0; i < 8; i++) {
    GC_FAST_MALLOC_GRANS(r, 2, fl_direct, 3, GC_I_PTRFREE,
                         GC_malloc_kind(32, GC_I_PTRFREE), (void)0);
    printf("direct #%d -> %ld, entry = %ld\n", i, OFF(r),
           (GC_word)fl_direct[2] < 4096 ? (long)(GC_word)fl_direct[2] : OFF(fl_direct[2]));
  }
  for (i = 0; i < 4; i++) {
    GC_MALLOC_WORDS(r, 3, fl);
    printf("words3 #%d -> %ld first=%p\n", i, OFF(r), r ? *(void **)r : (void *)1);
    GC_MALLOC_ATOMIC_WORDS(r, 5, fl);
    printf("awords5 #%d -> %ld\n", i, OFF(r));
    GC_CONS(res, (void *)0x10, (void *)0x20, fl);
    printf("cons #%d -> %ld (%p, %p)\n", i, OFF(res), ((void **)res)[0], ((void **)res)[1]);
  }
  fail_refills = 1;
  memset(fl, 0, sizeof fl);
  GC_MALLOC_WORDS(r, 4, fl);
  printf("oom -> %ld\n", OFF(r));
  printf("WORDS_TO_WHOLE_GRANULES(1..5) = %d %d %d %d %d\n",
         (int)GC_WORDS_TO_WHOLE_GRANULES(1), (int)GC_WORDS_TO_WHOLE_GRANULES(2),
         (int)GC_WORDS_TO_WHOLE_GRANULES(3), (int)GC_WORDS_TO_WHOLE_GRANULES(4),
         (int)GC_WORDS_TO_WHOLE_GRANULES(5));
  return 0;
}
EOF
for cfg in "" "-DNDEBUG" "-DGC_THREADS" "-DGC_DEBUG"; do
  ok=1
  for set in bdw ours; do
    if [ $set = bdw ]; then inc=$inc_bdw; else inc=$inc_ours; fi
    gcc -std=gnu11 -O1 -w $cfg $inc "$W/inline_trace.c" -o "$W/it_$set" 2> "$W/err" \
      || { fail "inline trace does not build ($set $cfg)"; cat "$W/err"; ok=0; continue; }
    "$W/it_$set" > "$W/it_$set.txt" || { fail "inline trace crashed ($set $cfg)"; ok=0; }
  done
  [ $ok = 1 ] || continue
  if diff -u "$W/it_bdw.txt" "$W/it_ours.txt" > "$W/it.diff"; then
    echo "   ${cfg:-default}: $(wc -l < "$W/it_bdw.txt") trace lines identical"
  else
    fail "inline macro behaviour differs ($cfg)"; sed 's/^/    /' "$W/it.diff" | head -40
  fi
done

###########################################################################
section "6. built with our headers, run on stock libgc.so.1"
# run_both NAME SRC "COMPILER FLAGS" "LIBS" CFG [STDERR]: build SRC with
# bdwgc's headers and with ours, run both on the stock libraries, compare
# stdout and, unless STDERR is "ignore", stderr (GC_DEBUG reports name the
# header's path and line, which differ).
run_both() {
  local name=$1 src=$2 cc=$3 libs=$4 cfg=$5 errs=${6:-compare} set inc ok=1
  for set in bdw ours; do
    if [ $set = bdw ]; then inc=$inc_bdw; else inc=$inc_ours; fi
    $cc $cfg $inc "$src" $libs -o "$W/run_$set" 2> "$W/err" \
      || { fail "$name does not build ($set $cfg)"; cat "$W/err"; ok=0; continue; }
    if [ "$errs" = ignore ]; then
      "$W/run_$set" > "$W/run_$set.txt" 2> /dev/null
    else
      "$W/run_$set" > "$W/run_$set.txt" 2>&1
    fi || { fail "$name failed ($set $cfg)"; ok=0; }
  done
  [ $ok = 1 ] || return 1
  if diff -u "$W/run_bdw.txt" "$W/run_ours.txt" > "$W/run.diff"; then
    echo "   ${cfg:-default}: identical output ($(wc -l < "$W/run_bdw.txt") lines)"
  else
    fail "$name output differs ($cfg)"; sed 's/^/    /' "$W/run.diff"
  fi
}


if ! gcc -x c - -lgc -o /dev/null <<< 'int main(void){return 0;}' 2>/dev/null; then
  echo "   skipped: stock libgc (-lgc) not installed"
else
  cat > "$W/run.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_typed.h>
#include <gc/gc_inline.h>
#include <gc/javaxfc.h>

struct node { struct node *next; GC_word val; };
static int finalized;
static void fin(void *obj, void *cd) { (void)obj; finalized += (int)(GC_word)cd; }
static void *tiny[GC_TINY_FREELISTS];
static void *thread_main(void *arg)
{
  struct node *n = GC_NEW(struct node);
  n->val = (GC_word)arg;
  return n;
}
static struct node *make(int i)
{
  struct node *n = GC_NEW(struct node);
  n->val = (GC_word)i;
  GC_REGISTER_FINALIZER(n, fin, (void *)1, 0, 0);
  return n;
}

int main(void)
{
  struct node *head = 0, *n;
  GC_word bm[GC_BITMAP_SIZE(struct node)] = {0};
  struct GC_prof_stats_s st;
  void *r, *link;
  char *s;
  long sum = 0;
  int i;

  GC_INIT();
  printf("version %u.%u.%u gc_no>0 %d\n", GC_get_version() >> 16,
         (GC_get_version() >> 8) & 255, GC_get_version() & 255, GC_get_gc_no() > 0);
  for (i = 0; i < 1000; i++) {
    n = GC_NEW(struct node);
    n->next = head;
    n->val = (GC_word)i;
    head = n;
  }
  for (i = 0; i < 200; i++) (void)make(i);
  s = GC_STRDUP("hello");
  printf("strdup %s size %zu\n", s, GC_size(s));
  printf("size(malloc(16)) %zu\n", GC_size(GC_MALLOC(16)));
  GC_set_bit(bm, GC_WORD_OFFSET(struct node, next));
  n = (struct node *)GC_MALLOC_EXPLICITLY_TYPED(sizeof *n,
                       GC_make_descriptor(bm, GC_WORD_LEN(struct node)));
  n->next = head;
  head = n;
  r = GC_malloc_many(32);
  for (i = 0; r; i++) r = GC_NEXT(r);
  printf("malloc_many gave %d objects\n", i > 0);
  for (i = 0; i < 10; i++) {
    GC_MALLOC_WORDS(r, 3, tiny);
    ((GC_word *)r)[1] = 7;
    GC_CONS(r, head, r, tiny);
  }
  link = GC_MALLOC_ATOMIC(8);
  {
    void **holder = (void **)GC_MALLOC_ATOMIC(sizeof(void *));
    *holder = GC_MALLOC(8);
    printf("link %d\n", GC_GENERAL_REGISTER_DISAPPEARING_LINK(holder, *holder));
    link = holder;
  }
  for (i = 0; i < 5; i++) GC_gcollect();
  GC_invoke_finalizers();
  printf("finalized some %d\n", finalized > 0);
  for (n = head; n; n = n->next) sum += (long)n->val;
  printf("sum %ld\n", sum);
  printf("prof_stats %zu gc_no_match %d\n", GC_get_prof_stats(&st, sizeof st),
         st.gc_no == GC_get_gc_no());
  printf("base ok %d heap_ptr %d\n", GC_base((char *)head + 3) == head, GC_is_heap_ptr(head));
#ifdef GC_THREADS
  {
    pthread_t t;
    void *res;
    pthread_create(&t, 0, thread_main, (void *)42);
    pthread_join(t, &res);
    printf("thread %lu registered-main %d\n", (unsigned long)((struct node *)res)->val,
           GC_thread_is_registered());
  }
#endif
  return 0;
}
EOF
  for cfg in "" "-DGC_THREADS" "-DGC_DEBUG"; do
    run_both "run test" "$W/run.c" "gcc -std=gnu11 -O1 -w" "-lgc" "$cfg"
  done
fi

###########################################################################
section "7. C++ headers: gc_cpp.h, gc/gc_cpp.h, gc/gc_allocator.h"

CXX_HEADERS="gc_cpp.h gc/gc_cpp.h gc/gc_allocator.h"
for h in $CXX_HEADERS; do
  [ -f "$OURS/$h" ] || fail "missing C++ header include/$h"
done

# Client configurations of the C++ headers (on top of gc.h's).
CXX_CONFIGS=(
  ""
  "-DGC_DEBUG"
  "-DGC_THREADS"
  "-DGC_NAMESPACE"
  "-DGC_NAME_CONFLICT"
  "-DGC_ATOMIC_UNCOLLECTABLE"
  "-DGC_INCLUDE_NEW"
  "-DGC_NEW_ABORTS_ON_OOM"
  "-DGC_NO_FINALIZATION"
  "-DGC_NO_OPERATOR_NEW_ARRAY"
  "-DGC_NAMESPACE -DGC_DEBUG -DGC_ATOMIC_UNCOLLECTABLE"
)
CXX_COMPILERS=("g++ -std=c++98" "g++ -std=c++11" "g++ -std=c++17" "g++ -std=c++20"
               "clang++ -std=c++11" "clang++ -std=c++17")

# Every public name of gc_cpp.h in use (no allocators: the defined inline
# functions of this TU are compared in 7d).
cat > "$W/cpp_use.cc" <<'EOF'
#include <gc_cpp.h>
#ifdef GC_NAMESPACE
using namespace boehmgc;
#endif
struct Obj : public gc { int x; };
struct Fin : public gc_cleanup { int y; ~Fin() { y = 0; } };
struct Second { virtual ~Second() {} long z; };
struct Mixed : public Second, public gc_cleanup { int w; };
struct Raw { int r[3]; };
static void GC_CALLBACK raw_cleanup(void *obj, void *cd) { (void)obj; (void)cd; }

int use_cpp(void);
int use_cpp(void)
{
  GCCleanUpFunc cleanup = raw_cleanup;
  GCPlacement where = UseGC;
  char buf[sizeof(Obj)];
  Obj *o1 = new Obj, *o2 = new (NoGC) Obj, *o3 = new (PointerFreeGC) Obj;
  Obj *o4 = new (where) Obj, *o5 = new (static_cast<void *>(buf)) Obj;
  Fin *f = new Fin;
  Mixed *m = new Mixed;
  Raw *r1 = new (UseGC, cleanup, 0) Raw, *r2 = new (NoGC) Raw, *r3 = new (PointerFreeGC) Raw;
  int n = 0;
#ifdef GC_OPERATOR_NEW_ARRAY
  Obj *oa = new Obj[3], *ob = new (NoGC) Obj[2];
  Raw *ra = new (UseGC, cleanup, 0) Raw[2], *rb = new (NoGC) Raw[4];
  delete[] ob;
  n += (oa != 0) + (ra != 0) + (rb != 0);
#endif
#ifndef GC_NAME_CONFLICT
  n += new (GC) Raw != 0;
#endif
#ifdef GC_ATOMIC_UNCOLLECTABLE
  n += new (PointerFreeNoGC) Raw != 0;
#endif
  delete o2;
  delete f;
  n += o1->x + o3->x + o4->x + o5->x + m->w + r1->r[0] + r2->r[1] + r3->r[2];
  return n;
}
EOF

# Every public name of gc_allocator.h in use.
cat > "$W/alloc_use.cc" <<'EOF'
#include <gc/gc_allocator.h>
#include <list>
#include <map>
#include <string>
#include <vector>
struct Pod { int a, b; };
GC_DECLARE_PTRFREE(Pod);

typedef std::basic_string<char, std::char_traits<char>, gc_allocator<char> > gc_text;

int use_alloc(void);
int use_alloc(void)
{
  std::vector<int, gc_allocator<int> > v(10, 1);
  std::vector<Pod, gc_allocator<Pod> > pods(3);
  std::vector<void *, traceable_allocator<void *> > t;
  std::vector<double, gc_allocator_ignore_off_page<double> > big(100);
  std::list<long, gc_allocator<long> > l(3, 2L);
  std::map<int, gc_text, std::less<int>, gc_allocator<std::pair<const int, gc_text> > > m;
  gc_allocator<int> ga;
  gc_allocator<char> gc1(ga);
  traceable_allocator<int> ta;
  traceable_allocator<char> ta1(ta);
  gc_allocator_ignore_off_page<int> ia;
  gc_allocator_ignore_off_page<char> ia1(ia);
  gc_allocator<int> ga2;
  int *p = ga.allocate(4);
  int x = 5;
  ga.construct(p, x);
  ga.destroy(p);
  ga.deallocate(p, 4);
  m[1] = gc_text("abc");
  t.push_back(&x);
  GC_true_type yes = GC_type_traits<char>().GC_is_ptr_free;
  GC_false_type no = GC_type_traits<void *>().GC_is_ptr_free;
  (void)yes; (void)no;
  return v[0] + pods[0].a + (int)big.size() + (int)l.size() + (int)m.size()
         + (ga == gc1) + (ga != ga2) + (ta == ta1) + (ia != ia1) + (*ga.address(x) == 5)
         + (ga.max_size() > 0) + (ia.allocate(1) != 0) + (ta.allocate(1) != 0)
         + (GC_selective_alloc(8, GC_true_type(), false) != 0);
}
EOF

# 7a. Each header alone in every dialect; the usage TUs in every client
#     configuration (and valid with bdwgc's headers too).
n7=0
for cxx in "${CXX_COMPILERS[@]}"; do
  for h in $CXX_HEADERS; do
    printf '#include <%s>\nint dummy_cpp;\n' "$h" > "$W/one.cc"
    compile "$cxx <$h>" $cxx -Wall -Wextra -Werror $inc_ours -c "$W/one.cc" -o "$W/one.o"
    n7=$((n7 + 1))
  done
done
for cfg in "${CXX_CONFIGS[@]}"; do
  for tu in cpp_use alloc_use; do
    for cxx in "g++ -std=c++98" "g++ -std=c++17" "clang++ -std=c++11"; do
      compile "$cxx $cfg $tu" $cxx -Wall -Wextra -Werror $cfg $inc_ours -c "$W/$tu.cc" -o "$W/$tu.o"
      n7=$((n7 + 1))
    done
    compile "g++ $cfg $tu (bdwgc headers)" g++ $cfg $inc_bdw -c "$W/$tu.cc" -o "$W/$tu.o"
    n7=$((n7 + 1))
  done
done
echo "   $n7 compilations"

# 7b. Macros.
printf '#include <gc_cpp.h>\n#include <gc/gc_allocator.h>\n' > "$W/cppall.cc"
n7=0
for cxx in "g++ -std=c++98" "g++ -std=c++17" "clang++ -std=c++17"; do
  for cfg in "${CXX_CONFIGS[@]}"; do
    compare_macros "$cxx $cfg C++ headers" "$W/cppall.cc" $cxx $cfg
    n7=$((n7 + 1))
  done
done
echo "   $n7 -dM comparisons"

# 7c. Sizes, layouts and enum values; member signatures (C++17: noexcept is
#     part of the type) and the pointer-free type list, checked by assignment.
cat > "$W/cpp_abi.cc" <<'EOF'
#include <gc_cpp.h>
#include <gc/gc_allocator.h>
#include <cstdio>
#include <cstddef>
struct Obj : public gc { int x; };
struct Fin : public gc_cleanup { int y; };
struct Second { virtual ~Second() {} long z; };
struct Mixed : public Second, public gc_cleanup { int w; };
#define SHOW(t) std::printf("%-40s size %zu align %zu\n", #t, sizeof(t), alignof(t))
int main()
{
  SHOW(gc); SHOW(gc_cleanup); SHOW(Obj); SHOW(Fin); SHOW(Mixed); SHOW(GCPlacement);
  SHOW(gc_allocator<int>); SHOW(gc_allocator<void>); SHOW(traceable_allocator<long>);
  SHOW(gc_allocator_ignore_off_page<char>); SHOW(GC_type_traits<int>);
  std::printf("gc_cleanup in Mixed at %td\n",
              (char *)static_cast<gc_cleanup *>((Mixed *)64) - (char *)64);
  std::printf("UseGC %d GC %d NoGC %d PointerFreeGC %d PointerFreeNoGC %d\n",
              (int)UseGC, (int)GC, (int)NoGC, (int)PointerFreeGC, (int)PointerFreeNoGC);
  return 0;
}
EOF
cat > "$W/cpp_members.cc" <<'EOF'
#include <gc_cpp.h>
#include <gc/gc_allocator.h>
template <class A> int members()
{
  typedef typename A::value_type T;
  typename A::pointer (A::*al)(typename A::size_type, const void *) = &A::allocate;
  void (A::*de)(typename A::pointer, typename A::size_type) noexcept = &A::deallocate;
  typename A::size_type (A::*ms)() const noexcept = &A::max_size;
  typename A::pointer (A::*ad)(typename A::reference) const = &A::address;
  typename A::const_pointer (A::*cad)(typename A::const_reference) const = &A::address;
  void (A::*co)(typename A::pointer, const T &) = &A::construct;
  void (A::*ds)(typename A::pointer) = &A::destroy;
  typedef typename A::template rebind<char>::other R;
  static_assert(sizeof(typename A::difference_type) == sizeof(ptrdiff_t), "difference_type");
  return (al != 0) + (de != 0) + (ms != 0) + (ad != 0) + (cad != 0) + (co != 0) + (ds != 0)
         + (int)sizeof(R);
}
template <class T> struct Pf { static const bool yes = false; };
template <> struct Pf<GC_true_type> { static const bool yes = true; };
#define PTRFREE(t, v) static_assert(Pf<decltype(GC_type_traits<t>().GC_is_ptr_free)>::yes == v, #t)
PTRFREE(char, true); PTRFREE(signed char, true); PTRFREE(unsigned char, true);
PTRFREE(short, true); PTRFREE(unsigned short, true); PTRFREE(int, true);
PTRFREE(unsigned, true); PTRFREE(long, true); PTRFREE(unsigned long, true);
PTRFREE(float, true); PTRFREE(double, true); PTRFREE(long double, true);
/* Not declared by bdwgc, so a client may declare them itself. */
PTRFREE(bool, false); PTRFREE(long long, false); PTRFREE(unsigned long long, false);
PTRFREE(wchar_t, false); PTRFREE(void *, false);
int all_members();
int all_members()
{
  void *(*n1)(size_t) = &gc::operator new;
  void *(*n2)(size_t, GCPlacement) = &gc::operator new;
  void *(*n3)(size_t, void *) noexcept = &gc::operator new;
  void (*d1)(void *) noexcept = &gc::operator delete;
  void (*d2)(void *, GCPlacement) noexcept = &gc::operator delete;
  void (*d3)(void *, void *) noexcept = &gc::operator delete;
  void *(*a1)(size_t) = &gc::operator new[];
  void *(*a2)(size_t, GCPlacement) = &gc::operator new[];
  void *(*a3)(size_t, void *) noexcept = &gc::operator new[];
  void (*e1)(void *) noexcept = &gc::operator delete[];
  void (*e2)(void *, GCPlacement) noexcept = &gc::operator delete[];
  void (*e3)(void *, void *) noexcept = &gc::operator delete[];
  void *(*g1)(size_t, GCPlacement, GCCleanUpFunc, void *) = &::operator new;
  void (*g2)(void *, GCPlacement, GCCleanUpFunc, void *) noexcept = &::operator delete;
  void *(*g3)(size_t, GCPlacement, GCCleanUpFunc, void *) = &::operator new[];
  void (*tb)() = &GC_throw_bad_alloc;
  void *(*s1)(size_t, GC_true_type, bool) = &GC_selective_alloc<GC_true_type>;
  void *(*s2)(size_t, GC_false_type, bool) = &GC_selective_alloc<GC_false_type>;
  static_assert(__is_polymorphic(gc_cleanup) && !__is_polymorphic(gc), "polymorphism");
  return (n1 != 0) + (n2 != 0) + (n3 != 0) + (d1 != 0) + (d2 != 0) + (d3 != 0) + (a1 != 0)
         + (a2 != 0) + (a3 != 0) + (e1 != 0) + (e2 != 0) + (e3 != 0) + (g1 != 0) + (g2 != 0)
         + (g3 != 0) + (tb != 0) + (s1 != 0) + (s2 != 0)
         + members<gc_allocator<int> >() + members<gc_allocator<void *> >()
         + members<traceable_allocator<long> >() + members<gc_allocator_ignore_off_page<char> >();
}
EOF
abi_ok=1
for set in bdw ours; do
  if [ $set = bdw ]; then inc=$inc_bdw; else inc=$inc_ours; fi
  g++ -std=c++17 -w -DGC_ATOMIC_UNCOLLECTABLE $inc "$W/cpp_abi.cc" -o "$W/cpp_abi_$set" 2> "$W/err" \
    || { fail "C++ ABI program does not build with $set headers"; cat "$W/err"; abi_ok=0; continue; }
  "$W/cpp_abi_$set" > "$W/cpp_abi_$set.txt"
  for cxx in g++ clang++; do
    compile "$cxx member signatures ($set headers)" $cxx -std=c++17 -Wall -Werror $inc -c "$W/cpp_members.cc" -o "$W/m.o" || abi_ok=0
  done
done
if [ $abi_ok = 1 ]; then
  if diff -u "$W/cpp_abi_bdw.txt" "$W/cpp_abi_ours.txt" > "$W/abi.diff"; then
    echo "   $(wc -l < "$W/cpp_abi_bdw.txt") layout lines identical; member signatures and pointer-free types agree"
  else
    fail "C++ layouts differ"; sed 's/^/    /' "$W/abi.diff"
  fi
fi

# 7d. What a client TU needs from the libraries (undefined symbols) must be
#     the same; the inline functions a gc_cpp.h TU defines must have the
#     same mangled names (ours add only the gc_cpp_detail helper).
n7=0
for cxx in "g++ -std=c++11 -O0" "g++ -std=c++17 -O2" "clang++ -std=c++17 -O0"; do
  for cfg in "" "-DGC_DEBUG" "-DGC_NAMESPACE -DGC_ATOMIC_UNCOLLECTABLE" "-DGC_INCLUDE_NEW" "-DGC_NEW_ABORTS_ON_OOM"; do
    for tu in cpp_use alloc_use; do
      for set in bdw ours; do
        if [ $set = bdw ]; then inc=$inc_bdw; else inc=$inc_ours; fi
        $cxx $cfg $inc -c "$W/$tu.cc" -o "$W/$tu.$set.o" 2> "$W/err" || { fail "$cxx $cfg $tu ($set)"; cat "$W/err"; }
        nm -u "$W/$tu.$set.o" | awk '{ print $NF }' | sort > "$W/$tu.$set.undef"
        nm --defined-only -C "$W/$tu.$set.o" | awk '$2 ~ /^[WVu]$/' | cut -d' ' -f3- \
          | grep -v 'gc_cpp_detail::' | sort > "$W/$tu.$set.weak"
      done
      diff -u "$W/$tu.bdw.undef" "$W/$tu.ours.undef" > "$W/u.diff" \
        || { fail "library symbols needed differ: $cxx $cfg $tu"; sed 's/^/    /' "$W/u.diff"; }
      if [ $tu = cpp_use ]; then
        diff -u "$W/$tu.bdw.weak" "$W/$tu.ours.weak" > "$W/w.diff" \
          || { fail "inline definitions differ: $cxx $cfg $tu"; sed 's/^/    /' "$W/w.diff"; }
      fi
      n7=$((n7 + 1))
    done
  done
done
echo "   $n7 symbol-table comparisons"

# 7e. Built with each header set, run on stock libgc + libgccpp.
if ! g++ -x c++ - -lgccpp -lgc -o /dev/null <<< 'int main(){return 0;}' 2>/dev/null; then
  echo "   skipped: stock libgccpp (-lgccpp) not installed"
else
  cat > "$W/cpp_run.cc" <<'EOF'
#include <gc_cpp.h>
#include <gc/gc_allocator.h>
#include <gc/gc_mark.h>
#include <cstdio>
#include <new>
#include <vector>
static int destroyed, cleaned;
struct Fin : public gc_cleanup { ~Fin() { destroyed++; } };
struct Second { virtual ~Second() {} long z; };
struct Mixed : public Second, public gc_cleanup { ~Mixed() { destroyed += 1000; } };
struct Raw { long r[4]; };
static void GC_CALLBACK count(void *, void *cd) { cleaned += (int)(GC_word)cd; }
static int kind(const void *p) { size_t s; return GC_get_kind_and_size(GC_base((void *)p), &s); }
static void make() {
  for (int i = 0; i < 100; i++) { (void)new Fin; (void)new Mixed; (void)new (UseGC, count, (void *)1) Raw; }
}
int main() {
  GC_INIT();
  std::printf("kinds UseGC %d NoGC %d PointerFreeGC %d plain new %d\n", kind(new (UseGC) Raw),
              kind(new (NoGC) Raw), kind(new (PointerFreeGC) Raw), kind(new Second *[2]));
  std::vector<int, gc_allocator<int> > vi(4);
  std::vector<Raw *, gc_allocator<Raw *> > vp(4);
  std::vector<char, gc_allocator_ignore_off_page<char> > vc(100000);
  std::vector<Raw *, traceable_allocator<Raw *> > vt(4);
  std::printf("allocator kinds %d %d %d %d\n", kind(&vi[0]), kind(&vp[0]), kind(&vc[0]), kind(&vt[0]));
  make();
  for (int i = 0; i < 6; i++) { GC_gcollect(); GC_invoke_finalizers(); }
  std::printf("cleanup most %d %d %d\n", destroyed % 1000 > 90, destroyed / 1000 > 90, cleaned > 90);
  GC_set_max_heap_size(32 << 20);
  int thrown = 0;
  try { (void)new (UseGC) char[1 << 30]; } catch (const std::bad_alloc &) { thrown++; }
  try { (void)gc_allocator<long>().allocate(1 << 28); } catch (const std::bad_alloc &) { thrown++; }
  std::printf("bad_alloc %d\n", thrown);
  return 0;
}
EOF
  for cfg in "" "-DGC_DEBUG" "-DGC_INCLUDE_NEW"; do
    run_both "C++ run test" "$W/cpp_run.cc" "g++ -O1 -w" "-lgccpp -lgc" "$cfg" ignore
  done
fi

###########################################################################
echo
if [ $FAILS -ne 0 ]; then
  echo "check-headers: $FAILS failure(s)"
  exit 1
fi
echo "check-headers: all checks passed"
