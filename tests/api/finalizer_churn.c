/* finalizer_churn.c: a program that registers a finalizer on every object
 * it allocates (ECL does, on each key of a weak hash table) and drops most
 * of them at once must run in a heap close to its live size: each dead
 * finalizable object survives one more collection, and only a collection
 * frees it, so when the heap is full and finalizers keep coming, the
 * collector collects rather than grows (bdwgc's rule). Here 12 MiB stay
 * live and 2,000,000 finalizable objects churn through; stock libgc1 runs
 * it in a heap of about 16 MiB, bibop grew to 23 MiB before it followed
 * the rule. Every kept object must survive with its contents and every
 * dropped one be finalized once, eventually.
 * Measured (heap peak / process peak RSS): stock libgc1 20 / 19 MiB;
 * bibop before the rule 78 / 191 MiB (each cycle's dead keys, kept for
 * their finalizers, raised the live size and so the next cycle's
 * allocation: the heap and the finalizer table fed each other); with it
 * 32 / 50 MiB. The bounds sit between.
 */
#include <gc.h>

#include "check.h"

#define LIVE_OBJECTS 98304         /* x 128 bytes: 12 MiB kept live */
#define LIVE_BYTES 128
#define CHURN 2000000L
#define KEEP_EVERY 1000
#define KEY_WORDS 4
#define HEAP_BOUND ((size_t)48 << 20)
#define PEAK_RSS_BOUND_KIB (128 << 10)

/* The process's peak resident memory (VmHWM), in KiB; 0 if unknown. */
static long peak_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    long kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    fclose(f);
    return kib;
}

static void **live;
static void **kept;
static long finalized;

static void count_finalized(void *obj, void *cd)
{
    (void)cd;
    CHECK(((long *)obj)[1] == ((long *)obj)[0] * 3);   /* intact until finalized */
    finalized++;
}

int main(void)
{
    GC_INIT();
    live = GC_MALLOC(LIVE_OBJECTS * sizeof *live);
    kept = GC_MALLOC((CHURN / KEEP_EVERY) * sizeof *kept);
    CHECK(live != NULL && kept != NULL);
    for (long i = 0; i < LIVE_OBJECTS; i++) {
        live[i] = GC_MALLOC(LIVE_BYTES);
        CHECK(live[i] != NULL);
        ((long *)live[i])[0] = i;
        if (i > 0) ((void **)live[i])[1] = live[i - 1];
    }
    size_t peak_heap = 0;
    for (long i = 0; i < CHURN; i++) {
        long *key = GC_MALLOC(KEY_WORDS * sizeof(long));
        CHECK(key != NULL);
        key[0] = i;
        key[1] = i * 3;
        GC_REGISTER_FINALIZER(key, count_finalized, NULL, NULL, NULL);
        if (i % KEEP_EVERY == 0) kept[i / KEEP_EVERY] = key;
        if (i % 4096 == 0) {
            size_t heap = GC_get_heap_size();   /* excludes unmapped memory */
            if (heap > peak_heap) peak_heap = heap;
            GC_invoke_finalizers();
        }
    }
    GC_gcollect();
    GC_invoke_finalizers();
    for (long i = 0; i < CHURN / KEEP_EVERY; i++) {
        long *key = kept[i];
        CHECK(key[0] == i * KEEP_EVERY && key[1] == key[0] * 3);
    }
    for (long i = 0; i < LIVE_OBJECTS; i++) CHECK(((long *)live[i])[0] == i);
    CHECKF(peak_heap <= HEAP_BOUND, "heap grew to %zu KiB with 12 MiB live (bound %zu KiB)",
           peak_heap >> 10, HEAP_BOUND >> 10);
    long rss = peak_rss_kib();
    CHECKF(rss <= PEAK_RSS_BOUND_KIB, "peak RSS %ld KiB (bound %d KiB)", rss, PEAK_RSS_BOUND_KIB);
    CHECK(finalized > CHURN / 2 && finalized <= CHURN - CHURN / KEEP_EVERY);
    printf("finalizer_churn: peak heap %zu KiB, peak RSS %ld KiB, %lu collections, %ld finalized\n",
           peak_heap >> 10, rss, (unsigned long)GC_get_gc_no(), finalized);
    return 0;
}
