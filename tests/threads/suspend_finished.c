/* suspend_finished.c: GC_suspend_thread on a thread that has exited but is
 * not yet joined (javaxfc.h, bdwgc 8.2 semantics). bdwgc keeps the record
 * of such a thread, started by GC_pthread_create, until GC_pthread_join or
 * GC_pthread_detach: suspending it marks it suspended
 * (GC_is_thread_suspended says 1), resuming clears that, and after the
 * join (or detach) the thread is unknown (0). Meanwhile collections must
 * neither wait for it (it cannot answer a signal) nor scan its stack:
 * objects it held only on its stack become garbage when it exits (checked
 * through disappearing links, hidden pointers in static memory). */
#define _GNU_SOURCE
#include <gc.h>
#include <gc/javaxfc.h>

#include <pthread.h>
#include <stdatomic.h>

#include "tcommon.h"

#define N_HELD 1000

static pthread_key_t g_exit_key;
static atomic_int g_exited;                 /* threads past their exit cleanup */
static GC_hidden_pointer g_links[N_HELD];   /* cleared when the objects die */

/* A key destructor runs after the thread's cleanup handlers, so after it
   has left the collector's registry. */
static void note_exit(void *unused)
{
    (void)unused;
    atomic_fetch_add(&g_exited, 1);
}

/* Holds N_HELD objects only on its own stack, collects, and exits. */
static void *short_lived(void *arg)
{
    (void)arg;
    pthread_setspecific(g_exit_key, (void *)1);
    void *volatile held[N_HELD];
    for (int i = 0; i < N_HELD; i++) {
        held[i] = GC_MALLOC(64);
        TCHECK(held[i] != NULL, "GC_MALLOC");
        g_links[i] = GC_HIDE_POINTER(held[i]);
        /* A link left from the first thread (its object kept by a stray
           word) is a duplicate. */
        int r = GC_general_register_disappearing_link((void **)&g_links[i], held[i]);
        TCHECK(r == GC_SUCCESS || r == GC_DUPLICATE, "GC_general_register_disappearing_link: %d", r);
    }
    GC_gcollect();
    for (int i = 0; i < N_HELD; i++) TCHECK(g_links[i] != 0, "object %d lost while its thread runs", i);
    return (void *)1;
}

static pthread_t start_and_wait_exit(void)
{
    int before = atomic_load(&g_exited);
    pthread_t t;
    TCHECK(pthread_create(&t, NULL, short_lived, NULL) == 0, "pthread_create");
    while (atomic_load(&g_exited) == before) sched_yield();
    return t;
}

static void collect_and_churn(void)
{
    for (int i = 0; i < 3; i++) {
        GC_gcollect();
        TCHURN(10000, sizeof(tcell_t));
    }
}

static int links_left(void)
{
    int n = 0;
    for (int i = 0; i < N_HELD; i++) n += g_links[i] != 0;
    return n;
}

int main(void)
{
    GC_INIT();
    t_watchdog(200);
    TCHECK(pthread_key_create(&g_exit_key, note_exit) == 0, "pthread_key_create");

    /* Joined: the record lasts until the join. */
    t_stage = "a joinable thread's exit";
    pthread_t t = start_and_wait_exit();
    GC_SUSPEND_THREAD_ID id = (GC_SUSPEND_THREAD_ID)t;
    TCHECK(!GC_is_thread_suspended(id), "an exited thread reads suspended before any suspension");
    t_stage = "suspending an exited thread";
    GC_suspend_thread(id);
    TCHECK(GC_is_thread_suspended(id), "an exited, unjoined thread does not read suspended after GC_suspend_thread");
    GC_suspend_thread(id);
    t_stage = "collecting with an exited, suspended thread";
    collect_and_churn();
    int left = links_left();
    TCHECK(left < N_HELD / 10, "%d of %d objects held only on an exited thread's stack survived", left, N_HELD);
    TCHECK(GC_is_thread_suspended(id), "the suspension of an exited thread was lost in a collection");
    t_stage = "resuming an exited thread";
    GC_resume_thread(id);
    TCHECK(!GC_is_thread_suspended(id), "an exited thread still reads suspended after GC_resume_thread");
    GC_suspend_thread(id);
    TCHECK(GC_is_thread_suspended(id), "an exited thread does not read suspended after a second suspension");
    collect_and_churn();
    t_stage = "joining a suspended, exited thread";
    void *ret;
    TCHECK(pthread_join(t, &ret) == 0 && ret == (void *)1, "pthread_join");
    TCHECK(!GC_is_thread_suspended(id), "a joined thread is still known (reads suspended)");
    collect_and_churn();

    /* Detached after its exit: the record goes with the detach. */
    t_stage = "a thread detached after its exit";
    t = start_and_wait_exit();
    id = (GC_SUSPEND_THREAD_ID)t;
    GC_suspend_thread(id);
    TCHECK(GC_is_thread_suspended(id), "an exited, unjoined thread does not read suspended (second thread)");
    TCHECK(pthread_detach(t) == 0, "pthread_detach");
    TCHECK(!GC_is_thread_suspended(id), "a detached, exited thread is still known (reads suspended)");
    collect_and_churn();

    printf("suspend_finished: exited threads suspended, resumed, joined and detached\n");
    return 0;
}
