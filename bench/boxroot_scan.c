/*
 * boxroot_scan.c: the cost of scanning live roots during a full collection.
 *
 * The heap: M = 1,000,000 small atomic GC objects (16 bytes, a checksum
 * each), all held from one GC-allocated table of M pointers, itself held
 * from a static. The heap is the same in every measurement; what changes is
 * whether M extra roots also point at the objects:
 *   none           no extra roots;
 *   boxroot        M live boxroots, one per object (bibop only);
 *   uncollectable  M one-word GC_malloc_uncollectable cells, one per object
 *                  (bibop and stock libgc1): the usual way of holding a root
 *                  from C memory with bdwgc.
 * Each measurement is the median of K (-k, default 7) explicit
 * GC_gcollect() calls, timed in process CPU time (CLOCK_PROCESS_CPUTIME_ID:
 * the collector's work, marker threads included, unaffected by time spent
 * descheduled on a shared machine) and in wall time (the pause). The order is none, roots, none (the two "none"
 * figures bracket the other; their mean is the baseline), so slow drift of
 * a shared machine affects both sides alike. ns_per_root = (median with
 * roots − baseline) / M.
 *
 * Output, one line per variant:
 *   scan collector=C variant=V roots=M gc_ms_none=A gc_ms_roots=B
 *        ns_per_root=X wall_gc_ms_none=A' wall_gc_ms_roots=B'
 *        wall_ns_per_root=X'
 * (CPU figures, then the same from wall time).
 * Every object and every root is checked after the collections; any failure
 * prints a diagnostic on stderr and exits 1 before any figure is printed.
 * Options: -m M, -k K, -r (root i holds a random object, a permutation of
 * the table, instead of object i: roots scattered over the heap rather than
 * in allocation order; the output says order=random instead of creation).
 *
 * One source, two builds: BIBOP or STOCK (see boxroot_fixpoint.c).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gc.h"
#ifdef BIBOP
# include <boxroot.h>
#endif
#define COLLECTOR VARIANT

static void die(const char *msg, long a, long b)
{
    fprintf(stderr, "boxroot_scan (%s): FAILED: %s (%ld, %ld)\n", COLLECTOR, msg, a, b);
    exit(1);
}

static uint64_t **table;          /* static: holds the table */
static void **roots;              /* malloc'd: boxroots or uncollectable cells */
static size_t *target;            /* malloc'd: root i holds table[target[i]] */
static int random_order;          /* -r */
static size_t M = 1000000;
static int K = 7;

static inline uint64_t chk(size_t i) { return (i * 0x9e3779b97f4a7c15ULL) ^ 0x5ca1ab1eULL; }

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median over K collections of the CPU time; *wall gets the median wall time. */
static double median_gc_ms(double *wall)
{
    double t[64], w[64];
    for (int k = 0; k < K; k++) {
        double w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        GC_gcollect();
        t[k] = (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / 1e6;
        w[k] = (clock_ns(CLOCK_MONOTONIC) - w0) / 1e6;
    }
    qsort(t, (size_t)K, sizeof t[0], cmpd);
    qsort(w, (size_t)K, sizeof w[0], cmpd);
    *wall = w[K / 2];
    return t[K / 2];
}

static void check_heap(void)
{
    for (size_t i = 0; i < M; i++)
        if (table[i][0] != i || table[i][1] != chk(i)) die("object corrupted", (long)i, 0);
}

enum { V_BOX, V_UNCOLL };

static void make_roots(int v)
{
    (void)v;
    for (size_t i = 0; i < M; i++) {
        void *obj = table[target[i]];
#ifdef BIBOP
        if (v == V_BOX) {
            roots[i] = boxroot_create(obj);
            if (!roots[i]) die("boxroot_create returned NULL", (long)i, 0);
            continue;
        }
#endif
        void **c = GC_MALLOC_UNCOLLECTABLE(sizeof(void *));
        if (!c) die("GC_MALLOC_UNCOLLECTABLE returned NULL", (long)i, 0);
        *c = obj;
        roots[i] = c;
    }
}

static void check_and_drop_roots(int v)
{
    (void)v;
    for (size_t i = 0; i < M; i++) {
#ifdef BIBOP
        if (v == V_BOX) {
            if (boxroot_get(roots[i]) != table[target[i]]) die("boxroot lost its value", (long)i, 0);
            boxroot_delete(roots[i]);
            continue;
        }
#endif
        if (*(void **)roots[i] != table[target[i]]) die("uncollectable cell lost its value", (long)i, 0);
        GC_FREE(roots[i]);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) M = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-k") == 0 && i + 1 < argc) K = atoi(argv[++i]);
        else if (strcmp(argv[i], "-r") == 0) random_order = 1;
        else {
            fprintf(stderr, "usage: %s [-m roots] [-k collections] [-r]\n", argv[0]);
            return 2;
        }
    }
    if (K < 1 || K > 64 || M < 1) die("bad arguments", K, (long)M);
    GC_INIT();
    table = GC_MALLOC(M * sizeof *table);
    roots = malloc(M * sizeof *roots);
    target = malloc(M * sizeof *target);
    if (!table || !roots || !target) die("allocation of the tables", 0, 0);
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < M; i++) target[i] = i;
    for (size_t i = M - 1; random_order && i > 0; i--) {   /* Fisher-Yates, xorshift */
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        size_t j = (size_t)(rng % (i + 1)), t = target[i];
        target[i] = target[j];
        target[j] = t;
    }
    for (size_t i = 0; i < M; i++) {
        uint64_t *o = GC_MALLOC_ATOMIC(2 * sizeof(uint64_t));
        if (!o) die("GC_MALLOC_ATOMIC", (long)i, 0);
        o[0] = i;
        o[1] = chk(i);
        table[i] = o;
    }
    GC_gcollect();

    int vs[2], nv = 0;
#ifdef BIBOP
    vs[nv++] = V_BOX;
#endif
    vs[nv++] = V_UNCOLL;
    char out[2][512];
    for (int k = 0; k < nv; k++) {
        int v = vs[k];
        double wn1, wn2, ww;
        double none1 = median_gc_ms(&wn1);
        make_roots(v);
        GC_gcollect();                       /* settle */
        double with = median_gc_ms(&ww);
        check_heap();
        check_and_drop_roots(v);
        GC_gcollect();
        double none2 = median_gc_ms(&wn2);
        check_heap();
#ifdef BIBOP
        struct boxroot_stats s;
        boxroot_get_stats(&s);
        if (s.live != 0) die("boxroots left live", (long)s.live, 0);
#endif
        double base = (none1 + none2) / 2, wbase = (wn1 + wn2) / 2;
        snprintf(out[k], sizeof out[k],
                 "scan collector=%s variant=%s roots=%zu order=%s gc_ms_none=%.3f gc_ms_roots=%.3f "
                 "ns_per_root=%.3f wall_gc_ms_none=%.3f wall_gc_ms_roots=%.3f "
                 "wall_ns_per_root=%.3f\n", COLLECTOR, v == V_BOX ? "boxroot" : "uncollectable",
                 M, random_order ? "random" : "creation", base, with, (with - base) * 1e6 / (double)M, wbase, ww,
                 (ww - wbase) * 1e6 / (double)M);
    }
    for (int k = 0; k < nv; k++) fputs(out[k], stdout);
    return 0;
}
