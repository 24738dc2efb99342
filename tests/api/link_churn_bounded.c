/* link_churn_bounded.c: a program that registers a disappearing link for
 * each of many short-lived objects (a weak hash table churned: Guile's,
 * ECL's) keeps its memory bounded even when the heap has room for all of
 * them, because a link table about to grow past a few thousand entries
 * first collects, as bdwgc does before it grows such a table; the
 * same for finalizers. The heap is expanded to 512 MiB first, so that
 * allocation alone would never collect; then 1,000,000 objects of 32 bytes
 * each get a link (cells in one pointer-free array) and are dropped, and
 * 1,000,000 more get a finalizer. The resident set may grow by at most
 * 32 MiB over the run (each million objects alone is 32 MiB, plus its
 * table entries), and the links of dropped objects read NULL after a
 * collection.
 */
#include <gc.h>

#include <stdio.h>

#include "check.h"

#define N 1000000
#define OBJ 32
#define BOUND ((size_t)32 << 20)

static void **cells;   /* pointer-free: links do not keep their objects */
static long finalized;

static void count_finalized(void *obj, void *cd)
{
    (void)obj, (void)cd;
    finalized++;
}

static NOINLINE void register_links(void)
{
    for (long i = 0; i < N; i++) {
        void *o = GC_MALLOC(OBJ);
        CHECK(o != NULL);
        cells[i] = o;
        CHECK(GC_GENERAL_REGISTER_DISAPPEARING_LINK(&cells[i], o) == GC_SUCCESS);
    }
}

static NOINLINE void register_finalizers(void)
{
    for (long i = 0; i < N; i++) {
        void *o = GC_MALLOC(OBJ);
        CHECK(o != NULL);
        GC_REGISTER_FINALIZER(o, count_finalized, NULL, NULL, NULL);
    }
}

int main(void)
{
    GC_INIT();
    cells = GC_MALLOC_ATOMIC(N * sizeof *cells);
    CHECK(cells != NULL);
    CHECK(GC_expand_hp((size_t)512 << 20));
    size_t rss0 = resident_bytes();
    GC_word gc0 = GC_get_gc_no();

    register_links();
    size_t rss_links = resident_bytes();
    GC_word gc_links = GC_get_gc_no() - gc0;
    clear_stack();
    GC_gcollect();
    long cleared = 0;
    for (long i = 0; i < N; i++) cleared += cells[i] == NULL;

    register_finalizers();
    size_t rss_fin = resident_bytes();
    GC_word gc_fin = GC_get_gc_no() - gc0 - gc_links - 1;
    clear_stack();
    GC_gcollect();
    GC_invoke_finalizers();

    printf("link_churn_bounded: links: %lu collections, resident +%zu KiB, %ld of %d cleared; "
           "finalizers: %lu collections, resident +%zu KiB, %ld run\n",
           (unsigned long)gc_links, (rss_links - rss0) >> 10, cleared, N,
           (unsigned long)gc_fin, (rss_fin - rss0) >> 10, finalized);
    CHECKF(rss_links <= rss0 + BOUND, "resident set grew by %zu KiB registering links",
           (rss_links - rss0) >> 10);
    CHECKF(rss_fin <= rss0 + BOUND, "resident set grew by %zu KiB registering finalizers",
           (rss_fin - rss0) >> 10);
    CHECKF(cleared >= N / 2, "only %ld of %d links to dropped objects cleared", cleared, N);
    CHECKF(finalized >= N / 2, "only %ld of %d finalizers ran", finalized, N);
    return 0;
}
