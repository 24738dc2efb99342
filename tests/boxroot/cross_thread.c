/* boxroot.cross_thread_*: roots created by one thread and deleted, read or
 * modified by another.
 *
 *   other         a registered thread creates roots; the main thread checks
 *                 and deletes half of them (remote deletes), creates its own
 *                 which the other thread checks and deletes; the other
 *                 thread then creates again from the cells freed remotely
 *                 (its pool count does not grow). Collections in between.
 *   unregistered  a thread started with the real pthread_create (not
 *                 redirected to GC_pthread_create, so unknown to the
 *                 collector) creates roots on values the main thread holds,
 *                 deletes half of the main thread's roots, while the main
 *                 thread collects in a loop; the main thread then deletes
 *                 its own roots: the values live on through the roots the
 *                 unregistered thread made. A second unregistered thread
 *                 deletes those; then the values are collected.
 *   exit          four registered threads create roots (and delete and
 *                 modify some of their own) concurrently, then exit while
 *                 the main thread holds their roots: the values stay intact
 *                 across collections; the main thread deletes half of them,
 *                 then creates new roots, which must fit in the exited
 *                 threads' (adopted) pools: the pool count does not grow.
 */
#include <pthread.h>
#include <stdatomic.h>

/* The real pthread_create / pthread_join, taken before gc.h redirects them. */
static int raw_pthread_create(pthread_t *t, void *(*f)(void *), void *arg)
{
    return pthread_create(t, NULL, f, arg);
}
static int raw_pthread_join(pthread_t t) { return pthread_join(t, NULL); }

#define GC_THREADS
#include <gc.h>
#include "brtest.h"

static size_t pools_now(void)
{
    struct boxroot_stats s;
    br_stats(&s);
    return s.pools;
}

static struct boxroot_stats stats_now(void)
{
    struct boxroot_stats s;
    br_stats(&s);
    return s;
}

/* ---- other ---------------------------------------------------------------- */

#define NO 6000
static boxroot o_theirs[NO], o_mine[NO / 2];
static uint64_t o_theirs_seed[NO], o_mine_seed[NO / 2];
static pthread_barrier_t bar;
static size_t o_pools_after_first, o_pools_after_second;

static void *other_thread(void *arg)
{
    (void)arg;
    br_stage = "other: create";
    for (size_t i = 0; i < NO; i++) {
        o_theirs_seed[i] = 100000 + i;
        o_theirs[i] = boxroot_create(br_value_make(o_theirs_seed[i]));
        BR_CHECK(o_theirs[i] != NULL, "boxroot_create returned NULL");
    }
    pthread_barrier_wait(&bar);      /* 1: main checks, deletes half, creates its own */
    pthread_barrier_wait(&bar);      /* 2 */
    br_stage = "other: check and delete main's roots";
    for (size_t i = 0; i < NO / 2; i++) {
        BR_VALUE_CHECK(boxroot_get(o_mine[i]), o_mine_seed[i], "main's root, read by the other thread");
        boxroot_delete(o_mine[i]);
        o_mine[i] = NULL;
    }
    o_pools_after_first = pools_now();
    br_stage = "other: create again";
    for (size_t i = 0; i < NO; i += 2) {     /* the odd slots were deleted by main */
        BR_CHECK(o_theirs[i] == NULL, "slot %zu should have been deleted", i);
        o_theirs_seed[i] = 300000 + i;
        o_theirs[i] = boxroot_create(br_value_make(o_theirs_seed[i]));
        BR_CHECK(o_theirs[i] != NULL, "boxroot_create returned NULL");
    }
    br_churn(20000, 48);
    o_pools_after_second = pools_now();
    pthread_barrier_wait(&bar);      /* 3 */
    return NULL;
}

static void mode_other(void)
{
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t t;
    BR_CHECK(pthread_create(&t, NULL, other_thread, NULL) == 0, "pthread_create");
    pthread_barrier_wait(&bar);      /* 1 */
    br_stage = "main: check, delete half, create";
    br_churn(30000, 48);
    GC_gcollect();
    for (size_t i = 0; i < NO; i++)
        BR_VALUE_CHECK(boxroot_get(o_theirs[i]), o_theirs_seed[i], "other thread's root, read by main");
    for (size_t i = 0; i < NO; i += 2) {
        boxroot_delete(o_theirs[i]);
        o_theirs[i] = NULL;
    }
    for (size_t i = 0; i < NO / 2; i++) {
        o_mine_seed[i] = 200000 + i;
        o_mine[i] = boxroot_create(br_value_make(o_mine_seed[i]));
        BR_CHECK(o_mine[i] != NULL, "boxroot_create returned NULL");
    }
    GC_gcollect();
    pthread_barrier_wait(&bar);      /* 2 */
    pthread_barrier_wait(&bar);      /* 3 */
    br_stage = "main: final check";
    BR_CHECK(o_pools_after_second <= o_pools_after_first,
             "the other thread's re-creation grew the pools from %zu to %zu (remote deletes not "
             "reused)", o_pools_after_first, o_pools_after_second);
    br_churn(30000, 48);
    GC_gcollect();
    for (size_t i = 0; i < NO; i++) {
        BR_VALUE_CHECK(boxroot_get(o_theirs[i]), o_theirs_seed[i], "other thread's root, final");
        boxroot_delete(o_theirs[i]);
    }
    pthread_join(t, NULL);
    struct boxroot_stats s = stats_now();
    BR_CHECK(s.live == 0 && s.creations == s.deletions && s.creations == NO + NO / 2 + NO / 2,
             "stats at the end: live %zu creations %zu deletions %zu", s.live, s.creations,
             s.deletions);
    printf("boxroot.cross_thread_other: ok (pools %zu)\n", s.pools);
}

/* ---- unregistered --------------------------------------------------------- */

#define NU 6000
static boxroot u_orig[NU], u_copy[NU];
static size_t u_idx[NU];
static uint64_t u_seed[NU];
static atomic_int u_done;

static void *unreg_copier(void *arg)
{
    (void)arg;
    /* This thread is unknown to the collector: it holds no GC pointer of its
       own; every value it touches is held by the main thread's roots. */
    BR_CHECK(bibop_set_precise_stack(1) == -1, "bibop_set_precise_stack from an unregistered "
                                               "thread should return -1");
    /* churn: temporary copies, created and deleted in random order, while the
       main thread collects */
    br_rng r = { 31 };
    for (int pass = 0; pass < 40; pass++) {
        for (size_t i = 0; i < NU; i++) {
            u_copy[i] = boxroot_create(boxroot_get(u_orig[i]));
            BR_CHECK(u_copy[i] != NULL, "boxroot_create from an unregistered thread returned NULL");
            u_idx[i] = i;
        }
        for (size_t i = NU; i > 0; i--) {
            size_t j = br_below(&r, i);
            BR_CHECK(boxroot_get(u_copy[j]) == boxroot_get(u_orig[u_idx[j]]),
                     "temporary copy of root %zu does not hold its value", u_idx[j]);
            boxroot_delete(u_copy[j]);
            u_copy[j] = u_copy[i - 1];
            u_idx[j] = u_idx[i - 1];
        }
    }
    for (size_t i = 0; i < NU; i++) {
        u_copy[i] = boxroot_create(boxroot_get(u_orig[i]));
        BR_CHECK(u_copy[i] != NULL, "boxroot_create from an unregistered thread returned NULL");
    }
    for (size_t i = 1; i < NU; i += 2) {
        boxroot_delete(u_orig[i]);   /* remote delete of the main thread's root */
        u_orig[i] = NULL;
    }
    atomic_store(&u_done, 1);
    return NULL;
}

static void *unreg_deleter(void *arg)
{
    (void)arg;
    for (size_t i = 0; i < NU; i++) boxroot_delete(u_copy[NU - 1 - i]);
    atomic_store(&u_done, 2);
    return NULL;
}

static __attribute__((noinline)) void u_build(void)
{
    br_links_init(NU);
    for (size_t i = 0; i < NU; i++) {
        u_seed[i] = 500000 + i;
        br_node *v = br_value_make(u_seed[i]);
        br_links_watch(i, v);
        u_orig[i] = boxroot_create(v);
        BR_CHECK(u_orig[i] != NULL, "boxroot_create returned NULL");
    }
}

static void mode_unregistered(void)
{
    u_build();
    br_scrub_stack();
    pthread_t t;
    BR_CHECK(raw_pthread_create(&t, unreg_copier, NULL) == 0, "pthread_create (raw)");
    br_stage = "unregistered: copy while collecting";
    size_t gcs = 0;
    while (atomic_load(&u_done) != 1) {
        br_churn(2000, 48);
        GC_gcollect();
        gcs++;
    }
    raw_pthread_join(t);
    for (size_t i = 0; i < NU; i++) {
        BR_CHECK(boxroot_get(u_copy[i]) != NULL, "copy %zu holds NULL", i);
        BR_CHECK(i % 2 == 1 ? u_orig[i] == NULL : boxroot_get(u_orig[i]) == boxroot_get(u_copy[i]),
                 "copy %zu does not hold the original's value", i);
    }
    for (size_t i = 0; i < NU; i += 2) boxroot_delete(u_orig[i]);
    br_stage = "unregistered: values held only by the unregistered thread's roots";
    br_scrub_stack();
    for (int k = 0; k < 4; k++) {
        br_churn(30000, 48);
        GC_gcollect();
    }
    BR_CHECK(br_links_cleared(0, NU) == 0, "%zu values held by roots made by an unregistered "
                                           "thread were collected", br_links_cleared(0, NU));
    for (size_t i = 0; i < NU; i++)
        BR_VALUE_CHECK(boxroot_get(u_copy[i]), u_seed[i], "root made by an unregistered thread");

    br_stage = "unregistered: deleted by another unregistered thread";
    BR_CHECK(raw_pthread_create(&t, unreg_deleter, NULL) == 0, "pthread_create (raw)");
    raw_pthread_join(t);
    BR_CHECK(atomic_load(&u_done) == 2, "deleter did not run");
    br_scrub_stack();
    for (int k = 0; k < 3; k++) {
        br_churn(20000, 48);
        GC_gcollect();
    }
    size_t gone = br_links_cleared(0, NU);
    BR_CHECK(gone >= NU * 9 / 10, "only %zu of %d values collected after an unregistered thread "
                                  "deleted their last roots", gone, NU);
    struct boxroot_stats s = stats_now();
    BR_CHECK(s.live == 0 && s.creations == 42 * NU && s.deletions == 42 * NU,
             "stats at the end: live %zu creations %zu deletions %zu (expected 0, %d, %d)", s.live,
             s.creations, s.deletions, 42 * NU, 42 * NU);
    printf("boxroot.cross_thread_unregistered: %zu collections during the copy, %zu/%d released: "
           "ok\n", gcs, gone, NU);
}

/* ---- exit ----------------------------------------------------------------- */

#define KT 4
#define MT 3000
#define DT 500         /* each thread deletes this many of its own */
static boxroot e_root[KT][MT];
static uint64_t e_seed[KT][MT];

static void *exiting_thread(void *arg)
{
    size_t k = (size_t)(uintptr_t)arg;
    br_rng r = { 1000 + k };
    for (size_t i = 0; i < MT; i++) {
        e_seed[k][i] = (k + 1) * 1000000 + i;
        e_root[k][i] = boxroot_create(br_value_make(e_seed[k][i]));
        BR_CHECK(e_root[k][i] != NULL, "boxroot_create returned NULL");
        if (i % 7 == 3) br_churn(20, 64);
    }
    for (size_t d = 0; d < DT;) {              /* local deletes */
        size_t i = br_below(&r, MT);
        if (!e_root[k][i]) continue;
        boxroot_delete(e_root[k][i]);
        e_root[k][i] = NULL;
        d++;
    }
    for (size_t i = 0; i < MT; i += 11) {      /* modifies */
        if (!e_root[k][i]) continue;
        e_seed[k][i] += 77;
        boxroot_modify(&e_root[k][i], br_value_make(e_seed[k][i]));
    }
    return NULL;                               /* exits: its pools become orphans */
}

static void check_exited(const char *when)
{
    for (size_t k = 0; k < KT; k++)
        for (size_t i = 0; i < MT; i++)
            if (e_root[k][i]) BR_VALUE_CHECK(boxroot_get(e_root[k][i]), e_seed[k][i], when);
}

#define XT 2000
static boxroot x_root[XT];

static void mode_exit(void)
{
    pthread_t t[KT];
    br_stage = "exit: threads";
    for (size_t k = 0; k < KT; k++)
        BR_CHECK(pthread_create(&t[k], NULL, exiting_thread, (void *)(uintptr_t)k) == 0,
                 "pthread_create");
    for (size_t k = 0; k < KT; k++) pthread_join(t[k], NULL);

    br_stage = "exit: collections after the threads exited";
    for (int c = 0; c < 4; c++) {
        br_churn(30000, 48);
        GC_gcollect();
        check_exited("root of an exited thread");
    }
    struct boxroot_stats s = stats_now();
    BR_CHECK(s.live == KT * (MT - DT), "live %zu, expected %d", s.live, KT * (MT - DT));

    /* the main thread deletes a random half of the exited threads' roots */
    br_stage = "exit: adoption";
    br_rng r = { 5 };
    size_t deleted = 0;
    for (size_t k = 0; k < KT; k++)
        for (size_t i = 0; i < MT; i++)
            if (e_root[k][i] && br_below(&r, 2) == 0) {
                boxroot_delete(e_root[k][i]);
                e_root[k][i] = NULL;
                deleted++;
            }
    GC_gcollect();
    size_t p1 = pools_now();
    /* The exited threads' pools hold >= `deleted` + DT * KT free cells; XT is
       well below that, so new roots fit without any new pool. */
    BR_CHECK(deleted > 2 * XT, "test setup: only %zu deleted", deleted);
    for (size_t i = 0; i < XT; i++) {
        x_root[i] = boxroot_create(br_value_make(9000000 + i));
        BR_CHECK(x_root[i] != NULL, "boxroot_create returned NULL");
    }
    size_t p2 = pools_now();
    BR_CHECK(p2 <= p1, "creating %d roots after %zu deletions in exited threads' pools grew the "
                       "pools from %zu to %zu (orphan pools not adopted)", XT, deleted, p1, p2);
    br_churn(30000, 48);
    GC_gcollect();
    check_exited("root of an exited thread, after adoption");
    for (size_t i = 0; i < XT; i++) {
        BR_VALUE_CHECK(boxroot_get(x_root[i]), 9000000 + i, "root created after adoption");
        boxroot_delete(x_root[i]);
    }
    for (size_t k = 0; k < KT; k++)
        for (size_t i = 0; i < MT; i++)
            if (e_root[k][i]) boxroot_delete(e_root[k][i]);
    GC_gcollect();
    s = stats_now();
    BR_CHECK(s.live == 0 && s.creations == s.deletions, "stats at the end: live %zu creations %zu "
             "deletions %zu", s.live, s.creations, s.deletions);
    printf("boxroot.cross_thread_exit: %d threads x %d roots, pools %zu -> %zu: ok\n", KT, MT, p1,
           p2);
}

int main(int argc, char **argv)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "other") == 0) mode_other();
    else if (strcmp(mode, "unregistered") == 0) mode_unregistered();
    else if (strcmp(mode, "exit") == 0) mode_exit();
    else br_fail("usage: %s other|unregistered|exit", argv[0]);
    return 0;
}
