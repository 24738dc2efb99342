/* lock_waiters.c: threads that wait for the allocation lock while a
 * collection runs keep everything their stacks and registers hold. On
 * bibop a thread asleep in the lock when a collection starts is not
 * signalled: it cannot leave the lock before the collection ends, and its
 * stack is scanned from where it went to sleep (src/state.c, "parked").
 *
 * Four workers (more threads than this project's 2 CPUs) each build a
 * checksummed list held only by a local variable, register a disappearing
 * link to its head (kept in malloc'd memory, which is no root), then take
 * the lock over and over (uncollectable allocation and GC_free) while the
 * main thread collects and churns, 300 times, so that workers are often
 * waiting for the lock, many of them asleep, as a collection begins. Every
 * 64 rounds a worker checks that the link is still set and the list intact,
 * and adds a new list (the old ones stay reachable from it). Each worker
 * runs at least MIN_ROUNDS rounds: on a loaded machine a worker may start
 * only after the main thread has finished its collections (until session
 * 13 such a worker ran no round, and its final check read the link's
 * uninitialised malloc'd word: a failure of the test, not the collector).
 * Runs unchanged against stock libgc1. */
#define _GNU_SOURCE
#include <gc.h>

#include <pthread.h>

#include "tcommon.h"

#define WORKERS 4
#define COLLECTIONS 300
#define CELLS 32
#define MIN_ROUNDS (2 * 64 + 1)   /* two checks inside the loop, whatever the timing */

static volatile int stop_workers;

struct held {
    tcell_t *list;
    struct held *older;
};

static void *worker(void *arg)
{
    uint64_t seed = 1000 + (uintptr_t)arg;
    void **link = malloc(sizeof *link);   /* not scanned: only the link's target */
    TCHECK(link != NULL, "malloc");
    *link = NULL;
    struct held *mine = NULL;
    for (int round = 0; round < MIN_ROUNDS || !__atomic_load_n(&stop_workers, __ATOMIC_ACQUIRE); round++) {
        if (round % 64 == 0) {
            if (mine) {
                TCHECK(*link == mine, "worker %d: its held objects were collected (round %d)",
                       (int)(uintptr_t)arg, round);
                for (struct held *h = mine; h; h = h->older) tlist_verify(h->list, CELLS, seed, "held list");
                GC_unregister_disappearing_link(link);
            }
            struct held *h = GC_MALLOC(sizeof *h);
            TCHECK(h != NULL, "GC_MALLOC");
            TLIST_BUILD(h->list, CELLS, seed);
            h->older = mine;
            mine = h;
            *link = mine;
            TCHECK(GC_general_register_disappearing_link(link, mine) == GC_SUCCESS,
                   "GC_general_register_disappearing_link");
        }
        void *u = GC_MALLOC_UNCOLLECTABLE(16);   /* both take the allocation lock */
        TCHECK(u != NULL, "GC_MALLOC_UNCOLLECTABLE");
        GC_FREE(u);
    }
    TCHECK(*link == mine, "worker %d: its held objects were collected at the end", (int)(uintptr_t)arg);
    for (struct held *h = mine; h; h = h->older) tlist_verify(h->list, CELLS, seed, "held list");
    GC_unregister_disappearing_link(link);
    free(link);
    return NULL;
}

int main(void)
{
    GC_INIT();
    t_watchdog(100);
    pthread_t th[WORKERS];
    for (uintptr_t i = 0; i < WORKERS; i++)
        TCHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0, "pthread_create");
    t_stage = "collecting while workers wait for the lock";
    for (int i = 0; i < COLLECTIONS; i++) {
        GC_gcollect();
        TCHURN(200, 32);
    }
    __atomic_store_n(&stop_workers, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < WORKERS; i++) TCHECK(pthread_join(th[i], NULL) == 0, "pthread_join");
    printf("lock_waiters: %d workers, %d collections: ok\n", WORKERS, COLLECTIONS);
    return 0;
}
