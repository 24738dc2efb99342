/*
 * mt_gcbench.c: multi-threaded binary-trees benchmark (written from scratch
 * for bibop, after gcbench.c).
 *
 * What it measures: allocation throughput, peak RSS and collection pauses
 * when T mutator threads allocate small short-lived objects at the same time,
 * each keeping a long-lived structure reachable from its own stack.
 * T (the first argument; 2 and 4 are what run-mt.sh runs) threads are
 * started with pthread_create, which <gc.h> routes to GC_pthread_create
 * under GC_THREADS, so every thread is registered with the collector.
 * Every thread does the same fixed amount of work, so total work grows
 * with T:
 *   - builds its own long-lived tree of depth 14 (top-down), held only in
 *     a local of the thread's start routine;
 *   - for depth d = 4, 6, ..., 16: iters(d) = 2 * size(18) / size(d) trees
 *     built top-down and as many built bottom-up (each depth allocates the
 *     same number of nodes, about 1M per direction), dropping each tree
 *     after checking it;
 *   - checks its long-lived tree again at the end.
 * The threads wait at a barrier so they start the short-lived work together.
 * Nodes are {left, right, i, j}: i holds (thread << 8 | height) and j the
 * node's heap-order position (root 1, children 2p and 2p+1), so a node that
 * was reclaimed while reachable and handed out again, or handed to another
 * thread, shows up as a bad value.  Every tree is checked after it is built
 * and every new node must be zeroed.  Any failure prints a diagnostic and
 * exits 1 (from whichever thread saw it) before a result is printed.
 *
 * One source, three builds (define exactly one):
 *   BIBOP   bibop's <gc.h> with GC_THREADS, linked to libbibop;
 *   STOCK   Debian's libgc1 8.2.2 (<gc.h> from /usr/include/gc), GC_THREADS;
 *   MALLOC  plain pthreads, calloc and explicit free of every tree.
 *
 * Output: one line on stdout, key=value fields:
 *   mt_gcbench variant=V threads=T wall_s=S maxrss_kib=K gc_no=N pauses=P
 *              pause_total_ms=T pause_max_ms=M heap_kib=H markers=K lib=PATH
 * wall_s is CLOCK_MONOTONIC from before the first pthread_create to after
 * the last pthread_join; maxrss_kib is getrusage ru_maxrss; gc_no is
 * GC_get_gc_no() at the end; pauses, pause_total_ms and pause_max_ms come
 * from GC_set_on_collection_event, timing each collection from
 * GC_EVENT_START to GC_EVENT_END.  Any thread may trigger a collection, so
 * that state is under a mutex (only the callback takes it, and collections
 * are serialised by the collector, so it never blocks for long).  markers is
 * GC_get_parallel() + 1 at the end (marker threads including the initiating
 * one).  The MALLOC build prints 0 / n.a. for the collector columns.
 * "-r K" runs the per-thread workload K times (default 1); "-v" prints
 * per-thread times on stderr.  lib is the file that provided the allocator
 * (dladdr), to show which library actually ran.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#if (defined(BIBOP) + defined(STOCK) + defined(MALLOC)) != 1
# error "define exactly one of BIBOP, STOCK, MALLOC"
#endif

#if defined(BIBOP) || defined(STOCK)
# ifndef GC_THREADS
#  define GC_THREADS
# endif
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

#include <pthread.h>   /* after <gc.h>: pthread_create is GC_pthread_create */

enum {
  LONG_LIVED_DEPTH = 14,
  ITER_BASE_DEPTH = 18,   /* iters(d) = 2 * size(ITER_BASE_DEPTH) / size(d) */
  MIN_DEPTH = 4,
  MAX_DEPTH = 16,
  MAX_THREADS = 256
};

typedef struct node {
  struct node *left, *right;
  int i, j;
} node;

static int verbose;
static long repeat = 1;
static pthread_barrier_t start_barrier;

static void fail(int thread, const char *what, int depth, long detail)
{
  fprintf(stderr, "mt_gcbench(" VARIANT "): CHECK FAILED in thread %d: %s "
          "(depth %d, %ld)\n", thread, what, depth, detail);
  fflush(stderr);
  _exit(1);   /* not exit(): other threads may hold the collector's lock */
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- allocation, per variant ------------------------------------------ */

static node *new_node(int thread)
{
#ifdef MALLOC
  node *n = calloc(1, sizeof *n);
#else
  node *n = GC_MALLOC(sizeof *n);
#endif
  if (n == NULL)
    fail(thread, "node allocation returned NULL", -1, 0);
  if (n->left != NULL || n->right != NULL || n->i != 0 || n->j != 0)
    fail(thread, "new node is not zeroed", -1, (long)n->j);
  return n;
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
#else
# define DROP_TREE(t) ((void)(t))
#endif

/* ---- trees ------------------------------------------------------------- */

static long tree_size(int depth) { return (1L << (depth + 1)) - 1; }

static long num_iters(int depth)
{
  return 2 * tree_size(ITER_BASE_DEPTH) / tree_size(depth);
}

static int tag(int thread, int depth) { return thread << 8 | depth; }

/* Top-down: n exists (reachable from the caller); allocate both children,
   then fill each of them. */
static void populate(int thread, node *n, int depth, int pos)
{
  n->i = tag(thread, depth);
  n->j = pos;
  if (depth > 0) {
    n->left = new_node(thread);
    n->right = new_node(thread);
    populate(thread, n->left, depth - 1, 2 * pos);
    populate(thread, n->right, depth - 1, 2 * pos + 1);
  }
}

/* Bottom-up: the children exist before their parent, each held only in a
   local of this frame while its sibling is being built. */
static node *make_tree(int thread, int depth, int pos)
{
  node *n;
  if (depth == 0) {
    n = new_node(thread);
  } else {
    node *l = make_tree(thread, depth - 1, 2 * pos);
    node *r = make_tree(thread, depth - 1, 2 * pos + 1);
    n = new_node(thread);
    n->left = l;
    n->right = r;
  }
  n->i = tag(thread, depth);
  n->j = pos;
  return n;
}

/* Number of nodes of a well-formed tree, -1 if anything is off. */
static long count_tree(int thread, const node *n, int depth, int pos)
{
  if (n == NULL || n->i != tag(thread, depth) || n->j != pos)
    return -1;
  if (depth == 0)
    return (n->left == NULL && n->right == NULL) ? 1 : -1;
  long a = count_tree(thread, n->left, depth - 1, 2 * pos);
  if (a < 0)
    return -1;
  long b = count_tree(thread, n->right, depth - 1, 2 * pos + 1);
  if (b < 0)
    return -1;
  return 1 + a + b;
}

static void check_tree(int thread, const node *root, int depth,
                       const char *what)
{
  long got = count_tree(thread, root, depth, 1);
  if (got != tree_size(depth))
    fail(thread, what, depth, got);
}

/* ---- collection pauses -------------------------------------------------- */

#ifndef MALLOC
static pthread_mutex_t pause_lock = PTHREAD_MUTEX_INITIALIZER;
static double gc_started;        /* 0 when no collection is in progress */
static double pause_total, pause_max;
static unsigned long pause_count;

static void GC_CALLBACK on_gc_event(GC_EventType ev)
{
  if (ev != GC_EVENT_START && ev != GC_EVENT_END)
    return;
  double t = now_s();
  pthread_mutex_lock(&pause_lock);
  if (ev == GC_EVENT_START) {
    gc_started = t;
  } else if (gc_started != 0) {
    double p = t - gc_started;
    gc_started = 0;
    pause_total += p;
    if (p > pause_max)
      pause_max = p;
    pause_count++;
  }
  pthread_mutex_unlock(&pause_lock);
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

/* ---- the per-thread workload ------------------------------------------- */

static void *mutator(void *arg)
{
  int thread = (int)(intptr_t)arg;
  double t0 = now_s();

  /* Long-lived: reachable only from this frame (the thread's stack). */
  node *long_lived = new_node(thread);
  populate(thread, long_lived, LONG_LIVED_DEPTH, 1);
  check_tree(thread, long_lived, LONG_LIVED_DEPTH, "long-lived tree (built)");

  int rc = pthread_barrier_wait(&start_barrier);
  if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
    fail(thread, "pthread_barrier_wait", -1, rc);

  for (long r = 0; r < repeat; r++) {
    for (int d = MIN_DEPTH; d <= MAX_DEPTH; d += 2) {
      long iters = num_iters(d);
      for (long k = 0; k < iters; k++) {
        node *n = new_node(thread);
        populate(thread, n, d, 1);
        check_tree(thread, n, d, "short-lived tree, top-down");
        DROP_TREE(n);
      }
      for (long k = 0; k < iters; k++) {
        node *n = make_tree(thread, d, 1);
        check_tree(thread, n, d, "short-lived tree, bottom-up");
        DROP_TREE(n);
      }
    }
  }

  check_tree(thread, long_lived, LONG_LIVED_DEPTH, "long-lived tree (end)");
  DROP_TREE(long_lived);
  if (verbose)
    fprintf(stderr, "thread %d: %.3f s\n", thread, now_s() - t0);
  return arg;
}

int main(int argc, char **argv)
{
  long nthreads = -1;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "-v") == 0) {
      verbose = 1;
    } else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc) {
      repeat = strtol(argv[++a], NULL, 10);
      if (repeat < 1) {
        fprintf(stderr, "mt_gcbench: -r needs a positive count\n");
        return 2;
      }
    } else if (nthreads < 0 && argv[a][0] >= '1' && argv[a][0] <= '9') {
      nthreads = strtol(argv[a], NULL, 10);
    } else {
      nthreads = -2;
      break;
    }
  }
  if (nthreads < 1 || nthreads > MAX_THREADS) {
    fprintf(stderr, "usage: %s THREADS(1..%d) [-r K] [-v]\n", argv[0],
            MAX_THREADS);
    return 2;
  }

#ifndef MALLOC
  GC_INIT();
  GC_set_on_collection_event(on_gc_event);
#endif
  if (pthread_barrier_init(&start_barrier, NULL, (unsigned)nthreads) != 0)
    fail(-1, "pthread_barrier_init", -1, 0);

  pthread_t tid[MAX_THREADS];
  double t0 = now_s();
  for (long k = 0; k < nthreads; k++) {
    int rc = pthread_create(&tid[k], NULL, mutator, (void *)(intptr_t)(k + 1));
    if (rc != 0)
      fail(-1, "pthread_create", -1, rc);
  }
  for (long k = 0; k < nthreads; k++) {
    void *ret = NULL;
    int rc = pthread_join(tid[k], &ret);
    if (rc != 0)
      fail(-1, "pthread_join", -1, rc);
    if (ret != (void *)(intptr_t)(k + 1))
      fail((int)k + 1, "thread returned a wrong value", -1, (long)(intptr_t)ret);
  }
  double wall = now_s() - t0;

  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    fail(-1, "getrusage", -1, 0);

#ifdef MALLOC
  printf("mt_gcbench variant=%s threads=%ld wall_s=%.4f maxrss_kib=%ld "
         "gc_no=0 pauses=0 pause_total_ms=n.a. pause_max_ms=n.a. "
         "heap_kib=n.a. markers=n.a. lib=%s\n",
         VARIANT, nthreads, wall, ru.ru_maxrss, library_path());
#else
  GC_set_on_collection_event(0);
  pthread_mutex_lock(&pause_lock);
  printf("mt_gcbench variant=%s threads=%ld wall_s=%.4f maxrss_kib=%ld "
         "gc_no=%lu pauses=%lu pause_total_ms=%.3f pause_max_ms=%.3f "
         "heap_kib=%lu markers=%d lib=%s\n",
         VARIANT, nthreads, wall, ru.ru_maxrss,
         (unsigned long)GC_get_gc_no(), pause_count, pause_total * 1e3,
         pause_max * 1e3, (unsigned long)(GC_get_heap_size() / 1024),
         GC_get_parallel() + 1, library_path());
  pthread_mutex_unlock(&pause_lock);
#endif
  return 0;
}
