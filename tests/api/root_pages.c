/* root_pages.c: static roots that are rewritten between collections, and
 * pages of them that are not (a collector that skipped unwritten root
 * pages, as a scratch build of session 23 did, must still find everything:
 * docs/BENCHMARKS.md, "Session 23").
 * - A static table of 32,768 pointers (64 pages of .bss; two of its pages
 *   also added with GC_add_roots) and a page-aligned mmap'd region added
 *   with GC_add_roots point to 48-byte objects, each
 *   filled with a pattern of its slot and version. Each round replaces a
 *   few slots, by plain stores, by memcpy, by read(2) from a pipe straight
 *   into the table, from another thread, or in the added region; most
 *   pages stay untouched for hundreds of collections. Garbage of the same
 *   size is allocated between collections, so an object freed while a
 *   root still pointed to it is reused and fails its pattern check.
 * - Exclusions: objects referenced only from a static area excluded with
 *   GC_exclude_static_roots are reclaimed (their disappearing links are
 *   cleared); objects referenced from such an area, kept alive elsewhere
 *   while it was excluded, survive once GC_clear_exclusion_table makes the
 *   area a root again, although the area's pages were not written since.
 * Usage: api_root_pages [rounds]. */
#define _GNU_SOURCE
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include <sys/mman.h>

#include "check.h"

#define TABLE_SLOTS 32768               /* 64 pages of pointers */
#define REGION_SLOTS 4096               /* 8 pages, GC_add_roots */
#define OBJ_BYTES 48
#define OBJ_WORDS (OBJ_BYTES / sizeof(uint64_t))
#define CHANGES_PER_ROUND 64
#define GARBAGE_PER_ROUND 20000
#define AREA_SLOTS 2048                 /* the excluded areas: 4 pages each */

static void *table[TABLE_SLOTS] __attribute__((aligned(4096)));
static void *excluded_dying[AREA_SLOTS] __attribute__((aligned(4096)));
static void *excluded_kept[AREA_SLOTS] __attribute__((aligned(4096)));
static void **region;                   /* REGION_SLOTS pointers, mmap'd */
static uint32_t *table_version, *region_version;   /* malloc'd: not roots */

static uint64_t word_of(unsigned slot, uint32_t version, unsigned k, unsigned kind)
{
    return ((uint64_t)kind << 60) ^ ((uint64_t)slot << 32) ^ ((uint64_t)version << 4) ^ k;
}

static void *make_object(unsigned slot, uint32_t version, unsigned kind)
{
    uint64_t *p = GC_malloc(OBJ_BYTES);
    CHECK(p != NULL);
    for (unsigned k = 0; k < OBJ_WORDS; k++) p[k] = word_of(slot, version, k, kind);
    return p;
}

static void check_object(const void *obj, unsigned slot, uint32_t version, unsigned kind,
                         const char *where)
{
    const uint64_t *p = obj;
    CHECKF(p != NULL, "%s slot %u: NULL", where, slot);
    for (unsigned k = 0; k < OBJ_WORDS; k++)
        CHECKF(p[k] == word_of(slot, version, k, kind),
               "%s slot %u (version %u): word %u is %#llx, expected %#llx: the object was "
               "freed while a root pointed to it", where, slot, version, k,
               (unsigned long long)p[k], (unsigned long long)word_of(slot, version, k, kind));
}

static void check_all(const char *when)
{
    for (unsigned i = 0; i < TABLE_SLOTS; i++) check_object(table[i], i, table_version[i], 1, when);
    for (unsigned i = 0; i < REGION_SLOTS; i++) check_object(region[i], i, region_version[i], 2, when);
}

/* Same size as the objects: freed slots are reused at once. */
static NOINLINE void churn(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t *g = GC_malloc(OBJ_BYTES);
        CHECK(g != NULL);
        memset(g, 0xA5, OBJ_BYTES);
    }
}

struct thread_job { unsigned first, count; void **values; };

static void *store_from_thread(void *arg)
{
    struct thread_job *job = arg;
    for (unsigned i = 0; i < job->count; i++) table[job->first + i] = job->values[i];
    return NULL;
}

static NOINLINE void change_table(unsigned round, rng_t *rng)
{
    unsigned method = round % 5;
    unsigned first = (unsigned)rng_below(rng, TABLE_SLOTS - CHANGES_PER_ROUND);
    unsigned region_first = first % (REGION_SLOTS - CHANGES_PER_ROUND);
    void **values = malloc(CHANGES_PER_ROUND * sizeof *values);
    CHECK(values != NULL);
    for (unsigned i = 0; i < CHANGES_PER_ROUND; i++) {
        unsigned slot = (method == 4 ? region_first : first) + i;
        uint32_t version = method == 4 ? region_version[slot] + 1 : table_version[slot] + 1;
        values[i] = make_object(slot, version, method == 4 ? 2 : 1);
    }
    switch (method) {
    case 0:   /* plain stores */
        for (unsigned i = 0; i < CHANGES_PER_ROUND; i++) table[first + i] = values[i];
        break;
    case 1:
        memcpy(&table[first], values, CHANGES_PER_ROUND * sizeof *values);
        break;
    case 2: { /* the kernel writes the table */
        int fds[2];
        CHECK(pipe(fds) == 0);
        size_t bytes = CHANGES_PER_ROUND * sizeof *values;
        CHECK(write(fds[1], values, bytes) == (ssize_t)bytes);
        CHECK(read(fds[0], &table[first], bytes) == (ssize_t)bytes);
        close(fds[0]);
        close(fds[1]);
        break;
    }
    case 3: {
        struct thread_job job = { first, CHANGES_PER_ROUND, values };
        pthread_t t;
        CHECK(pthread_create(&t, NULL, store_from_thread, &job) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        break;
    }
    case 4:
        for (unsigned i = 0; i < CHANGES_PER_ROUND; i++) region[region_first + i] = values[i];
        break;
    }
    for (unsigned i = 0; i < CHANGES_PER_ROUND; i++) {
        if (method == 4) region_version[region_first + i]++;
        else table_version[first + i]++;
    }
    memset(values, 0, CHANGES_PER_ROUND * sizeof *values);
    free(values);
}

/* Objects only the excluded area points to: their links are cleared. */
static NOINLINE void check_excluded_area_not_scanned(void)
{
    void **links = malloc(AREA_SLOTS * sizeof *links);   /* malloc'd: not a root */
    CHECK(links != NULL);
    for (unsigned i = 0; i < AREA_SLOTS; i++) {
        excluded_dying[i] = make_object(i, 0, 3);
        links[i] = excluded_dying[i];
        CHECK(GC_general_register_disappearing_link(&links[i], excluded_dying[i]) == GC_SUCCESS);
    }
    GC_exclude_static_roots(excluded_dying, excluded_dying + AREA_SLOTS);
    for (int i = 0; i < 4; i++) {
        churn(GARBAGE_PER_ROUND);
        GC_gcollect();
    }
    unsigned cleared = 0;
    for (unsigned i = 0; i < AREA_SLOTS; i++) cleared += links[i] == NULL;
    /* A few may be held by stray words (conservative stack). */
    CHECKF(cleared >= AREA_SLOTS * 9 / 10, "only %u of %u objects referenced from an excluded "
           "static area were reclaimed", cleared, AREA_SLOTS);
    for (unsigned i = 0; i < AREA_SLOTS; i++)
        if (links[i]) GC_unregister_disappearing_link(&links[i]);
    free(links);
}

/* The area is excluded for a few collections, then becomes a root again
   without being written: what it points to must live. */
static NOINLINE void check_area_included_again(void)
{
    void **holder = GC_malloc_uncollectable(AREA_SLOTS * sizeof *holder);
    CHECK(holder != NULL);
    for (unsigned i = 0; i < AREA_SLOTS; i++) {
        excluded_kept[i] = make_object(i, 7, 4);
        holder[i] = excluded_kept[i];
    }
    GC_exclude_static_roots(excluded_kept, excluded_kept + AREA_SLOTS);
    for (int i = 0; i < 4; i++) {
        churn(GARBAGE_PER_ROUND);
        GC_gcollect();
    }
    memset(holder, 0, AREA_SLOTS * sizeof *holder);   /* the heap, not the area */
    GC_free(holder);
    GC_clear_exclusion_table();
    for (int i = 0; i < 6; i++) {
        churn(GARBAGE_PER_ROUND);
        GC_gcollect();
        for (unsigned k = 0; k < AREA_SLOTS; k++)
            check_object(excluded_kept[k], k, 7, 4, "area included again");
    }
}

int main(int argc, char **argv)
{
    unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 400;
    rng_t rng = rng_seeded(20261127);
    GC_INIT();
    table_version = calloc(TABLE_SLOTS, sizeof *table_version);
    region_version = calloc(REGION_SLOTS, sizeof *region_version);
    CHECK(table_version && region_version);
    region = mmap(NULL, REGION_SLOTS * sizeof *region, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(region != MAP_FAILED);
    GC_add_roots(region, region + REGION_SLOTS);
    /* Also a range inside the table's segment: two ranges share its pages. */
    GC_add_roots(&table[4096], &table[4096 + 1024]);
    for (unsigned i = 0; i < TABLE_SLOTS; i++) table[i] = make_object(i, 0, 1);
    for (unsigned i = 0; i < REGION_SLOTS; i++) region[i] = make_object(i, 0, 2);

    for (unsigned r = 0; r < rounds; r++) {
        change_table(r, &rng);
        churn(GARBAGE_PER_ROUND);
        if (r % 3 == 0) GC_gcollect();
        check_all("after a round");
    }
    printf("%u rounds, %lu collections: every object a static root points to is intact\n",
           rounds, (unsigned long)GC_get_gc_no());
    check_excluded_area_not_scanned();
    check_area_included_again();
    check_all("at the end");
    printf("excluded static areas: not scanned while excluded, scanned again after "
           "GC_clear_exclusion_table\n");
    return 0;
}
