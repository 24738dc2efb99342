/* churn_scattered.c: a program that keeps a fixed set of survivors spread
 * over every block while it churns through garbage (every 7th object
 * replaces a random survivor) must run in a heap of a few times its live
 * size. Each collection then frees most slots of every block but empties
 * none; the heap must be reused, not grown at every collection (issue #15:
 * finalized allocation churn peaked at 4 x stock's RSS, plain GC_MALLOC
 * churn likewise). Argument "finalized" allocates through the disclaim
 * interface (GC_finalized_malloc), as the program did.
 */
#include <gc.h>
#include <gc/gc_disclaim.h>
#include <string.h>

#include "check.h"

#define SURVIVORS 100000
#define ALLOCATIONS 3000000L
#define OBJECT_BYTES 32
/* Survivors take 100,000 x 48 bytes (32 + the interior-pointer byte, in
   16-byte granules) = 4.6 MiB; stock libgc1 runs this in 8-9 MiB. */
#define HEAP_BOUND ((size_t)24 << 20)

void *survivors[SURVIVORS];   /* scanned as static data */
static long finalized;

static void count_finalized(void *obj, void *cd)
{
    (void)obj, (void)cd;
    finalized++;
}
static const struct GC_finalizer_closure closure = { count_finalized, NULL };

int main(int argc, char **argv)
{
    int use_finalized = argc > 1 && strcmp(argv[1], "finalized") == 0;
    GC_INIT();
    if (use_finalized) GC_init_finalized_malloc();
    unsigned r = 12345;
    size_t peak_heap = 0;
    for (long i = 0; i < ALLOCATIONS; i++) {
        void *o = use_finalized ? GC_finalized_malloc(OBJECT_BYTES, &closure)
                                : GC_MALLOC(OBJECT_BYTES);
        CHECK(o != NULL);
        r = r * 1103515245u + 12345u;
        if (i % 7 == 0) survivors[(r >> 8) % SURVIVORS] = o;
        if (i % 4096 == 0 && GC_get_heap_size() > peak_heap) peak_heap = GC_get_heap_size();
    }
    CHECKF(peak_heap <= HEAP_BOUND, "heap grew to %zu bytes for %d survivors (bound %zu)",
           peak_heap, SURVIVORS, HEAP_BOUND);
    if (use_finalized) CHECK(finalized > 0);
    printf("churn_scattered%s: peak heap %zu KiB, %lu collections\n",
           use_finalized ? " (finalized)" : "", peak_heap >> 10, (unsigned long)GC_get_gc_no());
    return 0;
}
