/*
 * threads.c: the registry of threads the collector knows, and bdwgc's
 * thread interface — registration, GC_pthread_* wrappers, blocking sections,
 * fork handlers.
 *
 * A registered thread has a record (its stack base, and while it is stopped
 * or blocking, the lowest live address of its stack) and its own allocation
 * cache. The thread that calls GC_init is registered; threads started with
 * GC_pthread_create (or pthread_create under GC_THREADS) register themselves
 * before running their start routine; any other thread may call
 * GC_register_my_thread. A pthread key destructor unregisters a thread that
 * exits without doing so, so no stale stack range is left behind; a
 * joinable thread started by GC_pthread_create leaves a *finished* record
 * (no stack, never signalled) until it is joined or detached, so that
 * GC_suspend_thread still finds it, as in bdwgc.
 * Stack bottoms move with coroutines: the main thread's is GC_stackbottom,
 * read at each use; GC_set_stackbottom moves any thread's.
 * Unregistered threads may allocate (through the shared cache, under the
 * lock) but their stacks are not scanned, as in bdwgc.
 * A joinable thread's result (start routine's return or GC_pthread_exit's
 * argument) is held in an uncollectable box from its exit until
 * GC_pthread_join or GC_pthread_detach, since glibc keeps it where the
 * collector does not look.
 * Invariant: the registry and each record's blocking state change only under
 * the allocation lock, so a collection sees a stable set of threads.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <gc/javaxfc.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static __thread struct gc_thread *tl_thread __attribute__((tls_model("initial-exec")));
static pthread_key_t exit_key;
static int handle_fork = 1;
static struct thread_hooks hooks;   /* set once, by initialisation (init.c) */

void threads_set_hooks(const struct thread_hooks *h) { hooks = *h; }       /* GC_set_handle_fork: 1 auto, -1 auto if possible, 0 manual */
/* Our pthread_atfork handlers are installed: GC_atfork_* must do nothing,
   or a client's GC_atfork_prepare would hold the (non-recursive) lock that
   the handler then takes inside fork(). */
static bool fork_handled_automatically;

struct gc_thread *threads_self(void) { return tl_thread; }

static bool is_main_thread(void) { return syscall(SYS_gettid) == getpid(); }

/* The stack the system gave the calling thread (not the main thread's):
   [*lo, *hi). */
static bool own_thread_stack(char **lo, char **hi) {
  pthread_attr_t attr;
  void *addr;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
  int r = pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  if (r != 0) return false;
  *lo = addr;
  *hi = *lo + size;
  return true;
}

/* The whole stack the system gave the calling thread, [*lo, *hi): for the
   main thread, as far down as its rlimit lets it grow. A volunteer marker
   needs room below its handler on that stack (stopworld.c). */
static bool system_stack(char **lo, char **hi) {
  if (!is_main_thread()) return own_thread_stack(lo, hi);
  struct rlimit rl;
  *hi = os_main_stack_base();
  if (!*hi || getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
      rl.rlim_cur >= (rlim_t)(uintptr_t)*hi)
    return false;
  *lo = *hi - rl.rlim_cur;
  return true;
}

/* The highest address of the calling thread's stack, as the system (or,
   for the main thread, GC_stackbottom) says, whatever its record holds. */
static char *unrecorded_stack_base(void) {
  if (is_main_thread()) return GC_stackbottom ? GC_stackbottom : os_main_stack_base();
  char *lo, *hi;
  return own_thread_stack(&lo, &hi) ? hi : NULL;
}

/* ---- stack bottoms ------------------------------------------------------------ */

/* A coroutine runtime moves a thread's stack bottom each time it switches
   stacks: with GC_set_stackbottom, or, for the main thread, by writing
   GC_stackbottom, which bdwgc takes as the main thread's bottom whenever it
   scans it. So the primordial thread's base is GC_stackbottom, read anew
   at every use; other threads' is their record's. Neither is written under
   the lock (GC_set_stackbottom's caller holds it; a program writing
   GC_stackbottom does so as it likes), so both are read and written whole. */
char *threads_stack_base(const struct gc_thread *t) {
  if (t->primordial) {
    char *bottom = __atomic_load_n(&GC_stackbottom, __ATOMIC_RELAXED);
    if (bottom) return bottom;
  }
  return __atomic_load_n(&t->stack_base, __ATOMIC_RELAXED);
}

void threads_set_stack_base(struct gc_thread *t, char *base) {
  if (t->primordial) __atomic_store_n(&GC_stackbottom, base, __ATOMIC_RELAXED);
  __atomic_store_n(&t->stack_base, base, __ATOMIC_RELAXED);
}

/* Where scanning the calling thread's stack ends. */
char *threads_own_stack_base(void) {
  return tl_thread ? threads_stack_base(tl_thread) : unrecorded_stack_base();
}

/* Under the lock. */
static void drop_result_locked(pthread_t id);

static void drop_finished_locked(pthread_t id);

static struct gc_thread *register_locked(char *stack_base) {
  struct gc_thread *t = meta_alloc(sizeof *t);
  if (!t) return NULL;
  t->id = pthread_self();
  /* An earlier thread with this id was joined or detached without our
     wrappers seeing it: its kept result and its record are garbage now. */
  drop_result_locked(t->id);
  drop_finished_locked(t->id);
  t->primordial = is_main_thread();
  threads_set_stack_base(t, stack_base);
  if (!system_stack(&t->stack_limit, &t->system_stack_hi)) t->stack_limit = t->system_stack_hi = NULL;
  t->cache = alloc_thread_attach();
  t->next = gc.threads;
  gc.threads = t;
  gc.thread_count++;
  tl_thread = t;
  gc_lock_parking = &t->parking;
  pthread_setspecific(exit_key, t);
  return t;
}

/* Under the lock: t's thread no longer runs as a registered thread (its
   cache's unused slots go back); t is not freed. */
static void retire_locked(struct gc_thread *t) {
  gc.thread_count--;
  if (t->cache) alloc_cache_release(t->cache);
  t->cache = NULL;
  t->stack_ptr = NULL;
  if (t == tl_thread) {
    if (hooks.thread_exit) hooks.thread_exit();
    tl_thread = NULL;
    gc_lock_parking = NULL;
    pthread_setspecific(exit_key, NULL);
  }
}

/* Under the lock: forget record t. */
static void forget_locked(struct gc_thread *t) {
  for (struct gc_thread **link = &gc.threads; *link; link = &(*link)->next) {
    if (*link == t) {
      *link = t->next;
      break;
    }
  }
  if (!t->finished) retire_locked(t);
  meta_free(t, sizeof *t);
}

static bool self_is_detached(void);

/* Under the lock, by the thread itself as it exits or unregisters. As in
   bdwgc, a joinable thread started by GC_pthread_create leaves its record
   behind, finished, until GC_pthread_join or GC_pthread_detach:
   GC_suspend_thread and GC_is_thread_suspended still find it. A finished
   record is never signalled and its stack never scanned. */
static void leave_registry_locked(struct gc_thread *me) {
  if (!me->outlives_exit || self_is_detached()) {
    forget_locked(me);
    return;
  }
  retire_locked(me);
  me->finished = true;
}

/* Under the lock: a finished thread was joined or detached. */
static void drop_finished_locked(pthread_t id) {
  for (struct gc_thread *t = gc.threads; t; t = t->next) {
    if (t->finished && pthread_equal(t->id, id)) {
      forget_locked(t);
      return;
    }
  }
}

/* A thread acting on pthread_cancel may unwind from inside glibc's
   cancellation signal handler, with every signal still blocked; it must
   answer the stop-the-world handshake while it waits for the lock. */
static void allow_stop_signals(void) {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, stopworld_suspend_signal());
  sigaddset(&s, stopworld_restart_signal());
  pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

static void unregister_at_exit(void *record) {
  allow_stop_signals();
  LOCK();
  if (record == tl_thread) leave_registry_locked(record);
  UNLOCK();
}

static void fork_prepare(void) {
  LOCK();
  if (hooks.fork_prepare) hooks.fork_prepare();
}
static void fork_parent(void) {
  if (hooks.fork_parent) hooks.fork_parent();
  UNLOCK();
}

/* In the child only the forking thread exists: forget the others. */
static void fork_child(void) {
  struct gc_thread *t = gc.threads;
  while (t) {
    struct gc_thread *next = t->next;
    if (t != tl_thread) forget_locked(t);
    t = next;
  }
  if (tl_thread) tl_thread->id = pthread_self();
  gc_lock_bias_after_fork();
  markers_after_fork();
  if (hooks.fork_child) hooks.fork_child();
  UNLOCK();
}

/* Called once by the collector's initialisation, under the lock. As in
   bdwgc, GC_set_handle_fork(-1) asks for the handlers too, but only
   GC_set_handle_fork(0) or a failed pthread_atfork leaves fork to the
   client's GC_atfork_* calls. */
void threads_init(void) {
  if (pthread_key_create(&exit_key, unregister_at_exit) != 0)
    gc_abort("bibop: cannot create the thread-exit key");
  stopworld_init();
  if (handle_fork != 0) {
    fork_handled_automatically = pthread_atfork(fork_prepare, fork_parent, fork_child) == 0;
    if (!fork_handled_automatically && handle_fork > 0)
      gc_warn("GC Warning: bibop could not install its fork handlers\n", 0);
  }
  if (!GC_stackbottom) GC_stackbottom = os_main_stack_base();
  if (!register_locked(unrecorded_stack_base()))
    gc_abort("bibop: cannot register the initial thread");
}

/* ---- registration ------------------------------------------------------------ */

GC_API void GC_allow_register_threads(void) { gc_ensure_init(); }

GC_API int GC_register_my_thread(const struct GC_stack_base *sb) {
  gc_ensure_init();
  if (!sb || !sb->mem_base) return GC_UNIMPLEMENTED;
  LOCK();
  int result = GC_DUPLICATE;
  if (!tl_thread) result = register_locked(sb->mem_base) ? GC_SUCCESS : GC_NO_MEMORY;
  UNLOCK();
  return result;
}

GC_API int GC_unregister_my_thread(void) {
  LOCK();
  if (tl_thread) leave_registry_locked(tl_thread);
  UNLOCK();
  return GC_SUCCESS;
}

GC_API int GC_thread_is_registered(void) { return tl_thread != NULL; }

GC_API int GC_get_stack_base(struct GC_stack_base *sb) {
  char *base = unrecorded_stack_base();
  if (!base || !sb) return GC_UNIMPLEMENTED;
  sb->mem_base = base;
  return GC_SUCCESS;
}

GC_API void *GC_call_with_stack_base(GC_stack_base_func fn, void *arg) {
  if (!fn) return NULL;
  struct GC_stack_base sb;
  sb.mem_base = __builtin_frame_address(0);
  return fn(&sb, arg);
}

GC_API void GC_set_handle_fork(int value) { handle_fork = value; }

/* gc.h: the client's calls around fork() do the work only when our
   handlers do not. */
GC_API void GC_atfork_prepare(void) {
  gc_ensure_init();
  if (!fork_handled_automatically) fork_prepare();
}
GC_API void GC_atfork_parent(void) {
  if (!fork_handled_automatically) fork_parent();
}
GC_API void GC_atfork_child(void) {
  if (!fork_handled_automatically) fork_child();
}

/* ---- blocking sections ------------------------------------------------------- */

/* While fn runs the thread is not stopped for collections; its stack above
   this frame (registers spilled into it first) is scanned instead. fn must
   not touch the collected heap. */
/* What GC_do_blocking restores when fn returns or its thread is cancelled
   inside it (fn may wait in a cancellation point, as GC_pthread_join
   does): cleanup handlers, which may allocate, then run outside the
   section. */
struct blocking_section {
  struct gc_thread *me;
  bool was_blocking;
  char *was_sp;
};

static void leave_blocking(void *arg) {
  struct blocking_section *section = arg;
  LOCK();
  section->me->blocking = section->was_blocking;
  section->me->stack_ptr = section->was_sp;
  UNLOCK();
}

/* Out of line: the lock's inlined paths beside pthread_cleanup_push's
   setjmp made -Wclobbered warn. */
static __attribute__((noinline)) void enter_blocking(struct blocking_section *section,
                                                     struct gc_thread *me, char *sp) {
  LOCK();
  *section = (struct blocking_section){ me, me->blocking, me->stack_ptr };
  me->stack_ptr = sp;
  me->blocking = true;
  UNLOCK();
}

static __attribute__((noinline)) bool suspend_requested_after(const struct blocking_section *section) {
  LOCK();
  bool suspend_now = section->me->suspend_requested && !section->was_blocking;
  UNLOCK();
  return suspend_now;
}

GC_API void *GC_do_blocking(GC_fn_type fn, void *client_data) {
  struct gc_thread *me = tl_thread;
  if (!fn) return NULL;
  if (!me) return fn(client_data);
  jmp_buf regs;
  __builtin_unwind_init();
  setjmp(regs);
  struct blocking_section section;
  enter_blocking(&section, me, (char *)&regs);
  void *result;
  pthread_cleanup_push(leave_blocking, &section);
  result = fn(client_data);
  pthread_cleanup_pop(1);
  bool suspend_now = suspend_requested_after(&section);
  /* Suspended while blocking: stop now, before touching the heap. */
  if (suspend_now) pthread_kill(pthread_self(), stopworld_suspend_signal());
  __asm__ volatile("" : : "r"(&regs) : "memory");
  return result;
}

/* Inside a blocking section: run fn as an ordinary (stoppable) thread. Its
   whole stack is then scanned from wherever it is stopped. */
GC_API void *GC_call_with_gc_active(GC_fn_type fn, void *client_data) {
  struct gc_thread *me = tl_thread;
  if (!fn) return NULL;
  if (!me || !me->blocking) return fn(client_data);
  LOCK();
  char *blocked_sp = me->stack_ptr;
  me->blocking = false;
  UNLOCK();
  void *result = fn(client_data);
  LOCK();
  me->blocking = true;
  me->stack_ptr = blocked_sp;
  UNLOCK();
  return result;
}

/* A client may leave its own state consistent only just after the lock is
   released: Guile 3.0.8 moves a thread's VM stack inside
   GC_call_with_alloc_lock and sets the stack pointer after it returns, and
   its mark procedure reads that pointer. The release wakes a thread that
   waits to collect, which often runs at once on this CPU; the stop signal
   then lands in those few instructions. So the thread's next stop is put
   off (stopworld.c) until the thread has run past them. */
static void leaving_locked_call(void) { gc_left_locked_call = true; }

GC_API void *GC_call_with_alloc_lock(GC_fn_type fn, void *client_data) {
  if (!fn) return NULL;
  gc_ensure_init();
  LOCK();
  void *result = fn(client_data);
  leaving_locked_call();
  UNLOCK();
  return result;
}

/* gc.h makes these macros for clients without GC_THREADS; the library
   exports them as functions all the same. */
#undef GC_alloc_lock
#undef GC_alloc_unlock
GC_API void GC_alloc_lock(void) { LOCK(); }
GC_API void GC_alloc_unlock(void) {
  leaving_locked_call();
  UNLOCK();
}

/* ---- pthread wrappers ------------------------------------------------------------ */

struct start_info {
  void *(*start)(void *);
  void *arg;
};

static void unregister_self(void *unused) {
  (void)unused;
  allow_stop_signals();
  LOCK();
  if (tl_thread) leave_registry_locked(tl_thread);
  UNLOCK();
}

/* ---- results of exited joinable threads -------------------------------------- */

/* An uncollectable box per exited, not yet joined thread; the list is
   changed under the allocation lock. */
struct kept_result {
  pthread_t id;
  void *result;
  struct kept_result *next;
};
static struct kept_result *kept_results;
static struct kept_result *dropped_results;   /* to GC_free outside the lock */

static bool self_is_detached(void) {
  pthread_attr_t attr;
  int state = PTHREAD_CREATE_JOINABLE;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getdetachstate(&attr, &state);
    pthread_attr_destroy(&attr);
  }
  return state == PTHREAD_CREATE_DETACHED;
}

/* Called by an exiting thread with its result. */
static void keep_result(void *result) {
  if (!result) return;
  struct kept_result *k = GC_malloc_uncollectable(sizeof *k);
  if (!k) return;
  k->id = pthread_self();
  k->result = result;
  LOCK();
  /* Under the lock, so GC_pthread_detach cannot slip between the check
     and the insertion. */
  bool detached = self_is_detached();
  if (!detached) {
    k->next = kept_results;
    kept_results = k;
  }
  UNLOCK();
  if (detached) GC_free(k);
}

static void drop_result_locked(pthread_t id) {
  for (struct kept_result **link = &kept_results; *link; link = &(*link)->next) {
    if (pthread_equal((*link)->id, id)) {
      struct kept_result *k = *link;
      *link = k->next;
      k->result = NULL;
      k->next = dropped_results;
      dropped_results = k;
      return;
    }
  }
}

/* Boxes dropped under the lock are freed outside it (GC_free locks). */
static void free_dropped_results(void) {
  LOCK();
  struct kept_result *k = dropped_results;
  dropped_results = NULL;
  UNLOCK();
  while (k) {
    struct kept_result *next = k->next;
    GC_free(k);
    k = next;
  }
}

/* The thread unregisters as soon as its start routine returns, exits or is
   cancelled (cleanup handlers run before key destructors). */
static void *start_registered(void *p) {
  struct start_info *si = p;
  void *(*start)(void *) = si->start;
  void *arg = si->arg;
  LOCK();
  if (!tl_thread && register_locked(unrecorded_stack_base())) tl_thread->outlives_exit = true;
  UNLOCK();
  GC_free(si);
  void *result;
  pthread_cleanup_push(unregister_self, NULL);
  result = start(arg);
  keep_result(result);
  pthread_cleanup_pop(1);
  return result;
}

GC_API int GC_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                             void *(*start)(void *), void *arg) {
  gc_ensure_init();
  /* Uncollectable: it keeps arg alive until the new thread is registered. */
  struct start_info *si = GC_malloc_uncollectable(sizeof *si);
  if (!si) return EAGAIN;
  si->start = start;
  si->arg = arg;
  int r = pthread_create(thread, attr, start_registered, si);
  if (r != 0) GC_free(si);
  return r;
}

/* A thread waiting in GC_pthread_join touches no heap: it waits in a
   blocking section, so collections neither signal nor wake it (on a VM,
   waking an idle CPU twice per collection costs tens of microseconds). */
struct join_call {
  pthread_t thread;
  void **retval;
  int result;
};

static void *join_blocking(void *arg) {
  struct join_call *call = arg;
  call->result = pthread_join(call->thread, call->retval);
  return NULL;
}

GC_API int GC_pthread_join(pthread_t thread, void **retval) {
  struct join_call call = { .thread = thread, .retval = retval };
  GC_do_blocking(join_blocking, &call);
  int r = call.result;
  if (r == 0) {
    LOCK();
    drop_result_locked(thread);
    drop_finished_locked(thread);
    UNLOCK();
    free_dropped_results();
  }
  return r;
}

GC_API int GC_pthread_detach(pthread_t thread) {
  gc_ensure_init();
  LOCK();
  int r = pthread_detach(thread);
  if (r == 0) {
    drop_result_locked(thread);
    drop_finished_locked(thread);
  }
  UNLOCK();
  free_dropped_results();
  return r;
}

GC_API int GC_pthread_cancel(pthread_t thread) { return pthread_cancel(thread); }

GC_API void GC_pthread_exit(void *retval) {
  if (tl_thread) keep_result(retval);
  pthread_exit(retval);
}

/* ---- explicit suspension (javaxfc.h) --------------------------------------------- */

static struct gc_thread *find_locked(pthread_t id) {
  for (struct gc_thread *t = gc.threads; t; t = t->next)
    if (pthread_equal(t->id, id) && !t->vanished) return t;
  return NULL;
}

/* A thread in a blocking section is suspended when it leaves it; the
   calling thread suspends itself until another resumes it. No count: one
   GC_resume_thread undoes any number of GC_suspend_thread. */
GC_API void GC_suspend_thread(GC_SUSPEND_THREAD_ID thread) {
  pthread_t id = (pthread_t)thread;
  LOCK();
  struct gc_thread *t = find_locked(id);
  if (!t || t->suspend_requested) {
    UNLOCK();
    return;
  }
  __atomic_store_n(&t->suspend_requested, true, __ATOMIC_RELEASE);
  bool self = t == tl_thread;
  /* A finished thread is only marked, as in bdwgc: there is nothing to stop. */
  if (!self && !t->blocking && !t->finished) stopworld_suspend_one(t);
  UNLOCK();
  if (self) pthread_kill(pthread_self(), stopworld_suspend_signal());
}

GC_API void GC_resume_thread(GC_SUSPEND_THREAD_ID thread) {
  pthread_t id = (pthread_t)thread;
  LOCK();
  struct gc_thread *t = find_locked(id);
  if (t && t->suspend_requested) {
    __atomic_store_n(&t->suspend_requested, false, __ATOMIC_RELEASE);
    if (__atomic_load_n(&t->suspended, __ATOMIC_ACQUIRE)) stopworld_resume_one(t);
  }
  UNLOCK();
}

GC_API int GC_is_thread_suspended(GC_SUSPEND_THREAD_ID thread) {
  pthread_t id = (pthread_t)thread;
  LOCK();
  struct gc_thread *t = find_locked(id);
  int result = t && t->suspend_requested;
  UNLOCK();
  return result;
}

/* The program may not block the suspend signal: that would hang collections. */
GC_API int GC_pthread_sigmask(int how, const sigset_t *set, sigset_t *oset) {
  if (!set || how == SIG_UNBLOCK) return pthread_sigmask(how, set, oset);
  sigset_t allowed = *set;
  sigdelset(&allowed, stopworld_suspend_signal());
  return pthread_sigmask(how, &allowed, oset);
}

GC_API void *GC_dlopen(const char *path, int mode) {
  /* Data segments are found anew at every collection: nothing to update. */
  return dlopen(path, mode);
}

/* ---- precise mode (bibop.h) ------------------------------------------------------ */

BIBOP_API int bibop_set_precise_stack(int on) {
  struct gc_thread *me = tl_thread;
  if (!me) return -1;
  LOCK();
  int was = me->precise;
  me->precise = on != 0;
  UNLOCK();
  return was;
}

/* ---- stack bottoms -------------------------------------------------------------- */

/* Neither takes the lock: gc.h has GC_set_stackbottom's caller hold it
   (typically in GC_call_with_alloc_lock), and the thread's own record is
   all GC_get_my_stackbottom reads, so both work inside and outside it. */
GC_API void *GC_get_my_stackbottom(struct GC_stack_base *sb) {
  struct gc_thread *me = threads_self();
  if (sb) sb->mem_base = me ? threads_stack_base(me) : NULL;
  return me;
}

/* Before initialisation, with no handle: the main thread's bottom,
   GC_stackbottom (gc.h). */
GC_API void GC_set_stackbottom(void *handle, const struct GC_stack_base *sb) {
  if (!sb) return;
  struct gc_thread *t = handle ? handle : threads_self();
  if (t && sb->mem_base) threads_set_stack_base(t, sb->mem_base);
  else if (!t && !gc.initialized) GC_stackbottom = sb->mem_base;
}
