/* interior_off.c: GC_set_all_interior_pointers(0) before GC_INIT (as ECL
 * does). The getter reports 0; objects get no extra byte
 * (GC_size(GC_malloc(16)) == 16); GC_base still maps interior addresses to
 * the start; objects referenced from the heap by pointers to their start
 * survive intact, while objects referenced from the heap only by pointers
 * into their middle are reclaimed (the heap stays bounded over many rounds
 * in which all the referring holders stay alive); after
 * GC_register_displacement(64) a pointer at offset 64 keeps its object. */
#include <gc.h>

#include "check.h"

#define TARGETS 1024
#define TARGET_SIZE 8000
#define ROUNDS 40
#define OFF 64

static void **volatile g_holders[ROUNDS];   /* all kept alive */

static NOINLINE void **make_holder(size_t off, uint64_t tag)
{
    void **h = GC_malloc(TARGETS * sizeof *h);
    CHECK(h != NULL);
    for (unsigned i = 0; i < TARGETS; i++) {
        char *t = GC_malloc(TARGET_SIZE);
        CHECK(t != NULL);
        fill_pattern(t, TARGET_SIZE, tag + i);
        h[i] = t + off;
    }
    return h;
}

static void check_holder(void **h, size_t off, uint64_t tag, const char *what)
{
    for (unsigned i = 0; i < TARGETS; i++) {
        char *t = (char *)h[i] - off;
        CHECKF(GC_base(t) == t, "%s: target %u at %p is no longer an object "
               "start (GC_base %p)", what, i, (void *)t, GC_base(t));
        size_t bad = pattern_mismatch(t, TARGET_SIZE, tag + i);
        CHECKF(bad == (size_t)-1, "%s: target %u (%p) changed at byte %zu",
               what, i, (void *)t, bad);
    }
}

static NOINLINE void churn_and_collect(void)
{
    for (unsigned i = 0; i < TARGETS; i++) {
        char *p = GC_malloc(TARGET_SIZE);
        CHECK(p != NULL);
        memset(p, 0x2B, TARGET_SIZE);
    }
    clear_stack();
    GC_gcollect();
}

int main(void)
{
    GC_set_all_interior_pointers(0);
    CHECK_EQ(GC_get_all_interior_pointers(), 0);
    GC_INIT();
    CHECK_EQ(GC_get_all_interior_pointers(), 0);
    CHECK_EQ(GC_get_gc_no(), 1);

    CHECK_EQ(GC_size(GC_malloc(16)), 16);
    for (size_t s = 0; s <= 5000; s++) {
        char *p = GC_malloc(s);
        CHECK(p != NULL);
        CHECKF(GC_size(p) >= s, "GC_size(GC_malloc(%zu)) = %zu", s, GC_size(p));
        if (s > 1) CHECK_PTR_EQ(GC_base(p + s - 1), p);
        CHECK_PTR_EQ(GC_base(p + s / 2), p);
    }

    /* pointers to the start keep objects alive */
    void **volatile base_holder = make_holder(0, 1000);
    for (int r = 0; r < 3; r++) {
        churn_and_collect();
        check_holder(base_holder, 0, 1000, "held by base pointers");
    }

    /* pointers into the middle, from the heap, do not */
    size_t max_heap = 0;
    for (int r = 0; r < ROUNDS; r++) {
        g_holders[r] = make_holder(OFF, 1u << 20);
        churn_and_collect();
        if (GC_get_heap_size() > max_heap) max_heap = GC_get_heap_size();
    }
    printf("interior_off: max heap %zu MiB over %d rounds of %d KiB held only "
           "by interior pointers\n", max_heap >> 20, ROUNDS,
           TARGETS * TARGET_SIZE >> 10);
    CHECKF(max_heap < ((size_t)120 << 20), "heap reached %zu bytes: objects "
           "referenced only by interior pointers were retained", max_heap);
    check_holder(base_holder, 0, 1000, "held by base pointers");
    for (int r = 0; r < ROUNDS; r++) g_holders[r] = NULL;

    /* a registered displacement is a valid pointer */
    GC_register_displacement(OFF);
    void **volatile disp_holder = make_holder(OFF, 5000);
    for (int r = 0; r < 3; r++) {
        churn_and_collect();
        check_holder(disp_holder, OFF, 5000, "held at a registered displacement");
    }
    printf("interior_off: ok (%lu collections)\n", (unsigned long)GC_get_gc_no());
    return 0;
}
