/* boxroot.precise_stack: bibop_set_precise_stack.
 *
 * K objects, each watched by a disappearing link in atomic memory, each kept
 * only by a stale copy in a volatile local array of a live (noinline) frame:
 * the program never reads those copies again. A collection runs while the
 * frame is live.
 *   - precise mode off: conservative stack scanning finds the copies and
 *     (statistically) keeps the objects: >= 90 % of the links remain;
 *   - precise mode on: the stack is not scanned: >= 99 % disappear;
 *   - off again: retained again.
 * The same with the stale copies on another registered thread's stack, that
 * thread in precise mode or not, while the main thread collects.
 * In precise mode, values held by boxroots (and static data) survive and stay
 * intact. The return values of bibop_set_precise_stack are checked (the
 * previous setting; -1 from an unregistered thread).
 *
 * While precise mode is on, a pointer held only in a local is not a root, so
 * objects are built with collections disabled and stored into boxroots
 * before collections are enabled again. */
#include <pthread.h>

static int raw_pthread_create(pthread_t *t, void *(*f)(void *), void *arg)
{
    return pthread_create(t, NULL, f, arg);
}
static int raw_pthread_join(pthread_t t) { return pthread_join(t, NULL); }

#define GC_THREADS
#include <gc.h>
#include "brtest.h"

#define K 2000

static __attribute__((noinline)) void collect_now(void)
{
    GC_gcollect();
    GC_gcollect();
}

/* Watch K objects from slot `base`; leave their only copies in this frame. */
static __attribute__((noinline)) void fill_stale(void *volatile *slots, size_t base)
{
    GC_disable();
    for (size_t i = 0; i < K; i++) {
        void *o = GC_MALLOC(32);
        BR_CHECK(o != NULL, "GC_MALLOC");
        br_links_watch(base + i, o);
        slots[i] = o;
    }
    GC_enable();
}

/* Stale copies in this (live) frame while collecting; returns how many of
   the K objects were collected. */
static __attribute__((noinline)) size_t stale_on_own_stack(size_t base)
{
    void *volatile slots[K];
    fill_stale(slots, base);
    br_scrub_stack();             /* clears what fill_stale left below us */
    collect_now();
    size_t c = br_links_cleared(base, base + K);
    __asm__ volatile("" : : "r"(slots) : "memory");    /* the frame stays live until here */
    return c;
}

/* ---- stale copies on another registered thread's stack --------------------- */

static pthread_barrier_t bar;

static __attribute__((noinline)) void helper_hold(size_t base)
{
    void *volatile slots[K];
    fill_stale(slots, base);
    br_scrub_stack();
    pthread_barrier_wait(&bar);   /* 1: main collects */
    pthread_barrier_wait(&bar);   /* 2: main has counted */
    __asm__ volatile("" : : "r"(slots) : "memory");
}

struct helper_arg {
    int precise;
    size_t base;
};

static void *helper(void *p)
{
    struct helper_arg *a = p;
    int was = bibop_set_precise_stack(a->precise);
    BR_CHECK(was == 0, "a new thread's precise setting was %d, expected 0", was);
    helper_hold(a->base);
    return NULL;
}

static size_t stale_on_other_stack(int precise, size_t base)
{
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t t;
    struct helper_arg a = { precise, base };
    BR_CHECK(pthread_create(&t, NULL, helper, &a) == 0, "pthread_create");
    pthread_barrier_wait(&bar);   /* 1 */
    collect_now();
    size_t c = br_links_cleared(base, base + K);
    pthread_barrier_wait(&bar);   /* 2 */
    pthread_join(t, NULL);
    pthread_barrier_destroy(&bar);
    return c;
}

/* ---- unregistered thread -------------------------------------------------- */

static int unreg_result = 99;
static void *unreg(void *p)
{
    (void)p;
    unreg_result = bibop_set_precise_stack(1);
    return NULL;
}

/* ---- boxroots in precise mode --------------------------------------------- */

#define NB 5000

static void boxroots_in_precise_mode(void)
{
    boxroot *h = malloc(NB * sizeof *h);
    BR_CHECK(h != NULL, "malloc");
    GC_disable();
    for (size_t i = 0; i < NB; i++) {
        h[i] = boxroot_create(br_value_make(700000 + i));
        BR_CHECK(h[i] != NULL, "boxroot_create returned NULL");
    }
    GC_enable();
    for (int k = 0; k < 4; k++) {
        br_churn(30000, 48);
        GC_gcollect();
        for (size_t i = 0; i < NB; i++)
            BR_VALUE_CHECK(boxroot_get(h[i]), 700000 + i, "boxroot value in precise mode");
    }
    for (size_t i = 0; i < NB; i++) boxroot_delete(h[i]);
    free(h);
}

int main(void)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    br_links_init(8 * K);

    pthread_t t;
    BR_CHECK(raw_pthread_create(&t, unreg, NULL) == 0, "pthread_create (raw)");
    raw_pthread_join(t);
    BR_CHECK(unreg_result == -1, "bibop_set_precise_stack from an unregistered thread returned %d, "
                                 "expected -1", unreg_result);

    br_stage = "own stack, precise off";
    size_t off1 = stale_on_own_stack(0);
    BR_CHECK(off1 <= K / 10, "precise off: %zu of %d objects kept by stale stack copies were "
                             "collected (conservative scanning should keep them)", off1, K);

    br_stage = "own stack, precise on";
    BR_CHECK(bibop_set_precise_stack(1) == 0, "previous setting should be 0");
    BR_CHECK(bibop_set_precise_stack(1) == 1, "previous setting should be 1");
    size_t on = stale_on_own_stack(K);
    BR_CHECK(on >= K * 99 / 100, "precise on: only %zu of %d objects kept only by stale stack copies "
                                 "were collected (the stack was scanned?)", on, K);

    br_stage = "boxroots, precise on";
    boxroots_in_precise_mode();

    br_stage = "own stack, precise off again";
    BR_CHECK(bibop_set_precise_stack(0) == 1, "previous setting should be 1");
    size_t off2 = stale_on_own_stack(2 * K);
    BR_CHECK(off2 <= K / 10, "precise off again: %zu of %d collected", off2, K);

    br_stage = "other thread's stack";
    size_t t_off = stale_on_other_stack(0, 3 * K);
    BR_CHECK(t_off <= K / 10, "other thread, precise off: %zu of %d collected", t_off, K);
    size_t t_on = stale_on_other_stack(1, 4 * K);
    BR_CHECK(t_on >= K * 99 / 100, "other thread, precise on: only %zu of %d collected", t_on, K);

    printf("boxroot.precise_stack: collected of %d stale-only objects: own stack off %zu, on %zu, "
           "off again %zu; other thread off %zu, on %zu; boxroots intact: ok\n",
           K, off1, on, off2, t_off, t_on);
    return 0;
}
