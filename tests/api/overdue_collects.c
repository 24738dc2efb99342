/* overdue_collects.c: the free slots of partly used blocks do not make a
 * cycle longer than the budget's room. A 16 MiB structure dies (the budget
 * keeps room for it); a collection leaves 8 MiB of 64-byte blocks one
 * eighth full (7 MiB of free slots) beside 1 MiB of other live data; then
 * garbage is allocated half in that size (into the free slots) and half in
 * 128-byte objects (new blocks), and the most allocated between two
 * collections (GC_get_bytes_since_gc) is checked. bibop used to collect
 * only when the new blocks had filled the budget, by which time as much
 * again had gone into the free slots: 24.4 MiB in a cycle; now a new block
 * waits for a collection once the cycle has allocated the budget's room
 * (or twice what makes a collection due, if more): 17.4 MiB, stock libgc1
 * 17.6 MiB. What stays alive is checked intact.
 */
#include <gc.h>

#include "check.h"

#define SMALL_BYTES 48                   /* 64-byte slots */
#define OTHER_BYTES 112                  /* 128-byte slots */
#define SPARSE_NODES (128 * 1024)        /* 8 MiB of 64-byte slots */
#define KEEP_EVERY 8
#define LIVE_NODES (16 * 1024)           /* 1 MiB more, in 64-byte slots */
#define BIG_NODES (256 * 1024)           /* 16 MiB that dies: the budget's room */
#define GARBAGE_BYTES ((size_t)96 << 20)
#define BOUND ((size_t)21 << 20)         /* allocated between two collections */

struct node { struct node *next; long value; };

static NOINLINE struct node *build(long n, long keep_every)
{
    struct node *head = NULL;
    for (long i = 0; i < n; i++) {
        struct node *x = GC_MALLOC(SMALL_BYTES);
        CHECK(x != NULL);
        if (i % keep_every) continue;
        x->next = head;
        x->value = i;
        head = x;
    }
    return head;
}

static struct node *keep, *sparse, *volatile big;
static void *volatile sink;

/* Garbage in short chains, half of it in each size; the most bytes
   allocated since a collection returned. */
static NOINLINE size_t churn(void)
{
    size_t most = 0;
    for (size_t done = 0; done < GARBAGE_BYTES; done += SMALL_BYTES + OTHER_BYTES) {
        struct node *x = GC_MALLOC(SMALL_BYTES), *y = GC_MALLOC(OTHER_BYTES);
        CHECK(x != NULL && y != NULL);
        x->next = y;
        y->next = (struct node *)sink;
        sink = (done / OTHER_BYTES) % 16 ? x : NULL;
        size_t since = GC_get_bytes_since_gc();
        if (since > most) most = since;
    }
    sink = NULL;
    return most;
}

static long check_list(const struct node *x, long step)
{
    long n = 0;
    for (; x; x = x->next, n++) CHECK(x->value % step == 0);
    return n;
}

int main(void)
{
    GC_INIT();
    keep = build(LIVE_NODES, 1);
    big = build(BIG_NODES, 1);
    big = NULL;
    sparse = build(SPARSE_NODES, KEEP_EVERY);
    clear_stack();
    GC_gcollect();
    unsigned long gcs = GC_get_gc_no();
    size_t most = churn();
    gcs = GC_get_gc_no() - gcs;
    printf("overdue_collects: at most %zu KiB allocated between collections, "
           "%lu collections, heap %zu KiB\n", most >> 10, gcs, GC_get_heap_size() >> 10);
    CHECKF(most <= BOUND, "%zu KiB allocated between two collections with 2 MiB live "
           "and 7 MiB of free slots (%lu collections)", most >> 10, gcs);

    CHECK(check_list(keep, 1) == LIVE_NODES);
    CHECK(check_list(sparse, KEEP_EVERY) == SPARSE_NODES / KEEP_EVERY);
    return 0;
}
