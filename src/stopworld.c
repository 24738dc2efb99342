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
 * epoch is closed; then it acknowledges the restart. Lost or late signals
 * are re-sent; a thread that neither answers nor exists ends the wait.
 * Handlers use only async-signal-safe calls (sem_post, sigsuspend).
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#define RETRY_WAIT_NS (20 * 1000 * 1000)   /* re-send signals after 20 ms */
#define GIVE_UP_RETRIES 3000               /* about a minute without an answer */

static int suspend_signal = SIGPWR;
static int restart_signal = SIGXCPU;
static sem_t ack_sem;
static unsigned long stop_epoch;        /* incremented at each stop */
static volatile unsigned long open_epoch; /* the epoch threads must wait in; 0 when running */
static sigset_t wait_mask;              /* everything blocked but the restart signal */

int stopworld_suspend_signal(void) { return suspend_signal; }
int stopworld_restart_signal(void) { return restart_signal; }

static void suspend_handler(int sig) {
  (void)sig;
  int saved_errno = errno;
  struct gc_thread *me = threads_self();
  unsigned long epoch = __atomic_load_n(&open_epoch, __ATOMIC_ACQUIRE);
  if (me && epoch != 0 && __atomic_load_n(&me->stop_ack, __ATOMIC_RELAXED) != epoch) {
    /* sigsuspend is a cancellation point: a pending pthread_cancel must not
       unwind this thread out of the handshake (it would never answer). */
    int cancel_state;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
    __builtin_unwind_init();
    char here;
    me->stack_ptr = &here;
    __atomic_store_n(&me->stop_ack, epoch, __ATOMIC_RELEASE);
    sem_post(&ack_sem);
    while (__atomic_load_n(&open_epoch, __ATOMIC_ACQUIRE) == epoch) sigsuspend(&wait_mask);
    __atomic_store_n(&me->resume_ack, epoch, __ATOMIC_RELEASE);
    sem_post(&ack_sem);
    __asm__ volatile("" : : "r"(&here) : "memory");
    pthread_setcancelstate(cancel_state, NULL);
  }
  errno = saved_errno;
}

static void restart_handler(int sig) { (void)sig; }

void stopworld_init(void) {
  if (sem_init(&ack_sem, 0, 0) != 0) gc_abort("bibop: sem_init failed");
  sigfillset(&wait_mask);
  sigdelset(&wait_mask, restart_signal);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_flags = SA_RESTART;
  sigfillset(&sa.sa_mask);   /* nothing interrupts the handshake */
  sa.sa_handler = suspend_handler;
  if (sigaction(suspend_signal, &sa, NULL) != 0) gc_abort("bibop: cannot install the suspend handler");
  sa.sa_handler = restart_handler;
  if (sigaction(restart_signal, &sa, NULL) != 0) gc_abort("bibop: cannot install the restart handler");
}

/* Wait until every stopped thread's field (stop_ack or resume_ack) holds
   the epoch, re-sending sig to the laggards. */
static void wait_for_acks(unsigned long epoch, bool resuming, int sig) {
  struct gc_thread *self = threads_self();
  for (unsigned retries = 0;; retries++) {
    bool all = true;
    for (struct gc_thread *t = gc.threads; t; t = t->next) {
      if (t == self || !t->stopped) continue;
      unsigned long ack = __atomic_load_n(resuming ? &t->resume_ack : &t->stop_ack, __ATOMIC_ACQUIRE);
      if (ack == epoch) continue;
      all = false;
      if (retries > 0 && pthread_kill(t->id, sig) == ESRCH) {
        t->stopped = false;       /* gone without unregistering: nothing to scan */
        t->vanished = true;
      }
    }
    if (all) return;
    if (retries >= GIVE_UP_RETRIES) gc_abort("bibop: a thread does not answer the stop-the-world signals");
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_nsec += RETRY_WAIT_NS;
    if (deadline.tv_nsec >= 1000000000) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000; }
    while (sem_timedwait(&ack_sem, &deadline) != 0 && errno == EINTR) {}
  }
}

void stopworld_stop(void) {
  struct gc_thread *self = threads_self();
  unsigned long epoch = ++stop_epoch;
  __atomic_store_n(&open_epoch, epoch, __ATOMIC_RELEASE);
  for (struct gc_thread *t = gc.threads; t; t = t->next) {
    t->stopped = false;
    if (t == self || t->blocking || t->vanished) continue;
    if (pthread_kill(t->id, suspend_signal) == 0) t->stopped = true;
    else t->vanished = true;
  }
  wait_for_acks(epoch, false, suspend_signal);
}

void stopworld_start(void) {
  unsigned long epoch = stop_epoch;
  __atomic_store_n(&open_epoch, 0, __ATOMIC_RELEASE);
  struct gc_thread *self = threads_self();
  for (struct gc_thread *t = gc.threads; t; t = t->next)
    if (t != self && t->stopped) pthread_kill(t->id, restart_signal);
  wait_for_acks(epoch, true, restart_signal);
  for (struct gc_thread *t = gc.threads; t; t = t->next) t->stopped = false;
}

GC_API void GC_set_suspend_signal(int sig) {
  if (!gc.initialized) suspend_signal = sig;
}
GC_API void GC_set_thr_restart_signal(int sig) {
  if (!gc.initialized) restart_signal = sig;
}
GC_API int GC_get_suspend_signal(void) { return suspend_signal; }
GC_API int GC_get_thr_restart_signal(void) { return restart_signal; }
