/* genheap.c: a long-lived heap with few writes between collections, the
 * case generational collection is for (issue #17). Builds a binary tree of
 * 64-byte nodes (HEAP_MIB of them, default 1024), then runs CYCLES
 * collection cycles; in each, WRITE_PERMILLE per mille of the heap's 4 KiB
 * pages get one store of a new object into a tree node (old -> young), while
 * short-lived garbage is allocated until the collector runs. The collector
 * paces itself (GC_free_space_divisor 30, the same on both, so that a
 * cycle allocates about a tenth of the live heap). Prints the build time,
 * the cycles' wall and CPU time, every collection pause of the cycles
 * (median, 90th percentile, max: from the collection's start event to its
 * end event, which is what this single-threaded program waits for), the
 * median time the world was stopped in them (from the pre-stop to the
 * post-start event: what other threads would wait for) and the median CPU
 * time of the collecting thread (comparable on a loaded machine), and, on
 * bibop, the minor/major split.
 * Checks at the end that every node and every stored object is intact.
 * usage: genheap_{bibop,stock} [HEAP_MIB [CYCLES [WRITE_PERMILLE]]] */
#include "bench_gc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
  struct node *left, *right;
  struct node *young;      /* the old -> young store of a cycle */
  uint64_t id, check;
  uint64_t pad[3];
};

/* The records are malloc'd, never scanned: as static arrays they were
   2.4 MB of roots that every collection of either collector read, 0.3-0.5
   ms of each minor pause (session 20), which is the instrument's, not the
   workload's. */
#define MAX_PAUSES 100000
static uint64_t pause_start, *pauses;
static uint64_t stop_start, *stopped;
static uint64_t cpu_start, *cpus;
static size_t npauses, nstopped, ncpus;
static int recording;

static void on_event(GC_EventType e) {
  if (e == GC_EVENT_START) {
    pause_start = bench_clock_ns(CLOCK_MONOTONIC);
    cpu_start = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID);
  } else if (e == GC_EVENT_PRE_STOP_WORLD) {
    stop_start = bench_clock_ns(CLOCK_MONOTONIC);
  } else if (e == GC_EVENT_POST_START_WORLD && recording && nstopped < MAX_PAUSES) {
    stopped[nstopped++] = bench_clock_ns(CLOCK_MONOTONIC) - stop_start;
  } else if (e == GC_EVENT_END && recording && npauses < MAX_PAUSES) {
    pauses[npauses++] = bench_clock_ns(CLOCK_MONOTONIC) - pause_start;
    cpus[ncpus++] = bench_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
  }
}

static double median_ms(uint64_t *samples, size_t n) {
  qsort(samples, n, sizeof samples[0], bench_cmp_u64);
  return n ? samples[n / 2] / 1e6 : 0;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 31; x *= 0x7fb5d329728ea185ULL; x ^= x >> 27;
  return x ^ (x >> 33);
}

static struct node *new_node(uint64_t id) {
  struct node *n = GC_MALLOC(sizeof *n);
  if (!n) { fprintf(stderr, "out of memory\n"); exit(1); }
  n->id = id;
  n->check = mix(id);
  return n;
}

/* Nodes numbered in heap order: node i's children are 2i+1 and 2i+2. */
static struct node *build(uint64_t i, uint64_t count) {
  if (i >= count) return NULL;
  struct node *n = new_node(i);
  n->left = build(2 * i + 1, count);
  n->right = build(2 * i + 2, count);
  return n;
}

static struct node *find(struct node *root, uint64_t i) {
  /* the path from the root to node i: the bits of i + 1 below its top bit */
  uint64_t k = i + 1;
  int depth = 63 - __builtin_clzll(k);
  struct node *n = root;
  for (int d = depth - 1; d >= 0; d--) n = (k >> d) & 1 ? n->right : n->left;
  return n;
}

static uint64_t verify(struct node *n, uint64_t i, uint64_t count) {
  if (i >= count) return 0;
  if (!n || n->id != i || n->check != mix(i)) { fprintf(stderr, "node %llu corrupt\n", (unsigned long long)i); exit(1); }
  if (n->young && (n->young->check != mix(n->young->id))) { fprintf(stderr, "young of %llu corrupt\n", (unsigned long long)i); exit(1); }
  return 1 + verify(n->left, 2 * i + 1, count) + verify(n->right, 2 * i + 2, count);
}

static struct node *root;   /* the static root of the long-lived tree */

int main(int argc, char **argv) {
  size_t heap_mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
  unsigned cycles = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 20;
  unsigned permille = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 10;
  uint64_t count = (uint64_t)heap_mib << 20 >> 6;
  pauses = calloc(MAX_PAUSES, sizeof *pauses);
  stopped = calloc(MAX_PAUSES, sizeof *stopped);
  cpus = calloc(MAX_PAUSES, sizeof *cpus);
  if (!pauses || !stopped || !cpus) { fprintf(stderr, "no memory for the records\n"); return 1; }
  GC_INIT();
  GC_set_free_space_divisor(30);
  GC_set_on_collection_event(on_event);

  uint64_t t0 = bench_clock_ns(CLOCK_MONOTONIC);
  root = build(0, count);
  uint64_t t1 = bench_clock_ns(CLOCK_MONOTONIC);

  uint64_t writes = ((uint64_t)heap_mib << 20 >> 12) * permille / 1000;
  uint64_t rng = 88172645463325252ULL, next_id = count;
  recording = 1;
  uint64_t c0 = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID), w0 = bench_clock_ns(CLOCK_MONOTONIC);
  for (unsigned c = 0; c < cycles; c++) {
    GC_word gc_no = GC_get_gc_no();
    uint64_t done = 0;
    /* Spread the cycle's writes over its garbage allocation. */
    while (GC_get_gc_no() == gc_no) {
      for (int k = 0; k < 64; k++) (void)new_node(0);
      if (done < writes) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        find(root, rng % count)->young = new_node(next_id++);
        done++;
      }
    }
  }
  uint64_t w1 = bench_clock_ns(CLOCK_MONOTONIC), c1 = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  recording = 0;
  uint64_t seen = verify(root, 0, count);
  if (seen != count) { fprintf(stderr, "tree has %llu nodes\n", (unsigned long long)seen); return 1; }

  double med = median_ms(pauses, npauses), p90 = npauses ? pauses[npauses * 9 / 10] / 1e6 : 0;
  double max = npauses ? pauses[npauses - 1] / 1e6 : 0;
  printf("%s heap %zu MiB, %u cycles, %u permille of pages written: build %.2f s; cycles %.2f s wall, "
         "%.2f s CPU; %zu collections, pause median %.2f ms, p90 %.2f ms, max %.2f ms; "
         "world stopped median %.2f ms (%zu seen); collecting thread CPU median %.2f ms; heap %zu MiB",
         VARIANT, heap_mib, cycles, permille, (t1 - t0) / 1e9, (w1 - w0) / 1e9, (c1 - c0) / 1e9,
         npauses, med, p90, max, median_ms(stopped, nstopped), nstopped, median_ms(cpus, ncpus),
         GC_get_heap_size() >> 20);
#if defined(BIBOP)
  struct bibop_generation_stats g;
  bibop_get_generation_stats(&g);
  if (g.enabled)
    printf("; %lu minor (mean %.2f ms, max %.2f ms), %lu major (mean %.2f ms), backend %s",
           g.minor_collections, g.minor_collections ? g.minor_pause_ns / 1e6 / g.minor_collections : 0,
           g.max_minor_pause_ns / 1e6, g.major_collections,
           g.major_collections ? g.major_pause_ns / 1e6 / g.major_collections : 0, g.dirty_backend);
#endif
  printf("\n");
  return 0;
}
