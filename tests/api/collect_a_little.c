/* collect_a_little.c: GC_collect_a_little does "a small amount of garbage
 * collection work" (gc.h). Without incremental mode bdwgc collects there
 * only when a collection is due by its pacing rule, and returns 0 (no
 * collection in progress); bibop collected in full at every call, so a
 * client calling it often (Guile does) paid a whole collection each time.
 * Checked: repeated calls with nothing allocated run no collection; after
 * 64 MiB of garbage allocated into a heap expanded beforehand (so that no
 * collection is needed for it), one call collects (and reclaims), and the
 * calls after it do not; with automatic collection disabled, none collects
 * (as on stock libgc1).
 */
#include <gc.h>

#include "check.h"

#define GARBAGE ((size_t)64 << 20)

static NOINLINE void make_garbage(void)
{
    for (size_t done = 0; done < GARBAGE; done += 1024) {
        char *p = GC_MALLOC(1024);
        CHECK(p != NULL);
        p[0] = 1;
    }
}

int main(void)
{
    GC_INIT();
    void *keep = GC_MALLOC(64);
    CHECK(keep != NULL);
    GC_gcollect();
    GC_word n0 = GC_get_gc_no();
    for (int i = 0; i < 100; i++) CHECK_EQ(GC_collect_a_little(), 0);
    CHECKF(GC_get_gc_no() == n0, "%lu collections with nothing allocated",
           (unsigned long)(GC_get_gc_no() - n0));

    CHECK(GC_expand_hp(4 * GARBAGE));
    make_garbage();
    CHECKF(GC_get_gc_no() == n0, "%lu collections in an expanded heap",
           (unsigned long)(GC_get_gc_no() - n0));
    CHECK_EQ(GC_collect_a_little(), 0);
    CHECKF(GC_get_gc_no() == n0 + 1, "%lu collections after 64 MiB of garbage (1 expected)",
           (unsigned long)(GC_get_gc_no() - n0));
    CHECKF(GC_get_free_bytes() + GC_get_unmapped_bytes() >= GARBAGE / 2,
           "the collection reclaimed too little: %zu KiB free", GC_get_free_bytes() >> 10);
    for (int i = 0; i < 100; i++) CHECK_EQ(GC_collect_a_little(), 0);
    CHECKF(GC_get_gc_no() == n0 + 1, "%lu collections after the due one",
           (unsigned long)(GC_get_gc_no() - n0 - 1));

    GC_set_disable_automatic_collection(1);
    make_garbage();
    for (int i = 0; i < 10; i++) CHECK_EQ(GC_collect_a_little(), 0);
    CHECKF(GC_get_gc_no() == n0 + 1, "automatic collection disabled, yet %lu ran",
           (unsigned long)(GC_get_gc_no() - n0 - 1));
    GC_set_disable_automatic_collection(0);
    CHECK(keep != NULL);
    printf("collect_a_little: one collection when due, none otherwise\n");
    return 0;
}
