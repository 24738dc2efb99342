/*
 * state.c: what every layer shares, at the bottom of the house: the
 * collector's state (struct gc_state, one instance), the allocation lock
 * that protects it, and the data symbols bdwgc exports (same names, types
 * and sizes: programs read them and copy-relocate them, and this library
 * reaches them through the GOT). Settings live here so that any layer may
 * read them without calling up into the API files; the API files only
 * write them for the client.
 * Owns no logic beyond the lock's contended path and the futex calls it
 * and the markers sleep in.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

/* The allocation lock is a futex word (internal.h): taking it free is one
   compare-and-swap, releasing it one exchange, and a system call is made
   only when a waiter went to sleep. All zero at the start (the lock
   LOCK_FREE, no warn_proc: the default one), so the state lies in .bss:
   as initialised data its 160 KiB (per-kind class lists and cursors for
   MAX_KINDS kinds) were read from the file and resident whole in every
   process, 0.15 MiB of guile-weak's 0.3 MiB excess over stock; in .bss
   only the pages the used kinds write become resident. */
struct gc_state gc;

/* The lock is busy. It is held either for short stretches (a refill, an
   uncollectable object, GC_free: microseconds) or for a whole collection.
   A waiter spins, without system calls, while the holder is not collecting
   and for at most LOCK_SPIN_NS, then sleeps on the futex until an unlock
   wakes it.
   Why not poll with sched_yield for 2 ms, as until session 7: with more
   threads than CPUs (guile-parmap runs 8 workers on 2 CPUs) the pollers
   made 13,000-44,000 yields a run on a loaded machine, each a system call
   and often a switch away from a thread with work to do, and a poller
   preempted the holder it was waiting for. What the polling bought: a
   waiter still polling when a collection began was stopped as a running
   thread and volunteered to mark without a wake-up. A registered waiter
   now sleeps parked (internal.h): a collection scans its stack without
   signalling it, so it is not woken at all until the lock is its own
   (stopworld.c signals it only to fill a volunteer place). */
#define LOCK_SPIN_NS (20 * 1000ull)
#define LOCK_SPINS_PER_CLOCK_READ 64

__thread struct lock_parking *gc_lock_parking __attribute__((tls_model("initial-exec")));
sigset_t gc_lock_sleep_mask;
__thread bool gc_left_locked_call __attribute__((tls_model("initial-exec")));

/* Whoever takes the lock from here on marks it contended, since other
   sleepers may remain: one unlock too many makes a futex call, never one
   too few. */
static void lock_sleep(void) {
  while (__atomic_exchange_n(&gc.lock, LOCK_CONTENDED, __ATOMIC_ACQUIRE) != LOCK_FREE)
    gc_futex_wait(&gc.lock, LOCK_CONTENDED, 0);
}

/* A registered thread sleeps parked (internal.h). Its registers are spilled
   into this frame and `regs`, which is where the collector scans from.
   Parked is cleared once the lock is held: no collection reads it then. */
static __attribute__((noinline)) void lock_sleep_parked(struct lock_parking *parking) {
  jmp_buf regs;
  __builtin_unwind_init();
  setjmp(regs);
  sigset_t saved_mask;
  pthread_sigmask(SIG_BLOCK, &gc_lock_sleep_mask, &saved_mask);
  parking->sp = (char *)&regs;
  __atomic_store_n(&parking->parked, true, __ATOMIC_RELEASE);
  lock_sleep();
  __atomic_store_n(&parking->parked, false, __ATOMIC_RELAXED);
  pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
  __asm__ volatile("" : : "r"(&regs) : "memory");
}

void gc_lock_contended(void) {
  uint64_t until = 0;
  for (unsigned i = 1;; i++) {
    if (__atomic_load_n(&gc.lock, __ATOMIC_RELAXED) == LOCK_FREE && gc_trylock_word()) return;
    if (__atomic_load_n(&gc.collecting, __ATOMIC_RELAXED)) break;
    os_cpu_relax();
    if (i % LOCK_SPINS_PER_CLOCK_READ == 0) {
      uint64_t now = os_now_ns();
      if (!until) until = now + LOCK_SPIN_NS;
      else if (now >= until) break;
    }
  }
  struct lock_parking *parking = gc_lock_parking;
  if (parking) lock_sleep_parked(parking);
  else lock_sleep();
}

void gc_lock_wake(void) { gc_futex_wake(&gc.lock, 1); }

/* ---- the lock's bias (internal.h) ---------------------------------------- */

struct lock_bias gc_lock_bias;
uint32_t gc_lock_bias_active __attribute__((aligned(64)));   /* a line of its own: the owner's */
__thread bool gc_lock_biased_here __attribute__((tls_model("initial-exec")));

/* membarrier(2)'s commands (linux/membarrier.h, Linux 4.14). */
#define MEMBARRIER_PRIVATE_EXPEDITED (1 << 3)
#define MEMBARRIER_REGISTER_PRIVATE_EXPEDITED (1 << 4)

static bool membarrier_ready(void) {
  return syscall(SYS_membarrier, MEMBARRIER_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 &&
         syscall(SYS_membarrier, MEMBARRIER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* The calling thread (the one that initialised the collector, not holding
   the lock) becomes the bias's owner, unless BIBOP_LOCK_BIAS=0 or
   membarrier is unavailable. Under the futex word: a thread that takes the
   word afterwards sees `on` and revokes. */
void gc_lock_bias_begin(void) {
  long setting;
  if (os_env_long("BIBOP_LOCK_BIAS", &setting) && setting == 0) return;
  if (!membarrier_ready()) return;
  gc_lock_word();
  __atomic_store_n(&gc_lock_bias.revoking, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&gc_lock_bias.on, 1, __ATOMIC_RELAXED);
  gc_lock_biased_here = true;
  gc_unlock_word();
}

/* The futex word is held and the bias is on: take it away from its owner
   and wait until the owner has left the lock. For good: a program that
   has shown a second thread using the lock is taken as multi-threaded.
   The wait is a collection at worst; the waiting thread is running (not
   parked), so a collection by the owner signals and stops it as usual. */
void gc_lock_bias_revoke(void) {
  __atomic_store_n(&gc_lock_bias.revoking, 1, __ATOMIC_RELAXED);
  /* Every running thread executes a full barrier: the owner's store to
     `active` becomes visible, and its next load of `revoking` sees 1. If
     the registration was lost (a forked child), register and retry. */
  if (syscall(SYS_membarrier, MEMBARRIER_PRIVATE_EXPEDITED, 0, 0) != 0 && !membarrier_ready())
    gc_abort("bibop: membarrier(2) failed while revoking the allocation lock's bias");
  for (unsigned spins = 0; __atomic_load_n(&gc_lock_bias_active, __ATOMIC_ACQUIRE); spins++) {
    if (spins < 100) {
      os_cpu_relax();
    } else {
      struct timespec pause = { 0, 20 * 1000 };
      nanosleep(&pause, NULL);
    }
  }
  __atomic_store_n(&gc_lock_bias.on, 0, __ATOMIC_RELAXED);
}

/* The owner saw `revoking`: it leaves the bias and takes the futex word. */
void gc_lock_bias_lost(void) {
  __atomic_store_n(&gc_lock_bias_active, 0, __ATOMIC_RELEASE);
  gc_lock_biased_here = false;
}

void gc_lock_reentered(void) {
  gc_abort("bibop: the allocation lock was taken again by the thread holding it "
           "(a collector call from a signal handler or from inside GC_call_with_alloc_lock?)");
}

/* In a forked child the forking thread is the only one: if it owns the
   bias, membarrier's registration (per process) is made again; if that
   fails, the bias ends here, which no other thread can see. */
void gc_lock_bias_after_fork(void) {
  if (!__atomic_load_n(&gc_lock_bias.on, __ATOMIC_RELAXED) || membarrier_ready()) return;
  __atomic_store_n(&gc_lock_bias.on, 0, __ATOMIC_RELAXED);
  if (gc_lock_biased_here && gc_lock_bias_active) {
    gc_lock_biased_here = false;
    gc_lock_bias_active = 0;
    __atomic_store_n(&gc.lock, LOCK_HELD, __ATOMIC_RELAXED);   /* held by this thread, now as a word */
  }
}

/* Release the lock after a collection the caller asked for. A thread that
   collects again at once (GC_gcollect in a loop) would take the lock back
   before the waiter its unlock woke gets to run, again and again: with two
   such threads, threads.cancel_in_syscall's other threads got the lock
   once per ~400 collections (0.15 s -> 28-94 s). So the lock is left free,
   yielding the CPU, until a waiter has it or LOCK_HANDOFF_NS have passed. */
#define LOCK_HANDOFF_NS (1000 * 1000ull)
void gc_unlock_to_waiter(void) {
  if (gc_lock_biased_here) {            /* no waiter sleeps on the word while the bias holds */
    gc_unlock();
    return;
  }
  if (__atomic_exchange_n(&gc.lock, LOCK_FREE, __ATOMIC_RELEASE) != LOCK_CONTENDED) return;
  gc_lock_wake();
  uint64_t until = os_now_ns() + LOCK_HANDOFF_NS;
  while (__atomic_load_n(&gc.lock, __ATOMIC_RELAXED) == LOCK_FREE && os_now_ns() < until) sched_yield();
}

/* Both keep errno: they run inside the lock and signal handlers, between a
   client's call and its errno check. */
void gc_futex_wait(uint32_t *word, uint32_t expected, uint64_t timeout_ns) {
  int saved_errno = errno;
  struct timespec timeout = { (time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u) };
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, timeout_ns ? &timeout : NULL, NULL, 0);
  errno = saved_errno;
}

void gc_futex_wake(uint32_t *word, int n) {
  int saved_errno = errno;
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
  errno = saved_errno;
}
