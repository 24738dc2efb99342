/* boxroot.basic: create / get / get_ref / modify / delete, with the contents
 * of every root checked (checksummed chains of GC objects) across many
 * collections, while garbage churn reuses any wrongly freed memory.
 *
 * 20,000 roots, handles and seeds in malloc'd arrays (never scanned); each
 * round modifies ~10 % (boxroot_modify or a store through boxroot_get_ref),
 * deletes and recreates ~10 %, sets ~1 % to NULL, churns, collects, and
 * checks every root. The stats must agree with the program's own count. */
#define GC_THREADS
#include <gc.h>
#include "brtest.h"

#define N 20000
#define ROUNDS 30

static boxroot *h;
static uint64_t *seed;         /* 0: the root holds NULL */
static uint64_t next_seed = 1;
static size_t created, deleted;

static void check_all(const char *when)
{
    for (size_t i = 0; i < N; i++) {
        BR_CHECK(h[i] != NULL, "%s: handle %zu lost", when, i);
        void *v = boxroot_get(h[i]);
        BR_CHECK(boxroot_get_ref(h[i]) == (void **)h[i], "%s: get_ref is not the cell", when);
        if (seed[i] == 0) {
            BR_CHECK(v == NULL, "%s: root %zu should hold NULL, holds %p", when, i, v);
        } else {
            BR_VALUE_CHECK(v, seed[i], when);
        }
    }
}

static void check_stats(const char *when)
{
    struct boxroot_stats s;
    br_stats(&s);
    BR_CHECK(s.live == created - deleted, "%s: stats.live %zu, expected %zu", when, s.live,
             created - deleted);
    BR_CHECK(s.creations == created, "%s: stats.creations %zu, expected %zu", when, s.creations,
             created);
    BR_CHECK(s.deletions == deleted, "%s: stats.deletions %zu, expected %zu", when, s.deletions,
             deleted);
    /* loose: a pool holds far more than 512 roots; the program never has
       more than N + N/10 live */
    BR_CHECK(s.pools <= 2 + (N + N / 10) / 512, "%s: stats.pools %zu for at most %d live roots",
             when, s.pools, N + N / 10);
}

static __attribute__((noinline)) void create_all(void)
{
    for (size_t i = 0; i < N; i++) {
        seed[i] = next_seed++;
        void *v = br_value_make(seed[i]);
        h[i] = boxroot_create(v);
        BR_CHECK(h[i] != NULL, "boxroot_create returned NULL (root %zu)", i);
        BR_CHECK(boxroot_get(h[i]) == v, "boxroot_get does not return the value stored");
        created++;
    }
    /* every handle is a distinct cell */
    for (size_t i = 1; i < N; i++) BR_CHECK(h[i] != h[i - 1], "two roots share a cell");
}

static __attribute__((noinline)) void mutate(br_rng *r)
{
    for (size_t j = 0; j < N / 10; j++) {      /* modify */
        size_t i = br_below(r, N);
        uint64_t s = next_seed++;
        void *v = br_value_make(s);
        boxroot before = h[i];
        if (j & 1) {
            boxroot_modify(&h[i], v);
        } else {
            *boxroot_get_ref(h[i]) = v;
        }
        BR_CHECK(h[i] == before, "boxroot_modify moved the root");
        BR_CHECK(boxroot_get(h[i]) == v, "modify did not store the value");
        seed[i] = s;
    }
    for (size_t j = 0; j < N / 10; j++) {      /* delete and recreate */
        size_t i = br_below(r, N);
        boxroot_delete(h[i]);
        deleted++;
        seed[i] = next_seed++;
        h[i] = boxroot_create(br_value_make(seed[i]));
        BR_CHECK(h[i] != NULL, "boxroot_create returned NULL");
        created++;
    }
    for (size_t j = 0; j < N / 100; j++) {     /* NULL values */
        size_t i = br_below(r, N);
        boxroot_modify(&h[i], NULL);
        seed[i] = 0;
    }
}

int main(void)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    h = malloc(N * sizeof *h);
    seed = malloc(N * sizeof *seed);
    BR_CHECK(h && seed, "malloc");

    br_stage = "create";
    create_all();
    br_scrub_stack();
    check_all("after create");
    check_stats("after create");

    br_rng r = { 42 };
    GC_word gc0 = GC_get_gc_no();
    br_stage = "rounds";
    for (int round = 0; round < ROUNDS; round++) {
        mutate(&r);
        br_scrub_stack();
        br_churn(20000, 48);
        GC_gcollect();
        check_all("after a round");
    }
    check_stats("after the rounds");
    GC_word gcs = GC_get_gc_no() - gc0;
    BR_CHECK(gcs >= ROUNDS, "only %lu collections ran", (unsigned long)gcs);

    br_stage = "delete";
    for (size_t i = 0; i < N; i++) {
        boxroot_delete(h[i]);
        deleted++;
    }
    check_stats("after deleting all");
    printf("boxroot.basic: %zu creations, %zu deletions, %lu collections: ok\n", created, deleted,
           (unsigned long)gcs);
    return 0;
}
