/*
 * api.c: the bdwgc interface outside allocation and roots — initialisation,
 * collection requests, settings, statistics, object queries — and
 * bibop.h's classification and range registration. The data symbols bdwgc
 * exports live in state.c, where every layer may read them.
 * Owns no collector logic: it validates arguments and calls the modules.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- initialisation and collection ---------------------------------------- */

GC_API void GC_init(void) { gc_ensure_init(); }

GC_API int GC_is_init_called(void) { return gc.initialized; }

GC_API void GC_gcollect(void) {
  roots_clear_dead_stack();
  gc_collect_explicit();
}

GC_API int GC_try_to_collect(GC_stop_func stop_func) {
  (void)stop_func;   /* collections are not interruptible */
  roots_clear_dead_stack();
  gc_ensure_init();
  LOCK();
  int done = !GC_dont_gc;
  if (done) gc_collect_locked("explicit");
  UNLOCK();
  finalize_run_pending();
  return done;
}

GC_API void GC_gcollect_and_unmap(void) {
  roots_clear_dead_stack();
  gc_ensure_init();
  LOCK();
  if (!GC_dont_gc) gc_collect_locked("explicit, unmap");
  arena_decommit_idle(GC_gc_no, 0);
  UNLOCK();
}

GC_API int GC_collect_a_little(void) {
  GC_gcollect();
  return 0;
}

GC_API void GC_enable(void) {
  LOCK();
  if (GC_dont_gc > 0) GC_dont_gc--;
  UNLOCK();
}

GC_API void GC_disable(void) {
  LOCK();
  GC_dont_gc++;
  UNLOCK();
}

GC_API int GC_is_disabled(void) { return GC_dont_gc != 0; }

/* ---- heap size and pacing settings ---------------------------------------- */

GC_API int GC_expand_hp(size_t bytes) {
  gc_ensure_init();
  LOCK();
  int ok = gc_expand_heap(bytes);
  UNLOCK();
  return ok;
}

/* Unsynchronized, as gc.h documents: clients call it with the lock held. */
GC_API void GC_set_max_heap_size(GC_word n) {
  size_t max = n == ~(GC_word)0 ? 0 : (size_t)n;
  __atomic_store_n(&gc.max_heap, max, __ATOMIC_RELAXED);
  arena_set_heap_limit(max);
}

GC_API void GC_set_free_space_divisor(GC_word value) {
  if (value > 0) GC_free_space_divisor = value;
}
GC_API GC_word GC_get_free_space_divisor(void) { return GC_free_space_divisor; }
GC_API void GC_set_dont_expand(int value) { GC_dont_expand = value; }
GC_API int GC_get_dont_expand(void) { return GC_dont_expand; }
GC_API void GC_set_max_retries(GC_word n) { GC_max_retries = n; }
GC_API GC_word GC_get_max_retries(void) { return GC_max_retries; }
GC_API void GC_set_dont_precollect(int value) { GC_dont_precollect = value; }
GC_API int GC_get_dont_precollect(void) { return GC_dont_precollect; }
GC_API void GC_set_full_freq(int value) { GC_full_freq = value; }
GC_API int GC_get_full_freq(void) { return GC_full_freq; }
GC_API void GC_set_time_limit(unsigned long value) { GC_time_limit = value; }
GC_API unsigned long GC_get_time_limit(void) { return GC_time_limit; }
GC_API void GC_set_use_entire_heap(int value) { GC_use_entire_heap = value; }
GC_API int GC_get_use_entire_heap(void) { return GC_use_entire_heap; }
GC_API void GC_set_non_gc_bytes(GC_word value) { GC_non_gc_bytes = value; }
GC_API GC_word GC_get_non_gc_bytes(void) { return GC_non_gc_bytes; }
GC_API int GC_get_parallel(void) { return GC_parallel; }

GC_API void GC_set_all_interior_pointers(int value) {
  LOCK();
  GC_all_interior_pointers = value ? 1 : 0;
  gc.extra_bytes = (size_t)GC_all_interior_pointers;
  UNLOCK();
}
GC_API int GC_get_all_interior_pointers(void) { return GC_all_interior_pointers; }

GC_API void GC_set_no_dls(int value) { GC_no_dls = value; }
GC_API int GC_get_no_dls(void) { return GC_no_dls; }

GC_API void GC_register_displacement(size_t offset) {
  if (offset >= BLOCK_BYTES) {
    gc_warn("GC Warning: displacement %lu too large, ignored\n", (GC_word)offset);
    return;
  }
  LOCK();
  mark_register_displacement(offset);
  UNLOCK();
}

/* ---- callbacks -------------------------------------------------------------- */

/* Setters of callbacks the headers declare nonnull: NULL restores the
   default rather than leave a NULL to be called. */
GC_API void GC_set_oom_fn(GC_oom_func fn) { GC_oom_fn = fn ? fn : gc_default_oom_fn; }
GC_API GC_oom_func GC_get_oom_fn(void) { return GC_oom_fn; }

GC_API void GC_set_warn_proc(GC_warn_proc proc) {
  LOCK();
  gc.warn_proc = proc ? proc : gc_default_warn_proc;
  UNLOCK();
}
GC_API GC_warn_proc GC_get_warn_proc(void) { return gc.warn_proc; }

GC_API void GC_set_abort_func(GC_abort_func fn) { GC_on_abort = fn ? fn : gc_default_abort_func; }
GC_API GC_abort_func GC_get_abort_func(void) { return GC_on_abort; }

GC_API void GC_set_on_collection_event(GC_on_collection_event_proc fn) {
  LOCK();
  gc.on_event = fn;
  UNLOCK();
}
GC_API GC_on_collection_event_proc GC_get_on_collection_event(void) { return gc.on_event; }

GC_API void GC_set_push_other_roots(GC_push_other_roots_proc fn) { GC_push_other_roots = fn; }
GC_API GC_push_other_roots_proc GC_get_push_other_roots(void) { return GC_push_other_roots; }

GC_API void GC_set_on_heap_resize(GC_on_heap_resize_proc fn) { GC_on_heap_resize = fn; }
GC_API GC_on_heap_resize_proc GC_get_on_heap_resize(void) { return GC_on_heap_resize; }

/* ---- statistics ---------------------------------------------------------------- */

/* bdwgc's definitions: the heap is the memory obtained for it and still
   mapped (the arena's committed chunks); free bytes are those of its blocks
   that hold no object (free slots inside small blocks are not counted, as
   bdwgc does not count them); unmapped bytes were returned to the OS but
   still count in the full heap size. So free <= heap size, and heap size -
   free = the bytes of blocks in use (GC_get_memory_use). The pacing budget
   is internal. */
GC_API size_t GC_get_heap_size(void) { return arena_committed_bytes(); }

/* Unsynchronized, like the other getters here (gc.h: clients call them
   from callbacks that hold the lock); only counters are read. */
GC_API size_t GC_get_free_bytes(void) {
  return heap_free_bytes();
}

GC_API size_t GC_get_unmapped_bytes(void) { return arena_unmapped_bytes(); }
GC_API size_t GC_get_bytes_since_gc(void) { return gc.bytes_since_gc; }
GC_API size_t GC_get_total_bytes(void) {
  return size_add_saturated(gc.total_bytes, gc.bytes_since_gc);
}
GC_API size_t GC_get_memory_use(void) {
  LOCK();
  size_t used = heap_blocks_in_use() * BLOCK_BYTES;
  UNLOCK();
  return used;
}

GC_API void GC_get_heap_usage_safe(GC_word *pheap_size, GC_word *pfree_bytes,
                                   GC_word *punmapped_bytes, GC_word *pbytes_since_gc,
                                   GC_word *ptotal_bytes) {
  LOCK();
  if (pheap_size) *pheap_size = arena_committed_bytes();
  if (pfree_bytes) *pfree_bytes = heap_free_bytes();
  if (punmapped_bytes) *punmapped_bytes = arena_unmapped_bytes();
  if (pbytes_since_gc) *pbytes_since_gc = gc.bytes_since_gc;
  if (ptotal_bytes) *ptotal_bytes = size_add_saturated(gc.total_bytes, gc.bytes_since_gc);
  UNLOCK();
}

GC_API GC_word GC_get_gc_no(void) { return GC_gc_no; }

GC_API unsigned GC_get_version(void) {
  return ((unsigned)GC_VERSION_MAJOR << 16) | ((unsigned)GC_VERSION_MINOR << 8) | GC_VERSION_MICRO;
}

/* ---- object queries --------------------------------------------------------------- */

GC_API void *GC_base(void *p) { return object_base(p); }
GC_API size_t GC_size(const void *p) { return object_size(p); }

GC_API int GC_is_heap_ptr(const void *p) {
  struct block *b = pt_block_of((uintptr_t)p);
  if (!b || pt_is_static_desc(b)) return 0;
  if (b->state != BLOCK_UNUSED) return 1;
  struct region_info *ri = pt_region_info(block_array_of(b));
  return ri->chunk_committed[((uintptr_t)p >> CHUNK_SHIFT) & (CHUNKS_PER_REGION - 1)] != 0;
}

/* ---- bibop.h ---------------------------------------------------------------------- */

/* The range table changes under the allocation lock and ranges_lock
   (taken in that order); bibop_classify reads it under ranges_lock alone,
   so a mark procedure may call it while the collector holds the
   allocation lock. */
static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;

BIBOP_API bibop_addr_class bibop_classify(const void *addr) {
  bibop_addr_class c = pt_classify_heap((uintptr_t)addr);
  if (c != BIBOP_ADDR_UNKNOWN || !__atomic_load_n(&pt_range_count, __ATOMIC_ACQUIRE)) return c;
  pthread_mutex_lock(&ranges_lock);
  c = pt_range_classify((uintptr_t)addr);
  pthread_mutex_unlock(&ranges_lock);
  return c;
}

static int register_range(const void *start, size_t len, bibop_addr_class cls) {
  gc_ensure_init();
  uintptr_t lo = (uintptr_t)start;
  if (len == 0 || lo + len < lo) { errno = EINVAL; return -1; }
  LOCK();
  pthread_mutex_lock(&ranges_lock);
  int r = pt_range_add(lo, lo + len, cls);
  pthread_mutex_unlock(&ranges_lock);
  UNLOCK();
  return r;
}

BIBOP_API int bibop_register_static(const void *start, size_t len) {
  return register_range(start, len, BIBOP_ADDR_STATIC);
}

BIBOP_API int bibop_register_foreign(const void *start, size_t len) {
  return register_range(start, len, BIBOP_ADDR_FOREIGN);
}

BIBOP_API int bibop_unregister_range(const void *start) {
  gc_ensure_init();
  LOCK();
  pthread_mutex_lock(&ranges_lock);
  int r = pt_range_remove((uintptr_t)start);
  pthread_mutex_unlock(&ranges_lock);
  UNLOCK();
  return r;
}

BIBOP_API void bibop_get_gc_stats(struct bibop_gc_stats *out) {
  if (!out) return;
  LOCK();
  memset(out, 0, sizeof *out);
  out->gc_no = GC_gc_no;
  out->pause_ns = gc.last_pause_ns;
  out->total_pause_ns = gc.total_pause_ns;
  out->max_pause_ns = gc.max_pause_ns;
  out->heap_bytes = arena_committed_bytes();
  out->live_bytes = gc.live_ptr_bytes + gc.live_atomic_bytes;
  out->committed_bytes = arena_committed_bytes();
  out->marked_objects = gc.marked_objects;
  UNLOCK();
}

GC_API void GC_ignore_warn_proc(char *msg, GC_word arg) {
  (void)msg;
  (void)arg;
}

/* ---- small pieces of the interface that gc_inline.h and old clients use ---- */

GC_API void *GC_malloc_kind(size_t lb, int k) { return alloc_generic(lb, k); }
GC_API void *GC_malloc_kind_global(size_t lb, int k) { return alloc_generic(lb, k); }
/* Stubborn objects are an obsolete bdwgc feature: every object is ordinary. */
GC_API void GC_change_stubborn(const void *p) { (void)p; }
GC_API void GC_end_stubborn_change(const void *p) { (void)p; }
/* Keeps x live in the caller's frame: the compiler cannot drop it. */
GC_API void GC_noop1(GC_word x) {
  __asm__ volatile("" : : "r"(x) : "memory");
}

/* ---- the rest of what real clients import ------------------------------------ */

GC_API void GC_set_start_callback(GC_start_callback_proc fn) {
  LOCK();
  gc.start_callback = fn;
  UNLOCK();
}
GC_API GC_start_callback_proc GC_get_start_callback(void) { return gc.start_callback; }

/* bibop is not incremental: collections are always whole (documented). */
GC_API void GC_enable_incremental(void) {}
GC_API int GC_is_incremental_mode(void) { return 0; }


GC_API void GC_push_finalizer_structures(void) {}

GC_API void GC_dump(void) {
  LOCK();
  gc_dump_locked(stdout);
  UNLOCK();
}
