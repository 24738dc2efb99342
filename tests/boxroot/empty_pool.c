/* boxroot.empty_pool: a thread's current pool must survive a collection
 * that finds it empty.
 *
 * Create one root, delete it, collect, create again and use the root. Then
 * two registered threads, one after the other started but both alive: the
 * second must not be handed the first one's pool (each creates, the first
 * thread's roots must be untouched by the second's churn).
 *
 * KNOWN BIBOP BUG (see tests/boxroot/README.md), registered only with
 * -DBIBOP_BOXROOT_KNOWN_BUGS=ON: pool_with_room_locked() returns
 * new_pool_locked() without setting p->owner, so every new pool is an orphan
 * (owner NULL) from birth although it is the creating thread's tl_pool.
 * boxroot_release_empty_pools() then unmaps it at the first collection that
 * finds it empty (the next boxroot_create dereferences the unmapped pool:
 * SIGSEGV), and another thread's create_slow() adopts it while its creator
 * still pops from it without the lock (free-list corruption). */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include "brtest.h"

#define N 3000
static pthread_barrier_t bar;
static boxroot first[N];

static void *first_thread(void *arg)
{
    (void)arg;
    for (size_t i = 0; i < N; i++) {
        first[i] = boxroot_create(br_value_make(i + 1));
        BR_CHECK(first[i] != NULL, "boxroot_create returned NULL");
    }
    pthread_barrier_wait(&bar);   /* 1: second thread may start creating */
    /* churn creations and deletions of our own while the other does too */
    for (int round = 0; round < 200; round++) {
        for (size_t i = 0; i < N; i += 3) {
            boxroot_delete(first[i]);
            first[i] = boxroot_create(br_value_make(i + 1));
            BR_CHECK(first[i] != NULL, "boxroot_create returned NULL");
        }
    }
    pthread_barrier_wait(&bar);   /* 2 */
    return NULL;
}

static void *second_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&bar);   /* 1 */
    boxroot mine[64];
    for (int round = 0; round < 20000; round++) {
        for (int i = 0; i < 64; i++) mine[i] = boxroot_create((void *)(uintptr_t)0x10);
        for (int i = 0; i < 64; i++) boxroot_delete(mine[i]);
    }
    pthread_barrier_wait(&bar);   /* 2 */
    return NULL;
}

int main(void)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    br_stage = "create, delete, collect, create";
    boxroot r = boxroot_create(br_value_make(42));
    BR_CHECK(r != NULL, "boxroot_create returned NULL");
    boxroot_delete(r);
    GC_gcollect();
    r = boxroot_create(br_value_make(43));      /* SIGSEGV here with the bug */
    BR_CHECK(r != NULL, "boxroot_create returned NULL");
    GC_gcollect();
    BR_VALUE_CHECK(boxroot_get(r), 43, "root created after its pool emptied");
    boxroot_delete(r);

    br_stage = "two threads";
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t a, b;
    BR_CHECK(pthread_create(&a, NULL, first_thread, NULL) == 0, "pthread_create");
    BR_CHECK(pthread_create(&b, NULL, second_thread, NULL) == 0, "pthread_create");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    for (size_t i = 0; i < N; i++) {
        BR_VALUE_CHECK(boxroot_get(first[i]), i + 1, "first thread's root");
        for (size_t j = i + 1; j < N && j < i + 8; j++)
            BR_CHECK(first[i] != first[j], "two live roots share a cell");
    }
    for (size_t i = 0; i < N; i++) boxroot_delete(first[i]);
    struct boxroot_stats s;
    br_stats(&s);
    BR_CHECK(s.live == 0, "live %zu at the end", s.live);
    printf("boxroot.empty_pool: ok\n");
    return 0;
}
