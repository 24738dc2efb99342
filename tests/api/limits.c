/* limits.c: heap-limit exhaustion. With a 64 MiB limit (GC_set_max_heap_size,
 * or GC_MAXIMUM_HEAP_SIZE from the environment when run with argument
 * "env"), keeping objects alive until GC_malloc fails must end in NULL (not
 * an abort), after the oom function set with GC_set_oom_fn was called with
 * at least the requested size; the heap never exceeds the limit and most of
 * it was usable; the kept objects are intact. After dropping everything and
 * collecting, allocation works again. A 1 GiB request under the limit
 * returns NULL. An oom function that returns a static buffer makes GC_malloc
 * return that buffer. */
#include <gc.h>

#include "check.h"

#define LIMIT ((size_t)64 << 20)

static unsigned long g_oom_calls, g_warn_calls;
static size_t g_oom_last;
static char g_static_buf[256];

static void *GC_CALLBACK oom_null(size_t n)
{
    g_oom_calls++;
    g_oom_last = n;
    return NULL;
}

static void *GC_CALLBACK oom_static(size_t n)
{
    g_oom_calls++;
    g_oom_last = n;
    return g_static_buf;
}

/* GC_malloc is declared with the malloc attribute, so the compiler may
 * assume its result never equals the address of a static object: hide the
 * value before comparing. */
static void *launder(void *p)
{
    __asm__ __volatile__("" : "+r"(p));
    return p;
}

static void GC_CALLBACK count_warn(char *msg, GC_word arg)
{
    (void)msg; (void)arg;
    g_warn_calls++;
}

/* Kept objects live in a static table, not in a chain, so that a stray
 * conservative pointer can retain one object but never all of them. */
struct blob { uint64_t id; size_t size; };
#define MAX_KEPT 1000000
static struct blob *g_kept[MAX_KEPT];

/* Keep objects of the given sizes (in turn) until GC_malloc returns NULL;
 * adds to *count and returns the requested bytes kept. */
static NOINLINE size_t fill_until_null(const size_t *sizes, unsigned nsizes,
                                       unsigned long *count, size_t *failed_size)
{
    size_t kept = 0;
    for (unsigned long i = *count;; i++) {
        size_t s = sizes[i % nsizes];
        CHECKF(i < MAX_KEPT, "kept %lu objects alive under a %zu-byte limit "
               "without GC_malloc returning NULL", i, LIMIT);
        struct blob *b = GC_malloc(s);
        if (b == NULL) {
            *count = i;
            *failed_size = s;
            return kept;
        }
        CHECKF(GC_get_heap_size() <= LIMIT, "heap size %zu exceeds the "
               "limit %zu", GC_get_heap_size(), LIMIT);
        b->id = i;
        b->size = s;
        fill_pattern(b + 1, s - sizeof *b, i);
        g_kept[i] = b;
        kept += s;
    }
}

static void verify_kept(unsigned long count)
{
    for (unsigned long n = 0; n < count; n++) {
        struct blob *b = g_kept[n];
        CHECKF(b->id == n, "kept object %p has id %llu, want %lu",
               (void *)b, (unsigned long long)b->id, n);
        size_t bad = pattern_mismatch(b + 1, b->size - sizeof *b, b->id);
        CHECKF(bad == (size_t)-1, "kept object %lu (%zu bytes) changed at "
               "byte %zu after running out of memory", n, b->size, bad);
    }
}

int main(int argc, char **argv)
{
    int env_mode = argc > 1 && strcmp(argv[1], "env") == 0;
    if (env_mode) {
        const char *e = getenv("GC_MAXIMUM_HEAP_SIZE");
        CHECKF(e != NULL && strcmp(e, "64M") == 0, "run with "
               "GC_MAXIMUM_HEAP_SIZE=64M in the environment (have %s)",
               e ? e : "nothing");
    }
    GC_INIT();
    if (!env_mode) GC_set_max_heap_size(LIMIT);
    GC_set_oom_fn(oom_null);
    CHECK(GC_get_oom_fn() == oom_null);
    GC_set_warn_proc(count_warn);

    static const size_t mixed[] = { 4000, 100, 24, 100000, 1000, 3 << 20, 600 };
    static const size_t smaller[3][2] = { { 100000, 4000 }, { 4000, 1000 }, { 100, 600 } };
    for (int round = 0; round < 2; round++) {
        unsigned long count = 0;
        size_t failed = 0;
        g_oom_calls = 0;
        size_t kept = fill_until_null(mixed, 7, &count, &failed);
        printf("round %d: %lu objects, %zu KiB kept, GC_malloc(%zu) = NULL; "
               "heap %zu KiB; oom fn calls %lu (last %zu bytes); warnings %lu\n",
               round, count, kept >> 10, failed, GC_get_heap_size() >> 10,
               g_oom_calls, g_oom_last, g_warn_calls);
        CHECKF(g_oom_calls >= 1, "GC_malloc returned NULL without calling the "
               "oom function (calls %lu)", g_oom_calls);
        CHECKF(g_oom_last >= failed, "oom function called with %zu bytes, "
               "request was %zu", g_oom_last, failed);
        /* then smaller and smaller objects until those fail too */
        for (int k = 0; k < 3; k++) {
            unsigned long calls = g_oom_calls, before = count;
            kept += fill_until_null(smaller[k], 2, &count, &failed);
            printf("  then %lu more objects of %zu/%zu bytes until "
                   "GC_malloc(%zu) = NULL; oom fn called with %zu bytes\n",
                   count - before, smaller[k][0], smaller[k][1], failed, g_oom_last);
            CHECKF(g_oom_calls > calls, "GC_malloc(%zu) returned NULL without "
                   "calling the oom function", failed);
            CHECKF(g_oom_last >= failed, "oom function called with %zu bytes, "
                   "request was %zu", g_oom_last, failed);
        }
        CHECKF(kept >= LIMIT * 3 / 4, "only %zu bytes could be kept alive under a "
               "%zu-byte limit", kept, LIMIT);
        CHECKF(GC_get_heap_size() <= LIMIT, "heap %zu over the limit %zu",
               GC_get_heap_size(), LIMIT);
        verify_kept(count);

        /* drop everything: allocation works again */
        memset(g_kept, 0, sizeof g_kept);
        clear_stack();
        GC_gcollect();
        /* Free again, or given back to the system (bibop decommits at once
           what the shrunken budget cannot reach). */
        CHECKF(GC_get_free_bytes() + GC_get_unmapped_bytes() >= LIMIT / 2,
               "only %zu bytes free and %zu unmapped after dropping everything and "
               "collecting", GC_get_free_bytes(), GC_get_unmapped_bytes());
        void *p = GC_malloc(4000), *q = GC_malloc(100000);
        CHECKF(p != NULL && q != NULL, "allocation after recovery failed: %p %p", p, q);
    }

    /* a 1 GiB request under a 64 MiB limit */
    g_oom_calls = 0;
    void *huge = GC_malloc((size_t)1 << 30);
    CHECKF(huge == NULL, "GC_malloc(1 GiB) under a 64 MiB limit returned %p", huge);
    CHECKF(g_oom_calls >= 1 && g_oom_last == (size_t)1 << 30, "oom function: "
           "%lu calls, last with %zu bytes", g_oom_calls, g_oom_last);
    CHECK(GC_malloc_atomic((size_t)1 << 30) == NULL);
    CHECK(GC_get_heap_size() <= LIMIT);

    /* an oom function that returns a static buffer */
    GC_set_oom_fn(oom_static);
    CHECK(GC_get_oom_fn() == oom_static);
    g_oom_calls = 0;
    void *r = launder(GC_malloc((size_t)1 << 30));
    CHECKF(r == (void *)g_static_buf, "GC_malloc returned %p, the oom "
           "function returned %p", r, (void *)g_static_buf);
    r = launder(GC_malloc_atomic((size_t)512 << 20));
    CHECKF(r == (void *)g_static_buf, "GC_malloc_atomic returned %p, the oom "
           "function returned %p", r, (void *)g_static_buf);
    CHECK_EQ(g_oom_calls, 2);
    GC_set_oom_fn(oom_null);

    /* still healthy */
    for (int i = 0; i < 100000; i++) CHECK(GC_malloc(200) != NULL);
    printf("limits: ok (%lu collections, %lu warnings)\n",
           (unsigned long)GC_get_gc_no(), g_warn_calls);
    return 0;
}
