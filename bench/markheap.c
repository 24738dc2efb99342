/*
 * markheap.c: the synthetic marking benchmark of paper 000 (Munch-
 * Maccagnoni, OCaml workshop 2022, section 2), written for bibop.
 *
 * A heap of linked blocks of random sizes (2..16 words, uniform), about -s
 * MiB of them, allocated with the collector disabled, then -n timed
 * GC_gcollect() calls (one untimed warm-up first); the median wall and
 * process CPU time are reported, with ns per marked object (median time /
 * live blocks).
 *
 * Every field of every block is one of:
 *   - field 0: the next block of a chain through all blocks, so the whole
 *     heap is reachable from one root and marking is one long traversal;
 *   - an immediate (-i percent of the other fields): a small odd integer,
 *     which no collector takes for a pointer;
 *   - a pointer into a static area (-t percent): 64 MiB mmap'd outside the
 *     heap, registered with bibop_register_static on bibop (stock libgc does
 *     not know it: those words fail its heap-bounds or header lookups);
 *   - otherwise a pointer to another block.
 * Layout (-l): "random" chains the blocks in a random permutation and
 * points the other pointers at random blocks (worst-case locality: every
 * object is a cache miss); "seq" chains them in allocation order and points
 * the others at the next few blocks.
 *
 * -L instead measures the machine's limit: random 8-byte loads over an
 * array as large as the heap (mmap'd, with THP advice unless -H 0), each
 * address independent of the previous load, so as many are in flight as the
 * core allows: ns per load (process CPU time, best of 3).
 *
 * One source, two builds (define exactly one): BIBOP (bibop's gc.h and
 * bibop.h, libbibop; prints the mark statistics too) and STOCK (Debian's
 * libgc1 8.2.2 by full path). The runner run-markheap.sh chooses bibop's
 * configurations through the environment (BIBOP_PREFETCH, BIBOP_PAGEHASH,
 * BIBOP_THP) and sets GC_MARKERS=1 for both collectors unless told
 * otherwise.
 *
 * Output: one line, key=value:
 *   markheap variant=V size_mib=S layout=L imm=I static=T blocks=N
 *     heap_kib=H build_s=B gc_med_ms=M gc_min_ms=m ns_per_obj=X cpu_med_ms=C
 *     cpu_ns_per_obj=Y
 *     [bibop: mark_med_ms=.. mark_ns_per_obj=.. marked=.. candidates=..
 *      not_ours=.. free=.. cstatic=.. object=.. thp_kib=..]
 * or for -L:  markheap variant=loads size_mib=S loads=N ns_per_load=X thp=0|1
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench_gc.h"

#define MIN_WORDS 2
#define MAX_WORDS 16
#define STATIC_BYTES ((size_t)64 << 20)
#define NEAR_BLOCKS 8      /* seq layout: other pointers go this far ahead */
#define MAX_RUNS 64

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static inline uint64_t rng(void) {   /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Du;
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* CPU time of the process: with GC_MARKERS=1 the collection runs on this
   thread alone, and on a loaded machine CPU time is what stays comparable
   (wall time includes waiting for a CPU). */
static uint64_t cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_u64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(void) {
  fprintf(stderr, "usage: markheap [-s MiB] [-l random|seq] [-i imm%%] [-t static%%] [-n runs]\n"
                  "       markheap -L [-s MiB] [-H 0|1]\n");
  exit(2);
}

/* The machine's limit: independent random loads over `bytes`. */
static void measure_loads(size_t mib, int thp) {
  size_t bytes = mib << 20, n = bytes / sizeof(uint64_t);
  uint64_t *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (a == MAP_FAILED) { perror("mmap"); exit(1); }
  if (thp) madvise(a, bytes, MADV_HUGEPAGE);
  for (size_t i = 0; i < n; i++) a[i] = i;
  size_t loads = 50u << 20;
  uint64_t sum = 0, best = UINT64_MAX;
  for (int round = 0; round < 3; round++) {
    uint64_t t0 = cpu_ns(), x = rng();
    for (size_t i = 0; i < loads; i++) {
      x ^= x >> 12; x ^= x << 25; x ^= x >> 27;       /* address from the PRNG, not the load */
      sum += a[(x * 0x2545F4914F6CDD1Du) % n];
    }
    uint64_t t = cpu_ns() - t0;
    if (t < best) best = t;
  }
  printf("markheap variant=loads size_mib=%zu loads=%zu ns_per_load=%.2f thp=%d check=%llu\n",
         mib, loads, (double)best / (double)loads, thp, (unsigned long long)(sum & 1));
}

static void **root;   /* the first block of the chain: the only root */

int main(int argc, char **argv) {
  size_t mib = 200;
  int random_layout = 1, imm = 25, stat = 5, runs = 5, loads = 0, thp = 1;
  int c;
  while ((c = getopt(argc, argv, "s:l:i:t:n:LH:")) != -1) {
    switch (c) {
      case 's': mib = strtoull(optarg, NULL, 10); break;
      case 'l': random_layout = strcmp(optarg, "seq") != 0; break;
      case 'i': imm = atoi(optarg); break;
      case 't': stat = atoi(optarg); break;
      case 'n': runs = atoi(optarg); break;
      case 'L': loads = 1; break;
      case 'H': thp = atoi(optarg); break;
      default: usage();
    }
  }
  if (!mib || runs < 1 || runs > MAX_RUNS || imm < 0 || stat < 0 || imm + stat > 100) usage();
  if (loads) { measure_loads(mib, thp); return 0; }

  GC_INIT();
  char *static_area = mmap(NULL, STATIC_BYTES, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (static_area == MAP_FAILED) { perror("mmap"); return 1; }
#ifdef BIBOP
  if (bibop_register_static(static_area, STATIC_BYTES) != 0) { perror("register"); return 1; }
#endif

  /* Allocate: sizes at random; the block table lives in malloc memory,
     which neither collector scans, and is freed before collecting. */
  size_t target = mib << 20, est = target / ((MIN_WORDS + MAX_WORDS) / 2 * sizeof(void *)) + 16;
  void ***blk = malloc(est * sizeof *blk);
  unsigned char *words = malloc(est);
  if (!blk || !words) { perror("malloc"); return 1; }
  uint64_t t0 = now_ns();
  GC_disable();
  size_t n = 0, bytes = 0;
  while (bytes < target && n < est) {
    unsigned w = MIN_WORDS + (unsigned)(rng() % (MAX_WORDS - MIN_WORDS + 1));
    blk[n] = GC_MALLOC(w * sizeof(void *));
    if (!blk[n]) { fprintf(stderr, "out of memory at %zu blocks\n", n); return 1; }
    words[n++] = (unsigned char)w;
    bytes += w * sizeof(void *);
  }
  /* The chain's order: a random permutation, or allocation order. */
  size_t *order = malloc(n * sizeof *order);
  if (!order) { perror("malloc"); return 1; }
  for (size_t i = 0; i < n; i++) order[i] = i;
  if (random_layout)
    for (size_t i = n - 1; i > 0; i--) {
      size_t j = rng() % (i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  for (size_t k = 0; k < n; k++) {
    size_t i = order[k];
    void **b = blk[i];
    b[0] = k + 1 < n ? (void *)blk[order[k + 1]] : NULL;
    for (unsigned f = 1; f < words[i]; f++) {
      unsigned r = (unsigned)(rng() % 100);
      if (r < (unsigned)imm) b[f] = (void *)(uintptr_t)(2 * (rng() % 1000000) + 1);
      else if (r < (unsigned)(imm + stat))
        b[f] = static_area + (rng() % (STATIC_BYTES / sizeof(void *))) * sizeof(void *);
      else if (random_layout) b[f] = blk[rng() % n];
      else {
        size_t j = i + 1 + (size_t)(rng() % NEAR_BLOCKS);
        b[f] = blk[j < n ? j : n - 1];
      }
    }
  }
  root = (void **)blk[order[0]];
  free(order);
  free(words);
  memset(blk, 0, n * sizeof *blk);   /* no copy left in memory that could be scanned */
  free(blk);
  GC_enable();
  double build_s = (double)(now_ns() - t0) / 1e9;

  GC_gcollect();   /* warm-up: also finishes whatever the build left */
  uint64_t gc_ns[MAX_RUNS], gc_cpu[MAX_RUNS];
#ifdef BIBOP
  uint64_t mark_ns[MAX_RUNS];
  struct bibop_mark_stats ms;
#endif
  for (int r = 0; r < runs; r++) {
    uint64_t s = now_ns(), c0 = cpu_ns();
    GC_gcollect();
    gc_ns[r] = now_ns() - s;
    gc_cpu[r] = cpu_ns() - c0;
#ifdef BIBOP
    bibop_get_mark_stats(&ms);
    mark_ns[r] = ms.mark_ns;
#endif
  }
  uint64_t gc_min = gc_ns[0];
  for (int r = 1; r < runs; r++) if (gc_ns[r] < gc_min) gc_min = gc_ns[r];
  uint64_t gc_med = median(gc_ns, runs), cpu_med = median(gc_cpu, runs);
  printf("markheap variant=%s size_mib=%zu layout=%s imm=%d static=%d blocks=%zu heap_kib=%zu "
         "build_s=%.2f gc_med_ms=%.2f gc_min_ms=%.2f ns_per_obj=%.2f cpu_med_ms=%.2f "
         "cpu_ns_per_obj=%.2f",
         VARIANT, mib, random_layout ? "random" : "seq", imm, stat, n,
         (size_t)GC_get_heap_size() >> 10, build_s, gc_med / 1e6, gc_min / 1e6,
         (double)gc_med / (double)n, cpu_med / 1e6, (double)cpu_med / (double)n);
#ifdef BIBOP
  uint64_t mark_med = median(mark_ns, runs);
  printf(" mark_med_ms=%.2f mark_ns_per_obj=%.2f marked=%llu candidates=%llu not_ours=%llu "
         "free=%llu cstatic=%llu object=%llu thp_kib=%zu heap_committed_kib=%zu",
         mark_med / 1e6, (double)mark_med / (double)ms.marked_objects, ms.marked_objects,
         ms.candidates, ms.cand_not_ours, ms.cand_free, ms.cand_static, ms.cand_object,
         ms.huge_page_bytes >> 10, ms.heap_bytes >> 10);
  if (ms.marked_objects < n) {
    fprintf(stderr, "markheap: only %llu of %zu blocks marked\n", ms.marked_objects, n);
    return 1;
  }
#endif
  printf("\n");
  /* Keep the heap reachable to the end. */
  size_t walk = 0;
  for (void **b = root; b; b = b[0]) walk++;
  if (walk != n) { fprintf(stderr, "markheap: chain has %zu of %zu blocks\n", walk, n); return 1; }
  return 0;
}
