/* overdue_collects.c: a heap whose budget has room far beyond what the
 * pacing rule asks for still collects soon after a collection is due, not
 * when the room is used up (bibop: once twice what makes one due has been
 * allocated, no new block is taken before a collection). The room comes
 * from a 32 MiB structure that died; then, with 2.5 MiB live and a
 * free-space divisor of 10 (a collection due every ~0.5 MiB), 64 MiB of
 * garbage is allocated and the most allocated between two collections
 * (GC_get_bytes_since_gc) is checked: 1.0 MiB; 9.6 MiB before the rule,
 * when a cycle ran on until the budget was full. bibop only: stock libgc1
 * splits its free blocks freely and uses its whole 43 MiB heap first
 * (40 MiB between two collections). What stays alive is checked intact.
 */
#include <gc.h>

#include "check.h"

#define NODE_BYTES 48
#define BIG_NODES (512 * 1024)           /* 32 MiB: the budget grows for it */
#define LIVE_NODES (40 * 1024)           /* 2.5 MiB kept (64-byte slots) */
#define GARBAGE_BYTES ((size_t)64 << 20)
#define BOUND ((size_t)4 << 20)          /* allocated between two collections */

struct node { struct node *next; long value; long pad[3]; };

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

static struct node *keep;
static void *volatile big;
static void *volatile sink;

/* Garbage in short chains, the most bytes allocated since a collection
   returned. */
static NOINLINE size_t churn(void)
{
    size_t most = 0;
    for (size_t done = 0; done < GARBAGE_BYTES; done += NODE_BYTES) {
        struct node *x = GC_MALLOC(NODE_BYTES);
        CHECK(x != NULL);
        x->next = (struct node *)sink;
        sink = (done / NODE_BYTES) % 16 ? x : NULL;
        size_t since = GC_get_bytes_since_gc();
        if (since > most) most = since;
    }
    sink = NULL;
    return most;
}

int main(void)
{
    GC_INIT();
    keep = build(LIVE_NODES);
    big = build(BIG_NODES);
    big = NULL;
    clear_stack();
    GC_gcollect();
    GC_set_free_space_divisor(10);
    GC_gcollect();
    unsigned long gcs = GC_get_gc_no();
    size_t most = churn();
    gcs = GC_get_gc_no() - gcs;
    printf("overdue_collects: at most %zu KiB allocated between collections, "
           "%lu collections, heap %zu KiB\n", most >> 10, gcs, GC_get_heap_size() >> 10);
    CHECKF(most <= BOUND, "%zu KiB allocated between two collections with 2.5 MiB live "
           "and a divisor of 10 (%lu collections)", most >> 10, gcs);

    long n = 0;
    for (struct node *x = keep; x; x = x->next, n++) CHECK(x->value == LIVE_NODES - 1 - n);
    CHECK(n == LIVE_NODES);
    return 0;
}
