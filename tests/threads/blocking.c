/* blocking.c: threads that block do not break, and are not broken by,
 * collections.
 * - A registered thread blocked in read() on a pipe is stopped and
 *   restarted by every collection; the suspend/restart handshake must not
 *   break its system call: read() returns the data written later (not
 *   EINTR), and the list it holds on its stack survives.
 * - A thread inside GC_do_blocking waits on a condition variable, another
 *   sleeps in nanosleep loops: objects referenced only from their stack
 *   frames *above* the GC_do_blocking call survive with intact contents
 *   while the main thread runs 300 collections and reuses freed memory.
 * - GC_call_with_gc_active inside GC_do_blocking allocates, collects and
 *   keeps its data across collections run by itself and by the main thread.
 * The main thread checks that the blocked threads really are blocked (the
 * pipe reader in read, the others inside their blocking section) before
 * collecting. */
#define _GNU_SOURCE
#include <gc.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "tcommon.h"

#define N_COLLECTIONS 300
#define LIST_LEN 3000

static int g_pipe[2];
static atomic_int g_reader_in_read;
static atomic_int g_cond_waiting, g_sleeping, g_active_phase;
static atomic_int g_stop_sleeping;
static atomic_long g_active_rounds;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_signalled;

static const char g_message[] = "data written after many collections";

/* ---- the pipe reader (a registered thread, not in a blocking section) ---- */

static pid_t g_reader_tid;

static void *reader(void *unused)
{
    (void)unused;
    tcell_t *held;
    TLIST_BUILD(held, LIST_LEN, 11);
    g_reader_tid = gettid();
    char buf[sizeof g_message];
    size_t got = 0;
    atomic_store(&g_reader_in_read, 1);
    while (got < sizeof g_message) {
        ssize_t n = read(g_pipe[0], buf + got, sizeof g_message - got);
        if (n < 0) tfail("read() on the pipe failed: %s (the stop-the-world signals must not "
                         "interrupt it)", strerror(errno));
        if (n == 0) tfail("read() on the pipe: unexpected end of file");
        got += (size_t)n;
    }
    if (memcmp(buf, g_message, sizeof g_message) != 0) tfail("read() returned the wrong data");
    tlist_verify(held, LIST_LEN, 11, "pipe reader (blocked in read during collections)");
    return NULL;
}

/* ---- GC_do_blocking: condition wait --------------------------------------- */

static void *wait_on_condition(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&g_mu);
    atomic_store(&g_cond_waiting, 1);
    while (!g_signalled) pthread_cond_wait(&g_cv, &g_mu);
    pthread_mutex_unlock(&g_mu);
    return (void *)1;
}

/* The list is referenced only from this frame, above GC_do_blocking. */
static __attribute__((noinline)) void hold_and_wait(void)
{
    tcell_t *volatile held;
    tcell_t *l;
    TLIST_BUILD(l, LIST_LEN, 22);
    held = l;
    l = NULL;
    void *r = GC_do_blocking(wait_on_condition, NULL);
    TCHECK(r == (void *)1, "GC_do_blocking did not return fn's result");
    tlist_verify(held, LIST_LEN, 22, "thread that waited on a condition inside GC_do_blocking");
}

static void *cond_thread(void *unused)
{
    (void)unused;
    hold_and_wait();
    return NULL;
}

/* ---- GC_do_blocking: sleeping, then GC_call_with_gc_active --------------- */

struct active_arg {
    uint64_t seed;
};

/* Allocates a list, collects, verifies, while the main thread collects too. */
static void *active_fn(void *p)
{
    struct active_arg *a = p;
    TCHECK(GC_thread_is_registered(), "GC_call_with_gc_active: thread not registered");
    tcell_t *l;
    TLIST_BUILD(l, LIST_LEN, a->seed);
    atomic_store(&g_active_phase, 1);
    for (int round = 0; round < 40; round++) {
        tcell_t *junk;
        TLIST_BUILD(junk, 500, (uint64_t)round);
        (void)junk;
        if (round % 8 == 0) GC_gcollect();
        tlist_verify(l, LIST_LEN, a->seed, "GC_call_with_gc_active");
        atomic_fetch_add(&g_active_rounds, 1);
    }
    return l;   /* handed back to the blocking section, which must not touch it */
}

static void *sleep_then_activate(void *p)
{
    struct active_arg *a = p;
    atomic_store(&g_sleeping, 1);
    while (!atomic_load(&g_stop_sleeping)) {
        struct timespec ts = { 0, 2 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    /* Back to the collector's world for a while, from inside the section. */
    void *l = GC_call_with_gc_active(active_fn, a);
    return l ? (void *)1 : NULL;
}

static __attribute__((noinline)) void hold_and_sleep(void)
{
    tcell_t *volatile held;
    tcell_t *l;
    TLIST_BUILD(l, LIST_LEN, 33);
    held = l;
    l = NULL;
    struct active_arg a = { 44 };
    void *r = GC_do_blocking(sleep_then_activate, &a);
    TCHECK(r == (void *)1, "GC_call_with_gc_active inside GC_do_blocking failed");
    tlist_verify(held, LIST_LEN, 33, "thread that slept inside GC_do_blocking");
}

static void *sleep_thread(void *unused)
{
    (void)unused;
    hold_and_sleep();
    return NULL;
}

/* ---- main -------------------------------------------------------------------- */

/* True when thread tid is blocked in system call nr, as far as /proc tells
   (-1: cannot tell). */
static int in_syscall(pid_t tid, long nr)
{
    char path[64], buf[128];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    if (n == 0) return -1;
    buf[n] = 0;
    return strtol(buf, NULL, 10) == nr;
}

static void collect_with_churn(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        TCHURN(400, sizeof(tcell_t));   /* same size class as the held lists */
        GC_gcollect();
        if (i % 50 == 49) TFILL(20000, sizeof(tcell_t));
    }
}

int main(void)
{
    GC_INIT();
    t_watchdog(120);
    TCHECK(pipe(g_pipe) == 0, "pipe: %s", strerror(errno));

    pthread_t rd, cv, sl;
    TCHECK(pthread_create(&rd, NULL, reader, NULL) == 0, "pthread_create");
    TCHECK(pthread_create(&cv, NULL, cond_thread, NULL) == 0, "pthread_create");
    TCHECK(pthread_create(&sl, NULL, sleep_thread, NULL) == 0, "pthread_create");

    t_stage = "waiting for the threads to block";
    while (!atomic_load(&g_reader_in_read) || !atomic_load(&g_cond_waiting) || !atomic_load(&g_sleeping))
        sched_yield();
    /* The reader must be inside read(2) (syscall 0 on x86-64) when we start. */
    int checked = -1;
    for (int tries = 0; tries < 100000; tries++) {
        checked = in_syscall(g_reader_tid, 0);
        if (checked != 0) break;
        sched_yield();
    }
    if (checked < 0) printf("blocking: /proc/self/task/*/syscall unreadable; not checking that read() is in progress\n");

    t_stage = "collecting while threads block";
    unsigned long gc0 = (unsigned long)GC_get_gc_no();
    collect_with_churn(N_COLLECTIONS);
    if (checked > 0) TCHECK(in_syscall(g_reader_tid, 0) == 1, "the pipe reader left read() during the collections");

    t_stage = "GC_call_with_gc_active";
    atomic_store(&g_stop_sleeping, 1);
    while (atomic_load(&g_active_rounds) < 40) {
        collect_with_churn(1);
    }

    t_stage = "releasing the blocked threads";
    TCHECK(write(g_pipe[1], g_message, sizeof g_message) == (ssize_t)sizeof g_message, "write");
    pthread_mutex_lock(&g_mu);
    g_signalled = 1;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
    TCHECK(pthread_join(rd, NULL) == 0, "pthread_join");
    TCHECK(pthread_join(cv, NULL) == 0, "pthread_join");
    TCHECK(pthread_join(sl, NULL) == 0, "pthread_join");
    printf("blocking: %lu collections while threads were blocked\n",
           (unsigned long)GC_get_gc_no() - gc0);
    return 0;
}
