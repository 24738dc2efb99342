/* malloc_many.c: GC_malloc_many and GC_generic_malloc_many from several
 * threads while another thread collects all the time. Each list must hold
 * objects no one else holds: zeroed beyond the link (pointer-holding kind),
 * and each kept object keeps what its thread wrote into it across the
 * collections, until the thread drops it.
 *
 * bibop links a list outside the allocation lock (src/alloc.c,
 * alloc_many): a collection that stops the thread halfway must keep the
 * slots it has not linked yet. If it did not, it would free them, and they
 * would be handed out again (to this list and to another thread's at once):
 * a kept object's contents overwritten, or a fresh object not zeroed. */
#define _GNU_SOURCE
#include <gc.h>
#include <gc/gc_inline.h>

#include <pthread.h>
#include <stdatomic.h>

#include "tcommon.h"

#define WORKERS 4
#define CALLS 6000            /* lists per worker */
#define RING 4096             /* objects each worker keeps */

static atomic_int workers_left = WORKERS;

static uint64_t word_of(uint64_t tag, unsigned i) { return mix64(tag * 8 + i); }

static void fill(void **obj, size_t bytes, uint64_t tag)
{
    uint64_t *w = (uint64_t *)obj;
    for (unsigned i = 0; i < bytes / 8; i++) w[i] = word_of(tag, i);
}

static void check_kept(void **obj, size_t bytes, uint64_t tag, uintptr_t worker)
{
    const uint64_t *w = (const uint64_t *)obj;
    for (unsigned i = 0; i < bytes / 8; i++)
        TCHECK(w[i] == word_of(tag, i),
               "worker %lu: kept object %p (%zu bytes, tag %llu) word %u overwritten: %llx",
               (unsigned long)worker, (void *)obj, bytes, (unsigned long long)tag, i,
               (unsigned long long)w[i]);
}

struct ring {                  /* in the collected heap: traced */
    void **obj[RING];
    uint64_t tag[RING];
    size_t bytes[RING];
};

static void *worker(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    struct ring *ring = GC_MALLOC(sizeof *ring);
    TCHECK(ring != NULL, "worker %lu: no ring", (unsigned long)id);
    static const size_t sizes[] = { 16, 32, 48, 16, 96 };
    uint64_t seq = 0;
    unsigned next = 0;
    for (unsigned call = 0; call < CALLS; call++) {
        size_t bytes = sizes[call % 5];
        /* Pointer-holding kinds only: a list of pointer-free objects is
           not traced through its links, so one held across a collection
           loses its tail (on stock libgc1 too). */
        void *list;
        if (call % 3 == 2) GC_generic_malloc_many(bytes, GC_I_NORMAL, &list);
        else list = GC_malloc_many(bytes);
        TCHECK(list != NULL, "worker %lu: GC_malloc_many(%zu) returned NULL",
               (unsigned long)id, bytes);
        unsigned n = 0;
        while (list) {
            void **obj = list;
            list = *obj;
            for (unsigned i = 1; i < bytes / 8; i++)
                TCHECK(obj[i] == NULL,
                       "worker %lu: object %p of a fresh list (%zu bytes) not zeroed at word %u",
                       (unsigned long)id, (void *)obj, bytes, i);
            n++;
            if (n % 2) continue;   /* dropped at once */
            unsigned r = next++ % RING;
            if (ring->obj[r]) check_kept(ring->obj[r], ring->bytes[r], ring->tag[r], id);
            uint64_t tag = (uint64_t)id << 48 | ++seq;
            fill(obj, bytes, tag);
            ring->obj[r] = obj;
            ring->tag[r] = tag;
            ring->bytes[r] = bytes;
        }
        TCHECK(n >= 1, "worker %lu: empty list", (unsigned long)id);
    }
    for (unsigned r = 0; r < RING; r++)
        if (ring->obj[r]) check_kept(ring->obj[r], ring->bytes[r], ring->tag[r], id);
    atomic_fetch_sub(&workers_left, 1);
    return NULL;
}

static void *collector(void *arg)
{
    (void)arg;
    unsigned long n = 0;
    while (atomic_load(&workers_left) > 0) {
        GC_gcollect();
        n++;
    }
    return (void *)n;
}

int main(void)
{
    GC_INIT();
    t_watchdog(240);
    pthread_t c, w[WORKERS];
    TCHECK(pthread_create(&c, NULL, collector, NULL) == 0, "pthread_create");
    for (uintptr_t i = 0; i < WORKERS; i++)
        TCHECK(pthread_create(&w[i], NULL, worker, (void *)i) == 0, "pthread_create");
    for (int i = 0; i < WORKERS; i++) pthread_join(w[i], NULL);
    void *collections;
    pthread_join(c, &collections);
    TCHECK((uintptr_t)collections > 10, "only %lu collections ran",
           (unsigned long)(uintptr_t)collections);
    printf("malloc_many: %d workers x %d lists, %lu collections: ok\n", WORKERS, CALLS,
           (unsigned long)(uintptr_t)collections);
    return 0;
}
