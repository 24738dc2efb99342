/* join_result.c: a collector thread's return value is kept alive until the
 * thread is joined. 8 threads each build a checksummed list and return it
 * (their start routine's result is the only reference). Once each thread
 * has really ended (its /proc/self/task entry is gone), the main thread
 * runs 30 collections that reuse freed memory of that size, then joins the
 * threads and verifies the lists. bdwgc 8.2 keeps the result in its thread
 * record (a root) until GC_pthread_join; a program may rely on it.
 *
 * Bibop bug this test found (fixed in session 2; the fix is described in
 * src/stopworld.c or src/threads.c). What went wrong:
 * src/threads.c start_registered returns start(arg)'s result to glibc, and
 * the thread is unregistered (cleanup handler / key destructor) before it
 * ends; from then until pthread_join the result lives only in glibc's
 * thread descriptor, which is not scanned, so the object is collected. */
#define _GNU_SOURCE
#include <gc.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "tcommon.h"

#define N 8
#define LEN 2000

static atomic_int g_tid[N];

static void *producer(void *arg)
{
    int i = (int)(intptr_t)arg;
    tcell_t *l;
    TLIST_BUILD(l, LEN, 500 + (uint64_t)i);
    atomic_store(&g_tid[i], (int)gettid());
    return l;
}

static int task_exists(int tid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/task/%d", tid);
    return stat(path, &st) == 0;
}

int main(void)
{
    GC_INIT();
    t_watchdog(100);
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        TCHECK(pthread_create(&t[i], NULL, producer, (void *)(intptr_t)i) == 0, "pthread_create");
    t_stage = "waiting for the threads to end";
    for (int i = 0; i < N; i++) {
        while (atomic_load(&g_tid[i]) == 0) sched_yield();
        while (task_exists(atomic_load(&g_tid[i]))) sched_yield();
    }
    t_stage = "collecting before the joins";
    for (int round = 0; round < 30; round++) {
        TCHURN(2000, sizeof(tcell_t));
        GC_gcollect();
    }
    for (int i = 0; i < N; i++) {
        void *ret = NULL;
        TCHECK(pthread_join(t[i], &ret) == 0, "pthread_join");
        TCHECK(ret != NULL, "thread %d returned NULL", i);
        tlist_verify(ret, LEN, 500 + (uint64_t)i, "list returned by an ended thread, joined later");
    }
    printf("join_result: %d results survived 30 collections between thread end and join\n", N);
    return 0;
}
