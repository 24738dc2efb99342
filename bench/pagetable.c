/*
 * pagetable.c: micro-benchmark of pointer classification, the question a
 * conservative marker asks of every word it scans: "is this a pointer into
 * the collected heap, and to which object?".
 *
 * How: allocate a heap of N small objects (sizes 8..128 bytes, interleaved
 * at random, kept reachable from a traced array), then build arrays of M
 * candidate words for several mixes:
 *   heap      interior pointers into random heap objects, in random order;
 *   random64  uniformly random 64-bit words;
 *   random48  random words below 2^47 (anywhere in the user address space);
 *   static    pointers into this program's .data and .bss;
 *   malloc    pointers into malloc'd memory (small blocks and one big
 *             mmap'd block);
 *   mixed     a shuffle of heap, random64, static and malloc, 1/4 each.
 * Each mix is classified by each method, one untimed pass that also checks
 * every answer (a wrong answer exits 1 before any figure is printed), then
 * K timed passes.  Methods:
 *   baseline        an indirect call to a trivial function (loop + call cost);
 *   GC_base         bdwgc's only public classification (bibop and stock);
 *   bibop_classify  bibop's page-table lookup (BIBOP build only).
 * Output, one line per method and mix (ns = median over the K passes of
 * time / M, ns_min the fastest pass):
 *   pagetable variant=V method=X mix=Y objects=N candidates=M reps=K
 *             ns=T ns_min=T0
 * Builds: -DBIBOP (bibop's gc.h and bibop.h, libbibop) or -DSTOCK (Debian's
 * libgc1 8.2.2).  Options: -n N (default 1048576), -m M (default 1048576),
 * -k K (default 7).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gc.h"

/* ---- random numbers (splitmix64, fixed seed: runs are reproducible) ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rnd(void)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static size_t rnd_below(size_t n) { return (size_t)(rnd() % n); }

/* ---- the address populations ------------------------------------------- */

enum cat { CAT_HEAP, CAT_RANDOM64, CAT_RANDOM48, CAT_STATIC, CAT_MALLOC };

static void **objs;              /* the heap objects (a traced GC object) */
static unsigned char *obj_size;  /* their requested sizes */
static size_t n_objs;

static unsigned char bss_area[4 << 20];                 /* .bss */
static unsigned char data_area[64 << 10] = { 1, 2, 3 }; /* .data */

enum { N_SMALL_BLOCKS = 4096, BIG_BLOCK = 8 << 20 };
static unsigned char *small_blocks[N_SMALL_BLOCKS];
static size_t small_size[N_SMALL_BLOCKS];
static unsigned char *big_block;

static void die(const char *msg, size_t i)
{
  fprintf(stderr, "pagetable(" VARIANT "): CHECK FAILED: %s (candidate %zu)\n",
          msg, i);
  exit(1);
}

static void build_heap(size_t n)
{
  static const unsigned char sizes[] = { 8, 16, 24, 32, 48, 64, 96, 128 };
  n_objs = n;
  objs = GC_MALLOC(n * sizeof *objs);
  obj_size = malloc(n);
  if (objs == NULL || obj_size == NULL)
    die("allocating the heap", 0);
  for (size_t i = 0; i < n; i++) {
    unsigned char sz = sizes[rnd_below(sizeof sizes)];
    objs[i] = GC_MALLOC(sz);
    if (objs[i] == NULL)
      die("GC_MALLOC returned NULL", i);
    obj_size[i] = sz;
  }
  /* Everything we allocated must still be there (and classify as such). */
  for (size_t i = 0; i < n; i++)
    if (GC_base(objs[i]) != objs[i])
      die("GC_base of a fresh object is not its start", i);
}

static void build_foreign(void)
{
  for (size_t i = 0; i < sizeof bss_area; i += 4096)
    bss_area[i] = (unsigned char)i;   /* make it resident, like real data */
  for (int i = 0; i < N_SMALL_BLOCKS; i++) {
    small_size[i] = 16 + rnd_below(1009);
    small_blocks[i] = malloc(small_size[i]);
    if (small_blocks[i] == NULL)
      die("malloc", 0);
    memset(small_blocks[i], 0x5a, small_size[i]);
  }
  big_block = malloc(BIG_BLOCK);
  if (big_block == NULL)
    die("malloc", 0);
  memset(big_block, 0xa5, BIG_BLOCK);
}

/* One candidate of category c; *expect is the object start for CAT_HEAP. */
static void *make_candidate(enum cat c, void **expect)
{
  *expect = NULL;
  switch (c) {
  case CAT_HEAP: {
    size_t k = rnd_below(n_objs);
    *expect = objs[k];
    return (char *)objs[k] + rnd_below(obj_size[k]);
  }
  case CAT_RANDOM64:
    return (void *)(uintptr_t)rnd();
  case CAT_RANDOM48:
    return (void *)(uintptr_t)(rnd() & ((UINT64_C(1) << 47) - 1));
  case CAT_STATIC:
    if (rnd() & 1)
      return bss_area + rnd_below(sizeof bss_area);
    return data_area + rnd_below(sizeof data_area);
  case CAT_MALLOC:
    if (rnd() & 1) {
      int b = (int)rnd_below(N_SMALL_BLOCKS);
      return small_blocks[b] + rnd_below(small_size[b]);
    }
    return big_block + rnd_below(BIG_BLOCK);
  }
  return NULL;
}

struct mix {
  const char *name;
  int cats[4];   /* categories drawn from uniformly */
  int n_cats;
};

static const struct mix mixes[] = {
  { "heap", { CAT_HEAP }, 1 },
  { "random64", { CAT_RANDOM64 }, 1 },
  { "random48", { CAT_RANDOM48 }, 1 },
  { "static", { CAT_STATIC }, 1 },
  { "malloc", { CAT_MALLOC }, 1 },
  { "mixed", { CAT_HEAP, CAT_RANDOM64, CAT_STATIC, CAT_MALLOC }, 4 },
};

/* ---- the methods --------------------------------------------------------- */

typedef uintptr_t (*pass_fn)(void *const *cand, size_t m);

__attribute__((noinline)) static void *trivial(void *p)
{
  __asm__ volatile("" : "+r"(p));
  return p;
}
static void *(*volatile trivial_ptr)(void *) = trivial;

__attribute__((noinline)) static uintptr_t pass_baseline(void *const *c, size_t m)
{
  void *(*f)(void *) = trivial_ptr;
  uintptr_t acc = 0;
  for (size_t i = 0; i < m; i++)
    acc += (uintptr_t)f(c[i]);
  return acc;
}

__attribute__((noinline)) static uintptr_t pass_gc_base(void *const *c, size_t m)
{
  uintptr_t acc = 0;
  for (size_t i = 0; i < m; i++)
    acc += (uintptr_t)GC_base(c[i]);
  return acc;
}

#ifdef BIBOP
__attribute__((noinline)) static uintptr_t pass_classify(void *const *c, size_t m)
{
  uintptr_t acc = 0;
  for (size_t i = 0; i < m; i++)
    acc += (uintptr_t)bibop_classify(c[i]);
  return acc;
}
#endif

enum method { M_BASELINE, M_GC_BASE, M_CLASSIFY };

static const struct {
  const char *name;
  pass_fn fn;
} methods[] = {
  { "baseline", pass_baseline },
  { "GC_base", pass_gc_base },
#ifdef BIBOP
  { "bibop_classify", pass_classify },
#endif
};

/* Untimed pass: every answer must be right for its category. */
static void verify(enum method meth, void *const *cand, void *const *expect,
                   const unsigned char *cat, size_t m)
{
  for (size_t i = 0; i < m; i++) {
    void *p = cand[i];
    if (meth == M_GC_BASE) {
      void *b = GC_base(p);
      switch (cat[i]) {
      case CAT_HEAP:
        if (b != expect[i])
          die("GC_base of an interior pointer is not the object start", i);
        break;
      case CAT_STATIC:
      case CAT_MALLOC:
        if (b != NULL)
          die("GC_base of a non-heap address is not NULL", i);
        break;
      default:
        if (b != NULL && (uintptr_t)b > (uintptr_t)p)
          die("GC_base returned an address above the candidate", i);
        break;
      }
    }
#ifdef BIBOP
    if (meth == M_CLASSIFY) {
      bibop_addr_class c = bibop_classify(p);
      switch (cat[i]) {
      case CAT_HEAP:
        if (c != BIBOP_ADDR_HEAP_OBJECT)
          die("bibop_classify of an interior pointer is not HEAP_OBJECT", i);
        break;
      case CAT_STATIC:
        if (c != BIBOP_ADDR_UNKNOWN && c != BIBOP_ADDR_STATIC)
          die("bibop_classify of static data is not UNKNOWN/STATIC", i);
        break;
      case CAT_MALLOC:
        if (c != BIBOP_ADDR_UNKNOWN && c != BIBOP_ADDR_FOREIGN)
          die("bibop_classify of malloc memory is not UNKNOWN/FOREIGN", i);
        break;
      default:
        if ((int)c < BIBOP_ADDR_UNKNOWN || (int)c > BIBOP_ADDR_FOREIGN)
          die("bibop_classify returned an unknown class", i);
        if (c == BIBOP_ADDR_HEAP_OBJECT && GC_base(p) == NULL)
          die("bibop_classify says HEAP_OBJECT but GC_base says NULL", i);
        break;
      }
    }
#endif
  }
}

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static size_t parse_size(const char *s)
{
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v == 0) {
    fprintf(stderr, "pagetable: bad count '%s'\n", s);
    exit(2);
  }
  return (size_t)v;
}

volatile uintptr_t sink;

int main(int argc, char **argv)
{
  size_t n = 1u << 20, m = 1u << 20, reps = 7;
  for (int a = 1; a < argc; a++) {
    if (a + 1 < argc && strcmp(argv[a], "-n") == 0)
      n = parse_size(argv[++a]);
    else if (a + 1 < argc && strcmp(argv[a], "-m") == 0)
      m = parse_size(argv[++a]);
    else if (a + 1 < argc && strcmp(argv[a], "-k") == 0)
      reps = parse_size(argv[++a]);
    else {
      fprintf(stderr, "usage: %s [-n objects] [-m candidates] [-k reps]\n",
              argv[0]);
      return 2;
    }
  }

  GC_INIT();
  build_heap(n);
  build_foreign();

  void **cand = malloc(m * sizeof *cand);
  void **expect = malloc(m * sizeof *expect);
  unsigned char *cat = malloc(m);
  double *times = malloc(reps * sizeof *times);
  if (cand == NULL || expect == NULL || cat == NULL || times == NULL)
    die("malloc", 0);

  for (size_t x = 0; x < sizeof mixes / sizeof mixes[0]; x++) {
    const struct mix *mx = &mixes[x];
    for (size_t i = 0; i < m; i++) {
      cat[i] = (unsigned char)mx->cats[rnd_below((size_t)mx->n_cats)];
      cand[i] = make_candidate((enum cat)cat[i], &expect[i]);
    }
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
      verify((enum method)k, cand, expect, cat, m);
      sink += methods[k].fn(cand, m);   /* warm-up */
      for (size_t r = 0; r < reps; r++) {
        double t = now_ns();
        sink += methods[k].fn(cand, m);
        times[r] = (now_ns() - t) / (double)m;
      }
      qsort(times, reps, sizeof *times, cmp_double);
      printf("pagetable variant=%s method=%s mix=%s objects=%zu "
             "candidates=%zu reps=%zu ns=%.3f ns_min=%.3f\n",
             VARIANT, methods[k].name, mx->name, n, m, reps,
             times[reps / 2], times[0]);
      fflush(stdout);
    }
  }

  /* The heap must have survived untouched: nothing was collected under us. */
  for (size_t i = 0; i < n_objs; i++)
    if (GC_base(objs[i]) != objs[i])
      die("heap object lost during the run", i);
  return 0;
}
