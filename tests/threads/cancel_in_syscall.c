/* cancel_in_syscall.c: a thread cancelled while it sleeps in a cancellable
 * system call (nanosleep: glibc then cancels it with SIGCANCEL, which the
 * program cannot block) while collections keep stopping the world must
 * still end cleanly: every stop-the-world completes (no hang, no "thread
 * does not answer" abort) and every cancelled thread is joined with
 * PTHREAD_CANCELED. 4 cancelling threads each create sleepers that hold a
 * checksummed list and cancel them, 2000 times in all (argument 1; CTest
 * uses 600), while 2 threads run
 * GC_gcollect() in a loop.
 *
 * Bibop bug this test found (fixed in session 2; the fix is described in
 * src/stopworld.c or src/threads.c). What went wrong:
 * glibc 2.36 cancels a thread blocked in nanosleep with SIGCANCEL, which a
 * program cannot block (sigfillset leaves it out of the suspend handler's
 * sa_mask and of its sigsuspend mask), and whose handler acts on any
 * asynchronous-type thread whatever its cancel state. bibop's
 * suspend_handler (src/stopworld.c) disables cancellation around the
 * handshake, which is not enough:
 * - a SIGCANCEL sent while the thread was cancellable (asleep in
 *   nanosleep) can be delivered inside the handler and unwind the thread
 *   out of the handshake after it acknowledged the stop: the restart is
 *   never acknowledged, and the thread's cleanup handler (unregister_self,
 *   src/threads.c) waits for the allocation lock that the collector holds
 *   while it waits for that acknowledgement (seen with gdb: collector in
 *   stopworld_start -> wait_for_acks, the cancelled threads "Exiting" in
 *   unregister_self -> pthread_mutex_lock): "bibop: a thread does not
 *   answer the stop-the-world signals" after 60 s;
 * - a cancel requested while the handler runs is acted on by the
 *   pthread_setcancelstate that re-enables cancellation at the handler's
 *   end; glibc then never stores PTHREAD_CANCELED, so pthread_join returns
 *   NULL, or the previous thread's result when the descriptor is reused.
 * stock libgc1 passes: its GC_pthread_cancel (and GC_pthread_exit) disables
 * collections (GC_dont_gc++, DISABLED_GC flag) until the target thread
 * unregisters, so no stop-the-world can overlap a pending cancellation. */
#define _GNU_SOURCE
#include <gc.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <time.h>

#include "tcommon.h"

#define N_CANCELLERS 4
#define N_COLLECTORS 2
#define DEFAULT_CANCELS 2000   /* argument 1 overrides */

static long g_total_cancels = DEFAULT_CANCELS;

static atomic_int g_stop;
static atomic_long g_cancelled;

struct sleeper_arg {
    sem_t ready;
    uint64_t seed;
};

static void *sleeper(void *p)
{
    struct sleeper_arg *a = p;
    tcell_t *l;
    TLIST_BUILD(l, 50, a->seed);
    sem_post(&a->ready);
    for (;;) {
        tlist_verify(l, 50, a->seed, "sleeper");
        struct timespec ts = { 0, 50 * 1000 };
        nanosleep(&ts, NULL);     /* cancellation point, in a system call */
    }
    return NULL;
}

static void *canceller(void *arg)
{
    int id = (int)(intptr_t)arg;
    struct sleeper_arg a;
    if (sem_init(&a.ready, 0, 0) != 0) tfail("sem_init");
    for (long n = 0; atomic_load(&g_cancelled) < g_total_cancels; n++) {
        a.seed = ((uint64_t)id << 32) + (uint64_t)n;
        pthread_t t;
        int r = pthread_create(&t, NULL, sleeper, &a);
        TCHECK(r == 0, "pthread_create: %d", r);
        while (sem_wait(&a.ready) != 0) TCHECK(errno == EINTR, "sem_wait: %d", errno);
        struct timespec ts = { 0, (long)(n % 5) * 30 * 1000 };
        nanosleep(&ts, NULL);
        r = pthread_cancel(t);
        TCHECK(r == 0, "pthread_cancel: %d", r);
        void *ret;
        r = pthread_join(t, &ret);
        TCHECK(r == 0, "pthread_join: %d", r);
        TCHECK(ret == PTHREAD_CANCELED, "sleeper returned %p", ret);
        atomic_fetch_add(&g_cancelled, 1);
    }
    sem_destroy(&a.ready);
    return NULL;
}

static void *collector(void *unused)
{
    (void)unused;
    while (!atomic_load(&g_stop)) {
        GC_gcollect();
        TCHURN(200, 32);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) g_total_cancels = atol(argv[1]);
    TCHECK(g_total_cancels > 0, "usage: threads_cancel_in_syscall [CANCELS>0]");
    GC_INIT();
    t_watchdog(150);
    t_stage = "cancelling sleepers while collecting";
    unsigned long gc0 = (unsigned long)GC_get_gc_no();
    pthread_t c[N_CANCELLERS], g[N_COLLECTORS];
    for (int i = 0; i < N_COLLECTORS; i++)
        TCHECK(pthread_create(&g[i], NULL, collector, NULL) == 0, "pthread_create");
    for (int i = 0; i < N_CANCELLERS; i++)
        TCHECK(pthread_create(&c[i], NULL, canceller, (void *)(intptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < N_CANCELLERS; i++) TCHECK(pthread_join(c[i], NULL) == 0, "pthread_join");
    atomic_store(&g_stop, 1);
    for (int i = 0; i < N_COLLECTORS; i++) TCHECK(pthread_join(g[i], NULL) == 0, "pthread_join");
    t_stage = "final collection";
    GC_gcollect();
    printf("cancel_in_syscall: %ld threads cancelled during %lu collections\n",
           atomic_load(&g_cancelled), (unsigned long)GC_get_gc_no() - gc0);
    return 0;
}
