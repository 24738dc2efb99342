/*
 * boxroot_churn.c: root churn — create and delete 10 million roots in random
 * order with 100,000 live at any time, from 1 and from 2 threads.
 *
 * Each thread owns a table of L/T live roots (L = 100,000, T threads) and
 * performs P/T replacements (P = 10,000,000): pick a slot at random, check
 * and delete its root, create a new root in it. Deletion order is therefore
 * random. The value stored is one of 4,096 GC objects (kept alive from a
 * static table), chosen by the thread's random stream; every deleted root
 * is checked to hold the value its slot expects, and every live root is
 * checked at the end. Variants:
 *   boxroot        boxroot_create / boxroot_delete (bibop only);
 *   uncollectable  a one-word GC_malloc_uncollectable cell holding the
 *                  value, GC_free to delete — variant (d) of the fixpoint
 *                  benchmark (bibop and stock libgc1);
 *   loop           the same loop storing the value in a malloc'd table with
 *                  no root operation at all: the cost of the loop itself
 *                  (random numbers, table accesses, checks).
 * Threads are created with pthread_create under GC_THREADS (registered).
 *
 * Order (-o): random (the default, above) or lifo: each thread keeps its
 * roots as a stack of L/T and, per round, deletes the top k (k = 1..64 from
 * its random stream) and creates k new ones on top — the stack discipline of
 * the paper's fixpoint, counted as k pairs.
 *
 * Output: for every variant and thread count one line on stdout,
 *   churn collector=C variant=V threads=T pairs=P live=L order=O ns_per_pair=X
 *         net_ns_per_pair=Y wall_ns_per_pair=W
 * ns_per_pair is the process CPU time (CLOCK_PROCESS_CPUTIME_ID, from the
 * moment all threads are released to the moment the last is joined) / P:
 * the CPU cost of one create+delete pair, unaffected by time spent
 * descheduled on a shared machine; net_ns_per_pair subtracts the loop
 * variant's ns_per_pair at the same thread count; wall_ns_per_pair is wall
 * time (CLOCK_MONOTONIC) / P, i.e. the throughput with T threads. Any check failure prints
 * a diagnostic on stderr and exits 1 before any figure is printed.
 * Options: -p PAIRS, -l LIVE, -T "1 2" (thread counts), -o random|lifo,
 * -v "loop boxroot uncollectable" (variants to run; net figures need loop;
 * with one variant, `valgrind --tool=callgrind` counts per pair follow from
 * two runs with different -p).
 *
 * One source, two builds: BIBOP or STOCK (see boxroot_fixpoint.c).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GC_THREADS
#include "bench_gc.h"
#ifdef BIBOP
# include <boxroot.h>
#endif
#define COLLECTOR VARIANT

static void die(const char *msg, long a, long b)
{
    fprintf(stderr, "boxroot_churn (%s): FAILED: %s (%ld, %ld)\n", COLLECTOR, msg, a, b);
    exit(1);
}

#define NOBJ 4096
static void *objs[NOBJ];          /* static: scanned */

enum { V_LOOP, V_BOX, V_UNCOLL, NV };
static const char *vname[NV] = { "loop", "boxroot", "uncollectable" };

static int lifo;                  /* -o lifo */

struct job {
    int variant;
    unsigned long pairs, live;
    uint64_t seed;
    pthread_t tid;
};

static atomic_int go, ready;

static inline uint64_t xs(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Root operations per variant: make a root holding v, read it, delete it. */
static inline void *mk(int variant, void *v)
{
    switch (variant) {
#ifdef BIBOP
    case V_BOX: return boxroot_create(v);
#endif
    case V_UNCOLL: {
        void **c = GC_MALLOC_UNCOLLECTABLE(sizeof(void *));
        if (c) *c = v;
        return c;
    }
    default: return v;
    }
}

static inline void *rd(int variant, void *r)
{
    switch (variant) {
#ifdef BIBOP
    case V_BOX: return boxroot_get(r);
#endif
    case V_UNCOLL: return *(void **)r;
    default: return r;
    }
}

static inline void del(int variant, void *r)
{
    switch (variant) {
#ifdef BIBOP
    case V_BOX: boxroot_delete(r); break;
#endif
    case V_UNCOLL: GC_FREE(r); break;
    default: break;
    }
}

static void *worker(void *arg)
{
    struct job *j = arg;
    const int v = j->variant;
    void **slot = malloc(j->live * sizeof *slot);
    uint16_t *want = malloc(j->live * sizeof *want);
    if (!slot || !want) die("malloc", 0, 0);
    uint64_t s = j->seed | 1;
    for (unsigned long i = 0; i < j->live; i++) {
        unsigned o = (unsigned)(xs(&s) % NOBJ);
        slot[i] = mk(v, objs[o]);
        if (!slot[i]) die("root creation failed", v, (long)i);
        want[i] = (uint16_t)o;
    }
    atomic_fetch_add(&ready, 1);
    while (!atomic_load(&go)) { /* spin until all threads are ready */ }
    const unsigned long live = j->live;
    if (lifo) {
        for (unsigned long p = 0; p < j->pairs;) {
            uint64_t r = xs(&s);
            unsigned long k = 1 + (unsigned long)((r >> 16) & 63);
            if (k > j->pairs - p) k = j->pairs - p;
            for (unsigned long n = 0; n < k; n++) {
                unsigned long i = live - 1 - n;
                if (rd(v, slot[i]) != objs[want[i]]) die("root does not hold its value", v, (long)i);
                del(v, slot[i]);
            }
            for (unsigned long i = live - k; i < live; i++) {
                unsigned o = (unsigned)((r + i) & (NOBJ - 1));
                slot[i] = mk(v, objs[o]);
                if (!slot[i]) die("root creation failed", v, (long)p);
                want[i] = (uint16_t)o;
            }
            p += k;
        }
    }
    for (unsigned long p = 0; !lifo && p < j->pairs; p++) {
        uint64_t r = xs(&s);
        unsigned long i = (unsigned long)((r >> 16) % live);
        unsigned o = (unsigned)(r & (NOBJ - 1));
        if (rd(v, slot[i]) != objs[want[i]]) die("root does not hold its value", v, (long)i);
        del(v, slot[i]);
        slot[i] = mk(v, objs[o]);
        if (!slot[i]) die("root creation failed", v, (long)p);
        want[i] = (uint16_t)o;
    }
    for (unsigned long i = 0; i < live; i++) {
        if (rd(v, slot[i]) != objs[want[i]]) die("root does not hold its value at the end", v, (long)i);
        del(v, slot[i]);
    }
    free(slot);
    free(want);
    return NULL;
}

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Returns CPU ns per pair; *wall gets wall-clock ns per pair. */
static double run(int variant, int threads, unsigned long pairs, unsigned long live, double *wall)
{
    struct job jobs[64];
    atomic_store(&go, 0);
    atomic_store(&ready, 0);
    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct job){ variant, pairs / threads, live / threads, 0x1234567ULL * (t + 1), 0 };
        if (pthread_create(&jobs[t].tid, NULL, worker, &jobs[t]) != 0) die("pthread_create", t, 0);
    }
    while (atomic_load(&ready) < threads) { /* wait for the tables to fill */ }
    double t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    atomic_store(&go, 1);
    for (int t = 0; t < threads; t++) pthread_join(jobs[t].tid, NULL);
    double t1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
#ifdef BIBOP
    struct boxroot_stats st;
    boxroot_get_stats(&st);
    if (st.live != 0) die("boxroots left live", variant, (long)st.live);
#endif
    double done = (double)((pairs / threads) * threads);
    *wall = (t1 - t0) / done;
    return (c1 - c0) / done;
}

int main(int argc, char **argv)
{
    unsigned long pairs = 10000000, live = 100000;
    int tc[8] = { 1, 2 }, ntc = 2;
    int want_variant[NV] = { 1, 1, 1 };
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) pairs = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-l") == 0 && i + 1 < argc) live = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-T") == 0 && i + 1 < argc) {
            ntc = 0;
            for (char *p = strtok(argv[++i], " ,"); p && ntc < 8; p = strtok(NULL, " ,")) {
                tc[ntc++] = atoi(p);
            }
        } else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            const char *o = argv[++i];
            if (strcmp(o, "lifo") == 0) lifo = 1;
            else if (strcmp(o, "random") != 0) die("order must be random or lifo", 0, 0);
        } else if (strcmp(argv[i], "-v") == 0 && i + 1 < argc) {
            memset(want_variant, 0, sizeof want_variant);
            for (char *p = strtok(argv[++i], " ,"); p; p = strtok(NULL, " ,")) {
                int v = 0;
                while (v < NV && strcmp(p, vname[v]) != 0) v++;
                if (v == NV) die("unknown variant", 0, 0);
                want_variant[v] = 1;
            }
        } else {
            fprintf(stderr, "usage: %s [-p pairs] [-l live] [-T \"1 2\"] [-o random|lifo] "
                    "[-v \"loop boxroot uncollectable\"]\n", argv[0]);
            return 2;
        }
    }
    for (int k = 0; k < ntc; k++) {
        if (tc[k] < 1 || tc[k] > 64) die("thread count out of range", tc[k], 0);
        if (live / (unsigned long)tc[k] < 64) die("live too small", (long)live, tc[k]);
    }
    GC_INIT();
    for (int i = 0; i < NOBJ; i++) {
        uint64_t *o = GC_MALLOC(2 * sizeof(uint64_t));
        if (!o) die("GC_MALLOC", 0, 0);
        o[0] = (uint64_t)i;
        o[1] = ~(uint64_t)i;
        objs[i] = o;
    }
    int present[NV] = { want_variant[V_LOOP], 0, want_variant[V_UNCOLL] };
#ifdef BIBOP
    present[V_BOX] = want_variant[V_BOX];
#endif
    double res[NV][8], wres[NV][8];
    for (int k = 0; k < ntc; k++)
        for (int v = 0; v < NV; v++)
            if (present[v]) res[v][k] = run(v, tc[k], pairs, live, &wres[v][k]);
    GC_gcollect();
    for (int i = 0; i < NOBJ; i++) {
        uint64_t *o = objs[i];
        if (o[0] != (uint64_t)i || o[1] != ~(uint64_t)i) die("value object corrupted", i, 0);
    }
    for (int k = 0; k < ntc; k++)
        for (int v = 0; v < NV; v++) {
            if (!present[v]) continue;
            printf("churn collector=%s variant=%s threads=%d pairs=%lu live=%lu order=%s "
                   "ns_per_pair=%.2f net_ns_per_pair=", COLLECTOR, vname[v], tc[k], pairs, live,
                   lifo ? "lifo" : "random", res[v][k]);
            if (present[V_LOOP]) printf("%.2f", res[v][k] - res[V_LOOP][k]);
            else printf("-");
            printf(" wall_ns_per_pair=%.2f\n", wres[v][k]);
        }
    return 0;
}
