/*
 * lists.c: full collections of a heap that is a few long linked lists
 * (written from scratch for bibop; issue #16, guile-list and ecl-list).
 *
 * What it measures: the pause of an explicit GC_gcollect() when the live
 * data is L singly linked lists of C two-word cells each, as Guile's and
 * ECL's list workloads leave it, and, on bibop, how the marking was shared
 * between the markers. A list can only be marked one cell after another,
 * so two markers go faster only if each follows a different list.
 *
 * The lists (-l L, default 2; -c C cells each, default 3,000,000): cells
 * of {value, next}, the value a tagged small integer (2 + 4 * position, an
 * odd word no collector takes for a pointer into its heap), built by
 * consing onto the front as Lisp does (a list's head is its newest cell, so
 * following it walks addresses downwards). -i allocates the lists'
 * cells interleaved (one cell of each in turn) instead of one list after
 * the other; -s allocates all the cells first and links them in a random
 * (fixed) order, so that each step of a list is a cache miss. The heads are held in a static array. Interior pointers are
 * off (GC_set_all_interior_pointers(0), as ECL does), so a cell takes 16
 * bytes on both collectors; -I leaves them on (32-byte cells).
 *
 * Both collectors in their multi-threaded mode, as pause.c: after GC_INIT,
 * GC_start_mark_threads() (referenced weakly) and one extra registered
 * thread that waits until the end. GC_MARKERS in the environment chooses
 * the markers.
 *
 * Then one untimed GC_gcollect() and -n N (default 7) timed ones. After
 * each, every list is walked and its length and values checked; damage
 * prints a diagnostic and exits 1 before any result.
 *
 * Output: one line on stdout, key=value fields:
 *   lists variant=V markers_env=E lists=L cells=C
 *         layout=consecutive|interleaved|scattered
 *         cell_bytes=B collections=N pause_med_ms=A pause_min_ms=B
 *         pause_max_ms=C others_share_med=S others_share_min=T
 * others_share is the fraction of the marked objects that markers other
 * than the collecting thread's marked (bibop_get_marked_share; "-" on
 * stock). -v prints each collection on stderr.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GC_THREADS
# define GC_THREADS
#endif

#include "bench_gc.h"

#include <pthread.h>   /* after <gc.h>: pthread_create is GC_pthread_create */

extern void GC_start_mark_threads(void) __attribute__((weak));

enum { MAX_LISTS = 64, MAX_TIMED = 101 };

struct cell { uintptr_t value; struct cell *next; };

static struct cell *heads[MAX_LISTS];
static long nlists = 2, ncells = 3000000;

static uintptr_t value_at(long position) { return 2 + 4 * (uintptr_t)position; }

/* Scattered: every cell allocated first (held by one scanned array),
   then linked in a random order, so that following a list jumps across
   the whole heap. */
static void build_scattered(void) {
  size_t total = (size_t)nlists * (size_t)ncells;
  struct cell **all = GC_MALLOC(total * sizeof *all);
  if (!all) { fprintf(stderr, "lists: out of memory\n"); exit(1); }
  for (size_t k = 0; k < total; k++)
    if (!(all[k] = GC_MALLOC(sizeof(struct cell)))) { fprintf(stderr, "lists: out of memory\n"); exit(1); }
  uint64_t x = 88172645463325252ull;   /* xorshift64: the same order every run */
  for (size_t k = total - 1; k > 0; k--) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    size_t j = (size_t)(x % (k + 1));
    struct cell *t = all[k]; all[k] = all[j]; all[j] = t;
  }
  for (long l = 0; l < nlists; l++) {
    struct cell *next = NULL;
    for (long i = ncells - 1; i >= 0; i--) {
      struct cell *c = all[(size_t)l * (size_t)ncells + (size_t)i];
      c->value = value_at(i);
      c->next = next;
      next = c;
    }
    heads[l] = next;
  }
  GC_FREE(all);
}

/* Cons-built: the cell allocated last is the head, at position 0. */
static void build(int interleaved, int scattered) {
  for (long l = 0; l < nlists; l++) heads[l] = NULL;
  if (scattered) {
    build_scattered();
    return;
  }
  if (interleaved) {
    for (long i = ncells - 1; i >= 0; i--)
      for (long l = 0; l < nlists; l++) {
        struct cell *c = GC_MALLOC(sizeof *c);
        if (!c) { fprintf(stderr, "lists: out of memory\n"); exit(1); }
        c->value = value_at(i);
        c->next = heads[l];
        heads[l] = c;
      }
    return;
  }
  for (long l = 0; l < nlists; l++)
    for (long i = ncells - 1; i >= 0; i--) {
      struct cell *c = GC_MALLOC(sizeof *c);
      if (!c) { fprintf(stderr, "lists: out of memory\n"); exit(1); }
      c->value = value_at(i);
      c->next = heads[l];
      heads[l] = c;
    }
}

static void check(const char *when) {
  for (long l = 0; l < nlists; l++) {
    long i = 0;
    for (const struct cell *c = heads[l]; c; c = c->next, i++)
      if (i >= ncells || c->value != value_at(i)) {
        fprintf(stderr, "lists: list %ld damaged at cell %ld %s\n", l, i, when);
        exit(1);
      }
    if (i != ncells) {
      fprintf(stderr, "lists: list %ld has %ld cells, not %ld, %s\n", l, i, ncells, when);
      exit(1);
    }
  }
}

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;
static int idle_stop;

static void *idle_thread(void *arg) {
  pthread_mutex_lock(&idle_lock);
  while (!idle_stop) pthread_cond_wait(&idle_cond, &idle_lock);
  pthread_mutex_unlock(&idle_lock);
  return arg;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  int ntimed = 7, interleaved = 0, scattered = 0, interior = 0, verbose = 0;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "-l") && a + 1 < argc) nlists = strtol(argv[++a], NULL, 10);
    else if (!strcmp(argv[a], "-c") && a + 1 < argc) ncells = strtol(argv[++a], NULL, 10);
    else if (!strcmp(argv[a], "-n") && a + 1 < argc) ntimed = (int)strtol(argv[++a], NULL, 10);
    else if (!strcmp(argv[a], "-i")) interleaved = 1;
    else if (!strcmp(argv[a], "-s")) scattered = 1;
    else if (!strcmp(argv[a], "-I")) interior = 1;
    else if (!strcmp(argv[a], "-v")) verbose = 1;
    else { nlists = 0; break; }
  }
  if (nlists < 1 || nlists > MAX_LISTS || ncells < 1 || ntimed < 1 || ntimed > MAX_TIMED) {
    fprintf(stderr, "usage: %s [-l LISTS(1..%d)] [-c CELLS] [-n COLLECTIONS(1..%d)] [-i | -s] [-I] [-v]\n",
            argv[0], MAX_LISTS, MAX_TIMED);
    return 2;
  }
  if (!interior) GC_set_all_interior_pointers(0);
  GC_INIT();
  if (GC_start_mark_threads) GC_start_mark_threads();
  pthread_t idle;
  if (pthread_create(&idle, NULL, idle_thread, NULL) != 0) {
    fprintf(stderr, "lists: pthread_create failed\n");
    return 1;
  }

  build(interleaved, scattered);
  check("after the build");
  GC_gcollect();   /* warm-up, not timed: also finishes the build's sweeping */
  check("after the warm-up collection");

  double pause[MAX_TIMED], share[MAX_TIMED];
  for (int k = 0; k < ntimed; k++) {
    uint64_t t = bench_clock_ns(CLOCK_MONOTONIC);
    GC_gcollect();
    pause[k] = (double)(bench_clock_ns(CLOCK_MONOTONIC) - t) / 1e6;
    share[k] = -1;
#ifdef BIBOP
    struct bibop_marked_share s;
    bibop_get_marked_share(&s);
    share[k] = s.objects ? (double)s.by_others / (double)s.objects : 0;
    if (verbose)
      fprintf(stderr, "collection %d: %.2f ms, %llu objects, %llu by the others\n", k,
              pause[k], s.objects, s.by_others);
#else
    if (verbose) fprintf(stderr, "collection %d: %.2f ms\n", k, pause[k]);
#endif
    check("after a timed collection");
  }

  pthread_mutex_lock(&idle_lock);
  idle_stop = 1;
  pthread_cond_signal(&idle_cond);
  pthread_mutex_unlock(&idle_lock);
  pthread_join(idle, NULL);

  double pmin = pause[0], pmax = pause[0], smin = share[0];
  for (int k = 1; k < ntimed; k++) {
    if (pause[k] < pmin) pmin = pause[k];
    if (pause[k] > pmax) pmax = pause[k];
    if (share[k] < smin) smin = share[k];
  }
  double pmed = median(pause, ntimed), smed = median(share, ntimed);
  const char *env = getenv("GC_MARKERS");
  printf("lists variant=%s markers_env=%s lists=%ld cells=%ld layout=%s cell_bytes=%d "
         "collections=%d pause_med_ms=%.2f pause_min_ms=%.2f pause_max_ms=%.2f ",
         VARIANT, (env && *env) ? env : "unset", nlists, ncells,
         scattered ? "scattered" : interleaved ? "interleaved" : "consecutive", interior ? 32 : 16,
         ntimed, pmed, pmin, pmax);
  if (smed < 0) printf("others_share_med=- others_share_min=-\n");
  else printf("others_share_med=%.3f others_share_min=%.3f\n", smed, smin);
  return 0;
}
