/* roots.c: root management and uncollectable/atomic kinds.
 * - GC_add_roots on a malloc'd region keeps the objects it points to alive
 *   and unchanged; after GC_remove_roots (and after GC_clear_roots) the
 *   region no longer keeps anything: measured through heap boundedness over
 *   many rounds, since a conservative collector may retain single objects;
 *   static data and the stack remain roots after GC_clear_roots;
 * - objects referenced only from GC_malloc_uncollectable objects survive;
 *   uncollectable objects survive with no reference at all; GC_free of an
 *   uncollectable object lets its memory and its referents go;
 *   GC_malloc_atomic_uncollectable objects survive unreferenced and are not
 *   scanned;
 * - a pointer stored in a GC_malloc_atomic object does not keep its target
 *   alive (heap boundedness again);
 * - GC_set_push_other_roots hook chaining: a hook that calls the previous
 *   hook and then GC_push_all on a malloc'd range keeps the range's targets
 *   alive (and, through the previous hook, whatever it pushed); a second
 *   hook chains onto the first; once the previous hook is restored the
 *   range is no longer a root. */
#include <gc.h>
#if defined(__has_include)
#if __has_include(<gc/gc_mark.h>)
#include <gc/gc_mark.h>
#define HAVE_GC_MARK_H 1
#endif
#endif

#include "check.h"

/* Round sizes for the boundedness checks: each round makes ROUND_BYTES of
 * targets that only the mechanism under test refers to; ROUNDS rounds. If
 * the mechanism wrongly kept them, the heap would pass ROUNDS * ROUND_BYTES;
 * the bound allows for a live set of a few rounds. */
#define TARGETS 1024
#define TARGET_SIZE 8000
#define ROUND_BYTES ((size_t)TARGETS * TARGET_SIZE)     /* ~8 MB */
#define ROUNDS 40                                       /* ~320 MB if leaked */
#define HEAP_BOUND ((size_t)120 << 20)

/* Targets carry their own index and a pattern seeded by a round tag. */
static void *make_target(size_t size, uint64_t tag)
{
    void *p = GC_malloc(size);
    CHECKF(p != NULL, "GC_malloc(%zu) = NULL", size);
    fill_pattern(p, size, tag);
    return p;
}

static void check_target(const void *p, size_t size, uint64_t tag, const char *what)
{
    CHECKF(p != NULL && GC_base((void *)p) == p, "%s: %p is not the start of a "
           "heap object (GC_base gives %p)", what, p, p ? GC_base((void *)p) : NULL);
    size_t bad = pattern_mismatch(p, size, tag);
    CHECKF(bad == (size_t)-1, "%s: %zu-byte object %p (tag %llu) changed at "
           "byte %zu", what, size, p, (unsigned long long)tag, bad);
}

static NOINLINE void fill_targets(void **slots, unsigned n, uint64_t tag0)
{
    for (unsigned i = 0; i < n; i++)
        slots[i] = make_target(TARGET_SIZE, tag0 + i);
}

static void check_targets(void *const *slots, unsigned n, uint64_t tag0, const char *what)
{
    for (unsigned i = 0; i < n; i++)
        check_target(slots[i], TARGET_SIZE, tag0 + i, what);
}

/* Garbage of the targets' size, so that wrongly reclaimed targets get
 * reused and overwritten; then a collection with a clean stack. */
static NOINLINE void churn_and_collect(void)
{
    for (unsigned i = 0; i < TARGETS; i++) {
        char *p = GC_malloc(TARGET_SIZE);
        CHECK(p != NULL);
        memset(p, 0x3D, TARGET_SIZE);
    }
    clear_stack();
    GC_gcollect();
}

static size_t g_max_heap;
static void note_heap(void)
{
    if (GC_get_heap_size() > g_max_heap) g_max_heap = GC_get_heap_size();
}

static void check_bounded(const char *what)
{
    printf("  %s: max heap %zu MiB over %d rounds of %zu MiB\n", what,
           g_max_heap >> 20, ROUNDS, ROUND_BYTES >> 20);
    CHECKF(g_max_heap < HEAP_BOUND, "%s: the heap reached %zu bytes after %d "
           "rounds of %zu bytes that should have been reclaimable", what,
           g_max_heap, ROUNDS, ROUND_BYTES);
    g_max_heap = 0;
}

/* ---- static and stack roots, checked after GC_clear_roots --------------- */

static void *g_static_obj;

/* ---- GC_add_roots / GC_remove_roots ------------------------------------- */

static void test_add_remove_roots(void)
{
    /* a region that stays registered: its targets must survive */
    void **region = malloc(TARGETS * sizeof *region);
    CHECK(region != NULL);
    GC_add_roots(region, region + TARGETS);
    fill_targets(region, TARGETS, 1000);
    for (int r = 0; r < 4; r++) {
        churn_and_collect();
        check_targets(region, TARGETS, 1000, "GC_add_roots region");
    }

    /* regions registered then removed (but not freed or cleared) */
    void **regions[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        regions[r] = malloc(TARGETS * sizeof(void *));
        CHECK(regions[r] != NULL);
        GC_add_roots(regions[r], regions[r] + TARGETS);
        fill_targets(regions[r], TARGETS, 100000u * (unsigned)(r + 1));
        churn_and_collect();
        check_targets(regions[r], TARGETS, 100000u * (unsigned)(r + 1),
                      "region before GC_remove_roots");
        check_targets(region, TARGETS, 1000, "GC_add_roots region");
        GC_remove_roots(regions[r], regions[r] + TARGETS);
        note_heap();
    }
    churn_and_collect();
    note_heap();
    check_bounded("GC_remove_roots");
    check_targets(region, TARGETS, 1000, "GC_add_roots region at the end");
    GC_remove_roots(region, region + TARGETS);
    for (int r = 0; r < ROUNDS; r++) free(regions[r]);
    free(region);
}

static NOINLINE void test_clear_roots(void)
{
    void *volatile stack_obj = make_target(5000, 77);
    g_static_obj = make_target(5000, 78);
    void **regions[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        regions[r] = malloc(TARGETS * sizeof(void *));
        CHECK(regions[r] != NULL);
        GC_add_roots(regions[r], regions[r] + TARGETS);
        fill_targets(regions[r], TARGETS, 7000000u + 10000u * (unsigned)r);
        churn_and_collect();
        check_targets(regions[r], TARGETS, 7000000u + 10000u * (unsigned)r,
                      "region before GC_clear_roots");
        GC_clear_roots();
        churn_and_collect();
        check_target(stack_obj, 5000, 77, "stack object after GC_clear_roots");
        check_target(g_static_obj, 5000, 78, "static object after GC_clear_roots");
        note_heap();
    }
    check_bounded("GC_clear_roots");
    for (int r = 0; r < ROUNDS; r++) free(regions[r]);
}

/* ---- uncollectable and atomic kinds ------------------------------------ */

static NOINLINE uintptr_t make_uncollectable_holder(uint64_t tag0)
{
    void **u = GC_malloc_uncollectable(TARGETS * sizeof *u);
    CHECK(u != NULL);
    CHECK_GE(GC_size(u), TARGETS * sizeof *u);
    CHECK_PTR_EQ(GC_base(u + 7), u);
    fill_targets(u, TARGETS, tag0);
    return HIDE(u); /* nothing but the collector itself knows u */
}

static void test_uncollectable(void)
{
    /* survives with no reference, and keeps its referents alive */
    uintptr_t hu = make_uncollectable_holder(5000);
    for (int r = 0; r < 4; r++) {
        churn_and_collect();
        check_targets(UNHIDE(hu), TARGETS, 5000, "referent of an uncollectable object");
    }
    /* GC_free of uncollectable holders: their referents (and their memory)
     * can go */
    for (int r = 0; r < ROUNDS; r++) {
        uintptr_t h = make_uncollectable_holder(9000000u + 10000u * (unsigned)r);
        churn_and_collect();
        check_targets(UNHIDE(h), TARGETS, 9000000u + 10000u * (unsigned)r,
                      "referent of an uncollectable object");
        GC_free(UNHIDE(h));
        note_heap();
    }
    churn_and_collect();
    note_heap();
    check_bounded("GC_free of uncollectable holders");
    check_targets(UNHIDE(hu), TARGETS, 5000, "referent of an uncollectable object");
    GC_free(UNHIDE(hu));

    /* atomic uncollectable: survives unreferenced, contents intact, and the
     * pointers stored in it do not keep their targets alive */
    uintptr_t hidden[ROUNDS];
    uint64_t sums[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        void **a = GC_malloc_atomic_uncollectable(TARGETS * sizeof *a);
        CHECK(a != NULL);
        CHECK_GE(GC_size(a), TARGETS * sizeof *a);
        fill_targets(a, TARGETS, 1u << 30);
        sums[r] = hash_bytes(a, TARGETS * sizeof *a, 5);
        hidden[r] = HIDE(a);
        a = NULL;
        churn_and_collect();
        note_heap();
    }
    churn_and_collect();
    note_heap();
    check_bounded("pointers in atomic uncollectable objects");
    for (int r = 0; r < ROUNDS; r++) {
        void **a = UNHIDE(hidden[r]);
        CHECK_PTR_EQ(GC_base(a), a);
        /* the stored words are unchanged (they are dangling by now) */
        CHECKF(hash_bytes(a, TARGETS * sizeof *a, 5) == sums[r], "atomic "
               "uncollectable object %d (%p) changed", r, (void *)a);
        GC_free(a);
    }

    /* small atomic uncollectable objects keep their bytes, with garbage of
     * the same size being allocated and reclaimed around them */
    uintptr_t hs[64];
    for (int i = 0; i < 64; i++) {
        void *a = GC_malloc_atomic_uncollectable(333);
        CHECK(a != NULL);
        fill_pattern(a, 333, 400 + (uint64_t)i);
        hs[i] = HIDE(a);
    }
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < 100000; i++) {
            void *g = GC_malloc_atomic(333);
            CHECK(g != NULL);
            memset(g, 0x4F, 333);
        }
        churn_and_collect();
    }
    for (int i = 0; i < 64; i++) {
        size_t bad = pattern_mismatch(UNHIDE(hs[i]), 333, 400 + (uint64_t)i);
        CHECKF(bad == (size_t)-1, "unreferenced atomic uncollectable object %d "
               "(%p) changed at byte %zu", i, UNHIDE(hs[i]), bad);
        GC_free(UNHIDE(hs[i]));
    }
}

static void *volatile g_atomic_holders[ROUNDS];

static void test_atomic_not_scanned(void)
{
    for (int r = 0; r < ROUNDS; r++) {
        void **a = GC_malloc_atomic(TARGETS * sizeof *a);
        CHECK(a != NULL);
        fill_targets(a, TARGETS, 3u << 28);
        g_atomic_holders[r] = a;
        a = NULL;
        churn_and_collect();
        note_heap();
    }
    churn_and_collect();
    note_heap();
    check_bounded("pointers in GC_malloc_atomic objects");
    for (int r = 0; r < ROUNDS; r++) g_atomic_holders[r] = NULL;
}

/* ---- GC_push_other_roots hook chaining ---------------------------------- */

#ifdef HAVE_GC_MARK_H
static GC_push_other_roots_proc g_prev_hook, g_hook1;
static void **g_range1, **g_range2;
static unsigned long g_calls1, g_calls2;

static void GC_CALLBACK hook1(void)
{
    g_calls1++;
    if (g_prev_hook) g_prev_hook();
    GC_push_all(g_range1, g_range1 + TARGETS);
}

static void GC_CALLBACK hook2(void)
{
    g_calls2++;
    if (g_hook1) g_hook1();
    GC_push_all(g_range2, g_range2 + TARGETS);
}

static NOINLINE void test_push_other_roots(void)
{
    /* an object held only by this frame: if a hook failed to chain to the
     * previous one, whatever that one pushed (bdwgc: the thread stacks)
     * would not be marked */
    void *volatile on_stack = make_target(6000, 66);
    g_range1 = malloc(TARGETS * sizeof(void *));
    g_range2 = malloc(TARGETS * sizeof(void *));
    CHECK(g_range1 != NULL && g_range2 != NULL);
    memset(g_range1, 0, TARGETS * sizeof(void *));
    memset(g_range2, 0, TARGETS * sizeof(void *));

    g_prev_hook = GC_get_push_other_roots();
    GC_set_push_other_roots(hook1);
    CHECK(GC_get_push_other_roots() == hook1);
    /* only now is range1 a root: allocation may collect at any time */
    fill_targets(g_range1, TARGETS, 2222);
    for (int r = 0; r < 3; r++) {
        unsigned long c = g_calls1;
        churn_and_collect();
        CHECKF(g_calls1 > c, "the push_other_roots hook was not called by "
               "GC_gcollect (calls %lu)", g_calls1);
        check_targets(g_range1, TARGETS, 2222, "target pushed by a hook");
        check_target(on_stack, 6000, 66, "stack object with a chained hook");
    }

    /* a second hook chained onto the first */
    g_hook1 = GC_get_push_other_roots();
    CHECK(g_hook1 == hook1);
    GC_set_push_other_roots(hook2);
    fill_targets(g_range2, TARGETS, 3333);
    for (int r = 0; r < 3; r++) {
        unsigned long c1 = g_calls1, c2 = g_calls2;
        churn_and_collect();
        CHECKF(g_calls1 > c1 && g_calls2 > c2, "chained hooks: calls %lu->%lu, "
               "%lu->%lu", c1, g_calls1, c2, g_calls2);
        check_targets(g_range1, TARGETS, 2222, "target pushed by the first hook");
        check_targets(g_range2, TARGETS, 3333, "target pushed by the second hook");
        check_target(on_stack, 6000, 66, "stack object with chained hooks");
    }

    /* restore: the ranges are no longer roots */
    GC_set_push_other_roots(g_prev_hook);
    CHECK(GC_get_push_other_roots() == g_prev_hook);
    unsigned long c1 = g_calls1, c2 = g_calls2;
    for (int r = 0; r < ROUNDS; r++) {
        fill_targets(g_range1, TARGETS, 4444);
        churn_and_collect();
        note_heap();
    }
    CHECKF(g_calls1 == c1 && g_calls2 == c2, "hooks still called after the "
           "previous hook was restored (%lu->%lu, %lu->%lu)", c1, g_calls1,
           c2, g_calls2);
    check_bounded("a range no longer pushed");
    check_target(on_stack, 6000, 66, "stack object after restoring the hook");
    printf("  push_other_roots: hook1 called %lu times, hook2 %lu times, "
           "previous hook %s\n", g_calls1, g_calls2, g_prev_hook ? "set" : "NULL");
    free(g_range1);
    free(g_range2);
}
#endif

int main(void)
{
    GC_INIT();

    test_add_remove_roots();
    printf("roots: GC_add_roots/GC_remove_roots ok\n");
    test_uncollectable();
    printf("roots: uncollectable kinds ok\n");
    test_atomic_not_scanned();
    printf("roots: atomic objects not scanned ok\n");
#ifdef HAVE_GC_MARK_H
    test_push_other_roots();
    printf("roots: push_other_roots chaining ok\n");
#else
    printf("roots: SKIPPED push_other_roots chaining (no <gc/gc_mark.h>)\n");
#endif
    test_clear_roots(); /* last: it drops every registered root */
    printf("roots: GC_clear_roots ok\nroots: ok (%lu collections)\n",
           (unsigned long)GC_get_gc_no());
    return 0;
}
