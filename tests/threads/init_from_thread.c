/* init_from_thread.c: the collector initialised by GC_INIT from a thread
 * other than the main one (made with the real pthread_create, before any
 * other collector call). That thread is registered by the initialisation;
 * a list it holds on its stack survives collections with memory reuse; it
 * creates collector threads that allocate and collect; it unregisters before
 * it ends. Then the main thread, never registered so far, registers itself
 * with GC_get_stack_base / GC_register_my_thread, allocates, collects and
 * verifies its own data. */
#define _GNU_SOURCE
#include <pthread.h>

static int (*const raw_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                       void *) = pthread_create;
static int (*const raw_pthread_join)(pthread_t, void **) = pthread_join;

#include <gc.h>

#include "tcommon.h"

/* Collections with memory reuse (see registration.c). */
static void collect_with_churn(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        TCHURN(300, sizeof(tcell_t));
        GC_gcollect();
    }
    TFILL(20000, sizeof(tcell_t));
}

static void *worker(void *arg)
{
    uint64_t seed = (uint64_t)(uintptr_t)arg;
    tcell_t *l;
    TLIST_BUILD(l, 2000, seed);
    collect_with_churn(5);
    tlist_verify(l, 2000, seed, "thread created by the initialising thread");
    return (void *)1;
}

static void *initialiser(void *unused)
{
    (void)unused;
    GC_INIT();
    TCHECK(GC_thread_is_registered(), "the thread that ran GC_INIT is not registered");
    GC_allow_register_threads();
    tcell_t *l;
    TLIST_BUILD(l, 3000, 1);
    collect_with_churn(20);
    tlist_verify(l, 3000, 1, "initialising thread");
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        TCHECK(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(10 + i)) == 0, "pthread_create");
    for (int i = 0; i < 4; i++) {
        void *ret;
        TCHECK(pthread_join(t[i], &ret) == 0 && ret == (void *)1, "worker failed");
    }
    collect_with_churn(5);
    tlist_verify(l, 3000, 1, "initialising thread, after its workers");
    TCHECK(GC_unregister_my_thread() == GC_SUCCESS, "GC_unregister_my_thread");
    return (void *)1;
}

int main(void)
{
    t_watchdog(100);
    t_stage = "initialising thread";
    pthread_t t;
    TCHECK(raw_pthread_create(&t, NULL, initialiser, NULL) == 0, "pthread_create (real)");
    void *ret;
    TCHECK(raw_pthread_join(t, &ret) == 0 && ret == (void *)1, "initialising thread failed");

    t_stage = "main thread registering late";
    struct GC_stack_base sb;
    TCHECK(GC_get_stack_base(&sb) == GC_SUCCESS, "GC_get_stack_base (main)");
    int r = GC_register_my_thread(&sb);
    TCHECK(r == GC_SUCCESS, "GC_register_my_thread (main, after init from another thread) = %d", r);
    TCHECK(GC_thread_is_registered(), "main thread not registered");
    tcell_t *l;
    TLIST_BUILD(l, 3000, 2);
    collect_with_churn(20);
    tlist_verify(l, 3000, 2, "main thread");
    printf("init_from_thread: collector initialised from a second thread, main registered later\n");
    return 0;
}
