/*
 * stopworld.c: what stopping the threads costs a collection (paper 004,
 * Boehm's talk, "Thread support": every thread is sent a signal and
 * handshakes from its handler), on bibop and stock libgc1.
 *
 * -T registered threads (GC_THREADS: pthread_create is GC_pthread_create)
 * that either wait on a condition variable (-m idle, the usual case for a
 * server's worker pool) or spin on a volatile counter without allocating
 * (-m busy). The heap is almost empty (a 1,000-object list, so there is
 * something to mark), and the main thread times -n explicit GC_gcollect()
 * calls (default 201) after 5 untimed ones: the median is the collection's
 * fixed cost with T threads to stop, scan (each has a small stack) and
 * restart; the runner subtracts T = 0 to get the cost per thread.
 *
 * Output: one line on stdout, key=value:
 *   stopworld variant=V mode=M threads=T gcs=N med_us=A min_us=B p90_us=C
 * A failure (thread creation, the list damaged) prints a diagnostic and
 * exits 1 before any figure is printed.
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

#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "bench_gc.h"

#include <pthread.h>   /* after <gc.h>: pthread_create is GC_pthread_create */

#define MAX_THREADS 64
#define MAX_GCS 2001
#define LIST_LEN 1000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int done, started;
static volatile int stop_spinning;
static volatile unsigned long spins[MAX_THREADS];

struct cell { struct cell *next; long v; };
static struct cell *list;   /* the only root */

static void fail(const char *what) {
  fprintf(stderr, "stopworld(" VARIANT "): CHECK FAILED: %s\n", what);
  fflush(stderr);
  _exit(1);   /* the threads are still registered */
}

static void *idle_thread(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  started++;
  pthread_cond_broadcast(&cv);
  while (!done) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return NULL;
}

static void *busy_thread(void *arg) {
  long i = (long)(intptr_t)arg;
  pthread_mutex_lock(&mu);
  started++;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  while (!stop_spinning) spins[i]++;
  return NULL;
}

int main(int argc, char **argv) {
  int nthreads = 0, gcs = 201, busy = 0, c;
  while ((c = getopt(argc, argv, "T:m:n:")) != -1) {
    switch (c) {
      case 'T': nthreads = atoi(optarg); break;
      case 'm': busy = !strcmp(optarg, "busy"); break;
      case 'n': gcs = atoi(optarg); break;
      default:
        fprintf(stderr, "usage: stopworld [-T threads] [-m idle|busy] [-n collections]\n");
        return 2;
    }
  }
  if (nthreads < 0 || nthreads > MAX_THREADS || gcs < 1 || gcs > MAX_GCS) {
    fprintf(stderr, "stopworld: 0 <= T <= %d, 1 <= n <= %d\n", MAX_THREADS, MAX_GCS);
    return 2;
  }
  GC_INIT();
  for (long i = 0; i < LIST_LEN; i++) {
    struct cell *x = GC_MALLOC(sizeof *x);
    if (!x) fail("out of memory");
    x->next = list;
    x->v = i;
    list = x;
  }
  pthread_t th[MAX_THREADS];
  for (int i = 0; i < nthreads; i++)
    if (pthread_create(&th[i], NULL, busy ? busy_thread : idle_thread, (void *)(intptr_t)i))
      fail("pthread_create");
  pthread_mutex_lock(&mu);
  while (started < nthreads) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);

  static uint64_t t[MAX_GCS];
  for (int i = 0; i < 5; i++) GC_gcollect();
  for (int i = 0; i < gcs; i++) {
    uint64_t t0 = bench_clock_ns(CLOCK_MONOTONIC);
    GC_gcollect();
    t[i] = bench_clock_ns(CLOCK_MONOTONIC) - t0;
  }
  long k = LIST_LEN;
  for (struct cell *x = list; x; x = x->next)
    if (x->v != --k) fail("list damaged");
  if (k != 0) fail("list too short");

  stop_spinning = 1;
  pthread_mutex_lock(&mu);
  done = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);

  qsort(t, (size_t)gcs, sizeof *t, bench_cmp_u64);
  printf("stopworld variant=%s mode=%s threads=%d gcs=%d med_us=%.1f min_us=%.1f p90_us=%.1f\n",
         VARIANT, busy ? "busy" : "idle", nthreads, gcs, t[gcs / 2] / 1e3, t[0] / 1e3,
         t[(gcs * 9) / 10] / 1e3);
  return 0;
}
