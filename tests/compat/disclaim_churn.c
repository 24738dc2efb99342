/* disclaim_churn.c: memory of finalized allocation churn (issue #15). Two
 * million GC_finalized_malloc objects of 16 to 64 bytes are allocated and
 * dropped at once: their closures run (at least 90% of them by the end) and
 * the heap stays small (bound: 16 MiB; 128 KiB on bibop and on stock
 * libgc1), so a finalized object is neither kept on a queue nor made to
 * survive cycles. Memory only, never time. Passes on stock libgc1. */
#include "compat.h"

#include <gc.h>
#include <gc/gc_disclaim.h>

#define N 2000000L
#define HEAP_BOUND ((size_t)16 << 20)

static unsigned long closures_run;

static void GC_CALLBACK count_closure(void *obj, void *cd)
{
    (void)obj;
    (void)cd;
    closures_run++;
}

static const struct GC_finalizer_closure closure = { count_closure, NULL };

static NOINLINE void churn(void)
{
    for (long i = 0; i < N; i++) {
        uintptr_t *p = GC_finalized_malloc(16 + (size_t)(i % 4) * 16, &closure);
        CHECK(p != NULL, "GC_finalized_malloc failed at object %ld", i);
        p[0] = (uintptr_t)i;
    }
}

int main(void)
{
    GC_INIT();
    GC_init_finalized_malloc();
    churn();
    compat_collect(3);
    size_t heap = GC_get_heap_size();
    printf("disclaim_churn: %ld objects, %lu closures run, heap %lu bytes, %lu collections\n", N,
           closures_run, (unsigned long)heap, (unsigned long)GC_get_gc_no());
    CHECK(AT_LEAST_PERCENT(closures_run, N, 90), "only %lu of %ld closures ran", closures_run,
          N);
    CHECK(heap <= HEAP_BOUND, "heap %lu bytes after churning finalized objects (bound %lu)",
          (unsigned long)heap, (unsigned long)HEAP_BOUND);
    printf("disclaim_churn: all checks passed\n");
    return 0;
}
