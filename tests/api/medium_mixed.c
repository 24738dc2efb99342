/* medium_mixed.c: medium objects (300 KiB-1.5 MiB, below a chunk) that come
 * and go among small objects whose survivors are scattered must not fragment
 * the heap: its committed size stays within 1.45 x the bytes in blocks in
 * use. Collections are explicit (every 24 MiB allocated) so the bound does
 * not depend on pacing. With one pool of free runs, small blocks cut the
 * runs medium objects left and every new medium object took a fresh chunk:
 * 1.58-1.77 x over five seeds; stock libgc1 1.31-1.40 x; two spaces
 * (heap.c) 1.17-1.27 x. An argument sets the seed.
 */
#include <gc.h>

#include "check.h"

#define SMALL_LIVE 50000
#define MEDIUM_LIVE 8
#define MEDIUM_MIN ((size_t)300 << 10)
#define MEDIUM_SPAN ((size_t)1200 << 10)
#define ALLOCATIONS 2000000L
#define COLLECT_EVERY ((size_t)24 << 20)
#define MAX_HEAP_PER_USED 1.45

void *small_live[SMALL_LIVE];     /* scanned as static data */
void *medium_live[MEDIUM_LIVE];

int main(int argc, char **argv)
{
    GC_INIT();
    GC_disable();
    unsigned r = argc > 1 ? (unsigned)atoi(argv[1]) : 12345;
    check_seed_ = r;
    size_t since = 0, peak_heap = 0, peak_used = 0;
    for (long i = 0; i < ALLOCATIONS; i++) {
        r = r * 1103515245u + 12345u;
        size_t bytes = 16 + (r >> 26) * 8;
        void *o = GC_MALLOC(bytes);
        CHECK(o != NULL);
        since += bytes;
        if (i % 3 == 0) small_live[(r >> 3) % SMALL_LIVE] = o;
        if (i % 512 == 0) {
            size_t medium = MEDIUM_MIN + (r >> 5) % MEDIUM_SPAN;
            void *m = GC_MALLOC_ATOMIC(medium);
            CHECK(m != NULL);
            medium_live[(r >> 11) % MEDIUM_LIVE] = m;
            since += medium;
        }
        if (since >= COLLECT_EVERY) {
            size_t heap = GC_get_heap_size(), used = heap - GC_get_free_bytes();
            if (heap > peak_heap) peak_heap = heap;
            if (used > peak_used) peak_used = used;
            GC_enable();
            GC_gcollect();
            GC_disable();
            since = 0;
        }
    }
    CHECK(peak_used > 0);
    double ratio = (double)peak_heap / (double)peak_used;
    CHECKF(ratio <= MAX_HEAP_PER_USED,
           "the heap peaked at %zu KiB for at most %zu KiB in blocks in use (%.2f x, bound %.2f x)",
           peak_heap >> 10, peak_used >> 10, ratio, MAX_HEAP_PER_USED);
    printf("medium_mixed: peak heap %zu KiB, peak in use %zu KiB (%.2f x), %lu collections\n",
           peak_heap >> 10, peak_used >> 10, ratio, (unsigned long)GC_get_gc_no());
    return 0;
}
