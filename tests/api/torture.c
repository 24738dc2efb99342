/* torture.c: conservative-collector torture.
 * (a) the stack, a static array and a heap array are filled with random
 *     64-bit words: pure noise, real heap addresses plus random offsets,
 *     dangling pointers to GC_free'd small and large objects, pointers into
 *     munmap'd memory and freed malloc memory, one-past-the-end pointers,
 *     misaligned pointers; many collections run; nothing crashes, live
 *     objects keep their contents, and the junk itself is never modified;
 * (b) objects kept alive only by a pointer into their middle, or only by a
 *     pointer one past their requested end, from static data, the heap and
 *     the stack, small and large, survive with intact contents;
 * (c) objects at size-class boundaries (2^k-1, 2^k, 2^k+1 up to 2^16, and
 *     2047..2049, 4095..4097) are filled, collected, verified;
 * (d) a 10,000,000-element linked list held by one root pointer survives
 *     several collections intact (each node also points two nodes ahead, so
 *     a depth-first marker's stack would need millions of entries: mark
 *     stack overflow must be handled, without recursion).
 * Optional argument: list length for (d). */
#define _GNU_SOURCE
#include <gc.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

static rng_t g_rng;

/* ---- a set of live objects with known contents ------------------------- */

#define LIVE_N 4000
static unsigned char *g_live[LIVE_N];   /* static root */
static size_t *g_live_size;             /* malloc'd model */
static uint64_t *g_live_seed;

static void live_new(unsigned i)
{
    size_t s = 16 + (size_t)rng_below(&g_rng, rng_below(&g_rng, 8) ? 2000 : 40000);
    int atomic = rng_below(&g_rng, 3) == 0;
    unsigned char *p = atomic ? GC_malloc_atomic(s) : GC_malloc(s);
    CHECKF(p != NULL, "GC_malloc(%zu) = NULL", s);
    g_live_size[i] = s;
    g_live_seed[i] = rng_next(&g_rng);
    fill_pattern(p, s, g_live_seed[i]);
    g_live[i] = p;
}

static void live_verify(const char *when)
{
    for (unsigned i = 0; i < LIVE_N; i++) {
        size_t bad = pattern_mismatch(g_live[i], g_live_size[i], g_live_seed[i]);
        CHECKF(bad == (size_t)-1, "%s: live object %u (%p, %zu bytes) changed "
               "at byte %zu", when, i, (void *)g_live[i], g_live_size[i], bad);
    }
}

/* ---- (a) random words --------------------------------------------------- */

#define FREED_N 512
#define JUNK_STATIC_N 32768
#define JUNK_HEAP_N (256 * 1024)
#define JUNK_STACK_N 8192

static uintptr_t g_junk_static[JUNK_STATIC_N];
static uintptr_t *g_junk_heap;          /* GC_malloc'd, reachable from here */
static uintptr_t g_freed[FREED_N];      /* addresses of GC_free'd objects */
static size_t g_freed_size[FREED_N];
static uintptr_t g_unmapped, g_malloc_freed, g_malloc_freed_small;
static const size_t g_unmapped_len = 1 << 20;

static uintptr_t junk_word(void)
{
    uintptr_t w;
    unsigned i;
    switch (rng_below(&g_rng, 12)) {
    case 0: /* noise */
        w = (uintptr_t)rng_next(&g_rng);
        break;
    case 1: /* near a live object */
        i = (unsigned)rng_below(&g_rng, LIVE_N);
        w = (uintptr_t)g_live[i] + (uintptr_t)(int64_t)(rng_below(&g_rng, 8192 + g_live_size[i]) - 4096);
        break;
    case 2: /* anywhere within a few MiB of the heap */
        i = (unsigned)rng_below(&g_rng, LIVE_N);
        w = (uintptr_t)g_live[i] + (uintptr_t)(int64_t)(rng_below(&g_rng, 8 << 20) - (4 << 20));
        break;
    case 3: /* dangling: into an object that was GC_free'd */
    case 4:
        i = (unsigned)rng_below(&g_rng, FREED_N);
        w = g_freed[i] + (uintptr_t)rng_below(&g_rng, g_freed_size[i] + 1);
        break;
    case 5: /* munmap'd memory */
        w = g_unmapped + (uintptr_t)rng_below(&g_rng, g_unmapped_len);
        break;
    case 6: /* freed malloc memory */
        w = rng_below(&g_rng, 2) ? g_malloc_freed + (uintptr_t)rng_below(&g_rng, 1 << 20)
                                 : g_malloc_freed_small + (uintptr_t)rng_below(&g_rng, 64);
        break;
    case 7: /* one past the end: of the request and of the object */
        i = (unsigned)rng_below(&g_rng, LIVE_N);
        w = (uintptr_t)g_live[i] + (rng_below(&g_rng, 2) ? g_live_size[i] : GC_size(g_live[i]));
        break;
    case 8: /* static data, stack, code */
        w = rng_below(&g_rng, 2) ? (uintptr_t)&g_junk_static[rng_below(&g_rng, JUNK_STATIC_N)]
                                 : (uintptr_t)&w + (uintptr_t)rng_below(&g_rng, 65536);
        break;
    case 9: /* small integers, -1, kernel half, top of user space */
        switch (rng_below(&g_rng, 4)) {
        case 0: w = (uintptr_t)rng_below(&g_rng, 65536); break;
        case 1: w = (uintptr_t)-1 - (uintptr_t)rng_below(&g_rng, 4096); break;
        case 2: w = (uintptr_t)0xffff800000000000ULL + (uintptr_t)rng_below(&g_rng, 1ULL << 40); break;
        default: w = (uintptr_t)0x00007ffffffff000ULL - (uintptr_t)rng_below(&g_rng, 1ULL << 32); break;
        }
        break;
    default: /* a live object's exact address */
        w = (uintptr_t)g_live[rng_below(&g_rng, LIVE_N)];
        break;
    }
    if (rng_below(&g_rng, 6) == 0) w += 1 + (uintptr_t)rng_below(&g_rng, 7); /* misaligned */
    return w;
}

static void junk_fill(uintptr_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] = junk_word();
}

/* New dangling pointers for this round: objects allocated and GC_free'd
 * (small and large), plus memory that was unmapped or given back by free. */
static void make_dangling(void)
{
    for (unsigned i = 0; i < FREED_N; i++) {
        size_t s = i % 8 == 0 ? 4096 + (size_t)rng_below(&g_rng, 300000)
                              : 1 + (size_t)rng_below(&g_rng, 3000);
        void *p = GC_malloc(s);
        CHECK(p != NULL);
        memset(p, 0xAB, s);
        g_freed[i] = (uintptr_t)p;
        g_freed_size[i] = s;
    }
    for (unsigned i = 0; i < FREED_N; i++) GC_free((void *)g_freed[i]);

    void *m = mmap(NULL, g_unmapped_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    memset(m, 0x11, g_unmapped_len);
    CHECK(munmap(m, g_unmapped_len) == 0);
    g_unmapped = (uintptr_t)m;

    void *big = malloc(1 << 20), *small = malloc(64);
    CHECK(big != NULL && small != NULL);
    g_malloc_freed = (uintptr_t)big;
    g_malloc_freed_small = (uintptr_t)small;
    free(big);
    free(small);
}

static NOINLINE void collect_with_stack_junk(unsigned round)
{
    volatile uintptr_t junk[JUNK_STACK_N];
    for (unsigned i = 0; i < JUNK_STACK_N; i++) junk[i] = junk_word();
    uint64_t h = hash_bytes((const void *)junk, sizeof junk, 1);

    GC_gcollect();
    /* implicit collections with the junk in place: garbage of many sizes */
    GC_word g0 = GC_get_gc_no();
    for (unsigned i = 0; i < 40000; i++) {
        size_t s = 8 + (size_t)rng_below(&g_rng, i % 64 == 0 ? 60000 : 600);
        char *p = GC_malloc(s);
        CHECK(p != NULL);
        memset(p, 0x77, s);
    }
    GC_gcollect();
    CHECKF(GC_get_gc_no() > g0, "round %u: no collection happened", round);
    CHECKF(hash_bytes((const void *)junk, sizeof junk, 1) == h,
           "round %u: the stack junk was modified", round);
}

static void test_random_words(void)
{
    g_junk_heap = GC_malloc(JUNK_HEAP_N * sizeof *g_junk_heap);
    CHECK(g_junk_heap != NULL);
    for (unsigned round = 0; round < 30; round++) {
        make_dangling();
        junk_fill(g_junk_static, JUNK_STATIC_N);
        junk_fill(g_junk_heap, JUNK_HEAP_N);
        uint64_t hs = hash_bytes(g_junk_static, sizeof g_junk_static, 2);
        uint64_t hh = hash_bytes(g_junk_heap, JUNK_HEAP_N * sizeof *g_junk_heap, 3);

        collect_with_stack_junk(round);
        live_verify("random words");
        CHECKF(hash_bytes(g_junk_static, sizeof g_junk_static, 2) == hs,
               "round %u: the static junk array was modified", round);
        CHECKF(hash_bytes(g_junk_heap, JUNK_HEAP_N * sizeof *g_junk_heap, 3) == hh,
               "round %u: the heap junk array was modified", round);

        /* replace a tenth of the live set: fresh garbage and reuse */
        for (unsigned k = 0; k < LIVE_N / 10; k++)
            live_new((unsigned)rng_below(&g_rng, LIVE_N));
    }
    /* and once more after everything: collect with junk gone */
    memset(g_junk_static, 0, sizeof g_junk_static);
    g_junk_heap = NULL;
    GC_gcollect();
    live_verify("after random words");
    printf("torture (a) random words: ok (%lu collections so far)\n",
           (unsigned long)GC_get_gc_no());
}

/* ---- (b) interior pointers --------------------------------------------- */

static char *volatile g_mid_small, *volatile g_end_small;  /* interior only */
static char *volatile g_mid_large, *volatile g_end_large;
static void **volatile g_holder;                            /* holds interior ptrs */

#define SMALL_B 1000
#define LARGE_B (100 * 1024)

/* Returns a pointer to byte `off` of a new object of `size` bytes filled with
 * fill_pattern(seed); the base pointer does not outlive this call. */
static NOINLINE char *alloc_at(size_t size, size_t off, uint64_t seed)
{
    char *p = GC_malloc(size);
    CHECK(p != NULL);
    fill_pattern(p, size, seed);
    return p + off;
}

static void check_interior(char *q, size_t size, size_t off, uint64_t seed, const char *what)
{
    char *base = q - off;
    CHECKF(GC_base(q) == base, "%s: GC_base(%p) = %p, want %p", what,
           (void *)q, GC_base(q), (void *)base);
    size_t bad = pattern_mismatch(base, size, seed);
    CHECKF(bad == (size_t)-1, "%s: object %p (%zu bytes) kept only by a pointer "
           "at offset %zu changed at byte %zu", what, (void *)base, size, off, bad);
}

static NOINLINE void churn_same_sizes(void)
{
    /* garbage of the same sizes, dirtied, so reclaimed memory gets reused */
    for (int i = 0; i < 20000; i++) {
        char *p = GC_malloc(SMALL_B);
        CHECK(p != NULL);
        memset(p, 0x6B, SMALL_B);
        if (i % 50 == 0) {
            p = GC_malloc(LARGE_B);
            CHECK(p != NULL);
            memset(p, 0x6B, LARGE_B);
        }
    }
}

static NOINLINE void stack_interior_phase(void)
{
    char *volatile mid = alloc_at(SMALL_B, 333, 31);
    char *volatile end = alloc_at(LARGE_B, LARGE_B, 32);
    clear_stack();
    for (int r = 0; r < 4; r++) {
        churn_same_sizes();
        clear_stack();
        GC_gcollect();
        check_interior(mid, SMALL_B, 333, 31, "stack, middle, small");
        check_interior(end, LARGE_B, LARGE_B, 32, "stack, one past end, large");
    }
}

static void test_interior(void)
{
    g_mid_small = alloc_at(SMALL_B, SMALL_B / 2, 21);
    g_end_small = alloc_at(SMALL_B, SMALL_B, 22);      /* one past the request */
    g_mid_large = alloc_at(LARGE_B, 70001, 23);        /* pages away from start */
    g_end_large = alloc_at(LARGE_B, LARGE_B, 24);
    g_holder = GC_malloc(4 * sizeof(void *));
    CHECK(g_holder != NULL);
    g_holder[0] = alloc_at(SMALL_B, 13, 25);           /* unaligned interior */
    g_holder[1] = alloc_at(SMALL_B, SMALL_B, 26);
    g_holder[2] = alloc_at(LARGE_B, LARGE_B - 8, 27);
    g_holder[3] = alloc_at(LARGE_B, LARGE_B, 28);
    clear_stack();
    for (int r = 0; r < 5; r++) {
        churn_same_sizes();
        clear_stack();
        GC_gcollect();
        check_interior(g_mid_small, SMALL_B, SMALL_B / 2, 21, "static, middle, small");
        check_interior(g_end_small, SMALL_B, SMALL_B, 22, "static, one past end, small");
        check_interior(g_mid_large, LARGE_B, 70001, 23, "static, middle, large");
        check_interior(g_end_large, LARGE_B, LARGE_B, 24, "static, one past end, large");
        check_interior(g_holder[0], SMALL_B, 13, 25, "heap, offset 13, small");
        check_interior(g_holder[1], SMALL_B, SMALL_B, 26, "heap, one past end, small");
        check_interior(g_holder[2], LARGE_B, LARGE_B - 8, 27, "heap, last word, large");
        check_interior(g_holder[3], LARGE_B, LARGE_B, 28, "heap, one past end, large");
    }
    stack_interior_phase();
    g_mid_small = g_end_small = g_mid_large = g_end_large = NULL;
    g_holder = NULL;
    printf("torture (b) interior pointers: ok\n");
}

/* ---- (c) size-class boundaries ----------------------------------------- */

#define PER_SIZE 6
static void **g_bnd;           /* GC_malloc'd array of objects */

static void test_boundaries(void)
{
    size_t sizes[3 * 16 + 6];
    unsigned ns = 0;
    for (unsigned k = 1; k <= 16; k++) {
        sizes[ns++] = ((size_t)1 << k) - 1;
        sizes[ns++] = (size_t)1 << k;
        sizes[ns++] = ((size_t)1 << k) + 1;
    }
    size_t extra[] = { 2047, 2048, 2049, 4095, 4096, 4097 };
    for (unsigned i = 0; i < 6; i++) sizes[ns++] = extra[i];

    unsigned n = ns * PER_SIZE * 2;
    g_bnd = GC_malloc(n * sizeof(void *));
    CHECK(g_bnd != NULL);
    for (int round = 0; round < 3; round++) {
        for (unsigned i = 0; i < n; i++) {
            size_t s = sizes[i / (PER_SIZE * 2)];
            int atomic = i % 2;
            unsigned char *p = atomic ? GC_malloc_atomic(s) : GC_malloc(s);
            CHECKF(p != NULL, "GC_malloc(%zu) = NULL", s);
            CHECKF(GC_size(p) >= s + 1, "GC_size(GC_malloc%s(%zu)) = %zu",
                   atomic ? "_atomic" : "", s, GC_size(p));
            CHECKF(GC_base(p + s) == p, "GC_base(p + %zu) = %p, p = %p", s,
                   GC_base(p + s), (void *)p);
            if (!atomic)
                for (size_t b = 0; b < s; b++)
                    CHECKF(p[b] == 0, "GC_malloc(%zu): byte %zu not zero", s, b);
            fill_pattern(p, s, i * 1000003ULL + (uint64_t)round);
            g_bnd[i] = p;
        }
        for (int c = 0; c < 3; c++) {
            /* garbage of the same sizes, then collect */
            for (unsigned i = 0; i < n; i++) {
                size_t s = sizes[i / (PER_SIZE * 2)];
                void *q = (i % 2) ? GC_malloc_atomic(s) : GC_malloc(s);
                CHECK(q != NULL);
                memset(q, 0xD5, s);
            }
            clear_stack();
            GC_gcollect();
            for (unsigned i = 0; i < n; i++) {
                size_t s = sizes[i / (PER_SIZE * 2)];
                size_t bad = pattern_mismatch(g_bnd[i], s, i * 1000003ULL + (uint64_t)round);
                CHECKF(bad == (size_t)-1, "size-class boundary: %zu-byte %s object "
                       "%p changed at byte %zu", s, (i % 2) ? "atomic" : "normal",
                       g_bnd[i], bad);
            }
        }
    }
    g_bnd = NULL;
    printf("torture (c) size-class boundaries: ok (%u sizes)\n", ns);
}

/* ---- (d) a very long list ---------------------------------------------- */

struct lnode { struct lnode *next, *skip; uint64_t val; };
static struct lnode *volatile g_list;

static NOINLINE void build_list(long n, uint64_t salt)
{
    struct lnode *head = NULL;
    for (long i = 0; i < n; i++) {
        struct lnode *p = GC_malloc(sizeof *p);
        CHECKF(p != NULL, "list node %ld: GC_malloc = NULL", i);
        p->next = head;
        p->skip = head ? head->next : NULL;
        p->val = mix64((uint64_t)i ^ salt);
        head = p;
    }
    g_list = head;
}

static void verify_list(long n, uint64_t salt, const char *when)
{
    struct lnode *p = g_list;
    for (long i = n - 1; i >= 0; i--) {
        CHECKF(p != NULL, "%s: list ends at element %ld of %ld", when, n - 1 - i, n);
        CHECKF(p->val == mix64((uint64_t)i ^ salt), "%s: list element %ld (%p) "
               "holds %llx", when, n - 1 - i, (void *)p, (unsigned long long)p->val);
        struct lnode *nx = p->next;
        CHECKF(p->skip == (nx ? nx->next : NULL), "%s: list element %ld: skip "
               "%p, want %p", when, n - 1 - i, (void *)p->skip,
               (void *)(nx ? nx->next : NULL));
        p = nx;
    }
    CHECKF(p == NULL, "%s: list longer than %ld", when, n);
}

static NOINLINE void list_garbage(void)
{
    /* 64 MB of same-size garbage, dirtied: wrongly freed nodes get reused */
    for (int i = 0; i < 2000000; i++) {
        uint64_t *q = GC_malloc(sizeof(struct lnode));
        CHECK(q != NULL);
        q[0] = q[1] = q[2] = 0x5151515151515151ULL;
    }
}

static void test_long_list(long n)
{
    uint64_t salt = rng_next(&g_rng);
    GC_word g0 = GC_get_gc_no();
    build_list(n, salt);
    verify_list(n, salt, "after building");
    for (int r = 0; r < 3; r++) {
        clear_stack();
        GC_gcollect();
        list_garbage();
        verify_list(n, salt, "after a collection");
    }
    printf("torture (d) %ld-element list: ok (%lu collections, heap %zu MiB)\n",
           n, (unsigned long)(GC_get_gc_no() - g0), GC_get_heap_size() >> 20);
    g_list = NULL;
}

/* Junk near the heap makes bdwgc blacklist pages and warn about large
 * allocations; warnings are expected here, count them quietly. */
static unsigned long g_warnings;
static void GC_CALLBACK count_warning(char *msg, GC_word arg)
{
    (void)msg; (void)arg;
    g_warnings++;
}

int main(int argc, char **argv)
{
    long list_n = argc > 1 ? atol(argv[1]) : 10000000;
    GC_INIT();
    GC_set_warn_proc(count_warning);
    g_rng = rng_seeded(777);
    g_live_size = malloc(LIVE_N * sizeof *g_live_size);
    g_live_seed = malloc(LIVE_N * sizeof *g_live_seed);
    CHECK(g_live_size != NULL && g_live_seed != NULL);
    for (unsigned i = 0; i < LIVE_N; i++) live_new(i);

    test_random_words();
    test_interior();
    test_boundaries();
    live_verify("before the long list");
    test_long_list(list_n);
    live_verify("at the end");
    printf("torture: ok (%lu collector warnings)\n", g_warnings);
    return 0;
}
