/*
 * collect.c: the collector — the phases of a collection, the hook points
 * where the features above it act (registered by init.c), pacing and heap
 * growth, and statistics. Initialisation is init.c's, diagnostics diag.c's,
 * the state and settings state.c's.
 *
 * A collection: forget the lists of GC_free'd slots; clear the mark bits of
 * collectable blocks; mark from the roots (mark.c, roots.c) until the mark
 * stack is empty and no overflow is pending; set the bits of every
 * allocation cursor's claimed window again (cursors live on); the world
 * restarts (the lock stays held; in generational mode, the written blocks
 * that hold old objects were protected again just before); dead objects of
 * kinds with disclaim procedures are disclaimed (disclaim.c); sweep setup: blocks and large
 * objects with no marks go back to the block pool, every size class's list
 * becomes its lazy-sweep list (full blocks of old objects last, unvisited
 * by minor collections); then pacing for the next cycle.
 *
 * Pacing (bdwgc's rule): the heap has a budget of blocks. When a new block
 * would exceed it, a collection runs if the bytes allocated since the last
 * one exceed (roots + 2 x live pointerful + live pointer-free / 4 + live
 * external) divided by the free-space divisor, or if finalizers keep being
 * registered (bdwgc's rule, finalizers_due); otherwise the budget grows by
 * a third, at most 4 MiB a step (bounded by GC_set_max_heap_size).
 * Invariants: growth made for a
 * request the arena then refuses is taken back (gc_undo_growth), and after
 * each collection the budget is at most BUDGET_SLACK x (blocks in use +
 * one cycle's allocation), never below what the client asked for
 * (GC_INITIAL_HEAP_SIZE, GC_expand_hp): one huge request or one large
 * object that died cannot keep collections away for good. Nor can the
 * free slots of partly used blocks lengthen a cycle beyond the budget's
 * room (collection_overdue, full-only mode). The budget is
 * not the heap size: GC_get_heap_size is the committed memory (arena.c).
 * Chunks that stay free for GC_UNMAP_THRESHOLD collections are decommitted.
 */
#include "internal.h"

#include <stdio.h>

#define MIN_HEAP_GROWTH ((size_t)64 << 10)
/* The budget grows by a third of itself, at most this much per step:
   several steps may follow each other before a collection is due, so a
   heap ends at most one step beyond what the pacing rule asks for, not a
   third beyond it. The step decides how far the last cycle before a
   program's peak may overshoot, not how often it collects: a collection
   is due only after min_bytes_allocd anyway. Session 9 took bdwgc's
   MAXHINCR of LARGE_CONFIG builds, 16 MiB; Debian's libgc1 grows by 8 MiB
   steps (its GC_PRINT_STATS log: 2048 blocks). Session 10, client suite
   (same run, bibop / stock peak RSS, collections): ecl-clos 16 MiB 66.0
   MiB, 59 GCs; 8 MiB 63.7, 61; 4 MiB 55.2, 65; 2 MiB 55.3, 76; 64 KiB
   52.8, 98; stock 58.4, 66. 4 MiB keeps stock's collection count. */
#define MAX_HEAP_GROWTH_STEP ((size_t)4 << 20)
#define MAX_HEAP_GROWTH_UNBOUNDED ((size_t)1 << 40)
/* How far above one cycle's need (blocks in use + min_bytes_allocd) the
   budget may stay after a collection. Generous: the budget a program's
   peak left behind keeps spacing its collections (GCBench's 26 MiB budget
   over an 8 MiB live heap is under 2x), while a dead 1 GiB object's does
   not. */
#define BUDGET_SLACK 4
/* bdwgc's rule for programs that register a finalizer per object (ECL's
   weak hash tables do, per key): when the budget is used up and this many
   finalizers more are registered than after the last collection, while
   finalization is making progress (the last collection, or the one before,
   queued some), collect rather than grow — the objects they guard die only
   through a collection, and a collection is what frees their memory. */
#define FINALIZER_BATCH 500

static size_t finalizers_after_last_gc;   /* finalize_registered() right after it */
/* bdwgc counts the objects a collection queued for finalization as though
   they had been allocated again after it (their memory comes back only
   with the next collection; "finalization is user visible progress"): a
   program that finalizes most of what it allocates then collects sooner. */
static size_t finalized_credit;
static bool finalization_progress[2];     /* the last two collections queued some */
static GC_word non_gc_bytes_at_gc;        /* GC_non_gc_bytes after the last collection */
static size_t blocks_in_use_after_gc;     /* gc.blocks_in_use after the last collection */

static void note_finalization(void) {
  finalizers_after_last_gc = finalize_registered();
  finalized_credit = finalize_queued_bytes_by_last_collection();
  finalization_progress[1] = finalization_progress[0];
  finalization_progress[0] = finalize_queued_by_last_collection() > 0;
}

static bool finalizers_due(void) {
  return finalize_registered() > finalizers_after_last_gc + FINALIZER_BATCH &&
         (finalization_progress[0] || finalization_progress[1]);
}

/* ---- hooks: the collector's calls into the features above it -------------- */

/* Registered once, at initialisation (init.c), under the lock; run in
   registration order. Bounded: each point has few features. */
#define MAX_HOOKS_PER_POINT 4
static void (*hooks[HOOK_POINTS][MAX_HOOKS_PER_POINT])(void);

void collect_add_hook(enum collect_hook_point point, void (*fn)(void)) {
  for (unsigned i = 0; i < MAX_HOOKS_PER_POINT; i++)
    if (!hooks[point][i]) {
      hooks[point][i] = fn;
      return;
    }
  gc_abort("bibop: too many collection hooks at one point");
}

static void run_hooks(enum collect_hook_point point) {
  for (unsigned i = 0; i < MAX_HOOKS_PER_POINT && hooks[point][i]; i++) hooks[point][i]();
}

static void notify(GC_EventType e) {
  if (gc.on_event) gc.on_event(e);
}

/* Sweep setup: empty blocks and unmarked large objects go back at once;
   each size class's list becomes its lazy-sweep list, blocks with free
   slots first, then those left full of old objects (from cls->full on,
   where the sweep stops: a full block's slots freed by GC_free come back
   through the freed lists). A minor collection visits only the blocks
   before cls->full: old objects never die in one, so such a block stays
   full (a slot GC_free'd and taken again, whose object died young, waits
   for the next major collection), and its bytes were counted when it was
   left full (full_bytes); on a large old heap most blocks are full, and
   visiting them was most of a minor collection's sweep setup. A full
   block with young objects (alloc_has_young) stays before cls->full:
   they may die in the next minor collection. */
static size_t full_bytes[2];   /* in blocks behind cls->full: pointerful, pointer-free */

/* Where sweep setup files a small block: released (no slot in use), left
   full, or with free slots; the live bytes counted (here rather than while
   marking: a per-block counter needs an atomic add per marked object when
   markers run in parallel). */
enum filing { FILED_EMPTY, FILED_FULL, FILED_FREE_SLOTS };

static enum filing file_block(struct block *b, size_t live[2], struct release_run *released) {
  size_t in_use = 0;
  for (unsigned w = 0; w < MARK_WORDS; w++) in_use += (size_t)bits_set(b->u.mark[w]);
  bool pointer_free = gc.kinds[b->kind].pointer_free;
  if (in_use == 0) {
    alloc_forget_block(b);
    heap_release_small_block(released, b);
    return FILED_EMPTY;
  }
  if (in_use == b->nobjs && !alloc_has_young(b)) {
    full_bytes[pointer_free] += in_use * b->obj_bytes;
    return FILED_FULL;
  }
  live[pointer_free] += in_use * b->obj_bytes;
  return FILED_FREE_SLOTS;
}

/* A minor collection: each class's blocks before cls->full, in list order;
   those now full go just before it, in order. */
static void sweep_setup_minor(size_t live[2], struct release_run *released) {
  for (unsigned k = 0; k < gc.n_kinds; k++)
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++) {
      struct size_class_list *cls = &gc.classes[k][g];
      struct block *stop = cls->full;
      struct block **link = &cls->blocks, *left_full = NULL, **full_link = &left_full;
      while (*link != stop) {
        struct block *b = *link;
        switch (file_block(b, live, released)) {
          case FILED_EMPTY: *link = b->next; break;
          case FILED_FULL:
            *link = b->next;
            *full_link = b;
            full_link = &b->next;
            break;
          case FILED_FREE_SLOTS: link = &b->next; break;
        }
      }
      *full_link = stop;
      *link = left_full ? left_full : stop;
      cls->full = *link;
      cls->sweep = cls->blocks;
    }
}

/* A full collection: every small block, met in address order
   (heap_next_small_chunk), and each class's list built anew in that order:
   the blocks with free slots appended (cls->sweep is the last of them
   meanwhile), those left full pushed on cls->full, then the two joined.
   Following the old lists block to block waited for each descriptor in
   turn. Empty blocks come in address order too, so neighbours go back as
   one run. */
static void sweep_setup_full(size_t live[2], struct release_run *released) {
  full_bytes[0] = full_bytes[1] = 0;
  for (unsigned k = 0; k < gc.n_kinds; k++)
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      gc.classes[k][g].blocks = gc.classes[k][g].full = gc.classes[k][g].sweep = NULL;
  size_t at = 0;
  for (struct block *b; (b = heap_next_small_chunk(&at));)
    for (size_t i = 0; i < BLOCKS_PER_CHUNK; i++, b++) {
      if (b->state != BLOCK_SMALL) continue;
      struct size_class_list *cls = &gc.classes[b->kind][b->granules];
      switch (file_block(b, live, released)) {
        case FILED_EMPTY: break;
        case FILED_FULL:
          b->next = cls->full;
          cls->full = b;
          break;
        case FILED_FREE_SLOTS:
          b->next = NULL;
          *(cls->sweep ? &cls->sweep->next : &cls->blocks) = b;
          cls->sweep = b;
          break;
      }
    }
  for (unsigned k = 0; k < gc.n_kinds; k++)
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++) {
      struct size_class_list *cls = &gc.classes[k][g];
      *(cls->sweep ? &cls->sweep->next : &cls->blocks) = cls->full;
      cls->sweep = cls->blocks;
    }
}

static void sweep_setup(bool minor, size_t *live_ptr, size_t *live_atomic) {
  size_t live[2] = { 0, 0 };
  struct release_run released = { 0 };
  if (minor) sweep_setup_minor(live, &released);
  else sweep_setup_full(live, &released);
  heap_release_flush(&released);
  size_t ptr = live[0] + full_bytes[0], atomic = live[1] + full_bytes[1];
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
   the roots (N approximates a collection's work). As bdwgc 8.2 computes it
   (alloc.c, min_bytes_allocd), untraced bytes count a quarter: scanning
   them costs nothing, and counting them whole let atomic-heavy programs
   grow further between collections than on stock (w3m: 71 collections
   against stock's 102, peak RSS 1.13 x; a quarter: 99 and 0.99 x with the
   growth step below). bibop adds the live external bytes
   (docs/ARCHITECTURE.md, "Pacing"). */
static void update_pacing(void) {
  GC_word divisor = GC_free_space_divisor ? GC_free_space_divisor : 1;
  size_t live_ptr = gc.live_ptr_bytes, live_atomic = gc.live_atomic_bytes;
  gen_live_for_pacing(&live_ptr, &live_atomic);   /* less old garbage after a minor */
  size_t scan = size_add_saturated(gc.root_bytes + 2 * live_ptr + live_atomic / 4,
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

/* Free chunks the heap could fill before the next collection: as many as
   the budget leaves room for, rounded up, plus one (the blocks may come
   from partly used chunks instead, so this is an upper bound). Committed free chunks
   beyond it are decommitted at once rather than after GC_UNMAP_THRESHOLD
   collections: the budget has shrunk (a phase of the program or a large
   object died) and only growth could reach them. */
static size_t free_chunks_the_budget_allows(void) {
  size_t in_use = gc.blocks_in_use * BLOCK_BYTES;
  size_t room = gc.heap_budget > in_use ? gc.heap_budget - in_use : 0;
  return room / CHUNK_BYTES + 2;
}

/* The phases of one collection. Runs below gc_collect_locked's frame, which
   holds the collecting thread's registers: the roots scan that thread's
   stack from gc.collect_entry_sp up, never these frames, whose unwritten
   slots still hold whatever the client's returned frames left there. */
static __attribute__((noinline)) void collect_phases(const char *reason) {
  gc.collect_entry_sp = __builtin_frame_address(0);
  gc.collecting = true;
  gc.last_reason = reason;
  /* Waiting for other threads and markers involves cancellation points;
     a collection must not be abandoned halfway. */
  int cancel_state;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  uint64_t t0 = os_now_ns();
  gc.last_start_ns = t0;
  if (gc.start_callback) gc.start_callback();   /* with the lock held, as bdwgc */
  notify(GC_EVENT_START);

  markers_before_stop();
  notify(GC_EVENT_PRE_STOP_WORLD);
  stopworld_stop();
  notify(GC_EVENT_POST_STOP_WORLD);
  alloc_before_mark();
  run_hooks(HOOK_BEFORE_MARK);
  bool minor = gen_begin(reason);
  if (minor) mark_clear_young();
  else mark_clear_all();
  notify(GC_EVENT_MARK_START);
  markers_start_phase(&main_marker, minor);
  gen_mark_written(minor);
  gc.root_bytes = roots_mark_all();
  finalize_mark_roots();
  mark_finish();
  run_hooks(HOOK_MARK_MORE);
  finalize_after_mark();
  run_hooks(HOOK_AFTER_FINALIZE);
  gen_choose_promotion(minor);
  alloc_after_mark();
  gen_protect_old_written(minor);
  run_hooks(HOOK_DEAD_KNOWN);
  notify(GC_EVENT_MARK_END);
  /* Sweep setup touches only block lists, never a thread's cursor: the
     world may run again. */
  notify(GC_EVENT_PRE_START_WORLD);
  stopworld_start();
  notify(GC_EVENT_POST_START_WORLD);

  notify(GC_EVENT_RECLAIM_START);
  run_hooks(HOOK_WORLD_RESTARTED);   /* disclaim procedures: lock held, world running */
  mark_zero_dead_slots();
  sweep_setup(minor, &gc.live_ptr_bytes, &gc.live_atomic_bytes);
  boxroot_release_empty_pools();
  notify(GC_EVENT_RECLAIM_END);

  GC_gc_no++;
  gc.total_bytes += gc.bytes_since_gc;
  gc.last_trigger_heap = gc.bytes_since_gc;
  gc.last_trigger_external = atomic_exchange_explicit(&external_since_gc, 0, memory_order_relaxed);
  gc.bytes_since_gc = 0;
  gc.freed_since_gc = 0;
  non_gc_bytes_at_gc = __atomic_load_n(&GC_non_gc_bytes, __ATOMIC_RELAXED);
  update_pacing();
  size_t live = gc.live_ptr_bytes + gc.live_atomic_bytes;
  follow_live_heap();
  blocks_in_use_after_gc = gc.blocks_in_use;
  if (gc.unmap_threshold) {
    arena_decommit_idle(GC_gc_no, gc.unmap_threshold);
    arena_decommit_surplus(free_chunks_the_budget_allows());
    heap_discard_idle_runs(GC_gc_no, gc.unmap_threshold);
  }
  note_finalization();

  uint64_t pause = os_now_ns() - t0;
  gc.last_pause_ns = pause;
  gc.total_pause_ns += pause;
  if (pause > gc.max_pause_ns) gc.max_pause_ns = pause;
  bool generational = gc.generational;   /* gen_end may end the mode (its fallback) */
  gen_end(minor, pause);
  gc.collecting = false;
  gc.collect_entry_sp = NULL;
  notify(GC_EVENT_END);
  pthread_setcancelstate(cancel_state, NULL);
  run_hooks(HOOK_COLLECTION_END);
  if (gc.dump_regularly) gc_dump_locked(gc_log());
  if (gc.print_stats)
    fprintf(gc_log(),
            "bibop: GC #%lu (%s%s): %.3f ms, heap %zu KiB (unmapped %zu KiB, budget %zu KiB), "
            "live %zu KiB in %lu objects, "
            "external live %zu KiB, trigger %zu KiB heap + %zu KiB external; "
            "blocks in use %zu KiB, next due after %zu KiB\n",
            (unsigned long)GC_gc_no, reason, !generational ? "" : minor ? ", minor" : ", major",
            pause / 1e6, arena_committed_bytes() >> 10,
            arena_unmapped_bytes() >> 10, gc.heap_budget >> 10, live >> 10, gc.marked_objects,
            atomic_load(&external_live) >> 10, gc.last_trigger_heap >> 10,
            gc.last_trigger_external >> 10, (gc.blocks_in_use * BLOCK_BYTES) >> 10,
            gc.min_bytes_allocd >> 10);
  if (gc.print_stats) mark_print_stats(gc_log());
  if (gc.print_stats) stopworld_print_stats(gc_log());
  if (gc.print_stats) markers_print_stats(gc_log());
  if (gc.print_stats) finalize_print_stats(gc_log());
}

/* Spill every callee-saved register into this frame (they may hold the
   client's only references), then collect in the frames below. */
void gc_collect_locked(const char *reason) {
  if (gc.collecting) return;
  __builtin_unwind_init();
  collect_phases(reason);
  /* The collection's frames below hold addresses of objects that were
     live in it (the mark loop's); zeroed, so that the client's frames laid
     there later cannot keep them alive once dead (markers.c: a volunteer's
     stack, the same story). */
  os_zero_stack_below();
  __asm__ volatile("" : : : "memory");   /* no tail call: this frame stays */
}

/* A collection the client asked for (GC_gcollect), then its finalizers. */
void gc_collect_explicit(void) {
  gc_ensure_init();
  LOCK();
  if (!GC_dont_gc) gc_collect_locked("explicit");
  if (gc.unmap_on_gcollect) {
    arena_decommit_idle(GC_gc_no, 0);
    heap_discard_idle_runs(GC_gc_no, 0);
  }
  gc_unlock_to_waiter();
  finalize_run_pending();
}

static bool fits(size_t nblocks) {
  return gc.blocks_in_use + nblocks <= gc.heap_budget / BLOCK_BYTES;
}

/* How much the budget grows by when it is used up before a collection is
   due (for a request of nblocks): a third of itself, at most
   MAX_HEAP_GROWTH_STEP, at least MIN_HEAP_GROWTH and what the request needs. */
static size_t growth_step(size_t nblocks) {
  size_t needed = (gc.blocks_in_use + nblocks) * BLOCK_BYTES;
  GC_word divisor = GC_free_space_divisor ? GC_free_space_divisor : 1;
  size_t step = gc.heap_budget / divisor;
  if (step > MAX_HEAP_GROWTH_STEP) step = MAX_HEAP_GROWTH_STEP;
  if (step < MIN_HEAP_GROWTH) step = MIN_HEAP_GROWTH;
  if (needed > gc.heap_budget && step < needed - gc.heap_budget) step = needed - gc.heap_budget;
  return step;
}

/* Grow the budget so that nblocks more fit (growth_step); false if the
   maximum heap size forbids it. */
static bool expand_budget(size_t nblocks) {
  size_t needed = (gc.blocks_in_use + nblocks) * BLOCK_BYTES;
  size_t grown = size_add_saturated(gc.heap_budget, growth_step(nblocks));
  if (gc.max_heap && grown > gc.max_heap) grown = gc.max_heap;
  if (grown < needed) return false;
  gc.heap_budget = round_to_blocks(grown);
  return true;
}

/* What the program allocated since the last collection, as pacing counts
   it: as bdwgc's GC_adj_bytes_allocd, bytes the program freed explicitly
   (GC_free, GC_realloc's old copy, GC_incr_bytes_freed) and uncollectable
   objects (GC_non_gc_bytes) do not count, but at least an eighth of the
   allocation does. (asy, a C++ program whose
   containers free their old storage with GC_free, ran 24-31 collections
   against stock's 13.) */
static size_t allocated_since_gc(void) {
  /* Signed: uncollectable objects allocated (+) or freed (-) since the
     last collection cancel their allocation or their GC_free. */
  int64_t non_gc = (int64_t)(__atomic_load_n(&GC_non_gc_bytes, __ATOMIC_RELAXED) -
                             non_gc_bytes_at_gc);
  int64_t allocated = (int64_t)(gc.bytes_since_gc > INT64_MAX ? INT64_MAX : gc.bytes_since_gc);
  int64_t freed = (int64_t)(gc.freed_since_gc > INT64_MAX ? INT64_MAX : gc.freed_since_gc);
  int64_t net = allocated - freed - non_gc;
  if (net > allocated) net = allocated;
  if (net < allocated / 8) net = allocated / 8;
  return size_add_saturated(size_add_saturated((size_t)net, finalized_credit),
                            atomic_load_explicit(&external_since_gc, memory_order_relaxed));
}

/* GC_collect_a_little: bdwgc collects there only when a collection is due
   by the pacing rule (enough allocated since the last one); a client that
   calls it often (Guile does) must not get a full collection each time. */
bool gc_collect_if_due(void) {
  if (GC_dont_gc || gc.collecting || gc.no_automatic_collection) return false;
  if (allocated_since_gc() < gc.min_bytes_allocd) return false;
  gc_collect_locked("allocation");
  return true;
}

/* The budget counts blocks, but a cycle also allocates into the free slots
   that the last collection left in partly used blocks, which the budget
   counts as full: so a cycle ran on until its new blocks had filled the
   budget's room, whatever it had already put in free slots. With link
   tables as bdwgc's (finalize.c), guile-interp collected only when the
   budget was full, after 2.5-3.9 MiB for 1.1 MiB due; the longer a cycle,
   the more blocks each size class fills before the collection, whose
   survivors keep them all in use (its 32-byte class: 461 blocks 15% full),
   so the budget went 4.6 -> 6.2 MiB and peak RSS to 16.1 MiB against
   stock's 13.5-15.8. So a collection is overdue, and a new block waits for
   it, once the cycle has allocated the budget's room after the last
   collection, or OVERDUE_FACTOR times what makes one due if that is more:
   the free slots no longer lengthen the cycle. A budget with room and
   blocks without free slots (GCBench: 27 MiB for 8 MiB live) is used
   whole, as before and as on stock, whose cycle is as long as its free
   heap (api.overdue_collects: 24.4 MiB between two collections before,
   17.4 now, stock 17.6). Session 11, one run each (guile-interp RSS /
   collections / CPU s; ecl-clos RSS / collections), with the factor alone,
   before the room was taken into account: no limit 16.1 / 566 / 3.24, 55.5
   / 65; 3 x 16.0 / 526 / 3.20; 2 x 14.4 / 755 / 3.60, 55.6 / 69; 1.5 x
   14.1 / 1043 / 4.04, 57.2 / 78; stock 13.8-15.5 / 642-892 / 3.44-3.68,
   58.5 / 68 (but GCBench 35 -> 78 collections: the room is why it is
   taken into account). Not below the heap the client asked for
   (GC_INITIAL_HEAP_SIZE, GC_expand_hp), and not in generational mode,
   whose minor collections have their own pacing (generations.c). */
#define OVERDUE_FACTOR 2

static bool collection_overdue(size_t since) {
  if (gc.generational || gc.blocks_in_use * BLOCK_BYTES < gc.requested_heap) return false;
  size_t in_use = blocks_in_use_after_gc * BLOCK_BYTES;
  size_t room = gc.heap_budget > in_use ? gc.heap_budget - in_use : 0;
  if (since < room) return false;
  return since / OVERDUE_FACTOR >= gc.min_bytes_allocd;
}

bool gc_make_room(size_t nblocks) {
  bool may_collect = !GC_dont_gc && !gc.collecting && !gc.no_automatic_collection;
  size_t since = allocated_since_gc();
  bool overdue = may_collect && collection_overdue(since);
  if (fits(nblocks) && !overdue) return true;
  if (may_collect && (overdue || since >= gc.min_bytes_allocd || GC_dont_expand || finalizers_due())) {
    gc_collect_locked("allocation");
    if (fits(nblocks)) return true;
    /* Blocks a collection leaves partly used still count in full, but
       their free slots come first: a caller that needs one small block
       sweeps its size class again before taking a block, and comes back
       only if the class has no free slot. Growing here would raise the
       budget at every collection of a heap whose survivors are spread over
       all its blocks, though most of its slots are free. */
    if (nblocks == 1) return true;
  } else if (may_collect && gen_major_before_growth(growth_step(nblocks))) {
    /* Not due, but old objects that died since the last major collection
       fill the budget (generations.c): full-only mode would not grow. */
    gc_collect_locked("heap growth");
    if (fits(nblocks) || nblocks == 1) return true;
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

/* A summary of the heap, for humans. */
void gc_dump_locked(FILE *out) {
  fprintf(out, "bibop heap: %lu collections, budget %zu bytes, %zu blocks in use, "
          "committed %zu bytes, live after last collection %zu bytes (%lu objects)\n",
          (unsigned long)GC_gc_no, gc.heap_budget, gc.blocks_in_use, arena_committed_bytes(),
          gc.live_ptr_bytes + gc.live_atomic_bytes, gc.marked_objects);
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    size_t blocks = 0;
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) blocks++;
    fprintf(out, "  kind %u: %zu small blocks\n", k, blocks);
  }
  size_t large = 0, large_bytes = 0;
  for (struct block *h = gc.large; h; h = h->next) large++, large_bytes += h->u.large.bytes;
  fprintf(out, "  large objects: %zu (%zu bytes)\n", large, large_bytes);
}
