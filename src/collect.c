/*
 * collect.c: the collector — initialisation, the phases of a collection,
 * pacing and heap growth, out-of-memory handling and statistics.
 *
 * A collection: forget the lists of GC_free'd slots; clear the mark bits of
 * collectable blocks; mark from the roots (mark.c, roots.c) until the mark
 * stack is empty and no overflow is pending; set the bits of every
 * allocation cursor's claimed window again (cursors live on); dead objects of
 * kinds with disclaim procedures are disclaimed (disclaim.c); sweep setup: blocks and large
 * objects with no marks go back to the block pool, every size class's list
 * becomes its lazy-sweep list; then pacing for the next cycle.
 *
 * Pacing (bdwgc's rule): the heap has a budget of blocks. When a new block
 * would exceed it, a collection runs if the bytes allocated since the last
 * one exceed (roots + 2 x live pointerful + live pointer-free + live
 * external) divided by the free-space divisor; otherwise the budget grows by
 * a third (bounded by GC_set_max_heap_size). Invariants: growth made for a
 * request the arena then refuses is taken back (gc_undo_growth), and after
 * each collection the budget is at most BUDGET_SLACK x (blocks in use +
 * one cycle's allocation), never below what the client asked for
 * (GC_INITIAL_HEAP_SIZE, GC_expand_hp): one huge request or one large
 * object that died cannot keep collections away for good. The budget is
 * not the heap size: GC_get_heap_size is the committed memory (arena.c).
 * Chunks that stay free for GC_UNMAP_THRESHOLD collections are decommitted.
 */
#define _GNU_SOURCE   /* PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP */
#include "internal.h"
#include "trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>



#define DEFAULT_INITIAL_HEAP ((size_t)64 << 10)   /* bdwgc's 64 KiB */
#define MIN_HEAP_GROWTH ((size_t)64 << 10)
#define MAX_HEAP_GROWTH_UNBOUNDED ((size_t)1 << 40)
#define DEFAULT_UNMAP_THRESHOLD 6                  /* bdwgc's default */
/* How far above one cycle's need (blocks in use + min_bytes_allocd) the
   budget may stay after a collection. Generous: the budget a program's
   peak left behind keeps spacing its collections (GCBench's 26 MiB budget
   over an 8 MiB live heap is under 2x), while a dead 1 GiB object's does
   not. */
#define BUDGET_SLACK 4

/* Warnings, like aborts below, go straight to the descriptor (bdwgc's
   GC_err_printf), whatever buffering the client gave stderr. */
void gc_default_warn_proc(char *msg, GC_word arg) {
  dprintf(STDERR_FILENO, msg, arg);
}

void *gc_default_oom_fn(size_t bytes) {
  (void)bytes;
  return NULL;
}

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

void gc_warn(const char *msg, GC_word arg) {
  GC_warn_proc proc = gc.warn_proc ? gc.warn_proc : gc_default_warn_proc;
  proc((char *)msg, arg);
}

/* bdwgc's default abort function: the message (if any) straight to the
   stderr descriptor, so no buffer can hold it back from the abort() that
   follows. */
void gc_default_abort_func(const char *msg) {
  if (msg) dprintf(STDERR_FILENO, "%s\n", msg);
}

_Noreturn void gc_abort(const char *msg) {
  GC_abort_func on_abort = GC_on_abort;   /* a client may have stored NULL */
  (on_abort ? on_abort : gc_default_abort_func)(msg);
  if (gc.loop_on_abort)
    for (;;) pause();   /* GC_LOOP_ON_ABORT: wait for a debugger */
  abort();
}

static void define_builtin_kinds(void) {
  gc.kinds[KIND_PTRFREE] = (struct kind){ .descr = GC_DS_LENGTH, .add_size = true,
      .pointer_free = true, .zero_on_alloc = false, .in_use = true };
  gc.kinds[KIND_NORMAL] = (struct kind){ .descr = GC_DS_LENGTH, .add_size = true,
      .zero_on_alloc = true, .in_use = true };
  gc.kinds[KIND_UNCOLLECTABLE] = (struct kind){ .descr = GC_DS_LENGTH, .add_size = true,
      .uncollectable = true, .zero_on_alloc = true, .in_use = true };
  gc.kinds[KIND_ATOMIC_UNCOLLECTABLE] = (struct kind){ .descr = GC_DS_LENGTH, .add_size = true,
      .pointer_free = true, .uncollectable = true, .zero_on_alloc = false, .in_use = true };
  gc.n_kinds = KIND_BUILTIN_COUNT;
}

static size_t round_to_blocks(size_t bytes) {
  return (bytes + BLOCK_BYTES - 1) & ~(BLOCK_BYTES - 1);
}

/* bdwgc's environment variables, with its presence semantics (a variable
   that is set, whatever its value, turns its switch on). The ones that only
   make sense inside bdwgc are listed, and why they are ignored, in
   docs/COMPATIBILITY.md. */
static void read_environment(void) {
  size_t sz;
  long v;
  if (os_env_size("GC_INITIAL_HEAP_SIZE", &sz) && sz > gc.heap_budget)
    gc.heap_budget = round_to_blocks(sz);
  if (os_env_size("GC_MAXIMUM_HEAP_SIZE", &sz) && sz > 0) gc.max_heap = round_to_blocks(sz);
  if (os_env_long("GC_FREE_SPACE_DIVISOR", &v) && v > 0) GC_free_space_divisor = (GC_word)v;
  if (os_env_set("GC_DONT_GC")) GC_dont_gc = 1;
  if (os_env_set("GC_PRINT_STATS") || os_env_set("GC_PRINT_VERBOSE_STATS")) gc.print_stats = true;
  if (os_env_long("GC_UNMAP_THRESHOLD", &v) && v >= 0) gc.unmap_threshold = (unsigned long)v;
  if (os_env_set("GC_ALL_INTERIOR_POINTERS")) GC_all_interior_pointers = 1;
  if (os_env_set("GC_USE_ENTIRE_HEAP")) GC_use_entire_heap = 1;
  if (os_env_set("GC_LOOP_ON_ABORT")) gc.loop_on_abort = true;
  if (os_env_set("GC_ABORT_ON_LEAK")) gc.abort_on_leak = true;
  if (os_env_set("GC_FORCE_UNMAP_ON_GCOLLECT")) gc.unmap_on_gcollect = true;
  if (os_env_set("GC_DUMP_REGULARLY")) gc.dump_regularly = true;
  const char *log = getenv("GC_LOG_FILE");
  if (log && *log) {
    FILE *f = fopen(log, "a");
    if (f) gc.log = f;
    else gc_warn("GC Warning: cannot open GC_LOG_FILE; logging to stderr\n", 0);
  }
  if (os_env_set("GC_PRINT_ADDRESS_MAP")) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps) {
      char line[512];
      fprintf(gc_log(), "---------- Begin address map ----------\n");
      while (fgets(line, sizeof line, maps)) fputs(line, gc_log());
      fprintf(gc_log(), "---------- End address map ----------\n");
      fclose(maps);
    }
  }
}

FILE *gc_log(void) { return gc.log ? gc.log : stderr; }

static void init_locked(void) {
  gc.valid_offsets[0] = 1;
  gc.unmap_threshold = DEFAULT_UNMAP_THRESHOLD;
  if (!gc.heap_budget) gc.heap_budget = DEFAULT_INITIAL_HEAP;
  define_builtin_kinds();
  kinds_init();
  svector_init();
  read_environment();
  trace_init();
  gc.extra_bytes = GC_all_interior_pointers ? 1 : 0;
  debug_init();
  if (gc.max_heap && gc.heap_budget > gc.max_heap) gc.heap_budget = gc.max_heap;
  gc.requested_heap = gc.heap_budget;
  pt_init();
  arena_init();
  arena_set_heap_limit(gc.max_heap);
  /* As bdwgc, the initial heap is obtained at once (committed, untouched):
     GC_get_heap_size() is not 0 after GC_init. */
  (void)arena_expand((gc.heap_budget + CHUNK_BYTES - 1) / CHUNK_BYTES);
  heap_init();
  mark_init();
  markers_init();
  roots_init();
  threads_init();
  gc.initialized = true;
  gc.min_bytes_allocd = gc.heap_budget / 2;
  if (!GC_dont_gc) gc_collect_locked("init");
}

void gc_ensure_init(void) {
  if (LIKELY(__atomic_load_n(&gc.initialized, __ATOMIC_ACQUIRE))) return;
  LOCK();
  if (!gc.initialized) init_locked();
  UNLOCK();
}

static void notify(GC_EventType e) {
  if (gc.on_event) gc.on_event(e);
}

/* Sweep setup: empty blocks and unmarked large objects go back at once;
   each size class's list becomes its lazy-sweep list. */
static void sweep_setup(size_t *live_ptr, size_t *live_atomic) {
  size_t ptr = 0, atomic = 0;
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    const struct kind *kind = &gc.kinds[k];
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++) {
      struct size_class_list *cls = &gc.classes[k][g];
      struct block **link = &cls->blocks;
      while (*link) {
        struct block *b = *link;
        /* Counted here rather than while marking: a per-block counter
           needs an atomic add per marked object when markers run in
           parallel. */
        size_t in_use = 0;
        for (unsigned w = 0; w < MARK_WORDS; w++) in_use += (size_t)bits_set(b->u.mark[w]);
        if (in_use == 0) {
          *link = b->next;
          alloc_forget_block(b);
          heap_release_small_block(b);
          continue;
        }
        *(kind->pointer_free ? &atomic : &ptr) += in_use * b->obj_bytes;
        link = &b->next;
      }
      cls->sweep = cls->blocks;
    }
  }
  struct block *h = gc.large;
  while (h) {
    struct block *next = h->next;
    if (!h->u.large.marked) {
      if (h->u.large.prev) h->u.large.prev->next = next;
      else gc.large = next;
      if (next) next->u.large.prev = h->u.large.prev;
      gc.blocks_in_use -= h->u.large.nblocks;
      heap_free_large(h);
    } else {
      *(gc.kinds[h->kind].pointer_free ? &atomic : &ptr) += h->u.large.bytes;
    }
    h = next;
  }
  *live_ptr = ptr;
  *live_atomic = atomic;
}

/* gc.h's documented rule: at least N / GC_free_space_divisor bytes between
   collections, N being twice the traced bytes plus the untraced bytes plus
   the roots (N approximates a collection's work); bibop adds the live
   external bytes (docs/ARCHITECTURE.md, "Pacing"). */
static void update_pacing(void) {
  GC_word divisor = GC_free_space_divisor ? GC_free_space_divisor : 1;
  size_t scan = size_add_saturated(gc.root_bytes + 2 * gc.live_ptr_bytes + gc.live_atomic_bytes,
                                   atomic_load_explicit(&external_live, memory_order_relaxed));
  gc.min_bytes_allocd = scan / divisor;
  size_t floor = gc.min_bytes_floor ? gc.min_bytes_floor : MIN_HEAP_GROWTH;
  if (gc.min_bytes_allocd < floor) gc.min_bytes_allocd = floor;
}

/* After a collection: the budget follows the live heap (see the top). */
static void follow_live_heap(void) {
  size_t in_use = gc.blocks_in_use * BLOCK_BYTES;
  size_t cycle = size_add_saturated(in_use, gc.min_bytes_allocd);
  size_t most = cycle > SIZE_MAX / BUDGET_SLACK ? SIZE_MAX : cycle * BUDGET_SLACK;
  if (most < gc.requested_heap) most = gc.requested_heap;
  if (gc.heap_budget > most) gc.heap_budget = round_to_blocks(most);
  if (gc.heap_budget < in_use) gc.heap_budget = in_use;
}

/* The phases of one collection. Runs below gc_collect_locked's frame, which
   holds the collecting thread's registers: the roots scan that thread's
   stack from gc.collect_entry_sp up, never these frames, whose unwritten
   slots still hold whatever the client's returned frames left there. */
static __attribute__((noinline)) void collect_phases(const char *reason) {
  gc.collect_entry_sp = __builtin_frame_address(0);
  gc.collecting = true;
  /* Waiting for other threads and markers involves cancellation points;
     a collection must not be abandoned halfway. */
  int cancel_state;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  uint64_t t0 = os_now_ns();
  if (gc.start_callback) gc.start_callback();   /* with the lock held, as bdwgc */
  notify(GC_EVENT_START);

  notify(GC_EVENT_PRE_STOP_WORLD);
  stopworld_stop();
  notify(GC_EVENT_POST_STOP_WORLD);
  alloc_before_mark();
  debug_before_collection();
  debug_leak_snapshot();
  disclaim_snapshot();
  mark_clear_all();
  notify(GC_EVENT_MARK_START);
  markers_start_phase(&main_marker);
  gc.root_bytes = roots_mark_all();
  mark_finish();
  disclaim_mark_unconditionally();
  finalize_after_mark();
  debug_report_leaks();
  alloc_after_mark();
  disclaim_find_dead();
  notify(GC_EVENT_MARK_END);
  /* Sweep setup touches only block lists, never a thread's cursor: the
     world may run again. */
  notify(GC_EVENT_PRE_START_WORLD);
  stopworld_start();
  notify(GC_EVENT_POST_START_WORLD);

  notify(GC_EVENT_RECLAIM_START);
  disclaim_sweep();   /* procedures run here, lock held, world running */
  sweep_setup(&gc.live_ptr_bytes, &gc.live_atomic_bytes);
  boxroot_release_empty_pools();
  notify(GC_EVENT_RECLAIM_END);

  GC_gc_no++;
  gc.total_bytes += gc.bytes_since_gc;
  gc.last_trigger_heap = gc.bytes_since_gc;
  gc.last_trigger_external = atomic_exchange_explicit(&external_since_gc, 0, memory_order_relaxed);
  gc.bytes_since_gc = 0;
  gc.freed_since_gc = 0;
  update_pacing();
  size_t live = gc.live_ptr_bytes + gc.live_atomic_bytes;
  follow_live_heap();
  if (gc.unmap_threshold) arena_decommit_idle(GC_gc_no, gc.unmap_threshold);

  uint64_t pause = os_now_ns() - t0;
  gc.last_pause_ns = pause;
  gc.total_pause_ns += pause;
  if (pause > gc.max_pause_ns) gc.max_pause_ns = pause;
  gc.collecting = false;
  gc.collect_entry_sp = NULL;
  notify(GC_EVENT_END);
  pthread_setcancelstate(cancel_state, NULL);
  trace_collection(&(struct trace_record){ .gc = GC_gc_no, .start_ns = t0, .end_ns = t0 + pause,
      .reason = reason, .heap_bytes = gc.heap_budget, .live_bytes = live,
      .external_bytes = atomic_load(&external_live), .marked_objects = gc.marked_objects,
      .marked_bytes = gc.mark_stats.marked_bytes, .mark = &gc.mark_stats });
  if (gc.dump_regularly) gc_dump_locked(gc_log());
  if (gc.print_stats)
    fprintf(gc_log(),
            "bibop: GC #%lu (%s): %.3f ms, heap %zu KiB (unmapped %zu KiB, budget %zu KiB), "
            "live %zu KiB in %lu objects, "
            "external live %zu KiB, trigger %zu KiB heap + %zu KiB external\n",
            (unsigned long)GC_gc_no, reason, pause / 1e6, arena_committed_bytes() >> 10,
            arena_unmapped_bytes() >> 10, gc.heap_budget >> 10, live >> 10, gc.marked_objects,
            atomic_load(&external_live) >> 10, gc.last_trigger_heap >> 10,
            gc.last_trigger_external >> 10);
  if (gc.print_stats) mark_print_stats(gc_log());
}

/* Spill every callee-saved register into this frame (they may hold the
   client's only references), then collect in the frames below. */
void gc_collect_locked(const char *reason) {
  if (gc.collecting) return;
  __builtin_unwind_init();
  collect_phases(reason);
  __asm__ volatile("" : : : "memory");   /* no tail call: this frame stays */
}

static bool fits(size_t nblocks) {
  return gc.blocks_in_use + nblocks <= gc.heap_budget / BLOCK_BYTES;
}

/* Grow the budget so that nblocks more fit, by a third of the heap at least;
   false if the maximum heap size forbids it. */
static bool expand_budget(size_t nblocks) {
  size_t needed = (gc.blocks_in_use + nblocks) * BLOCK_BYTES;
  GC_word divisor = GC_free_space_divisor ? GC_free_space_divisor : 1;
  size_t grown = gc.heap_budget + gc.heap_budget / divisor;
  if (grown < gc.heap_budget + MIN_HEAP_GROWTH) grown = gc.heap_budget + MIN_HEAP_GROWTH;
  if (grown < needed) grown = needed;
  if (gc.max_heap && grown > gc.max_heap) grown = gc.max_heap;
  if (grown < needed) return false;
  gc.heap_budget = round_to_blocks(grown);
  return true;
}

bool gc_make_room(size_t nblocks) {
  if (fits(nblocks)) return true;
  bool may_collect = !GC_dont_gc && !gc.collecting && !gc.no_automatic_collection;
  size_t since = size_add_saturated(gc.bytes_since_gc,
                                    atomic_load_explicit(&external_since_gc, memory_order_relaxed));
  if (may_collect && (since >= gc.min_bytes_allocd || GC_dont_expand)) {
    gc_collect_locked("allocation");
    if (fits(nblocks)) return true;
    /* Blocks a collection leaves partly used still count in full, but
       their free slots come first: a caller that needs one small block
       sweeps its size class again before taking a block, and comes back
       only if the class has no free slot. Growing here would raise the
       budget at every collection of a heap whose survivors are spread over
       all its blocks, though most of its slots are free. */
    if (nblocks == 1) return true;
  }
  if (expand_budget(nblocks)) return true;
  /* At the limit: one more collection may free enough. */
  if (may_collect && gc.bytes_since_gc > 0) {
    gc_collect_locked("heap limit");
    if (fits(nblocks) || expand_budget(nblocks)) return true;
  }
  return false;
}

void gc_undo_growth(size_t budget_before) {
  if (gc.heap_budget > budget_before) gc.heap_budget = budget_before;
}

bool gc_expand_heap(size_t bytes) {
  if (bytes > SIZE_MAX - CHUNK_BYTES) return false;   /* no round-up may wrap */
  size_t grown = round_to_blocks(bytes);
  if (grown > SIZE_MAX - gc.heap_budget) return false;
  if (gc.max_heap && gc.heap_budget + grown > gc.max_heap) return false;
  if (!arena_expand((bytes + CHUNK_BYTES - 1) / CHUNK_BYTES)) return false;
  gc.heap_budget += grown;
  gc.requested_heap = size_add_saturated(gc.requested_heap, grown);
  return true;
}

void *gc_out_of_memory(size_t bytes) {
  gc_warn("GC Warning: Out of Memory! Heap size: %lu MiB. Returning NULL!\n",
          (GC_word)(arena_committed_bytes() >> 20));
  GC_oom_func fn = GC_oom_fn ? GC_oom_fn : gc_default_oom_fn;
  return fn(bytes);
}
