/* coroutine_stacks.c: a coroutine runtime's stack switching (issue #15).
 * A thread runs fibers, one after the other, on stacks of their own
 * (makecontext/swapcontext), each between PROT_NONE guard pages, and
 * before each switch publishes the new stack's bottom as bdwgc allows:
 *   variable     the main thread writes GC_stackbottom (single-threaded
 *                program style);
 *   main-null    the main thread calls GC_set_stackbottom(NULL, ...),
 *   main-handle  or GC_set_stackbottom(handle from GC_get_my_stackbottom, ...),
 *   thread-null, thread-handle  the same on a registered non-main thread;
 * GC_set_stackbottom is called with the allocation lock held, as gc.h says
 * (from GC_call_with_alloc_lock). On each fiber, lists referenced only from
 * the fiber's locals must survive collections run on the fiber, and (except
 * in "variable" mode, which has no second thread) collections run by
 * another thread while the fiber's thread waits on the fiber. A collector
 * that scans from the fiber's stack pointer to the thread's original stack
 * bottom runs into a guard page (SIGSEGV); one that does not scan the fiber
 * loses the lists (checksums fail). */
#define _GNU_SOURCE
#include <gc.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "tcommon.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* GC_stackbottom, as clients use it */

#define N_FIBERS 4
#define FIBER_STACK_BYTES ((size_t)256 << 10)
#define LEN 2000
#define ROUNDS 3

enum how { BY_VARIABLE, BY_SET_NULL, BY_SET_HANDLE };

static enum how g_how;
static bool g_on_thread;     /* fibers run on a registered non-main thread */
static bool g_helper;        /* a second thread collects while a fiber waits */

static ucontext_t g_home, g_fiber[N_FIBERS];
static char *g_stack_lo[N_FIBERS];
static void *g_handle;                 /* from GC_get_my_stackbottom, on the fibers' thread */
static struct GC_stack_base g_home_bottom;

static sem_t g_request;
static atomic_int g_served, g_stop;

static char *fiber_top(int i) { return g_stack_lo[i] + FIBER_STACK_BYTES; }

/* ---- moving the stack bottom, as a runtime does before each switch ------- */

struct bottom_move {
    void *handle;
    struct GC_stack_base sb;
};

static void *set_bottom_locked(void *arg)
{
    struct bottom_move *m = arg;
    GC_set_stackbottom(m->handle, &m->sb);
    return NULL;
}

static void move_bottom(void *base)
{
    if (g_how == BY_VARIABLE) {
        GC_stackbottom = base;
        return;
    }
    struct bottom_move m = { g_how == BY_SET_HANDLE ? g_handle : NULL, { base } };
    t_stage = "GC_set_stackbottom in GC_call_with_alloc_lock";
    GC_call_with_alloc_lock(set_bottom_locked, &m);
}

static void *current_bottom(void)
{
    if (g_how == BY_VARIABLE) return GC_stackbottom;
    struct GC_stack_base sb;
    void *handle = GC_get_my_stackbottom(&sb);
    TCHECK(handle != NULL, "GC_get_my_stackbottom: no handle for a registered thread");
    if (g_how == BY_SET_HANDLE) TCHECK(handle == g_handle, "GC_get_my_stackbottom: the handle changed");
    return sb.mem_base;
}

/* ---- the other thread's collections -------------------------------------- */

static void *collector(void *arg)
{
    (void)arg;
    for (;;) {
        while (sem_wait(&g_request) != 0) TCHECK(errno == EINTR, "sem_wait: %s", strerror(errno));
        if (atomic_load(&g_stop)) return NULL;
        for (int r = 0; r < ROUNDS; r++) {
            GC_gcollect();
            TCHURN(20000, sizeof(tcell_t));
        }
        atomic_fetch_add(&g_served, 1);
    }
}

/* Waits, on the fiber, touching nothing of the collector's, while the
   other thread collects (and stops this one, on the fiber's stack). */
static void collect_elsewhere(void)
{
    int target = atomic_load(&g_served) + 1;
    sem_post(&g_request);
    while (atomic_load(&g_served) < target) sched_yield();
}

/* ---- the fibers ------------------------------------------------------------ */

static void fiber_main(int i)
{
    TCHECK(current_bottom() == fiber_top(i), "fiber %d: the stack bottom is not the fiber's", i);
    uint64_t seed = 500 + (uint64_t)i;
    tcell_t *mine;        /* referenced only from this fiber's stack */
    TLIST_BUILD(mine, LEN, seed);
    for (int r = 0; r < ROUNDS; r++) {
        t_stage = "collecting on a fiber";
        GC_gcollect();
        TCHURN(20000, sizeof(tcell_t));
        tlist_verify(mine, LEN, seed, "list on a fiber's stack, after collections on the fiber");
        if (g_helper) {
            t_stage = "another thread collecting while a fiber waits";
            collect_elsewhere();
            tlist_verify(mine, LEN, seed, "list on a fiber's stack, after another thread's collections");
        }
    }
    move_bottom(g_home_bottom.mem_base);
    swapcontext(&g_fiber[i], &g_home);
    tfail("fiber %d resumed after it finished", i);
}

static void run_fibers(void)
{
    if (g_how == BY_VARIABLE) {
        g_home_bottom.mem_base = GC_stackbottom;
        TCHECK(g_home_bottom.mem_base != NULL, "GC_stackbottom is not set after GC_INIT");
    } else {
        g_handle = GC_get_my_stackbottom(&g_home_bottom);
        TCHECK(g_handle != NULL && g_home_bottom.mem_base != NULL, "GC_get_my_stackbottom failed");
    }
    for (int i = 0; i < N_FIBERS; i++) {
        TCHECK(getcontext(&g_fiber[i]) == 0, "getcontext");
        g_fiber[i].uc_stack.ss_sp = g_stack_lo[i];
        g_fiber[i].uc_stack.ss_size = FIBER_STACK_BYTES;
        g_fiber[i].uc_link = NULL;
        makecontext(&g_fiber[i], (void (*)(void))fiber_main, 1, i);
        move_bottom(fiber_top(i));
        TCHECK(swapcontext(&g_home, &g_fiber[i]) == 0, "swapcontext");
        TCHECK(current_bottom() == g_home_bottom.mem_base, "the stack bottom was not restored");
        /* Back home: the original stack is scanned again. */
        tcell_t *home;
        TLIST_BUILD(home, LEN, 900 + (uint64_t)i);
        t_stage = "collecting at home between fibers";
        GC_gcollect();
        TCHURN(20000, sizeof(tcell_t));
        tlist_verify(home, LEN, 900 + (uint64_t)i, "list on the original stack between fibers");
    }
}

static void *fiber_thread(void *arg)
{
    (void)arg;
    run_fibers();
    return (void *)1;
}

/* N_FIBERS stacks, each between guard pages: a scan that leaves a fiber's
   stack faults. */
static void map_fiber_stacks(void)
{
    size_t guard = (size_t)sysconf(_SC_PAGESIZE);
    size_t total = N_FIBERS * (FIBER_STACK_BYTES + guard) + guard;
    char *base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    TCHECK(base != MAP_FAILED, "mmap: %s", strerror(errno));
    for (int i = 0; i < N_FIBERS; i++) {
        g_stack_lo[i] = base + guard + (size_t)i * (FIBER_STACK_BYTES + guard);
        TCHECK(mprotect(g_stack_lo[i], FIBER_STACK_BYTES, PROT_READ | PROT_WRITE) == 0, "mprotect: %s",
               strerror(errno));
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "variable") == 0) g_how = BY_VARIABLE;
    else if (strcmp(mode, "main-null") == 0) g_how = BY_SET_NULL;
    else if (strcmp(mode, "main-handle") == 0) g_how = BY_SET_HANDLE;
    else if (strcmp(mode, "thread-null") == 0) g_how = BY_SET_NULL, g_on_thread = true;
    else if (strcmp(mode, "thread-handle") == 0) g_how = BY_SET_HANDLE, g_on_thread = true;
    else tfail("usage: %s variable|main-null|main-handle|thread-null|thread-handle", argv[0]);
    g_helper = g_how != BY_VARIABLE;

    GC_INIT();
    t_watchdog(240);
    map_fiber_stacks();
    TCHECK(sem_init(&g_request, 0, 0) == 0, "sem_init");
    pthread_t helper;
    if (g_helper) TCHECK(pthread_create(&helper, NULL, collector, NULL) == 0, "pthread_create");

    if (g_on_thread) {
        pthread_t t;
        void *ret;
        TCHECK(pthread_create(&t, NULL, fiber_thread, NULL) == 0, "pthread_create");
        TCHECK(pthread_join(t, &ret) == 0 && ret == (void *)1, "the fibers' thread failed");
    } else {
        run_fibers();
    }

    if (g_helper) {
        atomic_store(&g_stop, 1);
        sem_post(&g_request);
        TCHECK(pthread_join(helper, NULL) == 0, "pthread_join");
    }
    GC_gcollect();
    printf("coroutine_stacks %s: %d fibers, lists on their stacks intact\n", mode, N_FIBERS);
    return 0;
}
