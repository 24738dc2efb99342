/* bench_gc.h: which collector a benchmark is built against. Define exactly
 * one of BIBOP (bibop's gc.h and bibop.h, linked to libbibop) or STOCK
 * (Debian's libgc1 headers from /usr/include/gc, its library by full path);
 * VARIANT names it in the output. The stock build refuses to compile if
 * bibop's include directory is reachable, so it can never measure bibop by
 * mistake. Define GC_THREADS before including it where needed. (gcbench.c
 * and mt_gcbench.c, which also have a MALLOC build, keep their own block.) */
#ifndef BENCH_GC_H
#define BENCH_GC_H

#if (defined(BIBOP) + defined(STOCK)) != 1
# error "define exactly one of BIBOP, STOCK"
#endif
#if defined(BIBOP)
# ifdef BENCH_GC_IN_SUBDIR   /* bibop ships include/gc/gc.h only */
#  include <gc/gc.h>
# else
#  include <gc.h>
# endif
# include <bibop.h>
# define VARIANT "bibop"
#else
# if defined(__has_include)
#  if __has_include(<bibop.h>)
#   error "bibop's include directory is on the stock build's include path"
#  endif
# endif
# include <gc.h>
# define VARIANT "stock"
#endif

#include <stdint.h>
#include <time.h>

/* A clock in nanoseconds: CLOCK_MONOTONIC for wall time, or
   CLOCK_PROCESS_CPUTIME_ID, which stays comparable on a loaded machine. */
static inline uint64_t bench_clock_ns(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* qsort comparison of uint64_t samples (for medians). */
static inline int bench_cmp_u64(const void *x, const void *y) {
  uint64_t p = *(const uint64_t *)x, q = *(const uint64_t *)y;
  return p < q ? -1 : p > q;
}

#endif /* BENCH_GC_H */
