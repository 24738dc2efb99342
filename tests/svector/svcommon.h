/* svcommon.h: helpers shared by the structure-vector tests (tests/svector/).
 *
 * Failure reporting (SV_CHECK prints "FAIL: file:line: message" on stderr
 * and exits 1, so that the self-check tests can match the exact assertion
 * they are built to trip), a seeded PRNG and a bijective mix, a stack
 * scrubber (dead pointers left in stack slots must not keep objects that a
 * test expects to be reclaimed), garbage churn that reuses and overwrites
 * any wrongly freed memory, and disappearing links kept in atomic memory
 * (so that the link cells themselves retain nothing).
 *
 * Include <gc.h> and <bibop.h> before this file. */
#ifndef BIBOP_TESTS_SVECTOR_SVCOMMON_H
#define BIBOP_TESTS_SVECTOR_SVCOMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SV_NOINLINE __attribute__((noinline))

static void sv_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void sv_fail(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("FAIL: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    exit(1);
}

#define SV_STR2(x) #x
#define SV_STR(x) SV_STR2(x)
/* SV_CHECK(cond, "printf format", args...): the message should carry the
   values that make the failure diagnosable. */
#define SV_CHECK(cond, ...)                                                    \
    do {                                                                       \
        if (!(cond)) sv_fail(__FILE__ ":" SV_STR(__LINE__) ": " __VA_ARGS__);  \
    } while (0)

/* splitmix64 finaliser: a bijection on 64-bit words. */
static inline uint64_t sv_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct { uint64_t s; } sv_rng;
static inline uint64_t sv_next(sv_rng *r) { return sv_mix(r->s += 0x9e3779b97f4a7c15ULL); }

/* The value a test stores in field f of element i of the vector "tag". */
static inline unsigned long sv_value(uint64_t tag, size_t i, size_t f)
{
    return (unsigned long)sv_mix(tag * 0x100000001b3ULL ^ ((uint64_t)i << 12) ^ f) | 1;
}

/* Overwrite the stack below the caller's frame, so that stale copies of
   pointers in dead slots do not keep objects alive. */
static SV_NOINLINE void sv_scrub_stack(void)
{
    volatile unsigned char buf[64 * 1024];
    memset((void *)buf, 0, sizeof buf);
    __asm__ volatile("" : : "r"(buf) : "memory");
}

/* Allocate and fill garbage of several sizes and kinds (small and large,
   scanned, atomic and structure objects), so that memory wrongly freed by
   a collection is handed out again and overwritten. */
static SV_NOINLINE void sv_churn(size_t bytes, const void *struct_type)
{
    size_t done = 0;
    unsigned k = 0;
    while (done < bytes) {
        size_t sz = (k % 7 == 6) ? 9000 + 4096 * (k % 5) : 16 + 16 * (k % 23);
        unsigned char *p = (k & 1) ? GC_MALLOC_ATOMIC(sz) : GC_MALLOC(sz);
        if (p) memset(p, 0xA5, sz);
        if (struct_type && k % 5 == 0) {
            unsigned long *v = bibop_svector_new(struct_type, 1 + k % 300);
            size_t nf = bibop_struct_type_fields(struct_type);
            if (v) memset(v, 0x5A, (1 + k % 300) * nf * sizeof(unsigned long));
            done += (1 + k % 300) * nf * sizeof(unsigned long);
        }
        done += sz;
        k++;
    }
}

/* A table of disappearing links in atomic memory: the cells hold the
   objects' addresses but are never scanned, and the collector clears a
   cell when its object is reclaimed. The table is kept alive by the
   caller (a global pointer). */
typedef struct {
    void **cells;
    size_t n;
} sv_links;

static inline sv_links sv_links_new(size_t n)
{
    sv_links l;
    l.cells = (void **)GC_MALLOC_ATOMIC(n * sizeof(void *));
    if (!l.cells) sv_fail("out of memory for %zu link cells", n);
    memset(l.cells, 0, n * sizeof(void *));
    l.n = n;
    return l;
}

/* Watch the object that p points into (p may be an interior pointer). */
static inline void sv_links_watch(sv_links *l, size_t i, const void *p)
{
    void *base = GC_base((void *)p);
    if (!base) sv_fail("link %zu: %p is not in the heap", i, p);
    l->cells[i] = base;
    if (GC_general_register_disappearing_link(&l->cells[i], base) != GC_SUCCESS)
        sv_fail("link %zu: registration failed", i);
}

static inline size_t sv_links_alive(const sv_links *l, size_t from, size_t to)
{
    size_t alive = 0;
    for (size_t i = from; i < to; i++) alive += l->cells[i] != NULL;
    return alive;
}

/* Several full collections with garbage churn in between. */
static inline void sv_collect_and_churn(int rounds, const void *struct_type)
{
    for (int r = 0; r < rounds; r++) {
        sv_scrub_stack();
        GC_gcollect();
        sv_churn((size_t)4 << 20, struct_type);
    }
    sv_scrub_stack();
    GC_gcollect();
}

#endif
