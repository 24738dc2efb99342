/*
 * markers.c: parallel marking. Up to GC_MARKERS - 1 markers join the
 * collecting thread's (default: one per CPU the process may use, its
 * affinity mask and cgroup quota counted, at most 16 markers; GC_MARKERS=1
 * turns parallel marking off). They come from two places:
 *   - volunteers: registered threads that the stop-the-world signal found
 *     running mark in their suspend handler (stopworld.c), then wait there
 *     for the restart. They are already awake on their own CPU, so a
 *     collection pays no wake-up for them, and none for their restart
 *     either when they are still polling for it (on this project's 2-CPU VM
 *     a wake-up of an idle CPU costs 20-90 us, against a 0.5 ms collection of
 *     bench/mt_gcbench.c's heap);
 *   - helper threads for the places volunteers do not fill, started lazily
 *     (before the world stops) by the first collection that runs once a
 *     second thread is registered or the committed heap reaches
 *     helpers_min_heap, or the helpers trial may try them below it (a
 *     single-threaded program gets them too, as on stock libgc1, which
 *     starts them in GC_init), or by
 *     GC_start_mark_threads. They are not registered threads: never
 *     stopped, asleep between collections.
 * Each collection opens as many places as there are volunteers (at most
 * GC_MARKERS - 1) and gives the rest to helpers; below a committed heap
 * of helpers_min_heap only if the trial (trial.c) chose them. A marker
 * joins under
 * pool_lock while the phase is not done; one that comes later stays out,
 * which is always correct (joining adds hands, not work).
 *
 * Balancing: each marker drains its own stack; a marker that finds others
 * idle and the shared pool empty moves the older half of its stack into the
 * pool (older entries tend to root larger subgraphs), its scan-ahead queue
 * put back on the stack first (mark.c). Idle markers take
 * entries from the pool. The phase ends when no joined marker is active and
 * the pool is empty; then every marker takes a share of the fold of the
 * other markers' bits into the mark bits. The collector's marker sets small
 * objects' mark bits, the others claim them in bits of their own (mark.c,
 * claim_small).
 * Invariant: markers touch the heap only between markers_start_phase and
 * the end of markers_finish_phase, which the collector runs with the world
 * stopped and the allocation lock held. A volunteer's stack never grows
 * (meta_alloc takes a lock its interrupted thread may hold): when full it
 * overflows, and the collector recovers.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <limits.h>
#include <sched.h>
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
static volatile unsigned long phase_generation;
/* Futex words volunteers sleep on (they may not wait on a condition
   variable, see wait_for_work): phase_word changes when a phase opens,
   pool_word when work enters the pool or the phase ends. Each is bumped
   under pool_lock and with sequential consistency, then the count of
   sleepers is read (also sequentially consistent) to skip the wake-up
   call when nobody sleeps; a sleeper counts itself before the kernel
   compares the word, so one of the two always sees the other. */
static uint32_t phase_word, pool_word;
static int volunteers_sleeping;
static int helpers_joined, helpers_finished;   /* markers other than the collector's */
static int helper_places, volunteer_places;    /* still open in this phase */
static int volunteers_seated;
/* Who joined: this phase's counts, then the last finished phase's and the
   totals (allocation lock). */
static struct bibop_marker_counts counts;

/* Guarded by the allocation lock. */
static int helpers_running;
static unsigned wanted_markers;
static struct marker helper_markers[MAX_MARKERS];
static struct marker volunteer_markers[MAX_MARKERS];
/* Places for volunteers: GC_MARKERS - 1, or 0 when off (BIBOP_VOLUNTEERS=0). */
static int volunteer_capacity;
/* Stopped threads that offered to mark in this stop (atomic; reset when
   the phase starts). */
static int volunteers_offered;
/* Helpers join only when the committed heap is at least this large
   (BIBOP_HELPERS_MIN_HEAP, bytes with K/M/G; decided per collection). A
   small heap's marking takes about what a helper costs: its wake-up
   (20-90 us on this VM), the parallel mark loop's claims of small objects,
   the fold of the other markers' bits. Volunteers join at any size: they
   are awake already (bench/mt_gcbench.c, 2 MiB live, 2 threads: 0.52 s
   without them below 8 MiB against 0.43 s). Session 14, same run against
   any size: guile-weak (4 MiB) and guile-interp (4-6 MiB), which have no
   volunteers, 0.92 / 0.91 x CPU at the same wall time; bench/pause.c with
   8 MiB live (12 MiB committed) still gains from a helper (1.24 against
   1.97 ms). Single-threaded programs had no helper until session 15:
   asy-render, w3m-dump, nix-eval and neko-st took 0.92-0.97 x the wall
   time with one (0.95-1.11 x the CPU, +0.2-1 MiB peak RSS: the others'
   bits), their total pause 0.60-0.81 x. */
#define HELPERS_DEFAULT_MIN_HEAP ((size_t)8 << 20)
static size_t helpers_min_heap = HELPERS_DEFAULT_MIN_HEAP;
/* Below that size the choice is the processor's, so it is tried (unless
   BIBOP_HELPERS_MIN_HEAP fixes the threshold). The measures above were
   the Intel Xeon's of sessions 14-15; on the AMD EPYC of sessions 16-19,
   whose memory is slower, a helper pays on small heaps too (session 19,
   5 alternating rounds against the threshold: guile-weak 0.93 x time,
   guile-interp 0.97 x, ecl-weak 0.89 x, total pause 0.82-0.87 x, CPU
   0.89-1.06 x). A trial (trial.c) alternates the two over full
   collections below the threshold and keeps the one whose marking phase
   took less wall time per word scanned: the world is stopped, so wall
   time is what the program loses. */
static bool helpers_threshold_fixed;   /* BIBOP_HELPERS_MIN_HEAP given */
static struct trial helpers_trial = TRIAL_INIT("helpers", "wall time marking", os_now_ns);
/* The trial starts a helper thread (its stacks: 50-200 KiB of a trivial
   Guile run's peak RSS), so it waits for a program that collects more
   than a start-up's few times. */
#define HELPERS_TRIAL_FROM_GC 16

static bool helpers_trial_may_try(void) {
  return !helpers_threshold_fixed && wanted_markers >= 2 && GC_gc_no >= HELPERS_TRIAL_FROM_GC;
}

/* Whether helpers may join this full collection of a heap below the
   threshold. */
static bool small_heap_helpers(void) {
  if (!helpers_trial_may_try()) return false;
  helpers_trial.below_bytes = helpers_min_heap;
  return trial_arm(&helpers_trial);
}

void markers_trial_end(uint64_t words) {
  trial_end(&helpers_trial, words);
}

void markers_init(void) {
  long n;
  if (!wanted_markers) {
    if (os_env_long("GC_MARKERS", &n) && n > 0) wanted_markers = (unsigned)n;
    else if (os_env_long("GC_NPROCS", &n) && n > 0) wanted_markers = (unsigned)n;
    else wanted_markers = os_cpus_usable();
  }
  if (wanted_markers < 1) wanted_markers = 1;
  if (wanted_markers > MAX_MARKERS) wanted_markers = MAX_MARKERS;
  volunteer_capacity = (int)wanted_markers - 1;
  if (os_env_long("BIBOP_VOLUNTEERS", &n) && n == 0) volunteer_capacity = 0;
  size_t bytes;
  if (os_env_size("BIBOP_HELPERS_MIN_HEAP", &bytes)) {
    helpers_min_heap = bytes;
    helpers_threshold_fixed = true;
  }
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

/* The word changes (under pool_lock, but for the close of a stop): wake
   the volunteers asleep on it. */
static void wake_volunteers(uint32_t *word) {
  __atomic_add_fetch(word, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&volunteers_sleeping, __ATOMIC_SEQ_CST) > 0) gc_futex_wake(word, INT_MAX);
}

/* A volunteer, pool_lock released: sleep while *word == seen, at most
   timeout_ns (0: no limit). */
static void volunteer_sleep(uint32_t *word, uint32_t seen, uint64_t timeout_ns) {
  __atomic_add_fetch(&volunteers_sleeping, 1, __ATOMIC_SEQ_CST);
  gc_futex_wait(word, seen, timeout_ns);
  __atomic_sub_fetch(&volunteers_sleeping, 1, __ATOMIC_SEQ_CST);
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
    wake_volunteers(&pool_word);
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

/* Wait for work or the phase's end. A volunteer never sleeps on a
   condition variable: pthread_cond_wait is a cancellation point, and a
   cancellation acted on inside the suspend handler would unwind the thread
   with pool_lock held. It sleeps on pool_word instead, a raw futex wait
   (until session 7 it polled with sched_yield: on guile-parmap, 8 threads
   on 2 CPUs, up to 51,000 yields a run on a loaded machine). */
static void wait_for_work(bool volunteer) {
  spin_for_work();
  while (markers_pool_count == 0 && !phase_done) {
    if (!volunteer) {
      pthread_cond_wait(&pool_cond, &pool_lock);
      continue;
    }
    uint32_t seen = __atomic_load_n(&pool_word, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pool_lock);
    volunteer_sleep(&pool_word, seen, 0);
    pthread_mutex_lock(&pool_lock);
  }
}

/* Drain, take from the pool, wait for work; when the phase is over (every
   marker idle, the pool empty), take a share of the fold of the other markers' bits
   (mark.c) and return. */
static void work_until_done(struct marker *m, bool volunteer) {
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
      wake_volunteers(&pool_word);
      break;
    }
    markers_waiting++;
    wait_for_work(volunteer);
    markers_waiting--;
    if (phase_done) break;
    active_markers++;
    pthread_mutex_unlock(&pool_lock);
  }
  pthread_mutex_unlock(&pool_lock);
  mark_fold_share();
}

/* Join the current phase as one more marker. Under pool_lock. */
static bool join_phase(int *places) {
  if (phase_done || *places == 0) return false;
  (*places)--;
  active_markers++;
  helpers_joined++;
  return true;
}

static void leave_phase(void) {
  pthread_mutex_lock(&pool_lock);
  helpers_finished++;
  pthread_cond_signal(&finished_cond);
  pthread_mutex_unlock(&pool_lock);
}

static void *helper_main(void *arg) {
  struct marker *m = arg;
  unsigned long seen = 0;
  pthread_mutex_lock(&pool_lock);
  for (;;) {
    if (phase_generation != seen) {
      seen = phase_generation;
      if (join_phase(&helper_places)) {
        pthread_mutex_unlock(&pool_lock);
        work_until_done(m, false);
        leave_phase();
        pthread_mutex_lock(&pool_lock);
        continue;
      }
    }
    pthread_cond_wait(&phase_cond, &pool_lock);
  }
  return NULL;
}

/* ---- volunteers (called from stopworld.c's suspend handler) ---------------- */

/* The CPU the collecting thread ran on when it stopped the world
   (markers_before_stop; -1 when unknown). */
static int collector_cpu = -1;

/* Offer to mark in the coming phase; on success *generation is the phase
   count to wait past. Before the thread acknowledges the stop, so the
   collector has every offer when it starts the phase.
   Not from the collector's CPU: with more runnable threads than CPUs, the
   stop signal is handled by threads queued there too, and such a
   volunteer only takes turns with the collector until the scheduler moves
   one of them (a tick later, 4 ms here), while the other CPU has nothing
   of the collection to do. bench/mt_gcbench.c, 4 threads on 2 CPUs: 20% of
   the parallel phases (70 of 359) took twice their time that way, the
   collector and the volunteer each running ~4.5 ms of a 9 ms phase in
   turn (their schedstat run times); with the offer refused there, 0-1 of
   330-358 (a helper takes the place: woken, it goes to an idle CPU), and
   the run took 2.42-2.59 s against 3.11-3.32. sched_getcpu reads the
   kernel's per-thread CPU number (rseq or the vDSO): no lock, safe in the
   signal handler. */
bool markers_volunteer_offer(unsigned long *generation) {
  if (sched_getcpu() == __atomic_load_n(&collector_cpu, __ATOMIC_RELAXED)) return false;
  int n = __atomic_load_n(&volunteers_offered, __ATOMIC_RELAXED);
  while (n < volunteer_capacity)
    if (__atomic_compare_exchange_n(&volunteers_offered, &n, n + 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
      *generation = phase_generation;
      return true;
    }
  return false;
}

/* The phase a volunteer waits for opens once every stopped thread has
   answered and the mark bits are cleared: within tens of microseconds on
   an idle machine, milliseconds when threads outnumber CPUs or the machine
   is loaded. The volunteer polls for VOLUNTEER_POLL_NS, yielding (a stopped
   thread that has not answered yet may be queued behind it on its CPU: a
   spinning volunteer held the stop of bench/mt_gcbench.c up for a whole
   2 ms time slice), then sleeps on phase_word. It gives up after
   VOLUNTEER_WAIT_NS (a stop with no marking phase, GC_stop_world_external,
   also wakes it: markers_stop_closed), and then withdraws its offer if the
   phase has not opened, so that its place goes to a helper: until session
   7 it gave up after 2 ms of yielding and kept its place, and a stop slower
   than that (4-10 ms on a loaded machine with guile-parmap's 8 threads)
   left the collection to one marker, often the largest ones. */
#define VOLUNTEER_POLL_NS (50 * 1000ull)
#define VOLUNTEER_WAIT_NS (100 * 1000 * 1000ull)

/* Wait for the phase after `generation` to open, or for stop epoch `epoch`
   to close (*open_epoch), and mark in a volunteer place if one is free. */
void markers_volunteer_mark(unsigned long generation, volatile unsigned long *open_epoch,
                            unsigned long epoch) {
  uint64_t start = os_now_ns(), now = start;
  uint32_t seen = __atomic_load_n(&phase_word, __ATOMIC_SEQ_CST);
  while (phase_generation == generation && *open_epoch == epoch && now - start < VOLUNTEER_WAIT_NS) {
    if (now - start < VOLUNTEER_POLL_NS) sched_yield();
    else volunteer_sleep(&phase_word, seen, VOLUNTEER_WAIT_NS - (now - start));
    now = os_now_ns();
  }
  pthread_mutex_lock(&pool_lock);
  if (phase_generation == generation) {
    /* Still unopened: the collector has not counted the offers yet (it
       does so and opens the phase in one pool_lock section). */
    __atomic_sub_fetch(&volunteers_offered, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&pool_lock);
    return;
  }
  bool joined = phase_generation == generation + 1 && join_phase(&volunteer_places);
  struct marker *m = joined ? &volunteer_markers[volunteers_seated++] : NULL;
  pthread_mutex_unlock(&pool_lock);
  if (!joined) return;
  work_until_done(m, true);
  leave_phase();
  /* What the marking left on this thread's stack, below the suspend
     handler (the mark loop's frames, its scan-ahead queue of 64 object
     addresses, client mark procedures), is zeroed before the thread
     resumes: the thread's own frames, laid over it later, leave some slots
     unwritten, which the next collections would scan. A worker of
     ecl-threads, which volunteers, kept a dead worker's 500,000-element
     list and vector alive that way (up to 3.1 M objects marked at its
     explicit collections, where four lists can account for 2.5 M). A
     volunteer has far more stack room (stopworld.c). */
  os_zero_stack_below();
}

/* How many stopped threads may volunteer in a phase. */
int markers_volunteer_places(void) { return volunteer_capacity; }

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

/* Reset marker m for a phase; false if it has no stack. */
static bool marker_ready(struct marker *m, size_t entries, bool fixed_stack) {
  if (!m->base && !marker_init_stack(m, entries)) return false;
  m->marked = 0;
  m->overflowed = false;
  m->parallel = true;
  m->fixed_stack = fixed_stack;
  m->top = m->base - 1;
  return true;
}

/* Before the world stops: the collector's CPU, which volunteers avoid;
   the helpers, started here since pthread_create must not wait for a lock
   of glibc's (its stack cache) that a stopped thread may hold. */
void markers_before_stop(void) {
  __atomic_store_n(&collector_cpu, sched_getcpu(), __ATOMIC_RELAXED);
  if (!helpers_running &&
      (gc.thread_count >= 2 || arena_committed_bytes() >= helpers_min_heap ||
       (helpers_trial_may_try() && trial_next_may_try(&helpers_trial))))
    start_helpers();
}

void markers_start_phase(struct marker *main, bool minor) {
  counts.helpers = counts.volunteers = 0;
  int seats = 0;   /* volunteer places with a stack */
  while (seats < volunteer_capacity && marker_ready(&volunteer_markers[seats], HELPER_STACK_ENTRIES, true))
    seats++;
  for (int i = 0; i < helpers_running; i++)   /* whichever helpers join */
    (void)marker_ready(&helper_markers[i], HELPER_STACK_ENTRIES, false);
  pthread_mutex_lock(&pool_lock);
  /* Under pool_lock with the opening of the phase: a volunteer that gave
     up before it withdraws its offer under pool_lock too. */
  int offered = __atomic_exchange_n(&volunteers_offered, 0, __ATOMIC_ACQ_REL);
  int volunteers = offered < seats ? offered : seats;
  int helpers = (int)wanted_markers - 1 - volunteers;
  if (helpers > helpers_running) helpers = helpers_running;
  if (helpers < 0) helpers = 0;
  /* A minor collection marks little (young objects, written pages): a
     helper's wake-up and the fold of its bits cost more than it marks
     (bench/genheap.c, 1 GiB: minor pause median 9.2-10.0 ms with one,
     8.2-8.8 without). Volunteers, awake already, still join. */
  if (minor) helpers = 0;
  else if (helpers > 0 && arena_committed_bytes() < helpers_min_heap && !small_heap_helpers()) helpers = 0;
  markers_pool_count = 0;
  markers_waiting = 0;
  active_markers = 1;
  helpers_joined = helpers_finished = 0;
  helper_places = helpers;
  volunteer_places = volunteers;
  volunteers_seated = 0;
  phase_done = false;
  main->parallel = helpers + volunteers > 0;
  if (main->parallel) mark_fold_prepare(helpers + volunteers);
  phase_generation++;                       /* what the volunteers wait for */
  wake_volunteers(&phase_word);
  for (int i = 0; i < helpers; i++) pthread_cond_signal(&phase_cond);
  pthread_mutex_unlock(&pool_lock);
}

void markers_finish_phase(struct marker *main) {
  if (!main->parallel) {
    marker_drain(main);
    return;
  }
  work_until_done(main, false);
  /* phase_done is set: no marker joins any more, helpers_joined is final. */
  counts.volunteers = (unsigned)volunteers_seated;
  counts.helpers = (unsigned)helpers_joined - counts.volunteers;
  uint64_t until = os_now_ns() + IDLE_SPIN_NS;
  while (__atomic_load_n(&helpers_finished, __ATOMIC_ACQUIRE) <
             __atomic_load_n(&helpers_joined, __ATOMIC_ACQUIRE) && os_now_ns() < until)
    os_cpu_relax();
  pthread_mutex_lock(&pool_lock);
  while (helpers_finished < helpers_joined) pthread_cond_wait(&finished_cond, &pool_lock);
  pthread_mutex_unlock(&pool_lock);
  main->parallel = false;
}

/* The stop epoch has closed (stopworld.c), with or without a marking
   phase: volunteers still waiting for one stop waiting. The epoch is
   closed first (sequentially consistent), so a volunteer that sleeps after
   this bump has seen the close. */
void markers_stop_closed(void) { wake_volunteers(&phase_word); }

/* Every marker other than the collector's: helpers', then volunteer places. */
#define OTHER_MARKERS (2 * MAX_MARKERS)
static struct marker *other_marker(int i) {
  return i < MAX_MARKERS ? &helper_markers[i] : &volunteer_markers[i - MAX_MARKERS];
}

bool markers_overflowed(void) {
  bool any = false;
  for (int i = 0; i < OTHER_MARKERS; i++) {
    any |= other_marker(i)->overflowed;
    other_marker(i)->overflowed = false;
  }
  return any;
}

/* Objects the other markers marked in the last phase (GC_PRINT_STATS). */
static unsigned long last_others_marked;

unsigned long markers_marked_objects(void) {
  unsigned long n = 0;
  for (int i = 0; i < OTHER_MARKERS; i++) {
    n += other_marker(i)->marked;
    other_marker(i)->marked = 0;
  }
  last_others_marked = n;
  return n;
}

void markers_print_stats(FILE *out) {
  fprintf(out, "bibop: markers: %u helpers, %u volunteers joined; they marked %lu objects\n",
          counts.helpers, counts.volunteers, last_others_marked);
}

void markers_add_stats(struct mark_stats *sum) {
  for (int i = 0; i < OTHER_MARKERS; i++) mark_stats_add(sum, &other_marker(i)->stats);
}

/* The child of a fork has no helper threads; they start again when needed. */
void markers_after_fork(void) {
  pthread_mutex_init(&pool_lock, NULL);
  pthread_cond_init(&pool_cond, NULL);
  pthread_cond_init(&phase_cond, NULL);
  pthread_cond_init(&finished_cond, NULL);
  helpers_running = 0;
  volunteers_offered = 0;
  GC_parallel = 0;
}

/* After a collection (mark_finish): the phase's counts become the last. */
void markers_count_phase(void) {
  counts.total_helpers += counts.helpers;
  counts.total_volunteers += counts.volunteers;
}

BIBOP_API void bibop_get_marker_counts(struct bibop_marker_counts *out) {
  if (!out) return;
  gc_ensure_init();
  LOCK();
  *out = counts;
  out->gc_no = (unsigned long)GC_gc_no;
  UNLOCK();
}

BIBOP_API void bibop_get_marked_share(struct bibop_marked_share *out) {
  if (!out) return;
  gc_ensure_init();
  LOCK();
  out->gc_no = (unsigned long)GC_gc_no;
  out->objects = gc.marked_objects;
  out->by_others = last_others_marked;
  UNLOCK();
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
