/*
 * markstack.c: what a deep mark stack costs (paper 004, Boehm's talk, "What
 * if the mark stack overflows?"), on bibop and stock libgc1.
 *
 * The same number of 3-word objects {a, b, c} (-N, default 10 million),
 * allocated with the collector disabled and held from one root, in one of
 * three shapes (-k):
 *   list   a singly linked list through field b (a, c null): the marker
 *          never has more than an entry or two pending;
 *   tree   a complete binary tree in breadth-first order (node i has
 *          children 2i+1 and 2i+2 in a and c): pending entries grow with
 *          the depth only (about 24);
 *   comb   a spine of 32-word nodes linked through their word 15, the
 *          other 31 words pointing at 3-word leaf objects (N/32 spine
 *          nodes, 31N/32 leaves): whatever the order in which a marker
 *          takes a spine node's words, at least 15 leaves are still
 *          pending when it follows the link, so millions of entries wait
 *          on the mark stack by the end of the spine (a few leaves may be
 *          taken early by a marker that pops entries ahead, as bibop's
 *          prefetching marker pops 8).
 * Leaves are ordinary (GC_MALLOC) objects, so both collectors push them.
 *
 * Then -n timed GC_gcollect() calls (default 5). The first collection finds
 * the mark stack at its initial size: stock libgc1 overflows, drops entries
 * and rescans the heap for marked objects with unmarked children, growing
 * its stack for the next collection; bibop grows its stack in place (a
 * copy), or, with BIBOP_MARK_STACK_MAX set low in the environment, takes
 * the same overflow-and-rescan path as stock. The later collections run
 * with the grown stack.
 *
 * Output: one line on stdout, key=value:
 *   markstack variant=V shape=S objects=N first_ms=F rest_med_ms=R
 *     rest_min_ms=M ns_per_obj=X first_cpu_ms=FC rest_cpu_med_ms=RC
 * (wall CLOCK_MONOTONIC and process CPU time; ns_per_obj is rest_med_ms
 * per object). Every object is checked after the collections (its fields,
 * and a walk of the whole structure that must count N objects); a failure
 * prints a diagnostic and exits 1 before any figure is printed.
 *
 * One source, two builds (define exactly one): BIBOP or STOCK, as
 * bench_gc.h describes.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_gc.h"

#define MAX_RUNS 64
#define SPINE_WORDS 32
#define SPINE_LINK 15   /* the link's word: leaves on both sides of it */

typedef struct node {
  struct node *a, *b, *c;
} node;

static node *root;   /* the only root (static data) */

static void fail(const char *what, size_t where) {
  fprintf(stderr, "markstack(" VARIANT "): CHECK FAILED: %s at %zu\n", what, where);
  exit(1);
}

static node *new_node(void) {
  node *n = GC_MALLOC(sizeof(node));
  if (!n) fail("out of memory", 0);
  return n;
}

/* Builds the shape; returns the number of objects. */
static size_t build(const char *shape, size_t n) {
  if (!strcmp(shape, "list")) {
    node *prev = NULL;
    for (size_t i = 0; i < n; i++) {   /* head last: root = newest */
      node *x = new_node();
      x->b = prev;
      prev = x;
    }
    root = prev;
    return n;
  }
  if (!strcmp(shape, "tree")) {
    /* Breadth-first: the node table lives in malloc memory (not scanned)
       and is cleared before collecting. */
    node **t = malloc(n * sizeof *t);
    if (!t) fail("malloc", n);
    for (size_t i = 0; i < n; i++) t[i] = new_node();
    for (size_t i = 0; i < n; i++) {
      if (2 * i + 1 < n) t[i]->a = t[2 * i + 1];
      if (2 * i + 2 < n) t[i]->c = t[2 * i + 2];
    }
    root = t[0];
    memset(t, 0, n * sizeof *t);
    free(t);
    return n;
  }
  if (!strcmp(shape, "comb")) {
    size_t spine = n / SPINE_WORDS;
    void **prev = NULL;
    for (size_t i = 0; i < spine; i++) {
      void **x = GC_MALLOC(SPINE_WORDS * sizeof(void *));
      if (!x) fail("out of memory", i);
      for (int w = 0; w < SPINE_WORDS; w++) x[w] = w == SPINE_LINK ? (void *)prev : new_node();
      prev = x;
    }
    root = (node *)prev;
    return SPINE_WORDS * spine;
  }
  fprintf(stderr, "unknown shape %s\n", shape);
  exit(2);
}

/* Counts the objects reachable from root, checking every field. */
static size_t walk(const char *shape) {
  size_t count = 0;
  if (!strcmp(shape, "tree")) {
    /* Iterative DFS with an explicit malloc'd stack. */
    size_t cap = 1024, top = 0;
    node **st = malloc(cap * sizeof *st);
    if (!st) fail("malloc", 0);
    st[top++] = root;
    while (top) {
      node *x = st[--top];
      count++;
      if (x->b) fail("tree node with b set", count);
      if (top + 2 > cap) {
        cap *= 2;
        st = realloc(st, cap * sizeof *st);
        if (!st) fail("realloc", cap);
      }
      if (x->a) st[top++] = x->a;
      if (x->c) st[top++] = x->c;
    }
    free(st);
    return count;
  }
  if (!strcmp(shape, "comb")) {
    for (void **x = (void **)root; x; x = x[SPINE_LINK]) {
      count++;
      for (int w = 0; w < SPINE_WORDS; w++) {
        if (w == SPINE_LINK) continue;
        node *leaf = x[w];
        if (!leaf || leaf->a || leaf->b || leaf->c) fail("comb leaf missing or not empty", count);
        count++;
      }
    }
    return count;
  }
  for (node *x = root; x; x = x->b) {
    count++;
    if (x->a || x->c) fail("list node with a or c set", count);
  }
  return count;
}

int main(int argc, char **argv) {
  const char *shape = "comb";
  size_t n = 10000000;
  int runs = 5, c;
  while ((c = getopt(argc, argv, "k:N:n:")) != -1) {
    switch (c) {
      case 'k': shape = optarg; break;
      case 'N': n = strtoull(optarg, NULL, 10); break;
      case 'n': runs = atoi(optarg); break;
      default:
        fprintf(stderr, "usage: markstack [-k list|tree|comb] [-N objects] [-n runs]\n");
        return 2;
    }
  }
  if (n < 3 || runs < 2 || runs > MAX_RUNS) {
    fprintf(stderr, "markstack: need N >= 3 and 2 <= runs <= %d\n", MAX_RUNS);
    return 2;
  }
  GC_INIT();
  GC_disable();
  size_t objects = build(shape, n);
  GC_enable();

  uint64_t wall[MAX_RUNS], cpu[MAX_RUNS];
  for (int r = 0; r < runs; r++) {
    uint64_t w0 = bench_clock_ns(CLOCK_MONOTONIC), c0 = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    GC_gcollect();
    wall[r] = bench_clock_ns(CLOCK_MONOTONIC) - w0;
    cpu[r] = bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
  }
  size_t seen = walk(shape);
  if (seen != objects) fail("object count after the collections", seen);

  uint64_t first = wall[0], first_cpu = cpu[0];
  int m = runs - 1;
  qsort(wall + 1, (size_t)m, sizeof *wall, bench_cmp_u64);
  qsort(cpu + 1, (size_t)m, sizeof *cpu, bench_cmp_u64);
  uint64_t med = m % 2 ? wall[1 + m / 2] : (wall[m / 2] + wall[1 + m / 2]) / 2;
  uint64_t cmed = m % 2 ? cpu[1 + m / 2] : (cpu[m / 2] + cpu[1 + m / 2]) / 2;
  printf("markstack variant=%s shape=%s objects=%zu first_ms=%.2f rest_med_ms=%.2f "
         "rest_min_ms=%.2f ns_per_obj=%.2f first_cpu_ms=%.2f rest_cpu_med_ms=%.2f\n",
         VARIANT, shape, objects, first / 1e6, med / 1e6, wall[1] / 1e6,
         (double)med / (double)objects, first_cpu / 1e6, cmed / 1e6);
  return 0;
}
