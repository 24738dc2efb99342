/*
 * markers.c: parallel marking. GC_MARKERS - 1 helper threads (default: one
 * per CPU, at most 16 markers; GC_MARKERS=1 turns them off) are started
 * lazily, by the first collection that runs once a second thread is
 * registered, or by GC_start_mark_threads. They are not registered threads:
 * they are never stopped, and they sleep between collections.
 *
 * Balancing: each marker drains its own stack; a marker that finds others
 * idle and the shared pool empty moves the older half of its stack into the
 * pool (older entries tend to root larger subgraphs). Idle markers take
 * entries from the pool. The phase ends when no marker is active and the
 * pool is empty. Mark bits are set with an atomic OR while helpers run.
 * Invariant: helpers touch the heap only between markers_start_phase and
 * the end of markers_finish_phase, which the collector runs with the world
 * stopped and the allocation lock held.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#define MAX_MARKERS 16
#define POOL_CAPACITY 8192
#define TAKE_MAX 64                              /* entries taken from the pool at once */
#define HELPER_STACK_ENTRIES ((size_t)1 << 16)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cond = PTHREAD_COND_INITIALIZER;     /* work or end of phase */
static pthread_cond_t phase_cond = PTHREAD_COND_INITIALIZER;    /* a phase begins */
static pthread_cond_t finished_cond = PTHREAD_COND_INITIALIZER; /* a helper left the phase */

/* All guarded by pool_lock (the two volatile ones are also read without it
   as a hint by busy markers). */
static struct mark_entry pool[POOL_CAPACITY];
volatile size_t markers_pool_count;
volatile int markers_waiting;
static int active_markers;
static bool phase_done;
static unsigned long phase_generation;
static int helpers_finished;

/* Guarded by the allocation lock. */
static int helpers_running;
static unsigned wanted_markers;
static struct marker helper_markers[MAX_MARKERS];

void markers_init(void) {
  long n;
  if (!wanted_markers) {
    if (os_env_long("GC_MARKERS", &n) && n > 0) wanted_markers = (unsigned)n;
    else if (os_env_long("GC_NPROCS", &n) && n > 0) wanted_markers = (unsigned)n;
    else wanted_markers = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
  }
  if (wanted_markers < 1) wanted_markers = 1;
  if (wanted_markers > MAX_MARKERS) wanted_markers = MAX_MARKERS;
}

/* Move up to TAKE_MAX pool entries onto m's stack. Under pool_lock. */
static void take_from_pool(struct marker *m) {
  size_t room = (size_t)(m->limit - (m->top + 1));
  size_t n = markers_pool_count < TAKE_MAX ? markers_pool_count : TAKE_MAX;
  if (n > room) n = room;
  markers_pool_count -= n;
  memcpy(m->top + 1, &pool[markers_pool_count], n * sizeof *pool);
  m->top += n;
}

void markers_share(struct marker *m) {
  size_t have = (size_t)(m->top - m->base + 1);
  size_t n = have / 2;
  pthread_mutex_lock(&pool_lock);
  size_t room = POOL_CAPACITY - markers_pool_count;
  if (n > room) n = room;
  if (n) {
    memcpy(&pool[markers_pool_count], m->base, n * sizeof *pool);
    markers_pool_count += n;
    memmove(m->base, m->base + n, (have - n) * sizeof *m->base);
    m->top -= n;
    pthread_cond_broadcast(&pool_cond);
  }
  pthread_mutex_unlock(&pool_lock);
}

/* An idle marker first watches for work or the phase's end for a while
   (pool_lock released) before sleeping: during a phase the world is stopped,
   so the CPU it spins on is one no mutator wants, and waking a sleeping
   thread costs a futex call and tens of microseconds, which a collection of
   a small heap pays many times over (bench/mt_gcbench.c). */
#define IDLE_SPIN_NS 50000
static void spin_for_work(void) {
  pthread_mutex_unlock(&pool_lock);
  uint64_t until = os_now_ns() + IDLE_SPIN_NS;
  while (__atomic_load_n(&markers_pool_count, __ATOMIC_RELAXED) == 0 &&
         !__atomic_load_n(&phase_done, __ATOMIC_RELAXED) && os_now_ns() < until)
    os_cpu_relax();
  pthread_mutex_lock(&pool_lock);
}

/* Drain, take from the pool, wait for work; return when the phase is over. */
static void work_until_done(struct marker *m) {
  for (;;) {
    marker_drain(m);
    pthread_mutex_lock(&pool_lock);
    if (markers_pool_count > 0) {
      take_from_pool(m);
      pthread_mutex_unlock(&pool_lock);
      continue;
    }
    if (--active_markers == 0) {
      phase_done = true;
      pthread_cond_broadcast(&pool_cond);
      pthread_mutex_unlock(&pool_lock);
      return;
    }
    markers_waiting++;
    spin_for_work();
    while (markers_pool_count == 0 && !phase_done) pthread_cond_wait(&pool_cond, &pool_lock);
    markers_waiting--;
    if (phase_done) {
      pthread_mutex_unlock(&pool_lock);
      return;
    }
    active_markers++;
    pthread_mutex_unlock(&pool_lock);
  }
}

static void *helper_main(void *arg) {
  struct marker *m = arg;
  unsigned long seen = 0;
  pthread_mutex_lock(&pool_lock);
  for (;;) {
    while (phase_generation == seen) pthread_cond_wait(&phase_cond, &pool_lock);
    seen = phase_generation;
    pthread_mutex_unlock(&pool_lock);
    work_until_done(m);
    pthread_mutex_lock(&pool_lock);
    helpers_finished++;
    pthread_cond_signal(&finished_cond);
  }
  return NULL;
}

/* Start the helpers. Under the allocation lock. */
static void start_helpers(void) {
  if (helpers_running || wanted_markers <= 1) return;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);   /* helpers inherit: no signal lands there */
  for (unsigned i = 0; i + 1 < wanted_markers; i++) {
    struct marker *m = &helper_markers[helpers_running];
    if (!m->base && !marker_init_stack(m, HELPER_STACK_ENTRIES)) break;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int r = pthread_create(&t, &attr, helper_main, m);
    pthread_attr_destroy(&attr);
    if (r != 0) break;
    helpers_running++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  GC_parallel = helpers_running;
}

void markers_start_phase(struct marker *main) {
  if (!helpers_running && gc.thread_count >= 2) start_helpers();
  main->parallel = helpers_running > 0;
  if (!main->parallel) return;
  pthread_mutex_lock(&pool_lock);
  for (int i = 0; i < helpers_running; i++) {
    helper_markers[i].marked = 0;
    helper_markers[i].overflowed = false;
    helper_markers[i].parallel = true;
    helper_markers[i].top = helper_markers[i].base - 1;
  }
  markers_pool_count = 0;
  markers_waiting = 0;
  active_markers = helpers_running + 1;
  helpers_finished = 0;
  phase_done = false;
  phase_generation++;
  pthread_cond_broadcast(&phase_cond);
  pthread_mutex_unlock(&pool_lock);
}

void markers_finish_phase(struct marker *main) {
  if (!main->parallel) {
    marker_drain(main);
    return;
  }
  work_until_done(main);
  uint64_t until = os_now_ns() + IDLE_SPIN_NS;
  while (__atomic_load_n(&helpers_finished, __ATOMIC_ACQUIRE) < helpers_running && os_now_ns() < until)
    os_cpu_relax();
  pthread_mutex_lock(&pool_lock);
  while (helpers_finished < helpers_running) pthread_cond_wait(&finished_cond, &pool_lock);
  pthread_mutex_unlock(&pool_lock);
  main->parallel = false;
}

bool markers_overflowed(void) {
  bool any = false;
  for (int i = 0; i < helpers_running; i++) {
    any |= helper_markers[i].overflowed;
    helper_markers[i].overflowed = false;
  }
  return any;
}

unsigned long markers_marked_objects(void) {
  unsigned long n = 0;
  for (int i = 0; i < helpers_running; i++) {
    n += helper_markers[i].marked;
    helper_markers[i].marked = 0;
  }
  return n;
}

void markers_add_stats(struct mark_stats *sum) {
  for (int i = 0; i < helpers_running; i++) mark_stats_add(sum, &helper_markers[i].stats);
}

/* The child of a fork has no helper threads; they start again when needed. */
void markers_after_fork(void) {
  pthread_mutex_init(&pool_lock, NULL);
  pthread_cond_init(&pool_cond, NULL);
  pthread_cond_init(&phase_cond, NULL);
  pthread_cond_init(&finished_cond, NULL);
  helpers_running = 0;
  GC_parallel = 0;
}

GC_API void GC_start_mark_threads(void) {
  gc_ensure_init();
  LOCK();
  start_helpers();
  UNLOCK();
}

GC_API void GC_set_markers_count(unsigned n) {
  if (!gc.initialized) wanted_markers = n ? n : 1;
}
