/* fork.c: fork() from a multi-threaded collected program. While 4 threads
 * allocate (and hold checksummed lists on their stacks), the main thread
 * forks, 6 times. The child, where only the forking thread exists, must be
 * able to use the collector: it verifies data built before the fork,
 * allocates, runs GC_gcollect() and enough allocation to trigger implicit
 * collections (GC_get_gc_no() must advance: no collection may wait for the
 * threads that do not exist in the child), creates and joins a thread of
 * its own, verifies everything again and exits 0. The parent checks the
 * child's exit status, then verifies its own data and the allocating
 * threads' lists.
 * With argument "set-handle-fork", GC_set_handle_fork(1) is called before
 * GC_INIT (bdwgc's documented way); with "handle-fork=N",
 * GC_set_handle_fork(N); without either the default applies.
 * With "manual", each fork() is surrounded by the client's calls gc.h
 * documents, GC_atfork_prepare before it, GC_atfork_parent or
 * GC_atfork_child after it: they must do the work exactly when the
 * collector's own pthread_atfork handlers do not (GC_set_handle_fork(0)),
 * and nothing otherwise (the default, and GC_set_handle_fork(-1) where
 * pthread_atfork works), so that the lock is not taken twice. */
#define _GNU_SOURCE
#include <gc.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <time.h>

#include "tcommon.h"

#define N_ALLOCATORS 4
#define N_FORKS 6
#define PARENT_LEN 5000

static atomic_int g_stop;
static atomic_long g_progress[N_ALLOCATORS];

static void *allocator(void *arg)
{
    int id = (int)(intptr_t)arg;
    tcell_t *mine;
    TLIST_BUILD(mine, 2000, 100 + (uint64_t)id);
    for (uint64_t round = 0; !atomic_load(&g_stop); round++) {
        tcell_t *tmp;
        size_t n = 50 + round % 200;
        TLIST_BUILD(tmp, n, round * 8 + (uint64_t)id);
        tlist_verify(tmp, n, round * 8 + (uint64_t)id, "allocating thread (parent)");
        if (round % 16 == 0) tlist_verify(mine, 2000, 100 + (uint64_t)id, "allocating thread (parent)");
        atomic_fetch_add(&g_progress[id], 1);
    }
    tlist_verify(mine, 2000, 100 + (uint64_t)id, "allocating thread (parent), at the end");
    return NULL;
}

static void *child_thread(void *arg)
{
    uint64_t seed = (uint64_t)(uintptr_t)arg;
    tcell_t *l;
    TLIST_BUILD(l, 1000, seed);
    GC_gcollect();
    tlist_verify(l, 1000, seed, "thread created in the child");
    return (void *)1;
}

/* Runs in the child; returns the exit status. */
static int child_main(tcell_t *parent_list, int round)
{
    tlist_verify(parent_list, PARENT_LEN, 7, "child: list built before fork");
    tcell_t *mine;
    TLIST_BUILD(mine, 3000, 1000 + (uint64_t)round);
    unsigned long gc0 = (unsigned long)GC_get_gc_no();
    GC_gcollect();
    TCHECK((unsigned long)GC_get_gc_no() > gc0, "child: GC_gcollect did not collect");
    /* Enough garbage for implicit collections. */
    unsigned long gc1 = (unsigned long)GC_get_gc_no();
    for (int i = 0; i < 200 && (unsigned long)GC_get_gc_no() < gc1 + 3; i++) TCHURN(10000, sizeof(tcell_t));
    TCHECK((unsigned long)GC_get_gc_no() >= gc1 + 3,
           "child: allocation did not trigger collections (%lu)", (unsigned long)GC_get_gc_no() - gc1);
    pthread_t t;
    int r = pthread_create(&t, NULL, child_thread, (void *)(uintptr_t)(77 + round));
    TCHECK(r == 0, "child: pthread_create: %d", r);
    void *ret;
    TCHECK(pthread_join(t, &ret) == 0 && ret == (void *)1, "child: thread failed");
    GC_gcollect();
    TFILL(20000, sizeof(tcell_t));
    tlist_verify(mine, 3000, 1000 + (uint64_t)round, "child: list built in the child");
    tlist_verify(parent_list, PARENT_LEN, 7, "child: list built before fork, at the end");
    return 0;
}

int main(int argc, char **argv)
{
    bool manual = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "set-handle-fork") == 0) GC_set_handle_fork(1);
        else if (strncmp(argv[i], "handle-fork=", 12) == 0) GC_set_handle_fork(atoi(argv[i] + 12));
        else if (strcmp(argv[i], "manual") == 0) manual = true;
        else tfail("unknown argument %s", argv[i]);
    }
    GC_INIT();
    t_watchdog(150);
    tcell_t *parent_list;
    TLIST_BUILD(parent_list, PARENT_LEN, 7);

    pthread_t th[N_ALLOCATORS];
    for (int i = 0; i < N_ALLOCATORS; i++)
        TCHECK(pthread_create(&th[i], NULL, allocator, (void *)(intptr_t)i) == 0, "pthread_create");

    for (int round = 0; round < N_FORKS; round++) {
        /* Let every allocating thread make progress, so the fork lands in
           the middle of their allocations. */
        long before[N_ALLOCATORS];
        for (int i = 0; i < N_ALLOCATORS; i++) before[i] = atomic_load(&g_progress[i]);
        for (int i = 0; i < N_ALLOCATORS; i++)
            while (atomic_load(&g_progress[i]) < before[i] + 3) sched_yield();
        t_stage = "forking";
        fflush(stdout);
        if (manual) GC_atfork_prepare();
        pid_t pid = fork();
        TCHECK(pid >= 0, "fork: %s", strerror(errno));
        if (pid == 0) {
            if (manual) GC_atfork_child();
            alarm(60);   /* a hung child fails the test through the parent */
            _exit(child_main(parent_list, round));
        }
        if (manual) GC_atfork_parent();
        t_stage = "waiting for the child";
        int status;
        while (waitpid(pid, &status, 0) < 0) TCHECK(errno == EINTR, "waitpid: %s", strerror(errno));
        if (WIFSIGNALED(status))
            tfail("round %d: child killed by signal %d%s", round, WTERMSIG(status),
                  WTERMSIG(status) == SIGALRM ? " (it hung)" : "");
        TCHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "round %d: child exited with status %d",
               round, WEXITSTATUS(status));
        t_stage = "parent after fork";
        GC_gcollect();
        tlist_verify(parent_list, PARENT_LEN, 7, "parent after fork");
    }
    atomic_store(&g_stop, 1);
    for (int i = 0; i < N_ALLOCATORS; i++) TCHECK(pthread_join(th[i], NULL) == 0, "pthread_join");
    GC_gcollect();
    tlist_verify(parent_list, PARENT_LEN, 7, "parent at the end");
    printf("fork: %d children collected and exited cleanly\n", N_FORKS);
    return 0;
}
