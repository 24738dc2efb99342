/* env.c: environment variables read at initialisation. The test is
 * registered several times; argv[1] names what the environment holds:
 *   defaults               no GC_* variables: divisor 3, one collection in
 *                          GC_init, a small initial heap, collection enabled
 *   initial_heap BYTES     GC_INITIAL_HEAP_SIZE: heap >= BYTES after init
 *   dont_gc                GC_DONT_GC (any value, bdwgc tests presence): no
 *                          collection, even explicit, during heavy
 *                          allocation; GC_enable() then re-enables
 *   divisor N              GC_FREE_SPACE_DIVISOR=N: the getter reports N,
 *                          and the same workload collects more often with
 *                          divisor N than after GC_set_free_space_divisor(1)
 *   max_heap BYTES         GC_MAXIMUM_HEAP_SIZE: keeping objects alive ends
 *                          in NULL with the heap within BYTES */
#include <gc.h>

#include "check.h"

static const char *const g_vars[] = {
    "GC_INITIAL_HEAP_SIZE", "GC_DONT_GC", "GC_FREE_SPACE_DIVISOR",
    "GC_MAXIMUM_HEAP_SIZE",
};

/* Fail unless exactly the named variable (or none) is set. */
static void require_env(const char *name)
{
    for (unsigned i = 0; i < sizeof g_vars / sizeof g_vars[0]; i++) {
        const char *v = getenv(g_vars[i]);
        if (name && strcmp(g_vars[i], name) == 0)
            CHECKF(v != NULL, "this mode needs %s in the environment", name);
        else
            CHECKF(v == NULL, "%s=%s is set in the environment", g_vars[i], v);
    }
}

/* A churn workload: `live` bytes kept in slots, `total` bytes allocated;
 * returns the number of collections it caused. */
#define SLOTS 4096
static void *g_slots[SLOTS];
static GC_word churn(size_t live, size_t total, rng_t *r)
{
    size_t obj = live / SLOTS;
    GC_word g0 = GC_get_gc_no();
    for (size_t done = 0; done < total; done += obj) {
        void *p = GC_malloc(obj);
        CHECK(p != NULL);
        memset(p, 1, 64);
        g_slots[rng_below(r, SLOTS)] = p;
    }
    return GC_get_gc_no() - g0;
}

static void mode_defaults(void)
{
    require_env(NULL);
    GC_INIT();
    CHECK_EQ(GC_get_gc_no(), 1);
    CHECK_EQ(GC_get_free_space_divisor(), 3);
    CHECK_EQ(GC_is_disabled(), 0);
    CHECK_EQ(GC_get_min_bytes_allocd(), 1);   /* bdwgc 8.2's default */
    CHECKF(GC_get_heap_size() < ((size_t)8 << 20), "initial heap %zu",
           GC_get_heap_size());
    printf("defaults: gc_no %lu, divisor %lu, initial heap %zu bytes\n",
           (unsigned long)GC_get_gc_no(),
           (unsigned long)GC_get_free_space_divisor(), GC_get_heap_size());
}

static void mode_initial_heap(size_t want)
{
    require_env("GC_INITIAL_HEAP_SIZE");
    GC_INIT();
    printf("initial_heap: GC_INITIAL_HEAP_SIZE=%s, heap %zu bytes after init\n",
           getenv("GC_INITIAL_HEAP_SIZE"), GC_get_heap_size());
    CHECKF(GC_get_heap_size() >= want, "heap %zu after init, want >= %zu",
           GC_get_heap_size(), want);
    /* it is a real heap: allocate most of it without collecting much */
    for (size_t i = 0; i < want / 2 / 1000; i++) CHECK(GC_malloc(1000) != NULL);
}

static void mode_dont_gc(void)
{
    require_env("GC_DONT_GC");
    GC_INIT();
    GC_word g0 = GC_get_gc_no();
    printf("dont_gc: GC_DONT_GC=%s, gc_no %lu after init, disabled %d\n",
           getenv("GC_DONT_GC"), (unsigned long)g0, GC_is_disabled());
    CHECKF(g0 <= 1, "gc_no %lu after init", (unsigned long)g0);
    CHECK(GC_is_disabled() != 0);
    for (int i = 0; i < 300000; i++) CHECK(GC_malloc(1000) != NULL); /* 300 MB */
    GC_gcollect();
    CHECKF(GC_get_gc_no() == g0, "gc_no went from %lu to %lu with GC_DONT_GC",
           (unsigned long)g0, (unsigned long)GC_get_gc_no());
    CHECKF(GC_get_heap_size() >= 300000000, "heap %zu after 300 MB of "
           "garbage with collection disabled", GC_get_heap_size());
    GC_enable();
    CHECK_EQ(GC_is_disabled(), 0);
    GC_gcollect();
    CHECKF(GC_get_gc_no() > g0, "GC_enable did not undo GC_DONT_GC (gc_no %lu)",
           (unsigned long)GC_get_gc_no());
}

static void mode_divisor(unsigned long n)
{
    require_env("GC_FREE_SPACE_DIVISOR");
    GC_INIT();
    rng_t r = rng_seeded(5);
    CHECKF(GC_get_free_space_divisor() == n, "GC_get_free_space_divisor() = "
           "%lu with GC_FREE_SPACE_DIVISOR=%s", (unsigned long)GC_get_free_space_divisor(),
           getenv("GC_FREE_SPACE_DIVISOR"));
    churn(8 << 20, 64 << 20, &r); /* warm up: the heap reaches its size */
    GC_word c_env = churn(8 << 20, 400 << 20, &r);
    GC_set_free_space_divisor(1);
    CHECK_EQ(GC_get_free_space_divisor(), 1);
    churn(8 << 20, 64 << 20, &r);
    GC_word c_one = churn(8 << 20, 400 << 20, &r);
    printf("divisor: %lu collections with divisor %lu, %lu with divisor 1 "
           "(400 MB allocated, 8 MB live)\n", (unsigned long)c_env, n,
           (unsigned long)c_one);
    CHECKF(c_env >= 2 * c_one && c_env > 0, "divisor %lu: %lu collections, "
           "divisor 1: %lu", n, (unsigned long)c_env, (unsigned long)c_one);
}

static void *volatile g_kept[100000];

static void mode_max_heap(size_t limit)
{
    require_env("GC_MAXIMUM_HEAP_SIZE");
    GC_INIT();
    GC_set_warn_proc(GC_ignore_warn_proc);
    size_t kept = 0;
    unsigned i;
    for (i = 0; i < 100000; i++) {
        size_t s = i % 5 == 4 ? 50000 : 2000;
        void *p = GC_malloc(s);
        if (p == NULL) break;
        CHECKF(GC_get_heap_size() <= limit, "heap %zu over GC_MAXIMUM_HEAP_SIZE=%s",
               GC_get_heap_size(), getenv("GC_MAXIMUM_HEAP_SIZE"));
        g_kept[i] = p;
        kept += s;
    }
    printf("max_heap: GC_MAXIMUM_HEAP_SIZE=%s: NULL after %u objects, %zu KiB "
           "kept, heap %zu KiB\n", getenv("GC_MAXIMUM_HEAP_SIZE"), i, kept >> 10,
           GC_get_heap_size() >> 10);
    CHECKF(i < 100000, "GC_malloc never returned NULL (%zu bytes kept)", kept);
    CHECKF(kept >= limit / 2, "only %zu bytes kept under a %zu-byte limit", kept, limit);
    for (i = 0; i < 100000; i++) g_kept[i] = NULL;
    clear_stack();
    GC_gcollect();
    CHECK(GC_malloc(50000) != NULL);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    unsigned long long arg = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
    if (strcmp(mode, "defaults") == 0) mode_defaults();
    else if (strcmp(mode, "initial_heap") == 0 && arg) mode_initial_heap(arg);
    else if (strcmp(mode, "dont_gc") == 0) mode_dont_gc();
    else if (strcmp(mode, "divisor") == 0 && arg) mode_divisor(arg);
    else if (strcmp(mode, "max_heap") == 0 && arg) mode_max_heap(arg);
    else {
        fprintf(stderr, "usage: %s defaults | initial_heap BYTES | dont_gc | "
                "divisor N | max_heap BYTES\n", argv[0]);
        return 1;
    }
    printf("env %s: ok\n", mode);
    return 0;
}
