/* registration.c: explicit thread registration and the thread API around it.
 * - Defaults: GC_get_suspend_signal() == SIGPWR, GC_get_thr_restart_signal()
 *   == SIGXCPU; the main thread is registered by GC_INIT and registering it
 *   again answers GC_DUPLICATE.
 * - A thread created with the real pthread_create (not redirected to
 *   GC_pthread_create): GC_thread_is_registered() is 0; GC_get_stack_base
 *   gives its stack's top; GC_register_my_thread succeeds, then answers
 *   GC_DUPLICATE; a list referenced only from its stack survives 100
 *   collections (with memory reuse) while it spins in a loop; it
 *   unregisters; then GC_call_with_stack_base gives a base above the
 *   callback's frame, with which it registers again, allocates, collects and
 *   unregisters.
 * - Threads creating threads creating threads (a tree of depth 4 below a
 *   root thread, fan-out 3: 121 threads), all allocating, some collecting;
 *   every thread's data is verified after its children finished.
 * - pthread key destructors that allocate after the thread's last regular
 *   allocation (one key made before GC_INIT, one after; each destructor
 *   registers the thread as gc.h requires of cleanup code, one with
 *   GC_get_stack_base, one inside GC_call_with_stack_base): they must not
 *   crash, and all run.
 * - GC_pthread_sigmask(SIG_BLOCK, all signals) leaves the suspend signal
 *   unblocked (other signals are blocked): collections still complete, and
 *   the thread's data survives, while that thread spins in a loop. */
#define _GNU_SOURCE
#include <pthread.h>

/* The real thread functions, taken before gc.h redirects the names. */
static int (*const raw_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                       void *) = pthread_create;
static int (*const raw_pthread_join)(pthread_t, void **) = pthread_join;

#include <gc.h>

#include <signal.h>
#include <stdatomic.h>

#include "tcommon.h"

#define STACK_LIST_LEN 3000

/* Collections with memory reuse: garbage of the lists' size class between
   them, then every free slot and block of that class filled. */
static void collect_with_churn(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        TCHURN(300, sizeof(tcell_t));
        GC_gcollect();
    }
    TFILL(20000, sizeof(tcell_t));
}

/* ---- a thread the collector did not create ------------------------------- */

static atomic_int g_raw_ready, g_raw_release;
static atomic_long g_raw_spins;

struct stack_base_check {
    char *frame;
    int registered;
};

static void *with_stack_base(struct GC_stack_base *sb, void *arg)
{
    struct stack_base_check *c = arg;
    char here;
    c->frame = &here;
    TCHECK(sb && sb->mem_base, "GC_call_with_stack_base: no stack base");
    TCHECK((char *)sb->mem_base > &here, "GC_call_with_stack_base: base %p not above the callback's "
           "frame %p", sb->mem_base, (void *)&here);
    TCHECK((char *)sb->mem_base - &here < 1 << 20, "GC_call_with_stack_base: base %p far above %p",
           sb->mem_base, (void *)&here);
    int r = GC_register_my_thread(sb);
    TCHECK(r == GC_SUCCESS, "GC_register_my_thread(from GC_call_with_stack_base) = %d", r);
    c->registered = 1;
    tcell_t *l;
    TLIST_BUILD(l, STACK_LIST_LEN, 55);
    for (int i = 0; i < 5; i++) {
        collect_with_churn(1);
        tlist_verify(l, STACK_LIST_LEN, 55, "registered with GC_call_with_stack_base");
    }
    TCHECK(GC_unregister_my_thread() == GC_SUCCESS, "GC_unregister_my_thread");
    return (void *)2;
}

static void *raw_thread(void *unused)
{
    (void)unused;
    TCHECK(!GC_thread_is_registered(), "a thread made by the real pthread_create is registered");
    struct GC_stack_base sb;
    memset(&sb, 0, sizeof sb);
    TCHECK(GC_get_stack_base(&sb) == GC_SUCCESS, "GC_get_stack_base failed");
    char here;
    pthread_attr_t attr;
    void *addr;
    size_t size;
    TCHECK(pthread_getattr_np(pthread_self(), &attr) == 0, "pthread_getattr_np");
    TCHECK(pthread_attr_getstack(&attr, &addr, &size) == 0, "pthread_attr_getstack");
    pthread_attr_destroy(&attr);
    TCHECK((char *)sb.mem_base > &here && (char *)sb.mem_base <= (char *)addr + size,
           "GC_get_stack_base: %p is not the top of this thread's stack [%p, %p) (a local is at %p)",
           sb.mem_base, addr, (void *)((char *)addr + size), (void *)&here);

    int r = GC_register_my_thread(&sb);
    TCHECK(r == GC_SUCCESS, "GC_register_my_thread = %d, expected GC_SUCCESS", r);
    TCHECK(GC_thread_is_registered(), "GC_thread_is_registered() is 0 after registering");
    r = GC_register_my_thread(&sb);
    TCHECK(r == GC_DUPLICATE, "second GC_register_my_thread = %d, expected GC_DUPLICATE", r);

    /* Held only here, on this thread's stack (or in its registers). */
    tcell_t *l;
    TLIST_BUILD(l, STACK_LIST_LEN, 44);
    atomic_store(&g_raw_ready, 1);
    long spins = 0;
    while (!atomic_load_explicit(&g_raw_release, memory_order_relaxed)) spins++;
    atomic_store(&g_raw_spins, spins);
    tlist_verify(l, STACK_LIST_LEN, 44, "registered raw thread, after spinning through collections");
    l = NULL;

    TCHECK(GC_unregister_my_thread() == GC_SUCCESS, "GC_unregister_my_thread");
    TCHECK(!GC_thread_is_registered(), "GC_thread_is_registered() is 1 after unregistering");

    struct stack_base_check c = { NULL, 0 };
    void *res = GC_call_with_stack_base(with_stack_base, &c);
    TCHECK(res == (void *)2 && c.registered, "GC_call_with_stack_base did not run its callback");
    TCHECK(!GC_thread_is_registered(), "still registered after GC_unregister_my_thread");
    return (void *)1;
}

static void test_raw_thread(void)
{
    t_stage = "raw thread";
    pthread_t t;
    TCHECK(raw_pthread_create(&t, NULL, raw_thread, NULL) == 0, "pthread_create (real)");
    while (!atomic_load(&g_raw_ready)) sched_yield();
    collect_with_churn(100);
    atomic_store(&g_raw_release, 1);
    void *ret = NULL;
    TCHECK(raw_pthread_join(t, &ret) == 0 && ret == (void *)1, "raw thread failed");
}

/* ---- a tree of threads --------------------------------------------------- */

#define TREE_DEPTH 4
#define FAN_OUT 3

struct node_arg {
    int depth;
    uint64_t id;
};

static atomic_long g_tree_threads;

static void *tree_node(void *p)
{
    struct node_arg *a = p;
    int depth = a->depth;
    uint64_t id = a->id;
    atomic_fetch_add(&g_tree_threads, 1);
    tcell_t *l;
    size_t n = 200 + (size_t)(id % 300);
    TLIST_BUILD(l, n, 9000 + id);
    long count = 1;
    if (depth < TREE_DEPTH) {
        pthread_t kids[FAN_OUT];
        for (int i = 0; i < FAN_OUT; i++) {
            struct node_arg *k = GC_MALLOC(sizeof *k);
            TCHECK(k != NULL, "GC_MALLOC");
            k->depth = depth + 1;
            k->id = id * FAN_OUT + (uint64_t)i + 1;
            int r = pthread_create(&kids[i], NULL, tree_node, k);
            TCHECK(r == 0, "pthread_create at depth %d: %d", depth, r);
        }
        for (int i = 0; i < FAN_OUT; i++) {
            void *ret;
            TCHECK(pthread_join(kids[i], &ret) == 0, "pthread_join");
            count += (long)(intptr_t)ret;
        }
    } else {
        tcell_t *junk;
        TLIST_BUILD(junk, 2000, id);
        (void)junk;
        if (id % 9 == 0) GC_gcollect();
    }
    tlist_verify(l, n, 9000 + id, "thread in the tree");
    return (void *)(intptr_t)count;
}

static void test_tree(void)
{
    t_stage = "tree of threads";
    struct node_arg *root = GC_MALLOC(sizeof *root);
    TCHECK(root != NULL, "GC_MALLOC");
    root->depth = 0;
    root->id = 0;
    pthread_t t;
    TCHECK(pthread_create(&t, NULL, tree_node, root) == 0, "pthread_create");
    root = NULL;
    void *ret;
    TCHECK(pthread_join(t, &ret) == 0, "pthread_join");
    long expected = 0, level = 1;
    for (int d = 0; d <= TREE_DEPTH; d++, level *= FAN_OUT) expected += level;
    TCHECK((long)(intptr_t)ret == expected && atomic_load(&g_tree_threads) == expected,
           "tree of threads: %ld threads reported, %ld started, expected %ld", (long)(intptr_t)ret,
           atomic_load(&g_tree_threads), expected);
}

/* ---- key destructors that allocate -------------------------------------- */

#define N_KEY_THREADS 40

static pthread_key_t g_key_before, g_key_after;
static atomic_int g_dtor_before, g_dtor_after;

/* Key made before GC_INIT: register (as bdwgc documents for cleanup code
   that touches the heap), allocate, collect, verify, unregister. */
static void dtor_before(void *value)
{
    struct GC_stack_base sb;
    TCHECK(GC_get_stack_base(&sb) == GC_SUCCESS, "destructor: GC_get_stack_base");
    int r = GC_register_my_thread(&sb);
    TCHECK(r == GC_SUCCESS || r == GC_DUPLICATE, "destructor: GC_register_my_thread = %d", r);
    uint64_t seed = (uint64_t)(uintptr_t)value;
    tcell_t *l;
    TLIST_BUILD(l, 500, seed);
    if (seed % 8 == 0) GC_gcollect();
    tlist_verify(l, 500, seed, "key destructor (registered)");
    if (r == GC_SUCCESS) TCHECK(GC_unregister_my_thread() == GC_SUCCESS, "destructor: unregister");
    atomic_fetch_add(&g_dtor_before, 1);
}

/* Key made after GC_INIT: register through GC_call_with_stack_base, then
   allocate small and large objects. (Allocating in a destructor without
   registering is what gc.h forbids: stock libgc1 8.2.2 then crashes in
   GC_malloc_kind, its thread-local free lists being gone.) */
static void *dtor_after_registered(struct GC_stack_base *sb, void *value)
{
    int r = GC_register_my_thread(sb);
    TCHECK(r == GC_SUCCESS || r == GC_DUPLICATE, "destructor: GC_register_my_thread = %d", r);
    for (int i = 0; i < 20; i++) {
        char *p = GC_MALLOC(24 + (size_t)i * 40);
        TCHECK(p != NULL, "destructor: GC_MALLOC returned NULL");
        memset(p, (int)(uintptr_t)value, 24 + (size_t)i * 40);
    }
    char *big = GC_MALLOC_ATOMIC(100000);
    TCHECK(big != NULL, "destructor: GC_MALLOC_ATOMIC returned NULL");
    memset(big, 1, 100000);
    if (r == GC_SUCCESS) TCHECK(GC_unregister_my_thread() == GC_SUCCESS, "destructor: unregister");
    return NULL;
}

static void dtor_after(void *value)
{
    GC_call_with_stack_base(dtor_after_registered, value);
    atomic_fetch_add(&g_dtor_after, 1);
}

static void *key_thread(void *arg)
{
    uint64_t id = (uint64_t)(uintptr_t)arg;
    tcell_t *l;
    TLIST_BUILD(l, 300, id);
    tlist_verify(l, 300, id, "key thread");
    pthread_setspecific(g_key_before, (void *)(uintptr_t)(id * 8 + 8));
    pthread_setspecific(g_key_after, (void *)(uintptr_t)(id + 1));
    return NULL;   /* the last regular allocation is done */
}

static void test_key_destructors(void)
{
    t_stage = "key destructors";
    TCHECK(pthread_key_create(&g_key_after, dtor_after) == 0, "pthread_key_create");
    pthread_t t[N_KEY_THREADS];
    for (int i = 0; i < N_KEY_THREADS; i++)
        TCHECK(pthread_create(&t[i], NULL, key_thread, (void *)(uintptr_t)i) == 0, "pthread_create");
    collect_with_churn(20);
    for (int i = 0; i < N_KEY_THREADS; i++) TCHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
    GC_gcollect();
    TCHECK(atomic_load(&g_dtor_before) == N_KEY_THREADS && atomic_load(&g_dtor_after) == N_KEY_THREADS,
           "key destructors: %d and %d of %d ran", atomic_load(&g_dtor_before),
           atomic_load(&g_dtor_after), N_KEY_THREADS);
}

/* ---- GC_pthread_sigmask --------------------------------------------------- */

static atomic_int g_mask_ready, g_mask_release;

static void *masked_thread(void *unused)
{
    (void)unused;
    sigset_t all, now;
    sigfillset(&all);
    TCHECK(GC_pthread_sigmask(SIG_BLOCK, &all, NULL) == 0, "GC_pthread_sigmask");
    TCHECK(pthread_sigmask(SIG_BLOCK, NULL, &now) == 0, "pthread_sigmask (query)");
    TCHECK(!sigismember(&now, GC_get_suspend_signal()),
           "GC_pthread_sigmask blocked the suspend signal %d", GC_get_suspend_signal());
    TCHECK(sigismember(&now, SIGUSR1) && sigismember(&now, SIGINT),
           "GC_pthread_sigmask did not block the other signals");
    tcell_t *l;
    TLIST_BUILD(l, STACK_LIST_LEN, 66);
    atomic_store(&g_mask_ready, 1);
    while (!atomic_load_explicit(&g_mask_release, memory_order_relaxed)) {
    }
    tlist_verify(l, STACK_LIST_LEN, 66, "thread with every other signal blocked");
    return (void *)1;
}

static void test_sigmask(void)
{
    t_stage = "collections while a thread blocks all signals with GC_pthread_sigmask";
    pthread_t t;
    TCHECK(pthread_create(&t, NULL, masked_thread, NULL) == 0, "pthread_create");
    while (!atomic_load(&g_mask_ready)) sched_yield();
    unsigned long gc0 = (unsigned long)GC_get_gc_no();
    collect_with_churn(50);
    TCHECK((unsigned long)GC_get_gc_no() - gc0 >= 50, "collections did not complete");
    atomic_store(&g_mask_release, 1);
    void *ret;
    TCHECK(pthread_join(t, &ret) == 0 && ret == (void *)1, "masked thread failed");
}

int main(void)
{
    TCHECK(pthread_key_create(&g_key_before, dtor_before) == 0, "pthread_key_create");
    GC_INIT();
    t_watchdog(150);
    TCHECK(GC_get_suspend_signal() == SIGPWR, "GC_get_suspend_signal() = %d, expected SIGPWR (%d)",
           GC_get_suspend_signal(), SIGPWR);
    TCHECK(GC_get_thr_restart_signal() == SIGXCPU, "GC_get_thr_restart_signal() = %d, expected "
           "SIGXCPU (%d)", GC_get_thr_restart_signal(), SIGXCPU);
    TCHECK(GC_thread_is_registered(), "the main thread is not registered after GC_INIT");
    GC_allow_register_threads();   /* bdwgc requires it before any GC_register_my_thread */
    struct GC_stack_base sb;
    TCHECK(GC_get_stack_base(&sb) == GC_SUCCESS, "GC_get_stack_base (main)");
    TCHECK(GC_register_my_thread(&sb) == GC_DUPLICATE, "registering the main thread again");

    test_raw_thread();
    test_tree();
    test_key_destructors();
    test_sigmask();
    printf("registration: raw thread spun %ld times through 100 collections; %ld threads in the "
           "tree\n", atomic_load(&g_raw_spins), atomic_load(&g_tree_threads));
    return 0;
}
