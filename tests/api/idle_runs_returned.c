/* idle_runs_returned.c: free blocks inside chunks that keep survivors go
 * back to the system once no allocation has used them for
 * GC_UNMAP_THRESHOLD collections (6 by default), as bdwgc unmaps idle free
 * blocks; before, only whole free chunks did. 64 MiB of small objects are
 * allocated and all but one object in every 128 KiB dropped, so no chunk
 * becomes free but most blocks do. After a dozen collections the heap size
 * (which leaves returned memory out), the unmapped bytes and the resident
 * set must show the memory returned; then the same amount is allocated
 * again into those blocks (they must read as zero where the allocator
 * promises zero) and every survivor is checked intact.
 */
#include <gc.h>

#include <stdio.h>

#include "check.h"

#define OBJ_BYTES 96
#define TOTAL ((size_t)64 << 20)
#define NOBJS (TOTAL / OBJ_BYTES)
#define KEEP_EVERY ((size_t)(128 << 10) / OBJ_BYTES)
#define NKEPT (NOBJS / KEEP_EVERY + 1)

struct obj { struct obj *next; size_t tag; size_t check[10]; };

static struct obj **kept;   /* uncollectable array of the survivors */

static void fill(struct obj *o, size_t tag)
{
    o->tag = tag;
    for (int k = 0; k < 10; k++) o->check[k] = tag * 31 + (size_t)k;
}

static void check_obj(const struct obj *o, size_t tag)
{
    CHECKF(o->tag == tag, "survivor %zu has tag %zu", tag, o->tag);
    for (int k = 0; k < 10; k++)
        CHECKF(o->check[k] == tag * 31 + (size_t)k, "survivor %zu word %d damaged", tag, k);
}

static struct obj *volatile all;   /* every object, while they are built */

static NOINLINE void build(void)
{
    size_t n = 0;
    for (size_t i = 0; i < NOBJS; i++) {
        struct obj *o = GC_MALLOC(sizeof *o);
        CHECK(o != NULL);
        fill(o, i);
        o->next = all;
        all = o;
        if (i % KEEP_EVERY == 0) kept[n++] = o;
    }
}

/* Cut the chain so that only the kept objects stay reachable. */
static NOINLINE void drop_the_rest(void)
{
    for (size_t j = 0; j < NKEPT && kept[j]; j++) kept[j]->next = NULL;
    all = NULL;
}

/* Allocate the same amount again: objects from GC_MALLOC read zero. */
static NOINLINE void reuse(void)
{
    struct obj *chain = NULL;
    for (size_t i = 0; i < NOBJS; i++) {
        struct obj *o = GC_MALLOC(sizeof *o);
        CHECK(o != NULL);
        CHECKF(o->tag == 0 && o->check[9] == 0, "a fresh object is not zero (%zu)", o->tag);
        o->next = chain;
        fill(o, i);
        chain = o;
        if (i % 65536 == 0) chain = NULL;   /* keep the live heap small */
    }
}

int main(void)
{
    GC_INIT();
    kept = GC_MALLOC_UNCOLLECTABLE(NKEPT * sizeof *kept);
    CHECK(kept != NULL);
    build();
    size_t rss_full = resident_bytes();
    drop_the_rest();
    clear_stack();
    GC_gcollect();
    size_t heap_full = GC_get_heap_size(), unmapped_before = GC_get_unmapped_bytes();
    CHECKF(heap_full >= TOTAL / 2, "only %zu KiB of heap after 64 MiB was live", heap_full >> 10);

    /* The blocks freed by the first collection stay idle through these. */
    for (int i = 0; i < 12; i++) {
        clear_stack();
        GC_gcollect();
    }
    size_t heap_idle = GC_get_heap_size(), unmapped_idle = GC_get_unmapped_bytes();
    size_t rss_idle = resident_bytes();
    printf("idle_runs_returned: heap %zu -> %zu KiB, unmapped %zu -> %zu KiB, "
           "resident %zu -> %zu KiB\n", heap_full >> 10, heap_idle >> 10,
           unmapped_before >> 10, unmapped_idle >> 10, rss_full >> 10, rss_idle >> 10);
    CHECKF(heap_idle <= heap_full / 4, "heap %zu KiB after idle collections (%zu before)",
           heap_idle >> 10, heap_full >> 10);
    CHECKF(unmapped_idle >= unmapped_before + TOTAL / 2, "unmapped only %zu KiB (%zu before)",
           unmapped_idle >> 10, unmapped_before >> 10);
    CHECKF(rss_idle + TOTAL / 2 <= rss_full, "resident %zu KiB after idle collections (%zu before)",
           rss_idle >> 10, rss_full >> 10);

    for (size_t j = 0; j < NKEPT && kept[j]; j++) check_obj(kept[j], j * KEEP_EVERY);
    reuse();
    GC_gcollect();
    for (size_t j = 0; j < NKEPT && kept[j]; j++) check_obj(kept[j], j * KEEP_EVERY);
    printf("idle_runs_returned: heap %zu KiB after reuse\n", GC_get_heap_size() >> 10);
    return 0;
}
