/* accounting.c: the heap statistics keep bdwgc's definitions (gc.h). The
 * heap size is the memory obtained for the heap and still mapped, the
 * unmapped bytes are heap memory returned to the OS (and counted in the
 * full heap size), the free bytes are part of the heap, the memory in use
 * is what the allocated blocks take. So at every step:
 *   free <= heap size,
 *   unmapped <= heap size + unmapped <= obtained from the OS,
 *   GC_get_prof_stats and GC_get_heap_usage_safe say the same as the
 *   getters (heapsize_full = heap size + unmapped),
 * checked after initialisation, growth to 40 MiB live, a collection,
 * 1 GB of garbage over 10 MiB live, dropping everything and returning
 * memory (GC_gcollect_and_unmap: the heap size shrinks, where the
 * collector unmaps at all), and regrowth. GC_non_gc_bytes follows the
 * uncollectable objects allocated and freed.
 * A program bounding its own heap (heap size + unmapped) must see what it
 * really holds: under 256 MiB for 10 MiB live. Against stock libgc1 too
 * (whose GC_get_memory_use, "bytes in all allocated blocks", answers twice
 * its heap size here: it scales block sizes by the word size, so memory use
 * is only checked to cover what is live). */
#include <gc.h>

#include "check.h"

#define MiB ((size_t)1 << 20)
#define OWN_BOUND (256 * MiB)

struct node { struct node *next; char payload[1000]; };

static NOINLINE void check_invariants(const char *when)
{
    size_t heap = GC_get_heap_size(), free_b = GC_get_free_bytes();
    size_t unmapped = GC_get_unmapped_bytes(), os = GC_get_obtained_from_os_bytes();
    size_t use = GC_get_memory_use();
    struct GC_prof_stats_s ps;
    memset(&ps, 0, sizeof ps);
    CHECK_EQ(GC_get_prof_stats(&ps, sizeof ps), sizeof ps);
    GC_word hs, fb, ub, bs, tb;
    GC_get_heap_usage_safe(&hs, &fb, &ub, &bs, &tb);
    printf("%-28s heap %6zu KiB, free %6zu KiB, unmapped %6zu KiB, from OS %6zu KiB, "
           "in use %6zu KiB\n", when, heap >> 10, free_b >> 10, unmapped >> 10, os >> 10,
           use >> 10);
    CHECKF(heap > 0, "%s: heap size 0", when);
    CHECKF(free_b <= heap, "%s: free bytes %zu > heap size %zu", when, free_b, heap);
    CHECKF(unmapped <= os, "%s: unmapped %zu > obtained from the OS %zu", when, unmapped, os);
    CHECKF(heap + unmapped <= os, "%s: heap %zu + unmapped %zu > obtained from the OS %zu",
           when, heap, unmapped, os);
    CHECKF(ps.heapsize_full == heap + unmapped, "%s: prof_stats heapsize_full %zu, heap %zu "
           "+ unmapped %zu", when, (size_t)ps.heapsize_full, heap, unmapped);
    CHECKF(ps.unmapped_bytes == unmapped, "%s: prof_stats unmapped %zu, getter %zu", when,
           (size_t)ps.unmapped_bytes, unmapped);
    CHECKF(ps.free_bytes_full >= free_b && ps.free_bytes_full <= ps.heapsize_full,
           "%s: prof_stats free_bytes_full %zu (free %zu, heapsize_full %zu)", when,
           (size_t)ps.free_bytes_full, free_b, (size_t)ps.heapsize_full);
    CHECKF(ps.obtained_from_os_bytes == os, "%s: prof_stats obtained_from_os %zu, getter %zu",
           when, (size_t)ps.obtained_from_os_bytes, os);
    CHECKF(hs == heap && fb == free_b && ub == unmapped, "%s: GC_get_heap_usage_safe says "
           "heap %zu free %zu unmapped %zu, the getters %zu %zu %zu", when, (size_t)hs,
           (size_t)fb, (size_t)ub, heap, free_b, unmapped);
}

/* A list of n nodes (about 1 KiB each), held by the caller. */
static NOINLINE struct node *build(size_t n)
{
    struct node *head = NULL;
    for (size_t i = 0; i < n; i++) {
        struct node *x = GC_malloc(sizeof *x);
        CHECK(x != NULL);
        x->next = head;
        head = x;
    }
    return head;
}

static NOINLINE void churn(size_t bytes)
{
    for (size_t done = 0; done < bytes; done += sizeof(struct node))
        CHECK(GC_malloc(sizeof(struct node)) != NULL);
}

static struct node *volatile g_live;

/* GC_non_gc_bytes ("bytes not considered candidates for collection",
   updated by GC_malloc_uncollectable and GC_free) follows the uncollectable
   objects, plain and debugging ones alike. */
static NOINLINE void check_non_gc_bytes(void)
{
    enum { N = 1000, SIZE = 200 };
    static void *objs[N];
    GC_word before = GC_get_non_gc_bytes();
    for (int i = 0; i < N; i++) {
        objs[i] = i % 3 == 0 ? GC_MALLOC_ATOMIC_UNCOLLECTABLE(SIZE)
                : i % 3 == 1 ? GC_MALLOC_UNCOLLECTABLE(SIZE)
                             : GC_debug_malloc_uncollectable(SIZE, __FILE__, __LINE__);
        CHECK(objs[i] != NULL);
    }
    GC_word grown = GC_get_non_gc_bytes() - before;
    CHECKF(grown >= (GC_word)N * (SIZE - 1) && grown <= (GC_word)N * 4 * SIZE,
           "GC_non_gc_bytes grew by %lu for %d uncollectable objects of %d bytes",
           (unsigned long)grown, N, SIZE);
    GC_gcollect();
    CHECK_EQ(GC_get_non_gc_bytes() - before, grown);   /* collections change nothing */
    for (int i = 0; i < N; i++) {
        if (i % 3 == 2) GC_debug_free(objs[i]);
        else GC_FREE(objs[i]);
    }
    /* Back where it was, give or take the rounding of each object (stock
       adds the requested size of a debugging object and takes off more). */
    long off = (long)(GC_get_non_gc_bytes() - before);
    CHECKF(off >= -64L * N && off <= 64L * N, "GC_non_gc_bytes %ld bytes off after freeing "
           "them all (it grew by %lu)", off, (unsigned long)grown);
}

int main(void)
{
    GC_INIT();
    check_invariants("after init");
    check_non_gc_bytes();

    g_live = build(40 * MiB / sizeof(struct node));
    check_invariants("40 MiB live");
    GC_gcollect();
    check_invariants("40 MiB live, collected");
    size_t heap40 = GC_get_heap_size();
    CHECKF(heap40 >= 40 * MiB && GC_get_memory_use() >= 40 * MiB, "heap %zu, memory "
           "use %zu with 40 MiB live", heap40, GC_get_memory_use());

    g_live = NULL;
    clear_stack();
    GC_gcollect();
    g_live = build(10 * MiB / sizeof(struct node));
    churn(1000 * MiB);
    check_invariants("10 MiB live, 1 GB churned");
    CHECKF(GC_get_heap_size() + GC_get_unmapped_bytes() <= OWN_BOUND, "heap %zu + unmapped "
           "%zu over %zu with 10 MiB live", GC_get_heap_size(), GC_get_unmapped_bytes(),
           OWN_BOUND);

    g_live = NULL;
    clear_stack();
    GC_gcollect_and_unmap();
    check_invariants("dropped, unmapped");
    /* Debian's libgc1 is built without unmapping: nothing is returned
       there, and the heap keeps its size. */
    size_t heap_now = GC_get_heap_size();
    if (GC_get_unmapped_bytes() > 0)
        CHECKF(heap_now < heap40, "heap %zu after dropping everything and unmapping %zu, "
               "%zu with 40 MiB live", heap_now, (size_t)GC_get_unmapped_bytes(), heap40);
    else
        printf("  (this collector returned nothing to the OS)\n");

    g_live = build(20 * MiB / sizeof(struct node));
    check_invariants("20 MiB live again");
    GC_gcollect();
    check_invariants("20 MiB live, collected");
    CHECKF(GC_get_heap_size() + GC_get_unmapped_bytes() <= OWN_BOUND, "heap %zu + unmapped "
           "%zu over %zu with 20 MiB live", GC_get_heap_size(), GC_get_unmapped_bytes(),
           OWN_BOUND);
    printf("accounting: ok (%lu collections)\n", (unsigned long)GC_get_gc_no());
    return 0;
}
