/*
 * svector_table1.c: Table 1 of Cérat and Feeley, "Structure Vectors and
 * their Implementation" (Scheme '14), in C, for bibop's structure types,
 * structures and structure vectors (include/bibop.h).
 *
 * Every benchmark exists in three versions, as in the paper:
 *   baseline  individually allocated structures. On bibop: bibop_struct_new
 *             (header + fields; the reference points at field 0). In the
 *             STOCK build (Debian's libgc1 8.2.2): GC_MALLOC'd objects of
 *             1 + k words whose first word points at a static type
 *             descriptor, referenced at field 0 likewise.
 *   svector   one structure vector (bibop_svector_new); element i of a
 *             k-field type is the reference v + i*k (what the paper's
 *             CONTAINERREF macro computes; bibop_svector_ref is the checked
 *             form). BIBOP build only.
 *   vector    plain arrays of fields (GC_MALLOC_ATOMIC, fields of element i
 *             at a[i*k ..]): the paper's "vector" column. No types.
 * Field access is a plain load through the structure reference in the
 * unchecked benchmarks (the paper compiled them "(not safe)"); the "-safe"
 * benchmarks check the type first (bibop_is_instance on bibop, the header
 * word on stock) and get an element with bibop_svector_ref.
 *
 *   alloc       structure alloc: a vector of 4,000,000 references (GC_MALLOC)
 *               set to new 2-field points {11, 22} (baseline); one structure
 *               vector of 4,000,000 points set in place (svector); one
 *               8,000,000-word array (vector). Also reports the time spent
 *               in collections (gc=) and the time without the initial
 *               allocation of the vector / structure vector / array (noinit=)
 *   alloc20     the same with 500,000 20-field structures
 *   access      structure access: 100 passes over 1,000,000 points summing
 *               both fields (the points are made before the clock starts)
 *   set         structure set!: 100 passes setting both fields of 1,000,000
 *               points
 *   type        type access: 20,000,000 type lookups of one structure (svector:
 *               the middle element of a 1,000,000-point vector, in a tail
 *               block of the large object); bibop_type_of on bibop, the header
 *               word on stock. No vector version (arrays carry no type)
 *   prop        prop access: 100,000,000 reads of one field of one structure
 *   hull        convex envelope: make 1,000,000 random points (30-bit integer
 *               coordinates) and find their convex hull by Jarvis' march
 *               (gift wrapping); baseline and svector walk the points by index
 *   hull-safe   the same with checked field access (no vector version)
 *   dsort       distance sort: 50 times, make 3,000 points and selection-sort
 *               them by squared distance to the origin
 *   qsort       quicksort: make 1,000,000 points and quicksort them by squared
 *               distance to the origin
 *   qsort-safe  the same with checked field access (no vector version)
 * The sorts sort an array of structure references (GC_MALLOC'd) -- the same
 * code for both kinds of structures -- and the vector version swaps field
 * pairs in place. Every timed region includes the allocations it makes.
 *
 * Each benchmark checks its result before printing anything: sums in closed
 * form (alloc, access, set, type, prop), every field and a sample of types
 * (alloc), the hull against Andrew's monotone chain on a copy (hull), order
 * and a multiset hash of the points (sorts). A wrong result prints nothing
 * on stdout, a diagnostic on stderr, and exits 1. SVT1_CORRUPT=1 in the
 * environment damages every result after the clock stops, to show it.
 *
 * usage: svector_table1_{bibop,stock} BENCH VERSION [-s SCALE]
 *        svector_table1_{bibop,stock} list
 * Output (one line):
 *   svt1 lib=bibop bench=B version=V time=S gc=S noinit=S wall=S gc_wall=S
 *        noinit_wall=S n=N check=HEX
 * time, gc and noinit are process CPU time (CLOCK_PROCESS_CPUTIME_ID: all
 * threads, user + system), the *wall figures CLOCK_MONOTONIC, around the
 * timed region; gc counts from GC_EVENT_START to GC_EVENT_END of the
 * collections inside it (GC_set_on_collection_event). Stock libgc1 marks
 * with a helper thread (parallel marking) where bibop marks alone in a
 * single-threaded program: CPU time counts the work of both, wall time
 * would credit stock with the second CPU. SCALE multiplies every size
 * (default 1).
 * Run them all with bench/run-svector.sh.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gc.h"
#define LIB VARIANT

typedef unsigned long word;
#define INLINE static inline __attribute__((always_inline))
#define NOINLINE __attribute__((noinline))
/* Make x opaque to the optimiser (it must be reloaded / recomputed). */
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))
#define BARRIER() __asm__ volatile("" : : : "memory")

enum version { V_BASE, V_SV, V_VEC };
static const char *const version_names[] = { "baseline", "svector", "vector" };

static double scale = 1.0;
/* SVT1_CORRUPT=1 damages the result after the clock stops (one field, a
   sum, two sorted elements...): every benchmark must then print nothing and
   exit 1. It shows that the checks check. */
static word corrupt;
static size_t scaled(size_t n)
{
    double v = (double)n * scale;
    return v < 16 ? 16 : (size_t)v;
}

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
    va_list ap;
    fputs("svector_table1: WRONG RESULT: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* Two clocks: wall (CLOCK_MONOTONIC) and the process's CPU time
   (CLOCK_PROCESS_CPUTIME_ID: every thread, user and system). On a shared,
   loaded machine the CPU time is the figure that means something. */
struct stamp { double wall, cpu; };

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static struct stamp now(void)
{
    struct stamp s = { clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID) };
    return s;
}
static struct stamp since(struct stamp a)
{
    struct stamp b = now();
    b.wall -= a.wall;
    b.cpu -= a.cpu;
    return b;
}

/* ---- collection time -------------------------------------------------- */

static struct stamp gc_total, gc_started;
static void GC_CALLBACK on_gc_event(GC_EventType e)
{
    if (e == GC_EVENT_START) {
        gc_started = now();
    } else if (e == GC_EVENT_END) {
        struct stamp d = since(gc_started);
        gc_total.wall += d.wall;
        gc_total.cpu += d.cpu;
    }
}
/* Collection time since a snapshot of gc_total. */
static struct stamp gc_since(struct stamp snap)
{
    struct stamp d = { gc_total.wall - snap.wall, gc_total.cpu - snap.cpu };
    return d;
}

/* ---- structures ------------------------------------------------------- */

#if defined(BIBOP)
static const bibop_struct_type *POINT, *POINT20;
static void types_init(void)
{
    POINT = bibop_struct_type_new("point", 2, NULL);      /* fixnum fields: no pointers */
    POINT20 = bibop_struct_type_new("point20", 20, NULL);
    if (!POINT || !POINT20) die("types not created");
}
INLINE word *point_new(void) { return bibop_struct_new(POINT); }
INLINE word *point20_new(void) { return bibop_struct_new(POINT20); }
INLINE const void *type_of(const word *p) { return bibop_type_of(p); }
INLINE int is_point(const word *p) { return bibop_is_instance(p, POINT); }
#define POINT_TYPE ((const void *)POINT)
#define POINT20_TYPE ((const void *)POINT20)
#else
struct type_desc { const char *name; size_t nfields; };
static const struct type_desc point_desc = { "point", 2 }, point20_desc = { "point20", 20 };
static void types_init(void) {}
INLINE word *struct_alloc(const struct type_desc *t)
{
    word *p = GC_MALLOC((1 + t->nfields) * sizeof(word));
    if (!p) return NULL;
    p[0] = (word)t;
    return p + 1;
}
INLINE word *point_new(void) { return struct_alloc(&point_desc); }
INLINE word *point20_new(void) { return struct_alloc(&point20_desc); }
INLINE const void *type_of(const word *p) { return (const void *)p[-1]; }
INLINE int is_point(const word *p) { return p[-1] == (word)&point_desc; }
#define POINT_TYPE ((const void *)&point_desc)
#define POINT20_TYPE ((const void *)&point20_desc)
#endif

struct result {
    struct stamp time, gc, noinit;
    size_t n;
    uint64_t check;
};

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Deterministic 30-bit coordinates of point i of data set `seed`. */
#define COORD_MASK ((word)((1UL << 30) - 1))
INLINE word coord_x(uint64_t seed, size_t i) { return mix(seed * 0x9e3779b97f4a7c15ULL + 2 * i) & COORD_MASK; }
INLINE word coord_y(uint64_t seed, size_t i) { return mix(seed * 0x9e3779b97f4a7c15ULL + 2 * i + 1) & COORD_MASK; }
INLINE uint64_t point_hash(word x, word y) { return mix(x << 32 ^ y ^ 0x1234567ULL); }

/* ---- structure alloc / structure20 alloc ------------------------------ */

/* Value of field f of every structure: {11, 22} for points, 11*(f+1) for
   20-field structures. */
INLINE void alloc_impl(enum version ver, size_t n, const size_t nf, struct result *r)
{
    struct stamp gc0 = gc_total, t0 = now(), t_init;
    word sum = 0;
    if (ver == V_BASE) {
        word **refs = GC_MALLOC(n * sizeof *refs);
        if (!refs) die("out of memory");
        t_init = now();
        for (size_t i = n; i-- > 0;) {
            word *p = nf == 2 ? point_new() : point20_new();
            if (!p) die("out of memory");
            for (size_t f = 0; f < nf; f++) p[f] = 11 * (f + 1);
            refs[i] = p;
        }
        r->time = since(t0);
        r->noinit = since(t_init);
        r->gc = gc_since(gc0);
        refs[n / 2][nf - 1] += corrupt;
        for (size_t i = 0; i < n; i++) {
            if (i % 997 == 0 && type_of(refs[i]) != (nf == 2 ? POINT_TYPE : POINT20_TYPE))
                die("structure %zu has the wrong type", i);
            for (size_t f = 0; f < nf; f++) sum += refs[i][f];
        }
    } else if (ver == V_SV) {
#if defined(BIBOP)
        word *v = bibop_svector_new(nf == 2 ? POINT : POINT20, n);
        if (!v) die("out of memory");
        t_init = now();
        for (size_t i = n; i-- > 0;) {
            word *e = v + i * nf;
            for (size_t f = 0; f < nf; f++) e[f] = 11 * (f + 1);
        }
        r->time = since(t0);
        r->noinit = since(t_init);
        r->gc = gc_since(gc0);
        if (bibop_svector_length(v) != n) die("length");
        v[n / 2 * nf] += corrupt;
        for (size_t i = 0; i < n; i++) {
            word *e = v + i * nf;
            if (i % 997 == 0 && (bibop_svector_ref(v, i) != e ||
                                 bibop_type_of(e) != (nf == 2 ? POINT : POINT20)))
                die("element %zu: wrong reference or type", i);
            for (size_t f = 0; f < nf; f++) sum += e[f];
        }
#endif
    } else {
        word *a = GC_MALLOC_ATOMIC(n * nf * sizeof(word));
        if (!a) die("out of memory");
        t_init = now();
        for (size_t i = n; i-- > 0;)
            for (size_t f = 0; f < nf; f++) a[i * nf + f] = 11 * (f + 1);
        r->time = since(t0);
        r->noinit = since(t_init);
        r->gc = gc_since(gc0);
        a[n / 2 * nf] += corrupt;
        for (size_t i = 0; i < n * nf; i++) sum += a[i];
    }
    word want = (word)n * 11 * (nf * (nf + 1) / 2);
    if (sum != want) die("alloc: field sum %lu, want %lu", sum, want);
    r->n = n;
    r->check = sum;
}

static NOINLINE void bench_alloc(enum version v, struct result *r) { alloc_impl(v, scaled(4000000), 2, r); }
static NOINLINE void bench_alloc20(enum version v, struct result *r) { alloc_impl(v, scaled(500000), 20, r); }

/* ---- the point sets of access / set / type / prop ------------------------ */

struct points {
    enum version ver;
    size_t n;
    word **refs;   /* baseline */
    word *flat;    /* svector: the vector reference; vector: the array */
};

/* Points {i, 2i}, made before the clock starts. */
static NOINLINE struct points make_points(enum version ver, size_t n)
{
    struct points p = { ver, n, NULL, NULL };
    if (ver == V_BASE) {
        p.refs = GC_MALLOC(n * sizeof *p.refs);
        if (!p.refs) die("out of memory");
        for (size_t i = 0; i < n; i++) {
            word *s = point_new();
            if (!s) die("out of memory");
            s[0] = i;
            s[1] = 2 * i;
            p.refs[i] = s;
        }
    } else {
#if defined(BIBOP)
        p.flat = ver == V_SV ? bibop_svector_new(POINT, n) : GC_MALLOC_ATOMIC(2 * n * sizeof(word));
#else
        p.flat = GC_MALLOC_ATOMIC(2 * n * sizeof(word));
#endif
        if (!p.flat) die("out of memory");
        for (size_t i = 0; i < n; i++) {
            p.flat[2 * i] = i;
            p.flat[2 * i + 1] = 2 * i;
        }
    }
    return p;
}

static NOINLINE void bench_access(enum version ver, struct result *r)
{
    size_t n = scaled(1000000), passes = 100;
    struct points p = make_points(ver, n);
    struct stamp gc0 = gc_total, t0 = now();
    word sum = 0;
    for (size_t pass = 0; pass < passes; pass++) {
        if (ver == V_BASE) {
            word **refs = p.refs;
            OPAQUE(refs);
            for (size_t i = 0; i < n; i++) {
                word *s = refs[i];
                sum += s[0] + s[1];
            }
        } else if (ver == V_SV) {
            word *v = p.flat;
            OPAQUE(v);
            for (size_t i = 0; i < n; i++) {
                word *e = v + 2 * i;   /* the element reference */
                sum += e[0] + e[1];
            }
        } else {
            word *a = p.flat;
            OPAQUE(a);
            for (size_t i = 0; i < n; i++) sum += a[2 * i] + a[2 * i + 1];
        }
    }
    r->time = since(t0);
    r->gc = gc_since(gc0);
    r->noinit = r->time;
    sum += corrupt;
    word want = (word)passes * 3 * ((word)n * (n - 1) / 2);
    if (sum != want) die("access: sum %lu, want %lu", sum, want);
    r->n = n;
    r->check = sum;
}

static NOINLINE void bench_set(enum version ver, struct result *r)
{
    size_t n = scaled(1000000), passes = 100;
    struct points p = make_points(ver, n);
    struct stamp gc0 = gc_total, t0 = now();
    for (size_t pass = 0; pass < passes; pass++) {
        if (ver == V_BASE) {
            word **refs = p.refs;
            OPAQUE(refs);
            for (size_t i = 0; i < n; i++) {
                word *s = refs[i];
                s[0] = i + pass;
                s[1] = i * 3 + pass;
            }
        } else {
            word *v = p.flat;
            OPAQUE(v);
            for (size_t i = 0; i < n; i++) {
                word *e = v + 2 * i;
                e[0] = i + pass;
                e[1] = i * 3 + pass;
            }
        }
        BARRIER();
    }
    r->time = since(t0);
    r->gc = gc_since(gc0);
    r->noinit = r->time;
    word sum = 0;
    (ver == V_BASE ? p.refs[n - 1] : p.flat + 2 * (n - 1))[1] += corrupt;
    for (size_t i = 0; i < n; i++) {
        const word *s = ver == V_BASE ? p.refs[i] : p.flat + 2 * i;
        if (s[0] != i + passes - 1 || s[1] != i * 3 + passes - 1) die("set: point %zu wrong", i);
        sum += s[0] + s[1];
    }
    r->n = n;
    r->check = sum;
}

static NOINLINE void bench_type(enum version ver, struct result *r)
{
    size_t reps = scaled(20000000);
    if (ver == V_VEC) die("type access has no vector version");
    struct points p = make_points(ver, scaled(1000000));
    word *s = ver == V_BASE ? p.refs[p.n / 2] : p.flat + 2 * (p.n / 2);
    struct stamp gc0 = gc_total, t0 = now();
    size_t hits = 0;
    for (size_t i = 0; i < reps; i++) {
        OPAQUE(s);
        hits += type_of(s) == POINT_TYPE;
    }
    r->time = since(t0);
    r->gc = gc_since(gc0);
    r->noinit = r->time;
    hits -= corrupt;
    if (hits != reps) die("type: %zu of %zu lookups gave the point type", hits, reps);
    r->n = reps;
    r->check = hits;
}

static NOINLINE void bench_prop(enum version ver, struct result *r)
{
    size_t reps = scaled(100000000);
    struct points p = make_points(ver, scaled(1000000));
    size_t mid = p.n / 2;
    word *s = ver == V_BASE ? p.refs[mid] : p.flat + 2 * mid;
    word *a = p.flat;
    struct stamp gc0 = gc_total, t0 = now();
    word sum = 0;
    if (ver == V_VEC) {
        for (size_t i = 0; i < reps; i++) {
            OPAQUE(a);
            sum += a[2 * mid + 1];
        }
    } else {
        for (size_t i = 0; i < reps; i++) {
            OPAQUE(s);
            sum += s[1];
        }
    }
    r->time = since(t0);
    r->gc = gc_since(gc0);
    r->noinit = r->time;
    sum += corrupt;
    if (sum != (word)reps * 2 * mid) die("prop: sum %lu, want %lu", sum, (word)reps * 2 * mid);
    r->n = reps;
    r->check = sum;
}

/* ---- making random point sets (timed: the allocations are part of the
   work in hull / dsort / qsort) ------------------------------------------- */

/* Points of set `seed`: the baseline returns an array of structure
   references (GC_MALLOC'd), svector the structure vector and, if with_refs,
   such an array of its element references, vector a field array. */
INLINE void make_random(enum version ver, uint64_t seed, size_t n, int with_refs,
                        word ***refs_out, word **flat_out)
{
    *refs_out = NULL;
    *flat_out = NULL;
    if (ver == V_VEC) {
        word *a = GC_MALLOC_ATOMIC(2 * n * sizeof(word));
        if (!a) die("out of memory");
        for (size_t i = 0; i < n; i++) {
            a[2 * i] = coord_x(seed, i);
            a[2 * i + 1] = coord_y(seed, i);
        }
        *flat_out = a;
        return;
    }
    word **refs = NULL;
    if (ver == V_BASE || with_refs) {
        refs = GC_MALLOC(n * sizeof *refs);
        if (!refs) die("out of memory");
    }
    if (ver == V_BASE) {
        for (size_t i = 0; i < n; i++) {
            word *s = point_new();
            if (!s) die("out of memory");
            s[0] = coord_x(seed, i);
            s[1] = coord_y(seed, i);
            refs[i] = s;
        }
    } else {
#if defined(BIBOP)
        word *v = bibop_svector_new(POINT, n);
        if (!v) die("out of memory");
        for (size_t i = 0; i < n; i++) {
            word *e = v + 2 * i;
            e[0] = coord_x(seed, i);
            e[1] = coord_y(seed, i);
            if (refs) refs[i] = e;
        }
        *flat_out = v;
#endif
    }
    *refs_out = refs;
}

/* ---- convex envelope: Jarvis' march ----------------------------------- */

/* Field access modes: direct loads through a reference (unsafe), through a
   reference after a type check (safe), or into a field array. */
enum access { A_REF, A_REF_SAFE, A_SV_SAFE, A_FLAT };

static NOINLINE void not_a_point(const void *p) { die("%p is not a point", p); }

INLINE const word *point_at(enum access acc, word **refs, word *flat, size_t i)
{
    switch (acc) {
    case A_REF:
        return refs[i];
    case A_REF_SAFE: {
        const word *p = refs[i];
        if (__builtin_expect(!is_point(p), 0)) not_a_point(p);
        return p;
    }
    case A_SV_SAFE: {
#if defined(BIBOP)
        const word *p = bibop_svector_ref(flat, i);   /* checked: vector and index */
        if (__builtin_expect(!p || !is_point(p), 0)) not_a_point(p);
        return p;
#else
        return NULL;
#endif
    }
    default:
        return flat + 2 * i;
    }
}

INLINE long cross(long ox, long oy, long ax, long ay, long bx, long by)
{
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox);
}

/* Counter-clockwise hull from the lowest of the leftmost points, without
   collinear points; indices into hull[]. Returns the count. */
INLINE size_t jarvis(enum access acc, word **refs, word *flat, size_t n, size_t *hull)
{
    size_t start = 0;
    const word *s0 = point_at(acc, refs, flat, 0);
    word sx = s0[0], sy = s0[1];
    for (size_t i = 1; i < n; i++) {
        const word *p = point_at(acc, refs, flat, i);
        if (p[0] < sx || (p[0] == sx && p[1] < sy)) {
            start = i;
            sx = p[0];
            sy = p[1];
        }
    }
    size_t h = 0, cur = start;
    do {
        if (h == n) die("hull: no termination");
        hull[h++] = cur;
        const word *pc = point_at(acc, refs, flat, cur);
        long px = (long)pc[0], py = (long)pc[1];
        size_t q = cur == 0 ? 1 : 0;
        const word *pq = point_at(acc, refs, flat, q);
        long qx = (long)pq[0], qy = (long)pq[1];
        for (size_t r = 0; r < n; r++) {
            const word *pr = point_at(acc, refs, flat, r);
            long rx = (long)pr[0], ry = (long)pr[1];
            long c = cross(px, py, qx, qy, rx, ry);
            if (c < 0 || (c == 0 && (rx - px) * (rx - px) + (ry - py) * (ry - py) >
                                        (qx - px) * (qx - px) + (qy - py) * (qy - py))) {
                q = r;
                qx = rx;
                qy = ry;
            }
        }
        cur = q;
    } while (cur != start);
    return h;
}

static int cmp_xy(const void *a, const void *b)
{
    const word *p = a, *q = b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return (p[1] > q[1]) - (p[1] < q[1]);
}

/* Andrew's monotone chain on a malloc'd copy: the reference answer. */
static size_t monotone_chain(uint64_t seed, size_t n, word *out /* 2 * (n + 1) words */)
{
    word *pts = malloc(2 * n * sizeof(word));
    if (!pts) die("out of memory");
    for (size_t i = 0; i < n; i++) {
        pts[2 * i] = coord_x(seed, i);
        pts[2 * i + 1] = coord_y(seed, i);
    }
    qsort(pts, n, 2 * sizeof(word), cmp_xy);
    size_t k = 0;
#define CR(o, a, b) cross((long)out[2 * (o)], (long)out[2 * (o) + 1], (long)out[2 * (a)], \
                          (long)out[2 * (a) + 1], (long)pts[2 * (b)], (long)pts[2 * (b) + 1])
    for (size_t i = 0; i < n; i++) {
        while (k >= 2 && CR(k - 2, k - 1, i) <= 0) k--;
        out[2 * k] = pts[2 * i];
        out[2 * k + 1] = pts[2 * i + 1];
        k++;
    }
    for (size_t i = n - 1, t = k + 1; i-- > 0;) {
        while (k >= t && CR(k - 2, k - 1, i) <= 0) k--;
        out[2 * k] = pts[2 * i];
        out[2 * k + 1] = pts[2 * i + 1];
        k++;
    }
#undef CR
    free(pts);
    return k - 1;   /* the last point repeats the first */
}

INLINE void hull_impl(enum version ver, int safe, struct result *r)
{
    size_t n = scaled(1000000);
    const uint64_t seed = 42;
    size_t *hull = malloc(n * sizeof *hull);
    if (!hull) die("out of memory");
    word **refs;
    word *flat;
    struct stamp gc0 = gc_total, t0 = now();
    make_random(ver, seed, n, 0, &refs, &flat);
    size_t h;
    if (ver == V_BASE) h = safe ? jarvis(A_REF_SAFE, refs, NULL, n, hull) : jarvis(A_REF, refs, NULL, n, hull);
    else if (ver == V_SV) h = safe ? jarvis(A_SV_SAFE, NULL, flat, n, hull) : jarvis(A_FLAT, NULL, flat, n, hull);
    else h = jarvis(A_FLAT, NULL, flat, n, hull);
    r->time = since(t0);
    r->gc = gc_since(gc0);
    r->noinit = r->time;
    word *want = malloc(2 * (n + 1) * sizeof(word));
    if (!want) die("out of memory");
    size_t wh = monotone_chain(seed, n, want);
    (ver == V_BASE ? refs[hull[h / 2]] : flat + 2 * hull[h / 2])[0] += corrupt;
    if (wh != h) die("hull: %zu points, monotone chain says %zu", h, wh);
    uint64_t check = 0;
    for (size_t i = 0; i < h; i++) {
        const word *p = ver == V_BASE ? refs[hull[i]] : flat + 2 * hull[i];
        if (p[0] != want[2 * i] || p[1] != want[2 * i + 1])
            die("hull point %zu is (%lu, %lu), monotone chain says (%lu, %lu)", i, p[0], p[1],
                want[2 * i], want[2 * i + 1]);
        check = mix(check ^ point_hash(p[0], p[1]));
    }
    free(want);
    free(hull);
    r->n = h;
    r->check = check;
}

static NOINLINE void bench_hull(enum version v, struct result *r) { hull_impl(v, 0, r); }
static NOINLINE void bench_hull_safe(enum version v, struct result *r)
{
    if (v == V_VEC) die("hull-safe has no vector version");
    hull_impl(v, 1, r);
}

/* ---- sorts by squared distance to the origin ----------------------------- */

INLINE word dist_of(const word *p) { return p[0] * p[0] + p[1] * p[1]; }

/* KEY(i) and SWAP(i, j) over an array of references or a field array. */
#define REF_KEY(i) dist_of(refs[i])
#define REF_KEY_SAFE(i) dist_of(point_at(A_REF_SAFE, refs, NULL, (i)))
#define REF_SWAP(i, j) do { word *t_ = refs[i]; refs[i] = refs[j]; refs[j] = t_; } while (0)
#define FLAT_KEY(i) dist_of(a + 2 * (i))
#define FLAT_SWAP(i, j)                                                         \
    do {                                                                        \
        word x_ = a[2 * (i)], y_ = a[2 * (i) + 1];                              \
        a[2 * (i)] = a[2 * (j)]; a[2 * (i) + 1] = a[2 * (j) + 1];               \
        a[2 * (j)] = x_; a[2 * (j) + 1] = y_;                                   \
    } while (0)

#define DEFINE_SORTS(NAME, ARG, KEY, SWAP)                                      \
    static NOINLINE void selection_##NAME(ARG, size_t n)                        \
    {                                                                           \
        for (size_t i = 0; i + 1 < n; i++) {                                    \
            size_t m = i;                                                       \
            word dm = KEY(i);                                                   \
            for (size_t j = i + 1; j < n; j++) {                                \
                word dj = KEY(j);                                               \
                if (dj < dm) { m = j; dm = dj; }                                \
            }                                                                   \
            if (m != i) SWAP(i, m);                                             \
        }                                                                       \
    }                                                                           \
    static NOINLINE void quick_##NAME(ARG, long lo, long hi)                    \
    {                                                                           \
        while (hi - lo > 16) {                                                  \
            long mid = lo + (hi - lo) / 2;                                      \
            if (KEY(mid) < KEY(lo)) SWAP(mid, lo);                              \
            if (KEY(hi) < KEY(lo)) SWAP(hi, lo);                                \
            if (KEY(hi) < KEY(mid)) SWAP(hi, mid);                              \
            word pivot = KEY(mid);                                              \
            long i = lo, j = hi;                                                \
            while (i <= j) {                                                    \
                while (KEY(i) < pivot) i++;                                     \
                while (KEY(j) > pivot) j--;                                     \
                if (i <= j) { SWAP(i, j); i++; j--; }                           \
            }                                                                   \
            if (j - lo < hi - i) { quick_##NAME(c_, lo, j); lo = i; }           \
            else { quick_##NAME(c_, i, hi); hi = j; }                           \
        }                                                                       \
        for (long i = lo + 1; i <= hi; i++)                                     \
            for (long j = i; j > lo && KEY(j) < KEY(j - 1); j--) SWAP(j, j - 1);\
    }

#define c_ refs
DEFINE_SORTS(ref, word **refs, REF_KEY, REF_SWAP)
DEFINE_SORTS(ref_safe, word **refs, REF_KEY_SAFE, REF_SWAP)
#undef c_
#define c_ a
DEFINE_SORTS(flat, word *a, FLAT_KEY, FLAT_SWAP)
#undef c_

/* Sorted by distance, and the same multiset of points as set `seed`. */
static uint64_t check_sorted(enum version ver, word **refs, word *flat, uint64_t seed, size_t n)
{
    uint64_t want = 0, got = 0, order = 0;
    word prev = 0;
    for (size_t i = 0; i < n; i++) {
        want += point_hash(coord_x(seed, i), coord_y(seed, i));
        const word *p = ver == V_VEC ? flat + 2 * i : refs[i];
        if (ver != V_VEC && type_of(p) != POINT_TYPE) die("sort: element %zu is not a point", i);
        word d = dist_of(p);
        if (i > 0 && d < prev) die("sort: not sorted at %zu", i);
        prev = d;
        got += point_hash(p[0], p[1]);
        order = mix(order ^ d);
    }
    if (got != want) die("sort: the points changed (hash %#llx, want %#llx)",
                         (unsigned long long)got, (unsigned long long)want);
    return order;
}

#define FLAT_SWAP_(a, i, j)                                                     \
    do {                                                                        \
        word *a_ = (a);                                                         \
        word x_ = a_[2 * (i)], y_ = a_[2 * (i) + 1];                            \
        a_[2 * (i)] = a_[2 * (j)]; a_[2 * (i) + 1] = a_[2 * (j) + 1];           \
        a_[2 * (j)] = x_; a_[2 * (j) + 1] = y_;                                 \
    } while (0)
#define DSORT_REPS 50
INLINE void sort_impl(enum version ver, int quick, int safe, struct result *r)
{
    size_t n = quick ? scaled(1000000) : 3000;
    size_t reps = quick ? 1 : (size_t)(DSORT_REPS * scale + 0.5);
    if (reps < 1) reps = 1;
    uint64_t check = 0;
    struct stamp gc0 = gc_total, t = { 0, 0 };
    for (size_t rep = 0; rep < reps; rep++) {
        uint64_t seed = 1000 + rep;
        word **refs;
        word *flat;
        struct stamp t0 = now();
        make_random(ver, seed, n, 1, &refs, &flat);
        if (ver == V_VEC) {
            if (quick) quick_flat(flat, 0, (long)n - 1);
            else selection_flat(flat, n);
        } else if (safe) {
            if (quick) quick_ref_safe(refs, 0, (long)n - 1);
            else selection_ref_safe(refs, n);
        } else {
            if (quick) quick_ref(refs, 0, (long)n - 1);
            else selection_ref(refs, n);
        }
        struct stamp d = since(t0);
        t.wall += d.wall;
        t.cpu += d.cpu;
        if (corrupt) {   /* swap the first and the last point */
            if (ver == V_VEC) FLAT_SWAP_(flat, 0, n - 1);
            else { word *x = refs[0]; refs[0] = refs[n - 1]; refs[n - 1] = x; }
        }
        check = mix(check ^ check_sorted(ver, refs, flat, seed, n));
    }
    r->time = t;
    r->gc = gc_since(gc0);
    r->noinit = t;
    r->n = n;
    r->check = check;
}

static NOINLINE void bench_dsort(enum version v, struct result *r) { sort_impl(v, 0, 0, r); }
static NOINLINE void bench_qsort(enum version v, struct result *r) { sort_impl(v, 1, 0, r); }
static NOINLINE void bench_qsort_safe(enum version v, struct result *r)
{
    if (v == V_VEC) die("qsort-safe has no vector version");
    sort_impl(v, 1, 1, r);
}

/* ---- driver ------------------------------------------------------------ */

static const struct {
    const char *name;
    void (*run)(enum version, struct result *);
    int has_vector;
} benches[] = {
    { "alloc", bench_alloc, 1 },         { "alloc20", bench_alloc20, 1 },
    { "access", bench_access, 1 },       { "set", bench_set, 1 },
    { "type", bench_type, 0 },           { "prop", bench_prop, 1 },
    { "hull", bench_hull, 1 },           { "hull-safe", bench_hull_safe, 0 },
    { "dsort", bench_dsort, 1 },         { "qsort", bench_qsort, 1 },
    { "qsort-safe", bench_qsort_safe, 0 },
};
#define NBENCH (sizeof benches / sizeof benches[0])

static int usage(const char *argv0)
{
    fprintf(stderr, "usage: %s BENCH VERSION [-s SCALE] | list\n", argv0);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (size_t b = 0; b < NBENCH; b++) {
            printf("%s baseline", benches[b].name);
#if defined(BIBOP)
            printf(" svector%s", benches[b].has_vector ? " vector" : "");
#else
            if (benches[b].has_vector) printf(" vector");
#endif
            printf("\n");
        }
        return 0;
    }
    if (argc != 3 && !(argc == 5 && strcmp(argv[3], "-s") == 0)) return usage(argv[0]);
    if (argc == 5) {
        scale = strtod(argv[4], NULL);
        if (!(scale > 0)) return usage(argv[0]);
    }
    size_t b = 0;
    while (b < NBENCH && strcmp(benches[b].name, argv[1]) != 0) b++;
    int ver = -1;
    for (int v = 0; v < 3; v++)
        if (strcmp(version_names[v], argv[2]) == 0) ver = v;
    if (b == NBENCH || ver < 0) return usage(argv[0]);
#if !defined(BIBOP)
    if (ver == V_SV) {
        fprintf(stderr, "structure vectors exist only in the bibop build\n");
        return 2;
    }
#endif
    if (ver == V_VEC && !benches[b].has_vector) {
        fprintf(stderr, "%s has no vector version\n", benches[b].name);
        return 2;
    }
    corrupt = getenv("SVT1_CORRUPT") && atoi(getenv("SVT1_CORRUPT")) ? 1 : 0;
    GC_INIT();
    GC_set_on_collection_event(on_gc_event);
    types_init();
    struct result r;
    memset(&r, 0, sizeof r);
    benches[b].run((enum version)ver, &r);
    printf("svt1 lib=%s bench=%s version=%s time=%.6f gc=%.6f noinit=%.6f wall=%.6f "
           "gc_wall=%.6f noinit_wall=%.6f n=%zu check=%016llx\n",
           LIB, benches[b].name, version_names[ver], r.time.cpu, r.gc.cpu, r.noinit.cpu,
           r.time.wall, r.gc.wall, r.noinit.wall, r.n, (unsigned long long)r.check);
    return 0;
}
