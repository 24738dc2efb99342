/* lock_bias.c: the allocation lock stays mutually exclusive while it
 * changes hands from a single-threaded program to a multi-threaded one. On
 * bibop the thread that initialised the collector takes the lock without
 * atomic instructions until another thread wants it (src/state.c, the
 * lock's bias); the first other thread takes the bias away, once per
 * process, possibly while the owner is inside the lock.
 *
 * Each round forks a child (so the handover happens afresh: the child
 * starts single-threaded, the forking thread owning the lock). The child
 * starts a thread and, from both threads at once (the first thread until
 * the second is done), increments a plain
 * counter under GC_call_with_alloc_lock (read, a short wait, write back),
 * between allocations and GC_FREE calls, many times; every increment must
 * count. The child also checks that a list built before the thread
 * started is intact after collections from both threads.
 * Runs unchanged against stock libgc1. */
#define _GNU_SOURCE
#include <gc.h>

#include <pthread.h>
#include <sys/wait.h>

#include "tcommon.h"

#define ROUNDS 40
#define INCREMENTS 20000
#define CELLS 1000

static unsigned long counter;   /* changed only under the allocation lock */

static void *increment_locked(void *unused)
{
    (void)unused;
    unsigned long seen = counter;
    for (volatile int spin = 0; spin < 20; spin++) {
    }   /* a window for another holder to change it */
    counter = seen + 1;
    return NULL;
}

static void increment_once(int i)
{
    GC_call_with_alloc_lock(increment_locked, NULL);
    void *q = GC_MALLOC_UNCOLLECTABLE(24);
    TCHECK(q != NULL, "GC_MALLOC_UNCOLLECTABLE");
    GC_FREE(q);
    if (i % 5000 == 4999) GC_gcollect();
}

static int second_done;

static void *second_thread(void *unused)
{
    (void)unused;
    for (int i = 0; i < INCREMENTS; i++) increment_once(i);
    __atomic_store_n(&second_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void child(uint64_t seed)
{
    tcell_t *list;
    TLIST_BUILD(list, CELLS, seed);
    counter = 0;
    pthread_t t;
    TCHECK(pthread_create(&t, NULL, second_thread, NULL) == 0, "pthread_create");
    /* The first thread goes on incrementing until the second has done all
       its increments: it is using the lock when the second thread starts
       and takes the bias away, and the two then overlap throughout. */
    unsigned long own = 0;
    while (!__atomic_load_n(&second_done, __ATOMIC_ACQUIRE)) increment_once((int)own++);
    TCHECK(pthread_join(t, NULL) == 0, "pthread_join");
    GC_gcollect();
    TCHECK(counter == own + INCREMENTS, "the lock let increments through together: %lu of %lu",
           counter, own + INCREMENTS);
    tlist_verify(list, CELLS, seed, "list built before the second thread");
}

int main(void)
{
    GC_INIT();
    t_watchdog(240);
    for (int round = 0; round < ROUNDS; round++) {
        t_stage = "fork";
        fflush(NULL);
        pid_t pid = fork();
        TCHECK(pid >= 0, "fork");
        if (pid == 0) {
            child(7000 + (uint64_t)round);
            _exit(0);
        }
        int status;
        TCHECK(waitpid(pid, &status, 0) == pid, "waitpid");
        TCHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "round %d: the child failed (status %d)", round, status);
    }
    printf("lock_bias: %d rounds, %d increments from each of two threads, none lost\n", ROUNDS,
           INCREMENTS);
    return 0;
}
