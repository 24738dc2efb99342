/* boxroot.spare: a thread's spare cell (src/boxroot.c, SPARE) keeps its
 * pool alive, even a pool of a thread that has exited.
 *
 * Thread A creates one root (its own new pool) and exits; thread B deletes
 * it (the cell becomes B's spare: A's orphaned pool now holds no root) and,
 * after collections that free empty orphans, creates again: it gets the
 * spare, whose pool must still be mapped. The value stored there survives
 * collections. When B exits its spare goes back to the pool: after a
 * collection with nothing live the pool count is back where it started. */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include "brtest.h"

static boxroot handed;

static void *thread_a(void *arg)
{
    (void)arg;
    handed = boxroot_create(br_value_make(7));
    BR_CHECK(handed != NULL, "boxroot_create returned NULL");
    return NULL;
}

static void *thread_b(void *arg)
{
    (void)arg;
    BR_VALUE_CHECK(boxroot_get(handed), 7, "A's root");
    boxroot_delete(handed);                  /* B's spare, from A's pool */
    GC_gcollect();
    GC_gcollect();
    boxroot r = boxroot_create(br_value_make(8));
    BR_CHECK(r == handed, "the next creation did not take the spare");
    GC_gcollect();
    br_churn(1000, 64);
    BR_VALUE_CHECK(boxroot_get(r), 8, "root in the spare cell");
    boxroot_delete(r);                       /* the spare again, until B exits */
    return NULL;
}

int main(void)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    struct boxroot_stats s0, s;
    br_stats(&s0);
    pthread_t t;
    br_stage = "thread A";
    BR_CHECK(pthread_create(&t, NULL, thread_a, NULL) == 0, "pthread_create");
    pthread_join(t, NULL);
    br_stage = "thread B";
    BR_CHECK(pthread_create(&t, NULL, thread_b, NULL) == 0, "pthread_create");
    pthread_join(t, NULL);
    br_stage = "end";
    GC_gcollect();
    br_stats(&s);
    BR_CHECK(s.live == 0 && s.creations == 2 && s.deletions == 2,
             "stats: live %zu creations %zu deletions %zu", s.live, s.creations, s.deletions);
    BR_CHECK(s.pools == s0.pools, "pools %zu at the end, %zu at the start", s.pools, s0.pools);
    printf("boxroot.spare: ok\n");
    return 0;
}
