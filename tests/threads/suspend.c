/* suspend.c: explicit thread suspension (javaxfc.h: GC_suspend_thread,
 * GC_resume_thread, GC_is_thread_suspended), bdwgc 8.2 semantics:
 * - a suspended thread makes no progress until resumed, and its stack is
 *   still scanned: a list held only there survives collections run while it
 *   is suspended;
 * - there is no count: one GC_resume_thread undoes two GC_suspend_thread;
 * - a thread suspended while in GC_do_blocking keeps running its blocking
 *   function and stops when it leaves it;
 * - a thread may suspend itself and be resumed by another;
 * - unregistered threads are ignored (GC_is_thread_suspended returns 0);
 * - a thread that suspends itself, or leaves a blocking section while
 *   suspended, just as a collection stops the world is neither lost nor
 *   waited for: many rounds of each race with collections in a loop.
 * Progress is observed through counters, never through elapsed time: a
 * suspended worker's counter must not move while the main thread collects
 * and churns. */
#define _GNU_SOURCE
#include <gc.h>
#include <gc/javaxfc.h>

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <string.h>

#include "tcommon.h"

#define LEN 3000

static atomic_long g_progress;
static atomic_int g_stop;
static sem_t g_started;

/* Keeps a list only on its own stack and verifies it on every round. */
static void *worker(void *arg)
{
    uint64_t seed = (uint64_t)(intptr_t)arg;
    tcell_t *l;
    TLIST_BUILD(l, LEN, seed);
    sem_post(&g_started);
    while (!atomic_load(&g_stop)) {
        tlist_verify(l, LEN, seed, "worker's stack-held list");
        TCHURN(50, 32);
        atomic_fetch_add(&g_progress, 1);
    }
    tlist_verify(l, LEN, seed, "worker's stack-held list at the end");
    return NULL;
}

static void wait_progress(long beyond)
{
    while (atomic_load(&g_progress) <= beyond) sched_yield();
}

/* The main thread's work while the worker is suspended. */
static void collect_and_churn(void)
{
    for (int i = 0; i < 10; i++) {
        TCHURN(5000, sizeof(tcell_t));
        GC_gcollect();
    }
}

static void test_suspend_resume(void)
{
    atomic_store(&g_stop, 0);
    pthread_t t;
    TCHECK(pthread_create(&t, NULL, worker, (void *)(intptr_t)11) == 0, "pthread_create");
    sem_wait(&g_started);
    wait_progress(atomic_load(&g_progress) + 3);

    t_stage = "suspended worker";
    TCHECK(!GC_is_thread_suspended((GC_SUSPEND_THREAD_ID)t), "reported suspended before suspension");
    GC_suspend_thread((GC_SUSPEND_THREAD_ID)t);
    GC_suspend_thread((GC_SUSPEND_THREAD_ID)t);   /* twice: still one resume */
    TCHECK(GC_is_thread_suspended((GC_SUSPEND_THREAD_ID)t), "not reported suspended");
    long frozen = atomic_load(&g_progress);
    collect_and_churn();
    TCHECK(atomic_load(&g_progress) == frozen, "suspended worker made progress: %ld -> %ld", frozen,
           atomic_load(&g_progress));

    t_stage = "resumed worker";
    GC_resume_thread((GC_SUSPEND_THREAD_ID)t);
    TCHECK(!GC_is_thread_suspended((GC_SUSPEND_THREAD_ID)t), "still reported suspended after resume");
    wait_progress(frozen + 5);
    atomic_store(&g_stop, 1);
    TCHECK(pthread_join(t, NULL) == 0, "pthread_join");
}

/* ---- suspended while blocking ---- */

static sem_t g_blocked, g_unblock;
static atomic_int g_after_blocking;

static void *blocking_fn(void *unused)
{
    (void)unused;
    sem_post(&g_blocked);
    while (sem_wait(&g_unblock) != 0) {}
    return NULL;
}

static void *blocking_worker(void *unused)
{
    (void)unused;
    tcell_t *l;
    TLIST_BUILD(l, LEN, 12);
    GC_do_blocking(blocking_fn, NULL);
    atomic_store(&g_after_blocking, 1);   /* only once resumed */
    tlist_verify(l, LEN, 12, "list held across a suspended blocking section");
    return NULL;
}

/* Enter a stage whose worker blocks on g_blocked / g_unblock. */
static pthread_t start_blocking_stage(const char *stage, void *(*worker_fn)(void *))
{
    t_stage = stage;
    sem_init(&g_blocked, 0, 0);
    sem_init(&g_unblock, 0, 0);
    pthread_t t;
    TCHECK(pthread_create(&t, NULL, worker_fn, NULL) == 0, "pthread_create");
    return t;
}

static void test_suspend_blocking(void)
{
    pthread_t t = start_blocking_stage("suspend while blocking", blocking_worker);
    sem_wait(&g_blocked);
    GC_suspend_thread((GC_SUSPEND_THREAD_ID)t);
    TCHECK(GC_is_thread_suspended((GC_SUSPEND_THREAD_ID)t), "blocking thread not reported suspended");
    sem_post(&g_unblock);             /* the blocking function returns ... */
    collect_and_churn();              /* ... and the thread stops on its way out */
    TCHECK(atomic_load(&g_after_blocking) == 0, "thread ran past its blocking section while suspended");
    GC_resume_thread((GC_SUSPEND_THREAD_ID)t);
    TCHECK(pthread_join(t, NULL) == 0, "pthread_join");
    TCHECK(atomic_load(&g_after_blocking) == 1, "blocking worker did not finish");
}

/* ---- self-suspension ---- */

static atomic_int g_self_resumed;

static void *self_suspender(void *unused)
{
    (void)unused;
    tcell_t *l;
    TLIST_BUILD(l, LEN, 13);
    GC_suspend_thread((GC_SUSPEND_THREAD_ID)pthread_self());
    atomic_store(&g_self_resumed, 1);
    tlist_verify(l, LEN, 13, "list held by a self-suspended thread");
    return NULL;
}

static void test_self_suspend(void)
{
    t_stage = "self-suspension";
    pthread_t t;
    TCHECK(pthread_create(&t, NULL, self_suspender, NULL) == 0, "pthread_create");
    while (!GC_is_thread_suspended((GC_SUSPEND_THREAD_ID)t)) sched_yield();
    collect_and_churn();
    TCHECK(atomic_load(&g_self_resumed) == 0, "self-suspended thread ran on");
    GC_resume_thread((GC_SUSPEND_THREAD_ID)t);
    TCHECK(pthread_join(t, NULL) == 0, "pthread_join");
    TCHECK(atomic_load(&g_self_resumed) == 1, "self-suspended thread did not finish");
}

/* ---- suspension racing with collections ---- */

#define RACE_ROUNDS 300

static atomic_int g_race_round;

/* Each round: suspend itself (odd rounds) or leave a blocking section it
   was suspended in (even rounds: the main thread suspends it inside). */
static void *race_worker(void *unused)
{
    (void)unused;
    tcell_t *l;
    TLIST_BUILD(l, 200, 14);
    for (int round = 1; round <= RACE_ROUNDS; round++) {
        TCHURN(20, 32);
        if (round % 2) {
            GC_suspend_thread((GC_SUSPEND_THREAD_ID)pthread_self());
        } else {
            sem_post(&g_blocked);
            GC_do_blocking(blocking_fn, NULL);
        }
        atomic_store(&g_race_round, round);
        tlist_verify(l, 200, 14, "list held by a thread suspended during collections");
    }
    return NULL;
}

/* Collections in a loop would starve the worker (each one stops it); a
   short sleep after each lets it reach its next suspension. */
static void collect_then_yield(void)
{
    GC_gcollect();
    struct timespec pause = {0, 50 * 1000};
    nanosleep(&pause, NULL);
}

static void test_suspend_races(void)
{
    pthread_t t = start_blocking_stage("suspension racing with collections", race_worker);
    for (int round = 1; round <= RACE_ROUNDS; round++) {
        if (round % 2 == 0) {
            sem_wait(&g_blocked);
            while (!GC_is_thread_suspended((GC_SUSPEND_THREAD_ID)t))
                GC_suspend_thread((GC_SUSPEND_THREAD_ID)t);
            sem_post(&g_unblock);   /* it leaves the blocking section and stops */
        }
        while (!GC_is_thread_suspended((GC_SUSPEND_THREAD_ID)t)) collect_then_yield();
        for (int i = 0; i < 3; i++) GC_gcollect();
        TCHECK(atomic_load(&g_race_round) == round - 1, "round %d: the suspended thread ran on", round);
        GC_resume_thread((GC_SUSPEND_THREAD_ID)t);
        while (atomic_load(&g_race_round) < round) collect_then_yield();
    }
    TCHECK(pthread_join(t, NULL) == 0, "pthread_join");
}

/* ---- unregistered thread ---- */

static sem_t g_raw_ready, g_raw_done;

static void *raw_thread(void *unused)
{
    (void)unused;
    sem_post(&g_raw_ready);
    while (sem_wait(&g_raw_done) != 0) {}
    return NULL;
}

static void test_unregistered(void)
{
    t_stage = "unregistered thread";
    sem_init(&g_raw_ready, 0, 0);
    sem_init(&g_raw_done, 0, 0);
    pthread_t t;
#undef pthread_create
#undef pthread_join
    TCHECK(pthread_create(&t, NULL, raw_thread, NULL) == 0, "raw pthread_create");
    sem_wait(&g_raw_ready);
    GC_suspend_thread((GC_SUSPEND_THREAD_ID)t);       /* a no-op */
    TCHECK(!GC_is_thread_suspended((GC_SUSPEND_THREAD_ID)t), "unregistered thread reported suspended");
    sem_post(&g_raw_done);
    TCHECK(pthread_join(t, NULL) == 0, "raw pthread_join");
}

int main(void)
{
    GC_INIT();
    t_watchdog(100);
    sem_init(&g_started, 0, 0);
    test_suspend_resume();
    test_suspend_blocking();
    test_self_suspend();
    test_suspend_races();
    test_unregistered();
    printf("suspend: suspension, blocking, self-suspension, races with collections and unregistered threads behave\n");
    return 0;
}
