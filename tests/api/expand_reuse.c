/* expand_reuse.c: a heap grown by GC_expand_hp is used before it grows
 * again. Nix calls GC_expand_hp(384 MiB) at start; its heap then ended at
 * 512 MiB committed with 160 MiB of it free, because freed committed chunks
 * lost to the shorter, uncommitted tail of the last region in a best fit.
 * Here: expand, fill the expanded heap with large pointer-free objects
 * (fresh chunks: nothing is touched), let all but the last few die and
 * collect, so that the free committed chunks form a run longer than the
 * uncommitted rest of the last region; then allocate small objects that
 * fit many times in what is free. The heap must not grow: the committed
 * free chunks serve them. On the old placement the heap grew by the
 * uncommitted tail they were given instead.
 */
#include <gc.h>

#include "check.h"

#define EXPAND_BYTES ((size_t)300 << 20)
#define BIG_BYTES (((size_t)6 << 20) - 4096)   /* three 2 MiB chunks */
#define MAX_BIG 64
#define KEPT_BIG 3                              /* the last ones, in the last region */
#define SMALL_BYTES 64
#define SMALL_TOTAL ((size_t)48 << 20)          /* far less than what is free */

void *big[MAX_BIG];   /* scanned as static data; not static, so the stores stay */

struct cell { struct cell *next; char payload[SMALL_BYTES - sizeof(struct cell *)]; };
struct cell *small_list;

NOINLINE static int fill(size_t heap)
{
    int n = 0;
    size_t taken = GC_get_heap_size() - GC_get_free_bytes();
    while (n < MAX_BIG && taken + BIG_BYTES + ((size_t)16 << 20) <= heap) {
        big[n] = GC_MALLOC_ATOMIC(BIG_BYTES);
        CHECK(big[n] != NULL);
        taken += BIG_BYTES;
        n++;
    }
    return n;
}

NOINLINE static void drop_all_but_last(int n)
{
    for (int i = 0; i < n - KEPT_BIG; i++) big[i] = NULL;
}

NOINLINE static void allocate_small(void)
{
    for (size_t done = 0; done < SMALL_TOTAL; done += SMALL_BYTES) {
        struct cell *c = GC_MALLOC(sizeof *c);
        CHECK(c != NULL);
        c->next = small_list;
        c->payload[0] = 1;
        small_list = c;
    }
}

int main(void)
{
    GC_INIT();
    CHECK(GC_expand_hp(EXPAND_BYTES));
    size_t heap = GC_get_heap_size();
    CHECKF(heap >= EXPAND_BYTES, "GC_expand_hp(%zu) left a heap of %zu bytes", EXPAND_BYTES, heap);

    int n = fill(heap);
    CHECKF(n > KEPT_BIG, "only %d objects of %zu bytes fit in %zu bytes", n, BIG_BYTES, heap);
    drop_all_but_last(n);
    GC_gcollect();
    size_t after_collect = GC_get_heap_size(), free_bytes = GC_get_free_bytes();
    CHECKF(free_bytes >= 2 * SMALL_TOTAL, "only %zu bytes free after dropping %d of %d objects",
           free_bytes, n - KEPT_BIG, n);

    allocate_small();
    size_t grown = GC_get_heap_size();
    CHECKF(grown <= after_collect,
           "the heap grew from %zu to %zu bytes for %zu bytes of small objects while %zu bytes "
           "were free",
           after_collect, grown, SMALL_TOTAL, free_bytes);
    size_t cells = 0;
    for (struct cell *c = small_list; c; c = c->next) {
        CHECK(c->payload[0] == 1);
        cells++;
    }
    CHECK(cells == SMALL_TOTAL / SMALL_BYTES);
    printf("expand_reuse: heap %zu MiB after expanding, %zu MiB after the small objects "
           "(%zu MiB were free), %lu collections\n",
           after_collect >> 20, grown >> 20, free_bytes >> 20, (unsigned long)GC_get_gc_no());
    return 0;
}
