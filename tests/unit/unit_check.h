/* unit_check.h: the few helpers the unit tests share. EXPECT_* macros print
 * the failing expression with its values and count the failure (the test
 * goes on, so one run shows every broken case, up to a print limit);
 * REQUIRE_* stop at once when going on makes no sense. unit_finish()
 * turns the count into the exit status. Also a seeded PRNG, a stack
 * scrubber and pointer hiding for "must be reclaimed" checks. */
#ifndef BIBOP_TESTS_UNIT_CHECK_H
#define BIBOP_TESTS_UNIT_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long unit_failures_;
#define UNIT_PRINT_LIMIT 25

static inline void unit_report_(const char *file, int line, const char *cond, const char *fmt,
                                ...) __attribute__((format(printf, 4, 5)));

static inline void unit_report_(const char *file, int line, const char *cond, const char *fmt,
                                ...) {
  unit_failures_++;
  if (unit_failures_ > UNIT_PRINT_LIMIT) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s:%d: FAILED: ", file, line);
  if (cond) fprintf(stderr, "(%s) ", cond);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  if (unit_failures_ == UNIT_PRINT_LIMIT) fprintf(stderr, "(further failures not printed)\n");
  fflush(stderr);
}

/* EXPECT(cond, "format", args...): the message should carry the values. */
#define EXPECT(cond, ...) \
  do { if (!(cond)) unit_report_(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)

#define EXPECT_OP_U_(a, op, b)                                                          \
  do {                                                                                  \
    unsigned long long ua_ = (unsigned long long)(a), ub_ = (unsigned long long)(b);    \
    if (!(ua_ op ub_))                                                                  \
      unit_report_(__FILE__, __LINE__, NULL, "%s %s %s: %llu (0x%llx) vs %llu (0x%llx)", #a,\
                   #op, #b, ua_, ua_, ub_, ub_);                                        \
  } while (0)
#define EXPECT_EQ(a, b) EXPECT_OP_U_(a, ==, b)
#define EXPECT_NE(a, b) EXPECT_OP_U_(a, !=, b)
#define EXPECT_LT(a, b) EXPECT_OP_U_(a, <, b)
#define EXPECT_LE(a, b) EXPECT_OP_U_(a, <=, b)
#define EXPECT_GE(a, b) EXPECT_OP_U_(a, >=, b)
#define EXPECT_GT(a, b) EXPECT_OP_U_(a, >, b)

#define EXPECT_PTR_EQ(a, b)                                                             \
  do {                                                                                  \
    const void *pa_ = (const void *)(a), *pb_ = (const void *)(b);                      \
    if (pa_ != pb_)                                                                     \
      unit_report_(__FILE__, __LINE__, NULL, "%s == %s: %p vs %p", #a, #b, pa_, pb_);   \
  } while (0)

/* Stop now: the rest of the test depends on this. */
#define REQUIRE(cond, ...)                                                              \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      unit_report_(__FILE__, __LINE__, #cond, __VA_ARGS__);                             \
      fprintf(stderr, "stopping: a required condition failed\n");                      \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

/* Progress lines on stdout, so that ctest --output-on-failure shows how far
   a failing test got. */
#define NOTE(...) do { printf(__VA_ARGS__); putchar('\n'); fflush(stdout); } while (0)

static inline int unit_finish(const char *name) {
  if (unit_failures_) {
    fprintf(stderr, "%s: %lu check(s) failed\n", name, unit_failures_);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}

/* xorshift64*: deterministic test data; the seed can be overridden with
   UNIT_SEED to replay a run, and is printed by unit_rng(). */
typedef struct { uint64_t s; } unit_rng_t;

static inline unit_rng_t unit_rng(uint64_t dflt) {
  const char *e = getenv("UNIT_SEED");
  unit_rng_t r = { e ? strtoull(e, NULL, 0) : dflt };
  if (!r.s) r.s = 0x9e3779b97f4a7c15ull;
  printf("seed %" PRIu64 " (set UNIT_SEED to replay)\n", r.s);
  return r;
}

static inline uint64_t unit_next(unit_rng_t *r) {
  uint64_t x = r->s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->s = x;
  return x * 0x2545f4914f6cdd1dull;
}

/* In [0, n), n > 0; the modulo bias is irrelevant for test data. */
static inline uint64_t unit_below(unit_rng_t *r, uint64_t n) { return unit_next(r) % n; }

/* A word that can never look like a heap pointer: its top bit is set, which
   no user-space address has. Used for payloads, so that test data never
   retains objects by accident. */
static inline uint64_t unit_payload(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;
  z ^= z >> 31;
  z *= 0x94d049bb133111ebull;
  z ^= z >> 29;
  return z | (1ull << 63);
}

/* Zero a good stretch of the stack below the caller, so that pointers left
   in dead frames do not act as roots for "must be reclaimed" checks. */
static __attribute__((noinline, unused)) void unit_scrub_stack(void) {
  volatile unsigned char pad[128 * 1024];
  memset((unsigned char *)pad, 0, sizeof pad);
  __asm__ __volatile__("" : : "r"(pad) : "memory");
}

/* Hide a pointer from the conservative scan: the complement of a user-space
   address has its top bits set, so it is never taken for one of ours. */
#define UNIT_HIDE(p) (~(uintptr_t)(p))
#define UNIT_UNHIDE(h) ((void *)~(uintptr_t)(h))

#endif
