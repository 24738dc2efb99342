/*
 * boxroot_fixpoint.c: the "fixpoint" benchmark of the Boxroot paper
 * (Munch-Maccagnoni and Scherer), in C, on bibop and stock libgc1.
 *
 * fixpoint(f, x): y = step(f, x) — a call back into a function that
 * allocates a fresh 32-byte GC object — and if y equals x, return y, else
 * return fixpoint(f, y), recursively. Starting from x.n = N - 1, step
 * decrements n down to 0, so one top-level call makes N calls to step and
 * recurses N deep, each frame holding its values (f, x, y) across the
 * allocation in step. The variants differ in how a frame keeps its values
 * alive:
 *   local        (a) in locals only: the conservative stack scan finds them;
 *   boxroot      (b) caller-roots boxroots, as in the paper: the function
 *                receives boxroots; per iteration one boxroot_create (y)
 *                and one boxroot_delete (x): 2 root operations;
 *   boxroot_callee  (b') boxroots in callee-roots style: the frame boxes f,
 *                x and y on entry and deletes them on return: 6 operations;
 *   addroots     (c) a malloc'd block of 3 cells per frame registered with
 *                GC_add_roots and GC_remove_roots on return: 2 operations
 *                (one registration per value would exceed stock libgc's
 *                2048 root sets at N = 1000);
 *   uncollectable (d) a 3-cell GC_malloc_uncollectable block per frame,
 *                GC_free on return: 2 operations.
 * (a), (c), (d) exist on both collectors; (b), (b') on bibop only.
 *
 * Output: for every variant and N in 1 5 10 1000 one line on stdout,
 *   fixpoint collector=C variant=V n=N calls=K ns_per_call=T
 *            wall_ns_per_call=W root_ops_per_call=R ns_per_root_op=O
 * ns_per_call: process CPU time (CLOCK_PROCESS_CPUTIME_ID, so that time
 * spent descheduled on a shared machine does not count; it includes any
 * marker threads) per top-level call: the calls are repeated in 5
 * sub-measurements of at least 40 ms of CPU each (-t sets the total, default
 * 200 ms) and the best sub-measurement is kept; wall_ns_per_call is the same
 * with CLOCK_MONOTONIC. ns_per_root_op: (ns_per_call − ns_per_call of
 * "local" on the same collector) / root operations per call ("-" for
 * local): the overhead of keeping the values rooted, per operation.
 * Every step checks its argument values (f's magic, x's checksum), every
 * result is checked, and on bibop the boxroot count must be back to zero
 * after each variant; any failure prints a diagnostic on stderr and exits 1
 * before any figure is printed.
 *
 * One source, two builds (define exactly one): BIBOP (bibop's gc.h and
 * boxroot.h, libbibop) or STOCK (/usr/include/gc, stock libgc.so.1).
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

#define NOINLINE __attribute__((noinline))

static void die(const char *msg, long a, long b)
{
    fprintf(stderr, "boxroot_fixpoint (%s): FAILED: %s (%ld, %ld)\n", COLLECTOR, msg, a, b);
    exit(1);
}

/* ---- values and the allocating callback ----------------------------------- */

#define F_MAGIC 0x5eedf00dcafe1234ULL

struct fn { uint64_t magic, dec; };
struct val { uint64_t n, check, pad[2]; };

static inline uint64_t chk(uint64_t n) { return (n * 0x9e3779b97f4a7c15ULL) ^ 0xabcdefULL; }

static NOINLINE struct val *mkval(uint64_t n)
{
    struct val *v = GC_MALLOC(sizeof *v);
    if (!v) die("GC_MALLOC returned NULL", 0, 0);
    v->n = n;
    v->check = chk(n);
    return v;
}

/* The callback: allocates and returns a fresh value. */
static NOINLINE struct val *step(struct fn *f, struct val *x)
{
    if (f->magic != F_MAGIC) die("f corrupted", (long)f->magic, 0);
    if (x->check != chk(x->n)) die("x corrupted", (long)x->n, (long)x->check);
    uint64_t n = x->n > f->dec ? x->n - f->dec : 0;
    return mkval(n);
}

static inline int same(struct val *x, struct val *y) { return x->n == y->n; }

/* ---- (a) local --------------------------------------------------------------- */

static NOINLINE struct val *fix_local(struct fn *f, struct val *x)
{
    struct val *y = step(f, x);
    if (same(x, y)) return y;
    struct val *r = fix_local(f, y);
    __asm__ volatile("" : : "r"(f), "r"(x) : "memory");   /* f, x live across the call */
    return r;
}

/* ---- (b) boxroot, caller-roots ----------------------------------------------- */

#ifdef BIBOP
/* Takes ownership of x; returns a new root holding the result. */
static NOINLINE boxroot fix_box(boxroot f, boxroot x)
{
    boxroot y = boxroot_create(step(boxroot_get(f), boxroot_get(x)));
    if (!y) die("boxroot_create returned NULL", 0, 0);
    if (same(boxroot_get(x), boxroot_get(y))) {
        boxroot_delete(x);
        return y;
    }
    boxroot_delete(x);
    return fix_box(f, y);
}

/* ---- (b') boxroot, callee-roots ------------------------------------------------ */

static NOINLINE struct val *fix_box_callee(struct fn *f0, struct val *x0)
{
    boxroot f = boxroot_create(f0), x = boxroot_create(x0);
    if (!f || !x) die("boxroot_create returned NULL", 0, 0);
    boxroot y = boxroot_create(step(boxroot_get(f), boxroot_get(x)));
    if (!y) die("boxroot_create returned NULL", 0, 0);
    struct val *r;
    if (same(boxroot_get(x), boxroot_get(y))) r = boxroot_get(y);
    else r = fix_box_callee(boxroot_get(f), boxroot_get(y));
    boxroot_delete(y);
    boxroot_delete(x);
    boxroot_delete(f);
    return r;
}
#endif

/* ---- (c) GC_add_roots / GC_remove_roots ---------------------------------------- */

static NOINLINE struct val *fix_addroots(struct fn *f0, struct val *x0)
{
    void **cells = malloc(3 * sizeof(void *));
    if (!cells) die("malloc", 0, 0);
    cells[0] = f0;
    cells[1] = x0;
    cells[2] = NULL;
    GC_add_roots(cells, cells + 3);
    cells[2] = step(cells[0], cells[1]);
    struct val *r;
    if (same(cells[1], cells[2])) r = cells[2];
    else r = fix_addroots(cells[0], cells[2]);
    GC_remove_roots(cells, cells + 3);
    free(cells);
    return r;
}

/* ---- (d) GC_malloc_uncollectable / GC_free ------------------------------------- */

static NOINLINE struct val *fix_uncollectable(struct fn *f0, struct val *x0)
{
    void **cells = GC_MALLOC_UNCOLLECTABLE(3 * sizeof(void *));
    if (!cells) die("GC_MALLOC_UNCOLLECTABLE returned NULL", 0, 0);
    cells[0] = f0;
    cells[1] = x0;
    cells[2] = step(cells[0], cells[1]);
    struct val *r;
    if (same(cells[1], cells[2])) r = cells[2];
    else r = fix_uncollectable(cells[0], cells[2]);
    GC_FREE(cells);
    return r;
}

/* ---- driver ------------------------------------------------------------------------ */

enum { V_LOCAL, V_BOX, V_BOX_CALLEE, V_ADDROOTS, V_UNCOLL, NV };
static const char *vname[NV] = { "local", "boxroot", "boxroot_callee", "addroots", "uncollectable" };

#define SUBS 5

static struct fn *the_f;          /* static: scanned, keeps f alive */

static unsigned long root_ops(int v, unsigned long n)
{
    switch (v) {
    case V_BOX: return 2 * n + 2;          /* per iteration: create y, delete x; + f */
    case V_BOX_CALLEE: return 6 * n;
    case V_ADDROOTS: case V_UNCOLL: return 2 * n;
    default: return 0;
    }
}

static NOINLINE void one_call(int v, unsigned long n)
{
    struct val *x0 = mkval(n - 1), *r = NULL;
    switch (v) {
    case V_LOCAL: r = fix_local(the_f, x0); break;
#ifdef BIBOP
    case V_BOX: {
        boxroot f = boxroot_create(the_f), x = boxroot_create(x0);
        if (!f || !x) die("boxroot_create returned NULL", 0, 0);
        boxroot y = fix_box(f, x);
        r = boxroot_get(y);
        boxroot_delete(y);
        boxroot_delete(f);
        break;
    }
    case V_BOX_CALLEE: r = fix_box_callee(the_f, x0); break;
#endif
    case V_ADDROOTS: r = fix_addroots(the_f, x0); break;
    case V_UNCOLL: r = fix_uncollectable(the_f, x0); break;
    }
    if (!r || r->n != 0 || r->check != chk(0)) die("wrong fixpoint result", (long)v, (long)n);
}

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    double min_ms = 200;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) min_ms = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [-t min_ms_per_measurement]\n", argv[0]);
            return 2;
        }
    }
    GC_INIT();
    the_f = GC_MALLOC(sizeof *the_f);
    if (!the_f) die("GC_MALLOC", 0, 0);
    the_f->magic = F_MAGIC;
    the_f->dec = 1;

    static const unsigned long ns[] = { 1, 5, 10, 1000 };
    enum { NN = sizeof ns / sizeof ns[0] };
    int present[NV] = { 1, 0, 0, 1, 1 };
#ifdef BIBOP
    present[V_BOX] = present[V_BOX_CALLEE] = 1;
#endif
    double res[NV][NN], wres[NV][NN];
    unsigned long calls[NV][NN];
    for (int v = 0; v < NV; v++) {
        if (!present[v]) continue;
        for (int k = 0; k < NN; k++) {
            unsigned long n = ns[k];
            for (int w = 0; w < 3; w++) one_call(v, n);      /* warm-up */
            unsigned long batch = n >= 1000 ? 1 : 1000 / n, total = 0;
            double best = 1e300, best_wall = 1e300;
            for (int sub = 0; sub < SUBS; sub++) {
                unsigned long c = 0;
                double c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_ns(CLOCK_MONOTONIC), c1;
                do {
                    for (unsigned long b = 0; b < batch; b++) one_call(v, n);
                    c += batch;
                    c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
                } while (c1 - c0 < min_ms * 1e6 / SUBS);
                double w1 = clock_ns(CLOCK_MONOTONIC);
                if ((c1 - c0) / c < best) best = (c1 - c0) / c;
                if ((w1 - w0) / c < best_wall) best_wall = (w1 - w0) / c;
                total += c;
            }
            res[v][k] = best;
            wres[v][k] = best_wall;
            calls[v][k] = total;
#ifdef BIBOP
            struct boxroot_stats s;
            boxroot_get_stats(&s);
            if (s.live != 0) die("boxroots left live after a variant", (long)v, (long)s.live);
#endif
        }
    }
    if (the_f->magic != F_MAGIC) die("f corrupted at the end", 0, 0);
    for (int v = 0; v < NV; v++) {
        if (!present[v]) continue;
        for (int k = 0; k < NN; k++) {
            unsigned long ops = root_ops(v, ns[k]);
            printf("fixpoint collector=%s variant=%s n=%lu calls=%lu ns_per_call=%.1f "
                   "wall_ns_per_call=%.1f root_ops_per_call=%lu ns_per_root_op=",
                   COLLECTOR, vname[v], ns[k], calls[v][k], res[v][k], wres[v][k], ops);
            if (ops) printf("%.2f\n", (res[v][k] - res[V_LOCAL][k]) / (double)ops);
            else printf("-\n");
        }
    }
    return 0;
}
