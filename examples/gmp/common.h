/*
 * common.h: what every variant of the GMP example shares, so that they can
 * be checked to compute the same thing and measured the same way:
 *   - the checksum: every result a program produces is mixed in, in the
 *     same order, as (number of bits, value mod 4294967291);
 *   - the pseudo-random generator of listing 1 (splitmix64, fixed seed),
 *     standing in for OCaml's Random.int max_int, never 0;
 *   - the parameters of the listings, with the paper's defaults (listing 2
 *     and 3 with 22 squarings instead of 26) and small ones for the tests;
 *   - wall time, CPU time and peak RSS (getrusage ru_maxrss) as printed
 *     results.
 */
#ifndef GMP_EXAMPLE_COMMON_H
#define GMP_EXAMPLE_COMMON_H

#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* ---- checksum ---------------------------------------------------------- */

static inline uint64_t ck_word(uint64_t h, uint64_t v) {
  h ^= v;
  h *= 0x100000001b3ull;          /* FNV-1a prime, 64 bits */
  return h ^ (h >> 29);
}

static inline uint64_t ck_mix(uint64_t h, mpz_srcptr z) {
  h = ck_word(h, (uint64_t)mpz_sizeinbase(z, 2));
  h = ck_word(h, (uint64_t)mpz_fdiv_ui(z, 4294967291ul));
  return h;
}

#define CK_INIT 0xcbf29ce484222325ull

/* ---- pseudo-random numbers for listing 1 --------------------------------- */

static inline unsigned long ck_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (unsigned long)((z >> 2) | 1);   /* in [1, 2^62): like Random.int max_int, never 0 */
}
#define CK_SEED 20061127ull

/* ---- parameters ---------------------------------------------------------- */

struct params {
  /* listing 1 */
  long fact_n;      /* nn = fact(fact_n)^2                   (paper: 9999) */
  long ffact_a;     /* nn2 = ffact(ffact_a), kept, unused     (paper: 999) */
  long ffact_b;     /* printed ffact(ffact_b)               (paper: 99991) */
  /* listings 2 and 3 (and 6) */
  long squarings;   /* squarings of 999 per calc        (paper: 26; here 22) */
  long outer;       /* calls of calc                    (paper: 11, 0..10) */
  long fact_inner;  /* listing 3: fact after every squaring     (paper: 2600) */
  long fact_outer;  /* listing 3: fact after every calc        (paper: 26000) */
};

static const struct params params_paper = { 9999, 999, 99991, 22, 11, 2600, 26000 };
static const struct params params_small = { 200, 30, 500, 12, 3, 60, 300 };

/* "-s" selects the small parameters; "-p k=v" overrides one (names as in
   struct params). Returns 0, or -1 on a bad argument. */
static inline int params_parse(struct params *p, int argc, char **argv, int first) {
  *p = params_paper;
  for (int i = first; i < argc; i++) {
    if (!strcmp(argv[i], "-s")) { *p = params_small; continue; }
    if (!strcmp(argv[i], "-p") && i + 1 < argc) {
      char name[32];
      long v;
      if (sscanf(argv[++i], "%31[a-z_]=%ld", name, &v) != 2 || v < 0) return -1;
      if (!strcmp(name, "fact_n")) p->fact_n = v;
      else if (!strcmp(name, "ffact_a")) p->ffact_a = v;
      else if (!strcmp(name, "ffact_b")) p->ffact_b = v;
      else if (!strcmp(name, "squarings")) p->squarings = v;
      else if (!strcmp(name, "outer")) p->outer = v;
      else if (!strcmp(name, "fact_inner")) p->fact_inner = v;
      else if (!strcmp(name, "fact_outer")) p->fact_outer = v;
      else return -1;
      continue;
    }
    return -1;
  }
  return 0;
}

/* ---- measurement --------------------------------------------------------- */

static inline double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* User + system CPU time of the process so far: less sensitive than wall
   time to other load on a shared machine. */
static inline double cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static inline long peak_rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;            /* KiB on Linux */
}

#endif
