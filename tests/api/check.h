/* check.h: tiny helpers shared by the API tests: CHECK macros that print the
 * failing expression with its values and exit(1), a seeded PRNG, and a
 * stack scrubber so that dead pointers left in stack slots do not make
 * "this object must have been reclaimed" checks meaningless. */
#ifndef BIBOP_TESTS_API_CHECK_H
#define BIBOP_TESTS_API_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static unsigned long long check_seed_ = 0; /* printed on failure */

/* Line-buffer stdout so that progress lines survive a crash. */
__attribute__((constructor)) static void check_line_buffered_(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline void check_fail_(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: FAILED: %s (seed %llu)\n", file, line, what,
            check_seed_);
    fflush(stderr);
    exit(1);
}

#define CHECK(c) \
    do { if (!(c)) check_fail_(__FILE__, __LINE__, #c); } while (0)

/* CHECK with a printf-style explanation carrying the values. */
#define CHECKF(c, ...)                                                       \
    do {                                                                     \
        if (!(c)) {                                                          \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #c);  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fprintf(stderr, " (seed %llu)\n", check_seed_);                  \
            fflush(stderr);                                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* Binary comparisons of unsigned integers and of pointers, with values. */
#define CHECK_OP_U_(a, op, b)                                                \
    do {                                                                     \
        unsigned long long a_ = (unsigned long long)(a);                     \
        unsigned long long b_ = (unsigned long long)(b);                     \
        if (!(a_ op b_)) {                                                   \
            fprintf(stderr, "%s:%d: FAILED: %s %s %s: %llu (0x%llx) vs "     \
                    "%llu (0x%llx) (seed %llu)\n", __FILE__, __LINE__, #a,   \
                    #op, #b, a_, a_, b_, b_, check_seed_);                   \
            fflush(stderr);                                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)
#define CHECK_EQ(a, b) CHECK_OP_U_(a, ==, b)
#define CHECK_NE(a, b) CHECK_OP_U_(a, !=, b)
#define CHECK_LE(a, b) CHECK_OP_U_(a, <=, b)
#define CHECK_LT(a, b) CHECK_OP_U_(a, <, b)
#define CHECK_GE(a, b) CHECK_OP_U_(a, >=, b)
#define CHECK_GT(a, b) CHECK_OP_U_(a, >, b)

#define CHECK_PTR_EQ(a, b)                                                   \
    do {                                                                     \
        const void *a_ = (const void *)(a), *b_ = (const void *)(b);         \
        if (a_ != b_) {                                                      \
            fprintf(stderr, "%s:%d: FAILED: %s == %s: %p vs %p (seed %llu)\n",\
                    __FILE__, __LINE__, #a, #b, a_, b_, check_seed_);        \
            fflush(stderr);                                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* splitmix64: small, fast, good enough for test data. */
typedef struct { uint64_t s; } rng_t;

static inline uint64_t rng_next(rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (bias is irrelevant here). */
static inline uint64_t rng_below(rng_t *r, uint64_t n) { return rng_next(r) % n; }

/* Seed from argv/environment (BIBOP_TEST_SEED) or the given default. */
static inline rng_t rng_seeded(unsigned long long dflt)
{
    const char *e = getenv("BIBOP_TEST_SEED");
    rng_t r;
    check_seed_ = e ? strtoull(e, NULL, 0) : dflt;
    r.s = check_seed_;
    return r;
}

/* Mix a 64-bit value (finaliser of splitmix64); used for checksums. */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Checksum of n bytes, seeded. */
static inline uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return mix64(h);
}

/* Fill n bytes with a pattern derived from seed, a word at a time. The
 * pattern is prefix-consistent: byte i depends only on seed and i. */
static inline uint64_t pattern_word_(uint64_t seed, size_t j)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)j * 0xd1b54a32d192ed03ULL;
    return x ^ (x >> 29) ^ 0x5bd1e9955bd1e995ULL;
}

static inline void fill_pattern(void *p, size_t n, uint64_t seed)
{
    unsigned char *b = (unsigned char *)p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = pattern_word_(seed, i / 8);
        memcpy(b + i, &w, 8);
    }
    if (i < n) {
        uint64_t w = pattern_word_(seed, i / 8);
        memcpy(b + i, &w, n - i);
    }
}

/* Returns the offset of the first byte that differs from fill_pattern(seed),
 * or (size_t)-1 if the whole range matches. */
static inline size_t pattern_mismatch(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = pattern_word_(seed, i / 8), v = 0;
        size_t k = n - i < 8 ? n - i : 8;
        memcpy(&v, b + i, k);
        if (memcmp(&v, &w, k) != 0) {
            for (size_t m = 0; m < k; m++)
                if (((const unsigned char *)&v)[m] != ((const unsigned char *)&w)[m])
                    return i + m;
        }
    }
    return (size_t)-1;
}

/* Overwrite a good chunk of the stack below the caller with zeros, so that
 * pointers left behind by finished calls do not act as roots. */
static NOINLINE __attribute__((unused)) void clear_stack(void)
{
    volatile char buf[64 * 1024];
    memset((char *)buf, 0, sizeof buf);
    __asm__ __volatile__("" : : "r"(buf) : "memory");
}

/* The process's resident set in bytes (/proc/self/statm). */
static __attribute__((unused)) size_t resident_bytes(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f != NULL);
    CHECK(fscanf(f, "%ld %ld", &pages, &resident) == 2);
    fclose(f);
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* Hide a pointer from the conservative scanner (and unhide it). */
#define HIDE(p) (~(uintptr_t)(p))
#define UNHIDE(h) ((void *)~(uintptr_t)(h))

#endif
