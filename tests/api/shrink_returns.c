/* shrink_returns.c: when most of the heap dies, the collection that finds
 * it dead gives the memory back at once (bibop: chunks the shrunken budget
 * cannot reach are decommitted, whatever GC_UNMAP_THRESHOLD says; stock
 * libgc1 waits for 6 collections). Two cases: 64 MiB of small linked
 * objects dropped, then a 256 MiB pointer-free object dropped. What stays
 * alive is checked intact.
 */
#include <gc.h>

#include "check.h"

#define NODES (64 * 1024)
#define NODE_BYTES 1000           /* 64 MiB in all */
#define BIG_BYTES ((size_t)256 << 20)
#define BOUND ((size_t)16 << 20)  /* heap still committed after the drop */

struct node { struct node *next; long value; };

/* gc.h: the heap size excludes memory returned to the system. */
static size_t mapped_heap(void) { return GC_get_heap_size(); }

static NOINLINE struct node *build(long n)
{
    struct node *head = NULL;
    for (long i = 0; i < n; i++) {
        struct node *x = GC_MALLOC(NODE_BYTES);
        CHECK(x != NULL);
        x->next = head;
        x->value = i;
        head = x;
    }
    return head;
}

static NOINLINE void *big_atomic(void)
{
    char *p = GC_MALLOC_ATOMIC(BIG_BYTES);
    CHECK(p != NULL);
    p[0] = 1;
    p[BIG_BYTES - 1] = 2;
    return p;
}

static struct node *keep;   /* a small survivor, checked at the end */
static void *volatile list, *volatile big;

int main(void)
{
    GC_INIT();
    keep = build(100);
    list = build(NODES);
    size_t full = mapped_heap();
    CHECKF(full >= (size_t)48 << 20, "only %zu KiB mapped with 64 MiB live", full >> 10);
    list = NULL;
    clear_stack();
    GC_gcollect();
    size_t after = mapped_heap();
    CHECKF(after <= BOUND, "small objects: %zu KiB still mapped after the collection that "
           "freed them (%zu KiB before)", after >> 10, full >> 10);

    big = big_atomic();
    full = mapped_heap();
    CHECK(full >= BIG_BYTES);
    big = NULL;
    clear_stack();
    GC_gcollect();
    after = mapped_heap();
    CHECKF(after <= BOUND, "large object: %zu KiB still mapped after the collection that "
           "freed it (%zu KiB before)", after >> 10, full >> 10);

    long n = 0;
    for (struct node *x = keep; x; x = x->next, n++) CHECK(x->value == 99 - n);
    CHECK(n == 100);
    printf("shrink_returns: %zu KiB mapped at the end\n", after >> 10);
    return 0;
}
