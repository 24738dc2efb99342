/* disclaim_threads.c: GC_finalized_malloc from 4 threads at once, each
 * allocating 25,000 objects (every 50th kept reachable) and collecting now
 * and then, so that collections stop threads in the middle of finalized
 * allocations: no reachable object is ever finalized, none twice, each
 * closure sees its own object intact; once everything is dropped, most
 * objects are finalized (conservative retention allows a few to stay).
 * Procedures run with the allocation lock held, one at a time: the counters
 * need no atomics. */
#include "compat.h"

#include <pthread.h>
#include <gc.h>
#include <gc/gc_disclaim.h>

#define THREADS 4
#define PER_THREAD 25000
#define KEEP_EVERY 50
#define TOTAL (THREADS * PER_THREAD)
#define FILLER_ID TOTAL
#define MAX_ROUNDS 12

static unsigned char calls[TOTAL + 1];
static int bad_object;
static uintptr_t **kept[THREADS];   /* GC_MALLOC'd arrays: roots through this static */

static void GC_CALLBACK count_finalized(void *obj, void *cd)
{
    uintptr_t *p = obj;
    (void)cd;
    if (p[0] > TOTAL || p[1] != ~p[0]) {
        if (!bad_object) fprintf(stderr, "damaged: %p %lx %lx\n", obj, (unsigned long)p[0], (unsigned long)p[1]);
        bad_object = 1;
        return;
    }
    if (calls[p[0]] < 255) calls[p[0]]++;
}

static const struct GC_finalizer_closure closure = { count_finalized, NULL };

/* The latest object: without it, the compiler may drop the writes into a
   fresh (malloc-attributed) object that a caller discards (the fillers). */
static void *volatile latest;

static NOINLINE uintptr_t *new_finalized(uintptr_t id, size_t bytes)
{
    uintptr_t *p = GC_finalized_malloc(bytes, &closure);
    CHECK(p != NULL, "GC_finalized_malloc failed");
    p[0] = id;
    p[1] = ~id;
    latest = p;
    return p;
}

static void *worker(void *arg)
{
    unsigned t = (unsigned)(uintptr_t)arg;
    uintptr_t **mine = GC_MALLOC(PER_THREAD / KEEP_EVERY * sizeof *mine);
    CHECK(mine != NULL, "GC_MALLOC failed");
    kept[t] = mine;
    for (unsigned i = 0; i < PER_THREAD; i++) {
        uintptr_t *p = new_finalized((uintptr_t)t * PER_THREAD + i, 16 + (i % 4) * 16);
        if (i % KEEP_EVERY == 0) mine[i / KEEP_EVERY] = p;
        if (i % 5000 == 2500 && t == 1) GC_gcollect();
    }
    return NULL;
}

static unsigned count(unsigned step, unsigned *twice)
{
    unsigned ran = 0;
    *twice = 0;
    for (unsigned i = 0; i < TOTAL; i += step) {
        ran += calls[i] != 0;
        *twice += calls[i] > 1;
    }
    return ran;
}

static NOINLINE void collect_with_fillers(void)
{
    for (int i = 0; i < 400; i++) (void)new_finalized(FILLER_ID, 16 + (i % 4) * 16);
    compat_collect(1);
}

int main(void)
{
    GC_INIT();
    GC_allow_register_threads();
    GC_init_finalized_malloc();
    pthread_t th[THREADS];
    for (unsigned t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t) == 0, "pthread_create");
    for (unsigned t = 0; t < THREADS; t++) CHECK(pthread_join(th[t], NULL) == 0, "pthread_join");

    unsigned twice, ran = 0, dropped = TOTAL - TOTAL / KEEP_EVERY;
    for (int r = 0; r < MAX_ROUNDS && !AT_LEAST_PERCENT(ran, dropped, 90); r++) {
        collect_with_fillers();
        ran = count(1, &twice);
        CHECK(twice == 0, "%u objects finalized twice", twice);
        unsigned kept_ran = count(KEEP_EVERY, &twice);
        CHECK(kept_ran == 0, "%u reachable objects finalized", kept_ran);
    }
    CHECK(!bad_object, "a closure saw a damaged object");
    CHECK(AT_LEAST_PERCENT(ran, dropped, 90), "only %u of %u dropped objects finalized", ran,
          dropped);
    for (unsigned t = 0; t < THREADS; t++)
        for (unsigned i = 0; i < PER_THREAD / KEEP_EVERY; i++) {
            uintptr_t id = (uintptr_t)t * PER_THREAD + (uintptr_t)i * KEEP_EVERY;
            CHECK(kept[t][i][0] == id && kept[t][i][1] == ~id, "kept object %lu damaged",
                  (unsigned long)id);
        }
    printf("threads: %u of %u dropped objects finalized once, none of the %u kept\n", ran,
           dropped, TOTAL / KEEP_EVERY);

    for (unsigned t = 0; t < THREADS; t++) kept[t] = NULL;
    unsigned all = 0;
    for (int r = 0; r < MAX_ROUNDS && !AT_LEAST_PERCENT(all, TOTAL, 90); r++) {
        collect_with_fillers();
        all = count(1, &twice);
        CHECK(twice == 0, "%u objects finalized twice after dropping all", twice);
    }
    latest = NULL;
    CHECK(!bad_object, "a closure saw a damaged object");
    CHECK(AT_LEAST_PERCENT(all, TOTAL, 90), "only %u of %u finalized after dropping all", all,
          TOTAL);
    printf("threads: after dropping all, %u of %u finalized, none twice\n", all, TOTAL);
    return 0;
}
