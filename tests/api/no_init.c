/* no_init.c: a program that never calls GC_init/GC_INIT. The first
 * GC_malloc must initialise the collector (one collection, as GC_init
 * does); objects held in static data and on the stack then survive
 * collections intact, and garbage is reclaimed (the heap stays bounded). */
#include <gc.h>

#include "check.h"

struct node { struct node *next; uint64_t val; char pad[40]; };

static struct node *static_head; /* static data is a root without GC_init */

static NOINLINE struct node *build(int n, uint64_t salt)
{
    struct node *h = NULL;
    for (int i = 0; i < n; i++) {
        struct node *p = GC_malloc(sizeof *p);
        CHECK(p != NULL);
        p->next = h;
        p->val = mix64((uint64_t)i ^ salt);
        h = p;
    }
    return h;
}

static void verify(struct node *h, int n, uint64_t salt, const char *what)
{
    for (int i = n - 1; i >= 0; i--) {
        CHECKF(h != NULL, "%s: list ends early at element %d", what, i);
        CHECKF(h->val == mix64((uint64_t)i ^ salt), "%s: element %d holds "
               "%llu", what, i, (unsigned long long)h->val);
        h = h->next;
    }
    CHECKF(h == NULL, "%s: list too long", what);
}

int main(void)
{
    CHECK_EQ(GC_get_gc_no(), 0);
    char *first = GC_malloc(100);
    CHECK(first != NULL);
    for (int i = 0; i < 100; i++) CHECK_EQ(first[i], 0);
    /* Initialisation happened, with its collection. */
    CHECKF(GC_get_gc_no() == 1, "gc_no after the first GC_malloc: %lu",
           (unsigned long)GC_get_gc_no());
    CHECK(GC_is_heap_ptr(first));
    CHECK_PTR_EQ(GC_base(first + 50), first);
    CHECK_GT(GC_get_heap_size(), 0);
    memset(first, 'x', 99);

    static_head = build(50000, 1);
    struct node *volatile stack_head = build(50000, 2);
    GC_word g = GC_get_gc_no();
    for (int round = 0; round < 5; round++) {
        /* garbage, then an explicit collection */
        for (int i = 0; i < 200000; i++)
            CHECK(GC_malloc(i % 300) != NULL);
        clear_stack();
        GC_gcollect();
        verify(static_head, 50000, 1, "static list");
        verify(stack_head, 50000, 2, "stack list");
        for (int i = 0; i < 99; i++) CHECK_EQ(first[i], 'x');
    }
    CHECKF(GC_get_gc_no() >= g + 5, "gc_no %lu after 5 GC_gcollect from %lu",
           (unsigned long)GC_get_gc_no(), (unsigned long)g);

    /* Garbage is reclaimed: 1 GB allocated with a ~6 MB live set. */
    size_t max_heap = 0;
    for (int i = 0; i < 1000000; i++) {
        CHECK(GC_malloc(1000) != NULL);
        if (GC_get_heap_size() > max_heap) max_heap = GC_get_heap_size();
    }
    CHECKF(max_heap < (size_t)128 << 20, "heap reached %zu bytes with ~6 MB "
           "live", max_heap);
    verify(static_head, 50000, 1, "static list at the end");
    verify(stack_head, 50000, 2, "stack list at the end");
    printf("no_init: ok (%lu collections, max heap %zu KiB)\n",
           (unsigned long)GC_get_gc_no(), max_heap >> 10);
    return 0;
}
