/*
 * state.c: what every layer shares, at the bottom of the house: the
 * collector's state (struct gc_state, one instance), the allocation lock
 * that protects it, and the data symbols bdwgc exports (same names, types
 * and sizes: programs read them and copy-relocate them, and this library
 * reaches them through the GOT). Settings live here so that any layer may
 * read them without calling up into the API files; the API files only
 * write them for the client.
 * Owns no logic beyond the lock's contended path.
 */
#define _GNU_SOURCE   /* PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP */
#include "internal.h"

#include <sched.h>

/* ---- exported data, as bdwgc 8.2 exports it ------------------------------- */

GC_word GC_gc_no = 0;
int GC_all_interior_pointers = 1;
int GC_java_finalization = 1;
int GC_no_dls = 0;
int GC_dont_gc = 0;
int GC_dont_expand = 0;
int GC_dont_precollect = 0;
int GC_find_leak = 0;
int GC_finalize_on_demand = 0;
int GC_full_freq = 19;
int GC_use_entire_heap = 0;
int GC_parallel = 0;
GC_word GC_free_space_divisor = 3;
GC_word GC_max_retries = 0;
GC_word GC_non_gc_bytes = 0;
unsigned long GC_time_limit = 50;
char *GC_stackbottom = NULL;
void *GC_least_plausible_heap_addr = (void *)~(uintptr_t)0;
void *GC_greatest_plausible_heap_addr = NULL;
GC_oom_func GC_oom_fn = gc_default_oom_fn;
GC_finalizer_notifier_proc GC_finalizer_notifier = NULL;
GC_on_heap_resize_proc GC_on_heap_resize = NULL;
GC_abort_func GC_on_abort = gc_default_abort_func;

/* Finalizers are queued (finalize.c sets it, the allocator reads it
   without the lock and then runs them through its hook). */
volatile bool finalize_pending;

/* The allocation lock spins a little before sleeping (glibc's adaptive
   mutex): it is held for short stretches (refills, uncollectable objects,
   GC_free), and a sleep and wake-up per contended acquisition cost more
   than the wait. Measured: a GC_malloc_uncollectable + GC_free pair from
   2 threads 464 -> 217-317 ns (stock 243), mt_gcbench with 4 threads
   -8%, 2 threads -2% (alternating runs, docs/BENCHMARKS.md). */
struct gc_state gc = { .lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP, .warn_proc = gc_default_warn_proc };

/* The lock is busy: poll it, yielding the CPU, for up to LOCK_POLL_NS before
   sleeping on it. It is held either briefly (a refill) or for a whole
   collection, during which a waiter that is still polling is stopped by a
   signal to a running thread (no wake-up of an idle CPU), volunteers to mark
   (markers.c) and gets the lock back without being woken either. */
#define LOCK_POLL_NS (2 * 1000 * 1000ull)
void gc_lock_contended(void) {
  uint64_t until = 0;
  for (unsigned i = 0;; i++) {
    if (pthread_mutex_trylock(&gc.lock) == 0) return;
    if (i < 64) {
      os_cpu_relax();
      continue;
    }
    uint64_t now = os_now_ns();
    if (!until) until = now + LOCK_POLL_NS;
    else if (now >= until) break;
    sched_yield();
  }
  pthread_mutex_lock(&gc.lock);
}
