/* huge.c: requests the machine cannot serve, and what they leave behind.
 * One registration per mode (see CMakeLists.txt); after each event the
 * program allocates 1 GB of garbage (1000-byte objects, nothing kept),
 * which must run collections (at least MIN_COLLECTIONS) and leave the heap
 * size and the process's resident memory bounded (HEAP_BOUND, RSS_BOUND):
 *   failed_request  GC_malloc(2^47) returns NULL (the oom function is
 *                   called with the size); it once raised the heap budget
 *                   for good and collection stopped
 *   dead_large      a 1 GiB object lives, then dies
 *   svector         bibop_svector_new with a length of 2^44 words fails
 *   expand_hp       GC_expand_hp(SIZE_MAX), (SIZE_MAX - 100) and (64 TiB)
 *                   return 0 (their round-up once wrapped: success);
 *                   GC_expand_hp(8 MiB) returns 1 and the heap size grows
 *   map_count       GC_malloc(16 TiB) returns NULL and leaves no mappings
 *                   behind (fewer than 100 new lines in /proc/self/maps):
 *                   malloc(1 MiB) and GC_malloc(1 MiB) work afterwards
 *                   (under overcommit policy 1 it may succeed, if
 *                   vm.max_map_count allows 65,536 descriptor arrays; it
 *                   is freed then, and the mappings are not counted)
 *   beyond_ram      under the kernel's default overcommit policy (0),
 *                   GC_malloc and GC_malloc_atomic of max(64 GiB, twice RAM
 *                   + swap) return NULL after calling the oom function, as
 *                   stock's mmap is refused; a 1 GiB object still works
 *                   and survives a collection, zeroed and writable
 *   descriptors     an untouched 4 GiB pointer-free object costs less than
 *                   DESCRIPTOR_BOUND of resident memory, through a
 *                   collection too (its block descriptors once cost 1/64 of
 *                   its size, 64 MiB); every 256 MiB of it finds its base;
 *                   freed, its address space serves the next one
 * Nothing here measures time; the registration's timeout catches hangs. */
#define _GNU_SOURCE
#include <gc.h>
#include <bibop.h>

#include <stdint.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "check.h"

#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)
#define TiB ((size_t)1 << 40)
#define GARBAGE_BYTES (1000 * MiB)
#define MIN_COLLECTIONS 10
#define HEAP_BOUND (256 * MiB)
#define RSS_BOUND (256 * MiB)
#define DESCRIPTOR_BOUND (24 * MiB)

static unsigned long g_oom_calls;
static size_t g_oom_last;

static void *GC_CALLBACK count_oom(size_t n)
{
    g_oom_calls++;
    g_oom_last = n;
    return NULL;
}

static void GC_CALLBACK quiet_warn(char *msg, GC_word arg)
{
    (void)msg; (void)arg;
}

static size_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f != NULL);
    unsigned long size = 0, resident = 0;
    CHECK(fscanf(f, "%lu %lu", &size, &resident) == 2);
    fclose(f);
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

static size_t map_count(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    size_t lines = 0;
    int c;
    while ((c = getc(f)) != EOF) lines += c == '\n';
    fclose(f);
    return lines;
}

/* A request that must fail: NULL, after the oom function saw its size. */
static NOINLINE void expect_refused(void *(*alloc)(size_t), size_t bytes, const char *what)
{
    unsigned long calls = g_oom_calls;
    void *p = alloc(bytes);
    CHECKF(p == NULL, "%s(%zu) returned %p", what, bytes, p);
    CHECKF(g_oom_calls > calls && g_oom_last == bytes, "%s(%zu): oom function calls %lu -> "
           "%lu, last with %zu bytes", what, bytes, calls, g_oom_calls, g_oom_last);
}

/* 1 GB of garbage: collections run, heap and RSS stay bounded. */
static NOINLINE void garbage_is_collected(const char *after)
{
    GC_word gc0 = GC_get_gc_no();
    size_t rss0 = rss_bytes();
    for (size_t done = 0; done < GARBAGE_BYTES; done += 1000)
        CHECK(GC_malloc(1000) != NULL);
    GC_word collections = GC_get_gc_no() - gc0;
    size_t rss1 = rss_bytes(), heap = GC_get_heap_size();
    printf("%s: 1 GB of garbage ran %lu collections; heap %zu MiB, RSS %zu -> %zu MiB\n",
           after, (unsigned long)collections, heap >> 20, rss0 >> 20, rss1 >> 20);
    CHECKF(collections >= MIN_COLLECTIONS, "after %s, 1 GB of garbage ran only %lu "
           "collections", after, (unsigned long)collections);
    CHECKF(heap <= HEAP_BOUND, "after %s and 1 GB of garbage, heap size %zu MiB", after,
           heap >> 20);
    CHECKF(rss1 <= rss0 + RSS_BOUND, "after %s, 1 GB of garbage grew RSS from %zu to %zu MiB",
           after, rss0 >> 20, rss1 >> 20);
}

static void mode_failed_request(void)
{
    expect_refused(GC_malloc, (size_t)1 << 47, "GC_malloc");
    garbage_is_collected("GC_malloc(2^47) = NULL");
}

static NOINLINE void live_then_dead_large(void)
{
    char *p = GC_malloc_atomic(GiB);
    CHECK(p != NULL);
    for (size_t off = 0; off < GiB; off += 64 * MiB) p[off] = 1;   /* some of it resident */
    GC_gcollect();
    CHECK(p[0] == 1 && p[GiB - 64 * MiB] == 1);
}

static void mode_dead_large(void)
{
    live_then_dead_large();
    clear_stack();
    GC_gcollect();
    garbage_is_collected("a 1 GiB object died");
}

static void mode_svector(void)
{
    bibop_struct_type *t = bibop_struct_type_new("word", 1, NULL);
    CHECK(t != NULL);
    void *v = bibop_svector_new(t, (size_t)1 << 44);
    CHECKF(v == NULL, "bibop_svector_new(2^44 words) returned %p", v);
    garbage_is_collected("bibop_svector_new(2^44) = NULL");
}

static int overcommit_policy(void)
{
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = -1;
    if (f) {
        if (fscanf(f, "%d", &mode) != 1) mode = -1;
        fclose(f);
    }
    return mode;
}

static void mode_expand_hp(void)
{
    size_t heap0 = GC_get_heap_size();
    CHECK_EQ(GC_expand_hp(SIZE_MAX), 0);
    CHECK_EQ(GC_expand_hp(SIZE_MAX - 100), 0);
    /* Under policy 1 (always overcommit) with a raised vm.max_map_count,
       64 TiB of address space may really be obtained, as by stock. */
    if (overcommit_policy() != 1) CHECK_EQ(GC_expand_hp(64 * TiB), 0);
    CHECKF(GC_get_heap_size() == heap0, "heap %zu after refused GC_expand_hp, %zu before",
           GC_get_heap_size(), heap0);
    CHECK_EQ(GC_expand_hp(8 * MiB), 1);
    CHECKF(GC_get_heap_size() >= heap0 + 8 * MiB, "heap %zu after GC_expand_hp(8 MiB), %zu "
           "before", GC_get_heap_size(), heap0);
    garbage_is_collected("GC_expand_hp(SIZE_MAX, 64 TiB) = 0");
}

static void mode_map_count(void)
{
    size_t maps0 = map_count();
    void *p = NULL;
    if (overcommit_policy() == 1) {
        /* Nothing refuses it up front: the reservation fails on descriptor
           mappings (vm.max_map_count), or, with that raised, succeeds. */
        p = GC_malloc(16 * TiB);
        printf("map_count: overcommit policy 1: GC_malloc(16 TiB) = %p\n", p);
    } else {
        expect_refused(GC_malloc, 16 * TiB, "GC_malloc");
    }
    size_t maps1 = map_count();
    printf("map_count: %zu mappings before GC_malloc(16 TiB), %zu after\n", maps0, maps1);
    if (p == NULL)
        CHECKF(maps1 < maps0 + 100, "a failed GC_malloc(16 TiB) left %zu new mappings",
               maps1 - maps0);
    GC_free(p);
    void *m = malloc(MiB);
    CHECKF(m != NULL, "malloc(1 MiB) failed after a failed GC_malloc(16 TiB)");
    free(m);
    void *g = GC_malloc(MiB);
    CHECKF(g != NULL, "GC_malloc(1 MiB) failed after a failed GC_malloc(16 TiB)");
    garbage_is_collected("GC_malloc(16 TiB) = NULL");
}

static void mode_beyond_ram(void)
{
    int policy = overcommit_policy();
    if (policy != 0) {
        printf("beyond_ram: overcommit policy %d, not 0: nothing to check\n", policy);
        return;
    }
    struct sysinfo si;
    CHECK(sysinfo(&si) == 0);
    size_t backed = ((size_t)si.totalram + si.totalswap) * si.mem_unit;
    size_t request = 64 * GiB > 2 * backed ? 64 * GiB : 2 * backed;
    printf("beyond_ram: RAM + swap %zu MiB, asking for %zu MiB\n", backed >> 20, request >> 20);
    expect_refused(GC_malloc, request, "GC_malloc");
    expect_refused(GC_malloc_atomic, request, "GC_malloc_atomic");
    garbage_is_collected("GC_malloc beyond RAM + swap = NULL");
    if (backed < 4 * GiB) return;
    char *p = GC_malloc(GiB);
    CHECKF(p != NULL, "GC_malloc(1 GiB) failed with %zu MiB of RAM + swap", backed >> 20);
    CHECK(p[0] == 0 && p[GiB / 2] == 0 && p[GiB - 1] == 0);
    p[0] = 'a';
    p[GiB - 1] = 'z';
    GC_gcollect();
    CHECK(p[0] == 'a' && p[GiB - 1] == 'z');
    CHECK_PTR_EQ(GC_base(p + GiB - 1), p);
}

static NOINLINE char *untouched_giant(size_t bytes, size_t rss0, const char *what)
{
    char *p = GC_malloc_atomic(bytes);
    CHECKF(p != NULL, "%s: GC_malloc_atomic(%zu) failed", what, bytes);
    size_t rss1 = rss_bytes();
    printf("descriptors: %s: RSS %zu -> %zu MiB\n", what, rss0 >> 20, rss1 >> 20);
    CHECKF(rss1 <= rss0 + DESCRIPTOR_BOUND, "%s: an untouched %zu MiB object grew RSS from %zu "
           "to %zu MiB", what, bytes >> 20, rss0 >> 20, rss1 >> 20);
    for (size_t off = 0; off < bytes; off += 256 * MiB)
        CHECKF(GC_base(p + off + 12345) == p, "%s: GC_base(p + %zu MiB) = %p, p = %p", what,
               off >> 20, GC_base(p + off + 12345), (void *)p);
    CHECK_PTR_EQ(GC_base(p + bytes - 1), p);
    return p;
}

static void mode_descriptors(void)
{
    struct sysinfo si;
    CHECK(sysinfo(&si) == 0);
    if (((size_t)si.totalram + si.totalswap) * si.mem_unit < 8 * GiB) {
        printf("descriptors: less than 8 GiB of RAM + swap: nothing to check\n");
        return;
    }
    size_t rss0 = rss_bytes();
    char *p = untouched_giant(4 * GiB, rss0, "first");
    GC_gcollect();
    size_t rss1 = rss_bytes();
    CHECKF(rss1 <= rss0 + DESCRIPTOR_BOUND, "a collection with an untouched 4 GiB object live "
           "grew RSS from %zu to %zu MiB", rss0 >> 20, rss1 >> 20);
    GC_free(p);
    GC_gcollect_and_unmap();
    p = untouched_giant(4 * GiB, rss_bytes(), "second, after the first was freed");
    p[0] = 1;
    p[4 * GiB - 1] = 2;
    GC_gcollect();
    CHECK(p[0] == 1 && p[4 * GiB - 1] == 2);
}

int main(int argc, char **argv)
{
    GC_INIT();
    GC_set_oom_fn(count_oom);
    GC_set_warn_proc(quiet_warn);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "failed_request") == 0) mode_failed_request();
    else if (strcmp(mode, "dead_large") == 0) mode_dead_large();
    else if (strcmp(mode, "svector") == 0) mode_svector();
    else if (strcmp(mode, "expand_hp") == 0) mode_expand_hp();
    else if (strcmp(mode, "map_count") == 0) mode_map_count();
    else if (strcmp(mode, "beyond_ram") == 0) mode_beyond_ram();
    else if (strcmp(mode, "descriptors") == 0) mode_descriptors();
    else {
        fprintf(stderr, "usage: %s failed_request | dead_large | svector | expand_hp | "
                "map_count | beyond_ram | descriptors\n", argv[0]);
        return 2;
    }
    printf("huge %s: ok (%lu collections)\n", mode, (unsigned long)GC_get_gc_no());
    return 0;
}
