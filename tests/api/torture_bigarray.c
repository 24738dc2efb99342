/* torture_bigarray.c: a degenerate pointer array. One 1 GiB object holds
 * 2^27 pointers; every element points to (the start or the inside of) one
 * of 2^20 small objects that nothing else references. Collections must
 * keep all of them alive and unchanged: the small objects are checked
 * through the first 2^20 elements (which reach every one of them) and
 * ~10,000 randomly sampled elements, after same-size garbage was allocated
 * to reuse anything wrongly reclaimed. GC_malloc(1 GiB) returning NULL is
 * a failure. Optional argument: log2 of the array size in bytes. */
#include <gc.h>

#include "check.h"

#define POOL_LOG 20
#define POOL ((size_t)1 << POOL_LOG)

struct small { uint64_t id, check; };

static void **volatile g_big;

static size_t target_of(size_t i) { return (i * 2654435761u) & (POOL - 1); }

/* Allocate the small objects and fill the big array; nothing but the big
 * array refers to the small objects afterwards (the index that holds them
 * while they are allocated is a GC object, cleared and freed at the end). */
static NOINLINE void build(size_t n)
{
    struct small **idx = GC_malloc(POOL * sizeof *idx);
    CHECK(idx != NULL);
    for (size_t j = 0; j < POOL; j++) {
        struct small *s = GC_malloc(sizeof *s);
        CHECKF(s != NULL, "GC_malloc(16) = NULL for small object %zu", j);
        s->id = j;
        s->check = mix64(j);
        idx[j] = s;
    }
    void **big = g_big;
    for (size_t i = 0; i < n; i++) {
        char *t = (char *)idx[target_of(i)];
        big[i] = (i & 3) == 3 ? t + 8 : t; /* a quarter are interior pointers */
    }
    memset(idx, 0, POOL * sizeof *idx);
    GC_free(idx);
}

static void check_elem(size_t i)
{
    size_t j = target_of(i);
    char *t = g_big[i];
    struct small *s = (struct small *)((i & 3) == 3 ? t - 8 : t);
    CHECKF(t != NULL && GC_base(t) == s, "element %zu = %p: GC_base gives %p",
           i, (void *)t, t ? GC_base(t) : NULL);
    CHECKF(s->id == j && s->check == mix64(j), "element %zu -> %p: small "
           "object holds id %llu check %llx, want %zu", i, (void *)t,
           (unsigned long long)s->id, (unsigned long long)s->check, j);
}

static NOINLINE void garbage(void)
{
    for (size_t k = 0; k < 4 * POOL; k++) {
        uint64_t *q = GC_malloc(sizeof(struct small));
        CHECK(q != NULL);
        q[0] = q[1] = 0xEEEEEEEEEEEEEEEEULL;
    }
}

static unsigned long g_warnings;
static void GC_CALLBACK count_warning(char *msg, GC_word arg)
{
    (void)msg; (void)arg;
    g_warnings++;
}

int main(int argc, char **argv)
{
    unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 30;
    size_t bytes = (size_t)1 << lg, n = bytes / sizeof(void *);
    CHECK(n >= POOL);
    GC_INIT();
    GC_set_warn_proc(count_warning); /* "very large block" warnings */
    rng_t rng = rng_seeded(4242);

    g_big = GC_malloc(bytes);
    CHECKF(g_big != NULL, "GC_malloc(%zu) returned NULL", bytes);
    CHECK_GE(GC_size((void *)g_big), bytes);
    build(n);
    clear_stack();

    for (int r = 0; r < 2; r++) {
        GC_word g = GC_get_gc_no();
        GC_gcollect();
        CHECK_GT(GC_get_gc_no(), g);
        garbage();
        for (size_t i = 0; i < POOL; i++) check_elem(i);
        for (int k = 0; k < 10000; k++) check_elem((size_t)rng_below(&rng, n));
        check_elem(n - 1);
    }
    printf("torture_bigarray: ok (%zu MiB array, %lu collections, heap %zu "
           "MiB, %lu warnings)\n", bytes >> 20, (unsigned long)GC_get_gc_no(),
           GC_get_heap_size() >> 20, g_warnings);
    return 0;
}
