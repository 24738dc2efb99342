/* boxroot.pool_reuse_{local,remote}: create/delete churn reuses cells; the
 * number of pools (boxroot_get_stats) does not grow once the live set has
 * been reached.
 *
 * local:  one thread: fill up to L = 10,000 live roots and delete them in
 *         random order (this warm-up sets the pool count P). Then 200 rounds
 *         of a random walk of creations and deletions between 0 and L live
 *         (about 700,000 creations), with garbage allocation (so
 *         collections run); the pool count stays at most 2P + 1 (an
 *         implementation may keep some slack, e.g. not switch to nearly
 *         full pools; without reuse these creations would need ~340
 *         pools), and every root keeps its value.
 * remote: a registered thread creates 5,000 roots, the main thread deletes
 *         them all in random order (pushes onto the pools' remote lists),
 *         100 times, collecting every 10 rounds; after the first round the
 *         pool count does not grow. */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include "brtest.h"

#define L 10000

static boxroot h[L];           /* handles: not GC pointers, static is fine */
static uint64_t sd[L];
static size_t nlive;

static size_t pools_now(void)
{
    struct boxroot_stats s;
    br_stats(&s);
    return s.pools;
}

static void create_one(uint64_t s)
{
    void *o = GC_MALLOC(24);
    BR_CHECK(o != NULL, "GC_MALLOC");
    ((uint64_t *)o)[0] = s;
    ((uint64_t *)o)[2] = ~s;
    h[nlive] = boxroot_create(o);
    BR_CHECK(h[nlive] != NULL, "boxroot_create returned NULL");
    sd[nlive++] = s;
}

static void delete_random(br_rng *r)
{
    size_t i = br_below(r, nlive);
    uint64_t *o = boxroot_get(h[i]);
    BR_CHECK(o[0] == sd[i] && o[2] == ~sd[i], "root value overwritten (seed %llu)",
             (unsigned long long)sd[i]);
    boxroot_delete(h[i]);
    h[i] = h[--nlive];
    sd[i] = sd[nlive];
}

static void part_one_thread(void)
{
    br_rng r = { 1 };
    uint64_t s = 1;
    while (nlive < L) create_one(s++);
    while (nlive > 0) delete_random(&r);
    size_t p = pools_now(), pmax = p;
    for (int round = 0; round < 200; round++) {
        size_t target = br_below(&r, L + 1);
        while (nlive != target) {
            if (nlive < target && (nlive == 0 || br_below(&r, 3) != 0)) create_one(s++);
            else delete_random(&r);
            if ((s & 255) == 0) br_churn(16, 64);
        }
        size_t pn = pools_now();
        BR_CHECK(pn <= 2 * p + 1, "round %d: %zu pools, %zu after the warm-up (live %zu <= %d)",
                 round, pn, p, nlive, L);
        if (pn > pmax) pmax = pn;
    }
    while (nlive > 0) delete_random(&r);
    GC_gcollect();
    printf("boxroot.pool_reuse_local: %llu creations, %zu pools after the warm-up, at most %zu "
           "after: ok\n", (unsigned long long)s - 1, p, pmax);
}

/* (b) */
#define NB 5000
static boxroot hb[NB];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;               /* 0: creator's turn, 1: deleter's, 2: stop */

static void *creator(void *arg)
{
    (void)arg;
    for (uint64_t round = 0;; round++) {
        pthread_mutex_lock(&mu);
        while (turn == 1) pthread_cond_wait(&cv, &mu);
        if (turn == 2) {
            pthread_mutex_unlock(&mu);
            return NULL;
        }
        pthread_mutex_unlock(&mu);
        for (size_t i = 0; i < NB; i++) {
            uint64_t *o = GC_MALLOC(16);
            BR_CHECK(o != NULL, "GC_MALLOC");
            o[0] = round * NB + i;
            hb[i] = boxroot_create(o);
            BR_CHECK(hb[i] != NULL, "boxroot_create returned NULL");
        }
        pthread_mutex_lock(&mu);
        turn = 1;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
    }
}

static void part_remote(void)
{
    pthread_t t;
    BR_CHECK(pthread_create(&t, NULL, creator, NULL) == 0, "pthread_create");
    size_t p1 = 0;
    br_rng r = { 99 };
    for (uint64_t round = 0; round < 100; round++) {
        pthread_mutex_lock(&mu);
        while (turn == 0) pthread_cond_wait(&cv, &mu);
        pthread_mutex_unlock(&mu);
        if (round % 10 == 0) GC_gcollect();
        /* delete in random order, from this (non-owning) thread */
        for (size_t i = NB; i > 0; i--) {
            size_t j = br_below(&r, i);
            uint64_t *o = boxroot_get(hb[j]);
            BR_CHECK(o[0] / NB == round, "round %llu: root value overwritten",
                     (unsigned long long)round);
            boxroot_delete(hb[j]);
            hb[j] = hb[i - 1];
        }
        size_t pn = pools_now();
        if (round == 0) p1 = pn;
        BR_CHECK(pn <= p1, "round %llu: %zu pools, %zu after the first round",
                 (unsigned long long)round, pn, p1);
        pthread_mutex_lock(&mu);
        turn = round == 99 ? 2 : 0;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
    }
    pthread_join(t, NULL);
    printf("boxroot.pool_reuse_remote: 100 x %d roots, pools stayed <= %zu: ok\n", NB, p1);
}

int main(int argc, char **argv)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    const char *mode = argc > 1 ? argv[1] : "";
    br_stage = mode;
    if (strcmp(mode, "local") == 0) part_one_thread();
    else if (strcmp(mode, "remote") == 0) part_remote();
    else br_fail("usage: %s local|remote", argv[0]);
    return 0;
}
