/*
 * gcbench.c: binary-trees allocation benchmark in the spirit of Boehm's
 * GCBench (written from scratch for bibop).
 *
 * What it measures: the cost of allocating many small, short-lived objects
 * while a large long-lived structure stays reachable.  The workload is
 *   - a stretch tree of depth 18, built and dropped;
 *   - a long-lived tree of depth 16 and a 500,000-double pointer-free array
 *     (GC_MALLOC_ATOMIC), kept alive until the end;
 *   - for depth d = 4, 6, ..., 16: iters(d) = 2 * size(18) / size(d) trees
 *     built top-down (parent first, then children) and as many built
 *     bottom-up (children first, held only in locals), so every depth does
 *     the same number of node allocations;
 *   - final checks of the long-lived tree and the array.
 * Nodes are {left, right, i, j}; i holds the node's height and j its
 * position in heap order (root 1, children 2p and 2p+1), so a node that was
 * reclaimed while reachable and handed out again shows up as a bad value.
 * Every tree is checked after it is built and every new node must be zeroed.
 * Any failure prints a diagnostic and exits 1 before a result is printed.
 *
 * One source, three builds (define exactly one):
 *   BIBOP   bibop's <gc.h>, linked to libbibop (or the drop-in libgc.so.1);
 *   STOCK   Debian's libgc1 8.2.2 (<gc.h> from /usr/include/gc);
 *   MALLOC  calloc/malloc and explicit free of every tree.
 *
 * Output: one line on stdout, key=value fields:
 *   gcbench variant=V wall_s=S maxrss_kib=K gc_no=N pauses=P
 *           pause_total_ms=T pause_max_ms=M heap_kib=H lib=PATH
 * wall_s is CLOCK_MONOTONIC around the whole workload (after GC_INIT);
 * maxrss_kib is getrusage ru_maxrss; gc_no is GC_get_gc_no() at the end
 * (bdwgc counts the collection done by GC_init); pauses, pause_total_ms and
 * pause_max_ms come from GC_set_on_collection_event, timing each collection
 * from GC_EVENT_START to GC_EVENT_END during the workload.  The MALLOC build
 * prints 0 / n.a. for the collector columns.  "-v" adds per-phase times on
 * stderr; "-r K" runs the whole workload K times in a row (default 1; the
 * figures then cover all K runs).  lib is the file that provided the
 * allocator (dladdr), to show which library actually ran.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#if (defined(BIBOP) + defined(STOCK) + defined(MALLOC)) != 1
# error "define exactly one of BIBOP, STOCK, MALLOC"
#endif

#if defined(BIBOP)
# ifdef BENCH_GC_IN_SUBDIR   /* bibop ships include/gc/gc.h only */
#  include <gc/gc.h>
# else
#  include <gc.h>
# endif
# include <bibop.h>   /* only in bibop's include dir: proves which tree */
# define VARIANT "bibop"
#elif defined(STOCK)
# if defined(__has_include)
#  if __has_include(<bibop.h>)
#   error "bibop's include directory is on the stock build's include path"
#  endif
# endif
# include <gc.h>
# define VARIANT "stock"
#else
# define VARIANT "malloc"
#endif

enum {
  STRETCH_DEPTH = 18,
  LONG_LIVED_DEPTH = 16,
  ARRAY_LEN = 500000,
  MIN_DEPTH = 4,
  MAX_DEPTH = 16
};

typedef struct node {
  struct node *left, *right;
  int i, j;
} node;

static int verbose;
static long repeat = 1;

static void fail(const char *what, int depth, long detail)
{
  fprintf(stderr, "gcbench(" VARIANT "): CHECK FAILED: %s (depth %d, %ld)\n",
          what, depth, detail);
  exit(1);
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- allocation, per variant ------------------------------------------ */

static node *new_node(void)
{
#ifdef MALLOC
  node *n = calloc(1, sizeof *n);
#else
  node *n = GC_MALLOC(sizeof *n);
#endif
  if (n == NULL)
    fail("node allocation returned NULL", -1, 0);
  if (n->left != NULL || n->right != NULL || n->i != 0 || n->j != 0)
    fail("new node is not zeroed", -1, (long)n->j);
  return n;
}

static double *new_array(size_t len)
{
#ifdef MALLOC
  double *a = malloc(len * sizeof *a);
#else
  double *a = GC_MALLOC_ATOMIC(len * sizeof *a);
#endif
  if (a == NULL)
    fail("array allocation returned NULL", -1, (long)len);
  return a;
}

#ifdef MALLOC
static void free_tree(node *n)
{
  if (n == NULL)
    return;
  free_tree(n->left);
  free_tree(n->right);
  free(n);
}
# define DROP_TREE(t) free_tree(t)
# define DROP_ARRAY(a) free(a)
#else
# define DROP_TREE(t) ((void)(t))
# define DROP_ARRAY(a) ((void)(a))
#endif

/* ---- trees ------------------------------------------------------------- */

static long tree_size(int depth) { return (1L << (depth + 1)) - 1; }

static long num_iters(int depth)
{
  return 2 * tree_size(STRETCH_DEPTH) / tree_size(depth);
}

/* Top-down: n exists (reachable from the caller); allocate both children,
   then fill each of them. */
static void populate(node *n, int depth, int pos)
{
  n->i = depth;
  n->j = pos;
  if (depth > 0) {
    n->left = new_node();
    n->right = new_node();
    populate(n->left, depth - 1, 2 * pos);
    populate(n->right, depth - 1, 2 * pos + 1);
  }
}

/* Bottom-up: the children exist before their parent, each held only in a
   local of this frame while its sibling is being built. */
static node *make_tree(int depth, int pos)
{
  node *n;
  if (depth == 0) {
    n = new_node();
  } else {
    node *l = make_tree(depth - 1, 2 * pos);
    node *r = make_tree(depth - 1, 2 * pos + 1);
    n = new_node();
    n->left = l;
    n->right = r;
  }
  n->i = depth;
  n->j = pos;
  return n;
}

/* Number of nodes of a well-formed tree, -1 if anything is off. */
static long count_tree(const node *n, int depth, int pos)
{
  if (n == NULL || n->i != depth || n->j != pos)
    return -1;
  if (depth == 0)
    return (n->left == NULL && n->right == NULL) ? 1 : -1;
  long a = count_tree(n->left, depth - 1, 2 * pos);
  if (a < 0)
    return -1;
  long b = count_tree(n->right, depth - 1, 2 * pos + 1);
  if (b < 0)
    return -1;
  return 1 + a + b;
}

static void check_tree(const node *root, int depth, const char *what)
{
  long got = count_tree(root, depth, 1);
  if (got != tree_size(depth))
    fail(what, depth, got);
}

static double array_value(long k) { return (double)k / 3.0 + 0.25; }

static void fill_array(double *a, long len)
{
  for (long k = 0; k < len; k++)
    a[k] = array_value(k);
}

static void check_array(const double *a, long len)
{
  for (long k = 0; k < len; k++)
    if (a[k] != array_value(k))
      fail("atomic array contents changed", -1, k);
}

/* ---- collection pauses -------------------------------------------------- */

#ifndef MALLOC
static double gc_started;        /* 0 when no collection is in progress */
static double pause_total, pause_max;
static unsigned long pause_count;

static void GC_CALLBACK on_gc_event(GC_EventType ev)
{
  if (ev == GC_EVENT_START) {
    gc_started = now_s();
  } else if (ev == GC_EVENT_END && gc_started != 0) {
    double p = now_s() - gc_started;
    gc_started = 0;
    pause_total += p;
    if (p > pause_max)
      pause_max = p;
    pause_count++;
  }
}
#endif

static const char *library_path(void)
{
  Dl_info info;
#ifdef MALLOC
  void *sym = __extension__ (void *)&malloc;
#else
  void *sym = __extension__ (void *)&GC_malloc;
#endif
  if (dladdr(sym, &info) && info.dli_fname != NULL)
    return info.dli_fname;
  return "unknown";
}

/* ---- the workload ------------------------------------------------------- */

static void run(void)
{
  double t = now_s();

  /* Stretch the heap with a big temporary tree. */
  node *stretch = make_tree(STRETCH_DEPTH, 1);
  check_tree(stretch, STRETCH_DEPTH, "stretch tree");
  DROP_TREE(stretch);
  stretch = NULL;
  if (verbose)
    fprintf(stderr, "stretch tree depth %d: %.3f s\n", STRETCH_DEPTH,
            now_s() - t);

  /* Long-lived data, live across every following collection. */
  t = now_s();
  node *long_lived = new_node();
  populate(long_lived, LONG_LIVED_DEPTH, 1);
  double *array = new_array(ARRAY_LEN);
  fill_array(array, ARRAY_LEN);
  check_tree(long_lived, LONG_LIVED_DEPTH, "long-lived tree (built)");
  if (verbose)
    fprintf(stderr, "long-lived tree depth %d + array: %.3f s\n",
            LONG_LIVED_DEPTH, now_s() - t);

  for (int d = MIN_DEPTH; d <= MAX_DEPTH; d += 2) {
    long iters = num_iters(d);
    t = now_s();
    for (long k = 0; k < iters; k++) {
      node *n = new_node();
      populate(n, d, 1);
      check_tree(n, d, "short-lived tree, top-down");
      DROP_TREE(n);
    }
    double t_top = now_s() - t;
    t = now_s();
    for (long k = 0; k < iters; k++) {
      node *n = make_tree(d, 1);
      check_tree(n, d, "short-lived tree, bottom-up");
      DROP_TREE(n);
    }
    if (verbose)
      fprintf(stderr, "depth %2d: 2 x %6ld trees: top-down %.3f s, "
              "bottom-up %.3f s\n", d, iters, t_top, now_s() - t);
  }

  check_tree(long_lived, LONG_LIVED_DEPTH, "long-lived tree (end)");
  check_array(array, ARRAY_LEN);
  DROP_TREE(long_lived);
  DROP_ARRAY(array);
}

int main(int argc, char **argv)
{
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "-v") == 0) {
      verbose = 1;
    } else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc) {
      repeat = strtol(argv[++a], NULL, 10);
      if (repeat < 1) {
        fprintf(stderr, "gcbench: -r needs a positive count\n");
        return 2;
      }
    } else {
      fprintf(stderr, "usage: %s [-v] [-r K]\n", argv[0]);
      return 2;
    }
  }

#ifndef MALLOC
  GC_INIT();
  GC_set_on_collection_event(on_gc_event);
#endif

  double t0 = now_s();
  for (long k = 0; k < repeat; k++)
    run();
  double wall = now_s() - t0;

  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    fail("getrusage", -1, 0);

#ifdef MALLOC
  printf("gcbench variant=%s wall_s=%.4f maxrss_kib=%ld gc_no=0 pauses=0 "
         "pause_total_ms=n.a. pause_max_ms=n.a. heap_kib=n.a. lib=%s\n",
         VARIANT, wall, ru.ru_maxrss, library_path());
#else
  GC_set_on_collection_event(0);
  printf("gcbench variant=%s wall_s=%.4f maxrss_kib=%ld gc_no=%lu pauses=%lu "
         "pause_total_ms=%.3f pause_max_ms=%.3f heap_kib=%lu lib=%s\n",
         VARIANT, wall, ru.ru_maxrss, (unsigned long)GC_get_gc_no(),
         pause_count, pause_total * 1e3, pause_max * 1e3,
         (unsigned long)(GC_get_heap_size() / 1024), library_path());
#endif
  return 0;
}
