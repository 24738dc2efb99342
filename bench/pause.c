/*
 * pause.c: full-collection pause on a large live heap (written from scratch
 * for bibop).
 *
 * What it measures: how long an explicit full collection (GC_gcollect)
 * takes when about 200 MiB of small objects are live, and so how much a
 * second marker thread helps.  The runner (run-mt.sh) sets GC_MARKERS=1 and
 * GC_MARKERS=2 in the environment; bdwgc reads it at start-up (bibop will
 * once it marks in parallel).  The program does nothing else with it.
 *
 * Both collectors are put in their multi-threaded mode first: after GC_INIT
 * the program calls GC_start_mark_threads() (when the library defines it:
 * it is referenced weakly) and starts one extra registered thread (through
 * GC_pthread_create) that just waits on a condition variable until the end;
 * stock libgc only starts its marker threads once the program is
 * multi-threaded or GC_start_mark_threads() is called.
 *
 * The live heap (-m MiB, default 200), half and half:
 *   - complete binary trees of depth 15 made of 32-byte objects
 *     ({left, right, tag}: 24-byte requests; both collectors add bdwgc's
 *     extra byte for interior pointers and round to 16-byte granules);
 *   - singly linked lists of 800 64-byte objects ({next, tag, v[5]}:
 *     56-byte requests);
 * allocated interleaved (a tree, then its share of the lists) and held from
 * one root array that a static variable points to.  Every object carries a
 * tag (structure number and position) and list objects carry values derived
 * from it; the whole heap is checked after it is built and after every
 * collection, and any damage prints a diagnostic and exits 1 before a
 * result is printed.
 *
 * Then one untimed warm-up GC_gcollect() (it also finishes the sweeping
 * left over from the build) and -n N (default 7) timed ones.  The pause is
 * the CLOCK_MONOTONIC time around each GC_gcollect() call; the
 * GC_EVENT_START..GC_EVENT_END time of the same collections (from
 * GC_set_on_collection_event) is reported as a cross-check.
 *
 * One source, two builds (define exactly one):
 *   BIBOP   bibop's <gc.h> with GC_THREADS, linked to libbibop;
 *   STOCK   Debian's libgc1 8.2.2 (<gc.h> from /usr/include/gc), GC_THREADS.
 *
 * Output: one line on stdout, key=value fields:
 *   pause variant=V markers_env=E markers=K live_mib=L objects=O
 *         collections=N pause_med_ms=A pause_min_ms=B pause_max_ms=C
 *         event_med_ms=D build_s=S heap_kib=H maxrss_kib=R smt=yes|no lib=P
 * markers_env is $GC_MARKERS ("unset" if it is not set); markers is
 * GC_get_parallel() + 1 after the timed collections (marker threads
 * including the initiating one); live_mib is the bytes the objects occupy
 * (granule-rounded sizes); smt says whether GC_start_mark_threads was
 * defined and called.  "-v" prints each pause on stderr.
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

#ifndef GC_THREADS
# define GC_THREADS
#endif

#include "bench_gc.h"

#include <pthread.h>   /* after <gc.h>: pthread_create is GC_pthread_create */

/* Called only if the library defines it (bdwgc 8.2 does). */
extern void GC_start_mark_threads(void) __attribute__((weak));

enum {
  TREE_DEPTH = 15,
  LIST_LEN = 800,
  MAX_TIMED = 101
};

typedef struct tnode {           /* 24-byte request: a 32-byte object */
  struct tnode *left, *right;
  long tag;
} tnode;

typedef struct lnode {           /* 56-byte request: a 64-byte object */
  struct lnode *next;
  long tag;
  long v[5];
} lnode;

#define TNODE_BYTES 32
#define LNODE_BYTES 64

static void **root;              /* ntrees tree roots, then nlists lists */
static long ntrees, nlists;
static int verbose;

static void fail(const char *what, long where, long detail)
{
  fprintf(stderr, "pause(" VARIANT "): CHECK FAILED: %s (%ld, %ld)\n",
          what, where, detail);
  fflush(stderr);
  _exit(1);   /* not exit(): the waiting thread is still registered */
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the live heap ------------------------------------------------------- */

static long tree_tag(long tree, long pos) { return tree << 32 | pos; }
static long list_tag(long list, long k) { return (list << 32 | k) ^ 0x5a5a; }
static long list_val(long tag, int m)
{
  return (long)((unsigned long)tag * 2654435761UL + (unsigned long)m);
}

static void *alloc_zeroed(size_t bytes)
{
  long *p = GC_MALLOC(bytes);
  if (p == NULL)
    fail("allocation returned NULL", (long)bytes, 0);
  for (size_t k = 0; k < bytes / sizeof(long); k++)
    if (p[k] != 0)
      fail("new object is not zeroed", (long)bytes, (long)k);
  return p;
}

/* Top-down, so every node is reachable from the root while its children
   are allocated. */
static void populate(tnode *n, long tree, int depth, long pos)
{
  n->tag = tree_tag(tree, pos);
  if (depth > 0) {
    n->left = alloc_zeroed(sizeof(tnode));
    n->right = alloc_zeroed(sizeof(tnode));
    populate(n->left, tree, depth - 1, 2 * pos);
    populate(n->right, tree, depth - 1, 2 * pos + 1);
  }
}

static long count_tree(const tnode *n, long tree, int depth, long pos)
{
  if (n == NULL || n->tag != tree_tag(tree, pos))
    return -1;
  if (depth == 0)
    return (n->left == NULL && n->right == NULL) ? 1 : -1;
  long a = count_tree(n->left, tree, depth - 1, 2 * pos);
  if (a < 0)
    return -1;
  long b = count_tree(n->right, tree, depth - 1, 2 * pos + 1);
  if (b < 0)
    return -1;
  return 1 + a + b;
}

static long tree_nodes(void) { return (1L << (TREE_DEPTH + 1)) - 1; }

/* The list is built from its head: each new node is linked from the tail,
   which is reachable from the root. */
static void build_list(long list)
{
  lnode *head = NULL, *tail = NULL;
  for (long k = 0; k < LIST_LEN; k++) {
    lnode *n = alloc_zeroed(sizeof(lnode));
    n->tag = list_tag(list, k);
    for (int m = 0; m < 5; m++)
      n->v[m] = list_val(n->tag, m);
    if (tail == NULL)
      root[ntrees + list] = head = n;
    else
      tail->next = n;
    tail = n;
  }
  (void)head;
}

static void check_list(long list)
{
  const lnode *n = root[ntrees + list];
  for (long k = 0; k < LIST_LEN; k++, n = n->next) {
    if (n == NULL)
      fail("list too short", list, k);
    if (n->tag != list_tag(list, k))
      fail("list node tag changed", list, k);
    for (int m = 0; m < 5; m++)
      if (n->v[m] != list_val(n->tag, m))
        fail("list node value changed", list, k);
  }
  if (n != NULL)
    fail("list too long", list, LIST_LEN);
}

static void build_heap(void)
{
  root = GC_MALLOC((size_t)(ntrees + nlists) * sizeof(void *));
  if (root == NULL)
    fail("root allocation returned NULL", ntrees + nlists, 0);
  long done_lists = 0;
  for (long t = 0; t < ntrees; t++) {
    tnode *n = alloc_zeroed(sizeof(tnode));
    root[t] = n;
    populate(n, t, TREE_DEPTH, 1);
    long upto = nlists * (t + 1) / ntrees;
    for (; done_lists < upto; done_lists++)
      build_list(done_lists);
  }
}

static void check_heap(const char *when)
{
  for (long t = 0; t < ntrees; t++) {
    long got = count_tree(root[t], t, TREE_DEPTH, 1);
    if (got != tree_nodes()) {
      fprintf(stderr, "pause(" VARIANT "): damaged tree %s\n", when);
      fail("tree damaged", t, got);
    }
  }
  for (long l = 0; l < nlists; l++)
    check_list(l);
}

/* ---- the extra registered thread ---------------------------------------- */

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;
static int idle_stop;

static void *idle_thread(void *arg)
{
  pthread_mutex_lock(&idle_lock);
  while (!idle_stop)
    pthread_cond_wait(&idle_cond, &idle_lock);
  pthread_mutex_unlock(&idle_lock);
  return arg;
}

/* ---- collection timing -------------------------------------------------- */

static pthread_mutex_t event_lock = PTHREAD_MUTEX_INITIALIZER;
static double event_started, event_last;

static void GC_CALLBACK on_gc_event(GC_EventType ev)
{
  if (ev != GC_EVENT_START && ev != GC_EVENT_END)
    return;
  double t = now_s();
  pthread_mutex_lock(&event_lock);
  if (ev == GC_EVENT_START) {
    event_started = t;
  } else if (event_started != 0) {
    event_last = t - event_started;
    event_started = 0;
  }
  pthread_mutex_unlock(&event_lock);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const char *library_path(void)
{
  Dl_info info;
  void *sym = __extension__ (void *)&GC_malloc;
  if (dladdr(sym, &info) && info.dli_fname != NULL)
    return info.dli_fname;
  return "unknown";
}

int main(int argc, char **argv)
{
  long live_mib = 200;
  int ntimed = 7;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "-v") == 0) {
      verbose = 1;
    } else if (strcmp(argv[a], "-m") == 0 && a + 1 < argc) {
      live_mib = strtol(argv[++a], NULL, 10);
    } else if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) {
      ntimed = (int)strtol(argv[++a], NULL, 10);
    } else {
      live_mib = -1;
      break;
    }
  }
  if (live_mib < 8 || live_mib > 65536 || ntimed < 1 || ntimed > MAX_TIMED) {
    fprintf(stderr, "usage: %s [-m LIVE_MIB>=8] [-n COLLECTIONS(1..%d)] [-v]\n",
            argv[0], MAX_TIMED);
    return 2;
  }
  long half = live_mib * 1024 * 1024 / 2;
  ntrees = (half + tree_nodes() * TNODE_BYTES / 2) / (tree_nodes() * TNODE_BYTES);
  if (ntrees < 1)
    ntrees = 1;
  nlists = half / (LIST_LEN * LNODE_BYTES);
  long objects = ntrees * tree_nodes() + nlists * LIST_LEN;
  double live = (double)(ntrees * tree_nodes() * TNODE_BYTES
                         + nlists * LIST_LEN * LNODE_BYTES) / (1024.0 * 1024.0);

  GC_INIT();
  int smt = 0;
  if (GC_start_mark_threads) {
    GC_start_mark_threads();
    smt = 1;
  }
  pthread_t idle;
  int rc = pthread_create(&idle, NULL, idle_thread, &idle);
  if (rc != 0)
    fail("pthread_create", rc, 0);

  double t = now_s();
  build_heap();
  double build = now_s() - t;
  check_heap("after the build");

  GC_set_on_collection_event(on_gc_event);
  GC_gcollect();                      /* warm-up, not timed */
  check_heap("after the warm-up collection");

  double pause[MAX_TIMED], event[MAX_TIMED], pmax = 0;
  for (int k = 0; k < ntimed; k++) {
    pthread_mutex_lock(&event_lock);
    event_last = 0;
    pthread_mutex_unlock(&event_lock);
    t = now_s();
    GC_gcollect();
    pause[k] = (now_s() - t) * 1e3;
    pthread_mutex_lock(&event_lock);
    event[k] = event_last * 1e3;
    pthread_mutex_unlock(&event_lock);
    if (event[k] == 0)
      fail("GC_gcollect reported no GC_EVENT_START/GC_EVENT_END", k, 0);
    if (pause[k] > pmax)
      pmax = pause[k];
    if (verbose)
      fprintf(stderr, "collection %d: %.2f ms (events: %.2f ms)\n", k + 1,
              pause[k], event[k]);
    check_heap("after a timed collection");
  }
  GC_set_on_collection_event(0);

  pthread_mutex_lock(&idle_lock);
  idle_stop = 1;
  pthread_cond_signal(&idle_cond);
  pthread_mutex_unlock(&idle_lock);
  void *ret = NULL;
  rc = pthread_join(idle, &ret);
  if (rc != 0 || ret != &idle)
    fail("pthread_join", rc, 0);

  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    fail("getrusage", 0, 0);
  const char *env = getenv("GC_MARKERS");
  double pmin = pause[0];
  for (int k = 1; k < ntimed; k++)
    if (pause[k] < pmin)
      pmin = pause[k];
  double pmed = median(pause, ntimed), emed = median(event, ntimed);
  printf("pause variant=%s markers_env=%s markers=%d live_mib=%.1f objects=%ld "
         "collections=%d pause_med_ms=%.3f pause_min_ms=%.3f pause_max_ms=%.3f "
         "event_med_ms=%.3f build_s=%.3f heap_kib=%lu maxrss_kib=%ld smt=%s "
         "lib=%s\n",
         VARIANT, (env && *env) ? env : "unset", GC_get_parallel() + 1, live,
         objects, ntimed, pmed, pmin, pmax, emed, build,
         (unsigned long)(GC_get_heap_size() / 1024), ru.ru_maxrss,
         smt ? "yes" : "no", library_path());
  return 0;
}
