/*
 * stopworld.c: stopping and restarting the registered threads around
 * marking, with bdwgc's signal handshake (SIGPWR suspends, SIGXCPU restarts,
 * both changeable before GC_init).
 *
 * The collector, holding the allocation lock, opens a stop epoch and signals
 * every registered thread except itself and those in a blocking section.
 * Each thread's handler records its stack pointer — below the signal frame,
 * where the kernel saved the interrupted registers, so scanning from it
 * covers them — acknowledges the epoch, and waits in sigsuspend until the
 * epoch is closed; then it acknowledges the restart (the collector does
 * not wait for that: see settle_restart). Lost or late signals
 * are re-sent every 20 ms; a thread that no longer exists ends the wait; a
 * thread that has not answered for a minute (monotonic time) aborts.
 * Handlers use only async-signal-safe calls (sem_post, raw rt_sigsuspend).
 *
 * Cancellation: glibc's cancellation signal (SIGCANCEL, the first realtime
 * signal) can neither be blocked through sigprocmask nor named in a
 * sigset_t by the sigset functions, yet a thread cancelled while asleep in
 * a cancellable system call acts on it whatever it does next. If it arrived
 * inside the handler it would unwind the thread out of the handshake. So the
 * handler's mask, and the mask it waits with, set its bit directly (the
 * kernel's sigset layout: bit n-1 for signal n), and the wait is the raw
 * rt_sigsuspend system call, not glibc's cancellation point: a cancellation
 * is only delivered once the handler has returned.
 *
 * Volunteers: a thread with enough stack left offers, before it
 * acknowledges the stop, to mark in the coming phase (markers.c), marks if
 * given a place, then polls for the restart for a while before it sleeps.
 * While it polls, its `spinning` flag is set and the collector sends it no
 * restart signal: the flag is cleared, and the epoch read again, before the
 * thread sleeps, and the collector closes the epoch before it reads the
 * flag (both sequentially consistent), so one of them always sees the
 * other. Marking in the handler is safe because it takes no lock the
 * interrupted code can hold (only markers take pool_lock, and a volunteer's
 * stack never grows, so meta_alloc's lock is not taken) and calls no
 * cancellation point.
 *
 * Locked calls: a thread that has just left GC_call_with_alloc_lock or
 * GC_alloc_unlock answers its next stop only when it comes again: the
 * handler returns at once (stop_put_off), and the collector signals it
 * again REDELIVER_NS later. Its client may be in the few instructions
 * that make its state consistent again after the call (threads.c says
 * which client does that); the first signal of a stop that begins as the
 * lock is released, on a CPU the release handed to the collector, lands
 * exactly there. If the signal sent again finds the thread where the
 * first one did, it has not run since (preempted as the handler
 * returned, on a loaded machine), and the stop is put off again.
 *
 * Explicit suspension (GC_suspend_thread) uses the same handler: a thread
 * whose suspend_requested flag is set waits in it until GC_resume_thread
 * clears the flag, with its stack pointer recorded, so collections scan it
 * without signalling it.
 *
 * A finished record (an exited thread not yet joined, threads.c) is never
 * signalled: nothing runs there to answer.
 *
 * Parked threads: a registered thread asleep in the allocation lock
 * (state.c) has recorded its stack pointer and cannot leave the lock the
 * collector holds, so it is not signalled (parked_in_lock: scanned from
 * that pointer, never woken to stop or restart), unless too few running
 * threads were signalled to fill the volunteer places.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define RESEND_NS (20 * 1000 * 1000ull)        /* re-send signals after 20 ms */
#define GIVE_UP_NS (60 * 1000 * 1000 * 1000ull) /* abort after a minute without an answer */
#define CANCEL_SIGNAL 32                        /* glibc's SIGCANCEL (__SIGRTMIN) */
/* The collector polls the answers this long before sleeping on the
   semaphore: a sleep and wake-up of its own cost tens of microseconds per
   handshake, twice per collection (bench/mt_gcbench.c). */
#define ACK_SPIN_NS (100 * 1000ull)
/* A volunteer polls for the restart this long after marking (the rest of a
   collection's pause is typically 20-50 us) before it sleeps. */
#define RESTART_SPIN_NS (200 * 1000ull)
/* A thread that put off a stop is signalled again this long after: it
   needs only to run a few instructions of its own (threads.c). */
#define REDELIVER_NS (20 * 1000ull)
/* At most this many stops in a row are put off for finding the thread at
   the same place (a thread that spins on one instruction is stopped). */
#define PUT_OFF_SAME_PLACE_MAX 8
/* Stack a volunteer must have left below the handler's frame: marking uses
   a few KiB, client mark procedures some more. */
#define VOLUNTEER_STACK_ROOM ((size_t)128 << 10)

static int suspend_signal = SIGPWR;
static int restart_signal = SIGXCPU;
static sem_t ack_sem;
static unsigned long stop_epoch;        /* incremented at each stop */
static volatile unsigned long open_epoch; /* the epoch threads must wait in; 0 when running */
static sigset_t wait_mask;              /* everything blocked but the restart signal */
/* The last stop and restart, for GC_PRINT_STATS (allocation lock). */
static struct {
  unsigned signalled, parked, volunteers_polling, restart_late, put_off;
  uint64_t settle_ns, stop_begin_ns, stopped_ns, restart_begin_ns, restarted_ns;
  uint64_t stopped_cpu_ns, restart_cpu_ns;   /* the collecting thread's CPU time then */
} last;

static uint64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Add glibc's cancellation signal to a mask the kernel will use. */
static void mask_add_cancel(sigset_t *set) {
  unsigned long *words = (unsigned long *)set;
  words[(CANCEL_SIGNAL - 1) / (8 * sizeof *words)] |= 1ul << ((CANCEL_SIGNAL - 1) % (8 * sizeof *words));
}

/* Wait for a signal not in wait_mask, without being a cancellation point. */
static void wait_for_signal(void) { syscall(SYS_rt_sigsuspend, &wait_mask, _NSIG / 8); }

int stopworld_suspend_signal(void) { return suspend_signal; }
int stopworld_restart_signal(void) { return restart_signal; }

/* In the handler: wait until the stop epoch this thread acknowledged is
   closed (then acknowledge the restart) and no explicit suspension is
   requested, in either order. A thread both stopped and explicitly
   suspended (it signalled itself as a collection began, and the two
   signals merged) answers the restart at once and stays suspended. */
static void wait_in_handler(struct gc_thread *me, unsigned long epoch) {
  for (;;) {
    if (epoch != 0 && __atomic_load_n(&open_epoch, __ATOMIC_ACQUIRE) != epoch) {
      __atomic_store_n(&me->resume_ack, epoch, __ATOMIC_RELEASE);
      sem_post(&ack_sem);
      epoch = 0;
    }
    if (epoch == 0 && !__atomic_load_n(&me->suspend_requested, __ATOMIC_ACQUIRE)) return;
    wait_for_signal();
  }
}

/* Only on the stack the system gave the thread, and only when the thread's
   stack bottom lies in it too: a coroutine's stack (GC_set_stackbottom)
   may be small, and end in a guard page. */
static bool may_volunteer(const struct gc_thread *me, const char *sp) {
  const char *base = threads_stack_base(me);
  return me->stack_limit && me->stack_limit < sp && sp < base && base <= me->system_stack_hi &&
         (size_t)(sp - me->stack_limit) > VOLUNTEER_STACK_ROOM &&
         !__atomic_load_n(&me->suspend_requested, __ATOMIC_ACQUIRE);
}

/* After marking: poll for the end of stop epoch `epoch` for a while, with
   `spinning` set so that the collector does not signal (see the top). */
static void poll_for_restart(struct gc_thread *me, unsigned long epoch) {
  __atomic_store_n(&me->spinning, true, __ATOMIC_SEQ_CST);
  uint64_t until = os_now_ns() + RESTART_SPIN_NS;
  while (__atomic_load_n(&open_epoch, __ATOMIC_SEQ_CST) == epoch && os_now_ns() < until)
    os_cpu_relax();
  __atomic_store_n(&me->spinning, false, __ATOMIC_SEQ_CST);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);   /* wait_in_handler reads the epoch again */
}

/* Where the signal interrupted the thread; 0 if this platform's context
   is not known here. */
static uintptr_t interrupted_pc(const void *context) {
  const ucontext_t *uc = context;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
#else
  (void)uc;
  return 0;
#endif
}

/* The put-off stops of this thread (see the top): where the last one found
   it, and how many in a row found it there. */
static __thread uintptr_t put_off_pc __attribute__((tls_model("initial-exec")));
static __thread unsigned put_off_here __attribute__((tls_model("initial-exec")));

/* Whether this stop is put off: the thread has just left a locked call,
   or a stop put off before finds it where it was then (preempted as the
   handler returned, it has not run since). */
static bool put_off_stop(const void *context) {
  uintptr_t pc = interrupted_pc(context);
  bool again = pc != 0 && pc == put_off_pc && put_off_here < PUT_OFF_SAME_PLACE_MAX;
  if (!gc_left_locked_call && !again) {
    put_off_pc = 0;
    put_off_here = 0;
    return false;
  }
  gc_left_locked_call = false;
  put_off_here = again ? put_off_here + 1 : 1;
  put_off_pc = pc;
  return true;
}

static void suspend_handler(int sig, siginfo_t *info, void *context) {
  (void)sig, (void)info;
  int saved_errno = errno;
  struct gc_thread *me = threads_self();
  unsigned long epoch = __atomic_load_n(&open_epoch, __ATOMIC_ACQUIRE);
  if (epoch != 0 && me && __atomic_load_n(&me->stop_ack, __ATOMIC_RELAXED) == epoch) epoch = 0;
  if (epoch != 0 && me && !__atomic_load_n(&me->suspend_requested, __ATOMIC_ACQUIRE) &&
      put_off_stop(context)) {
    __atomic_store_n(&me->stop_put_off, true, __ATOMIC_RELEASE);
    sem_post(&ack_sem);
    errno = saved_errno;
    return;
  }
  if (me && (epoch != 0 || __atomic_load_n(&me->suspend_requested, __ATOMIC_ACQUIRE))) {
    __builtin_unwind_init();
    char here;
    me->stack_ptr = &here;
    unsigned long generation = 0;
    bool volunteer = false;
    if (epoch != 0) {
      volunteer = may_volunteer(me, &here) && markers_volunteer_offer(&generation);
      __atomic_store_n(&me->stop_ack, epoch, __ATOMIC_RELEASE);
      sem_post(&ack_sem);
    }
    if (volunteer) {
      markers_volunteer_mark(generation, &open_epoch, epoch);
      poll_for_restart(me, epoch);
    }
    if (__atomic_load_n(&me->suspend_requested, __ATOMIC_ACQUIRE))
      __atomic_store_n(&me->suspended, true, __ATOMIC_RELEASE);
    wait_in_handler(me, epoch);
    __atomic_store_n(&me->suspended, false, __ATOMIC_RELEASE);
    __asm__ volatile("" : : "r"(&here) : "memory");
  }
  errno = saved_errno;
}

static void restart_handler(int sig) { (void)sig; }

void stopworld_init(void) {
  if (sem_init(&ack_sem, 0, 0) != 0) gc_abort("bibop: sem_init failed");
  sigfillset(&wait_mask);
  sigdelset(&wait_mask, restart_signal);
  mask_add_cancel(&wait_mask);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sigfillset(&sa.sa_mask);   /* nothing interrupts the handshake, not even a cancellation */
  mask_add_cancel(&sa.sa_mask);
  sa.sa_sigaction = suspend_handler;   /* with the interrupted context (put_off_stop) */
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  if (sigaction(suspend_signal, &sa, NULL) != 0) gc_abort("bibop: cannot install the suspend handler");
  sa.sa_flags = SA_RESTART;
  sa.sa_handler = restart_handler;
  if (sigaction(restart_signal, &sa, NULL) != 0) gc_abort("bibop: cannot install the restart handler");
  sigfillset(&gc_lock_sleep_mask);   /* a thread parked in the lock takes only ours */
  sigdelset(&gc_lock_sleep_mask, suspend_signal);
  sigdelset(&gc_lock_sleep_mask, restart_signal);
}

/* A thread that put off the stop (left a locked call) gets the signal again
   REDELIVER_NS after the collector first sees that: true when that time
   has come; otherwise *earliest is brought forward to it. */
static bool redeliver_due(struct gc_thread *t, uint64_t now, uint64_t *earliest) {
  if (!__atomic_load_n(&t->stop_put_off, __ATOMIC_ACQUIRE)) return false;
  if (!t->redeliver_at) t->redeliver_at = now + REDELIVER_NS;
  if (now < t->redeliver_at) {
    if (t->redeliver_at < *earliest) *earliest = t->redeliver_at;
    return false;
  }
  t->redeliver_at = 0;
  __atomic_store_n(&t->stop_put_off, false, __ATOMIC_RELAXED);
  last.put_off++;
  return true;
}

/* Wait until every stopped thread's field (stop_ack or resume_ack) holds
   the epoch, re-sending sig to the laggards every RESEND_NS. Deadlines are
   in monotonic time, so spurious semaphore posts cannot hasten the abort. */
static void wait_for_acks(unsigned long epoch, bool resuming, int sig) {
  struct gc_thread *self = threads_self();
  uint64_t start = os_now_ns(), next_resend = start + RESEND_NS;
  uint64_t spin_until = start + ACK_SPIN_NS;
  for (;;) {
    uint64_t now = os_now_ns(), redeliver_at = UINT64_MAX;
    bool all = true, resend = now >= next_resend;
    for (struct gc_thread *t = gc.threads; t; t = t->next) {
      if (t == self || !t->stopped) continue;
      unsigned long ack = __atomic_load_n(resuming ? &t->resume_ack : &t->stop_ack, __ATOMIC_ACQUIRE);
      if (ack == epoch) continue;
      if (!resuming && redeliver_due(t, now, &redeliver_at) && pthread_kill(t->id, sig) == ESRCH) {
        t->stopped = false;
        t->vanished = true;
        continue;
      }
      if (!resuming && __atomic_load_n(&t->suspended, __ATOMIC_ACQUIRE)) {
        /* It parked itself in explicit suspension just as the stop began
           (it read no open epoch): its stack pointer is recorded and it
           cannot leave before GC_resume_thread, which needs the lock. Not
           ours to restart; our signal stays pending until it leaves. */
        t->stopped = false;
        continue;
      }
      all = false;
      if (resend && pthread_kill(t->id, sig) == ESRCH) {
        t->stopped = false;       /* gone without unregistering: nothing to scan */
        t->vanished = true;
      }
    }
    if (all) return;
    now = os_now_ns();
    if (now - start >= GIVE_UP_NS) gc_abort("bibop: a thread does not answer the stop-the-world signals");
    if (resend) next_resend = now + RESEND_NS;
    if (now < spin_until) {   /* answers usually come within microseconds */
      sched_yield();          /* and a thread that must answer may want this CPU */
      continue;
    }
    uint64_t wake_at = redeliver_at < next_resend ? redeliver_at : next_resend;
    struct timespec deadline = {(time_t)(wake_at / 1000000000u), (long)(wake_at % 1000000000u)};
    while (sem_clockwait(&ack_sem, CLOCK_MONOTONIC, &deadline) != 0 && errno == EINTR) {}
  }
}

/* The restart does not wait for the restarted threads to leave the
   handler: with more threads than CPUs each must first be scheduled, and
   the collector, which holds the allocation lock, waited for all of them
   (guile-parmap, 8 threads on 2 CPUs: up to 8 ms per collection on a
   loaded machine, 25-58 ms a run). They are waited for when it matters:
   before the next stop, or an explicit suspension, signals anyone, so that
   no thread is ever asked to stop while it still waits in the previous
   stop's handler. By then they have normally long left it. Until then
   `stopped` still marks the threads that owe the acknowledgement. */
static unsigned long restart_owed;   /* the epoch whose restart is not yet acknowledged, or 0 */

static void settle_restart(void) {
  if (!restart_owed) return;
  last.restart_late = 0;
  for (struct gc_thread *t = gc.threads; t; t = t->next)
    last.restart_late += t->stopped && __atomic_load_n(&t->resume_ack, __ATOMIC_ACQUIRE) != restart_owed;
  uint64_t t0 = os_now_ns();
  wait_for_acks(restart_owed, true, restart_signal);
  for (struct gc_thread *t = gc.threads; t; t = t->next) t->stopped = false;
  restart_owed = 0;
  last.settle_ns = os_now_ns() - t0;
}

/* Under the lock: send sig to t until its `suspended` flag reads `want`,
   re-sending like wait_for_acks. A thread that has gone ends the wait. */
static void signal_until_suspended_is(struct gc_thread *t, int sig, bool want, const char *who) {
  uint64_t start = os_now_ns(), resent = start;
  if (pthread_kill(t->id, sig) != 0) return;
  while (__atomic_load_n(&t->suspended, __ATOMIC_ACQUIRE) != want) {
    struct timespec pause = {0, 100 * 1000};
    nanosleep(&pause, NULL);
    uint64_t now = os_now_ns();
    if (now - resent >= RESEND_NS) {
      if (pthread_kill(t->id, sig) != 0) return;
      resent = now;
    }
    if (now - start >= GIVE_UP_NS) gc_abort(who);
  }
}

/* t's suspend_requested is set: wait until it waits in the handler. */
void stopworld_suspend_one(struct gc_thread *t) {
  settle_restart();
  signal_until_suspended_is(t, suspend_signal, true,
                            "bibop: GC_suspend_thread: the thread does not answer the suspend signal");
}

/* t's suspension has been withdrawn: wait until it has left the handler,
   so that no collection (which needs the lock) starts while t is still
   marked suspended yet running. */
void stopworld_resume_one(struct gc_thread *t) {
  settle_restart();
  signal_until_suspended_is(t, restart_signal, false,
                            "bibop: GC_resume_thread: the thread does not answer the restart signal");
}

/* Posts left from an earlier handshake (a late answer to a re-sent
   signal) must not count in this one. */
static void drain_acks(void) {
  while (sem_trywait(&ack_sem) == 0) {}
}

static void signal_to_stop(struct gc_thread *t) {
  /* From an earlier stop, answered by a signal re-sent for another reason. */
  __atomic_store_n(&t->stop_put_off, false, __ATOMIC_RELAXED);
  t->redeliver_at = 0;
  if (pthread_kill(t->id, suspend_signal) == 0) t->stopped = true;
  else t->vanished = true;
}

void stopworld_stop(void) {
  last.stop_begin_ns = os_now_ns();
  settle_restart();
  struct gc_thread *self = threads_self();
  unsigned long epoch = ++stop_epoch;
  last.put_off = 0;
  drain_acks();
  __atomic_store_n(&open_epoch, epoch, __ATOMIC_RELEASE);
  int signalled = 0;
  for (struct gc_thread *t = gc.threads; t; t = t->next) {
    t->stopped = false;
    t->parked_in_lock = false;
    if (t == self || t->blocking || t->vanished || t->finished ||
        __atomic_load_n(&t->suspended, __ATOMIC_ACQUIRE))
      continue;
    if (__atomic_load_n(&t->parking.parked, __ATOMIC_ACQUIRE)) {
      t->parked_in_lock = true;   /* asleep in the lock we hold: it stays put */
      continue;
    }
    signal_to_stop(t);
    signalled++;
  }
  /* Too few threads running to fill the volunteer places: wake parked ones
     with the signal, now, rather than helpers when the phase opens (later,
     and too late for a small heap's marking). */
  int places = markers_volunteer_places();
  for (struct gc_thread *t = gc.threads; t; t = t->next) {
    if (!t->parked_in_lock) continue;
    if (signalled < places) {
      t->parked_in_lock = false;
      signal_to_stop(t);
      signalled++;
    } else {
      t->stack_ptr = t->parking.sp;   /* scanned from where it went to sleep */
    }
  }
  int parked = 0;
  for (struct gc_thread *t = gc.threads; t; t = t->next) parked += t->parked_in_lock;
  wait_for_acks(epoch, false, suspend_signal);
  last.signalled = (unsigned)signalled;
  last.parked = (unsigned)parked;
  last.stopped_ns = os_now_ns();
  if (gc.print_stats) last.stopped_cpu_ns = thread_cpu_ns();
}

void stopworld_start(void) {
  last.restart_begin_ns = os_now_ns();
  if (gc.print_stats) last.restart_cpu_ns = thread_cpu_ns();
  unsigned long epoch = stop_epoch;
  __atomic_store_n(&open_epoch, 0, __ATOMIC_SEQ_CST);
  markers_stop_closed();
  struct gc_thread *self = threads_self();
  unsigned polling = 0;
  for (struct gc_thread *t = gc.threads; t; t = t->next) {
    if (t == self || !t->stopped) continue;
    if (!__atomic_load_n(&t->spinning, __ATOMIC_SEQ_CST)) pthread_kill(t->id, restart_signal);
    else polling++;
  }
  restart_owed = epoch;
  for (struct gc_thread *t = gc.threads; t; t = t->next) t->parked_in_lock = false;
  last.volunteers_polling = polling;
  last.restarted_ns = os_now_ns();
}

void stopworld_print_stats(FILE *out) {
  fprintf(out,
          "bibop: world: stop %.3f ms (%u signalled, %u parked in the lock, %u put off), stopped %.3f ms "
          "(collecting thread's CPU %.3f ms), "
          "restart %.3f ms (%u still polling); at this stop %u had not left the last, waited %.3f ms\n",
          (last.stopped_ns - last.stop_begin_ns) / 1e6, last.signalled, last.parked, last.put_off,
          (last.restart_begin_ns - last.stopped_ns) / 1e6,
          (last.restart_cpu_ns - last.stopped_cpu_ns) / 1e6,
          (last.restarted_ns - last.restart_begin_ns) / 1e6, last.volunteers_polling, last.restart_late,
          last.settle_ns / 1e6);
}

GC_API void GC_set_suspend_signal(int sig) {
  if (!gc.initialized) suspend_signal = sig;
}
GC_API void GC_set_thr_restart_signal(int sig) {
  if (!gc.initialized) restart_signal = sig;
}
GC_API int GC_get_suspend_signal(void) { return suspend_signal; }
GC_API int GC_get_thr_restart_signal(void) { return restart_signal; }

/* ---- world stopping for clients --------------------------------------------- */

GC_API void GC_stop_world_external(void) {
  gc_ensure_init();
  LOCK();
  stopworld_stop();
}

GC_API void GC_start_world_external(void) {
  stopworld_start();
  UNLOCK();
}
