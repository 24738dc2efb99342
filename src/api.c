/*
 * api.c: bdwgc's interface for initialisation and collection requests,
 * object queries, aligned allocation and the small pieces old clients
 * use, and bibop.h's classification and range registration. Its siblings
 * in the interface layer: api_settings.c (settings and callbacks),
 * api_stats.c (statistics, enumeration, dumps), api_checks.c (checked
 * pointer arithmetic). The data symbols bdwgc exports live in state.c,
 * where every layer may read them. Owns no collector logic: it validates
 * arguments and calls the layers below.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- initialisation and collection ---------------------------------------- */

GC_API void GC_init(void) { gc_ensure_init(); }

GC_API int GC_is_init_called(void) { return gc.initialized; }

GC_API void GC_gcollect(void) {
  os_zero_stack_below();
  gc_collect_explicit();
}

GC_API int GC_try_to_collect(GC_stop_func stop_func) {
  (void)stop_func;   /* collections are not interruptible */
  os_zero_stack_below();
  gc_ensure_init();
  LOCK();
  int done = !GC_dont_gc;
  if (done) gc_collect_locked("explicit");
  gc_unlock_to_waiter();
  finalize_run_pending();
  return done;
}

GC_API void GC_gcollect_and_unmap(void) {
  os_zero_stack_below();
  gc_ensure_init();
  LOCK();
  if (!GC_dont_gc) gc_collect_locked("explicit, unmap");
  arena_decommit_idle(GC_gc_no, 0);
  heap_discard_idle_runs(GC_gc_no, 0);
  gc_unlock_to_waiter();
}

/* gc.h: "a small amount of garbage collection work", 0 when no collection
   is in progress. bibop's collections are not incremental: as bdwgc does
   when incremental mode is off, a whole collection runs only if one is due
   (enough allocated since the last; in generational mode it is a minor
   one), and 0 is returned. */
GC_API int GC_collect_a_little(void) {
  gc_ensure_init();
  LOCK();
  bool collected = gc_collect_if_due();
  UNLOCK();
  if (collected) finalize_run_pending();
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

/* bibop's incremental mode is generational collection (generations.c):
   minor collections from the next collection on, no client cooperation
   needed (GC_incremental_protection_needs: none). BIBOP_GENERATIONAL=0 or
   GC_DISABLE_INCREMENTAL forbid it. */
GC_API void GC_enable_incremental(void) {
  gc_ensure_init();
  LOCK();
  gc.generational_requested = true;
  UNLOCK();
}
GC_API int GC_is_incremental_mode(void) {
  return gc.generational || (gc.generational_requested && !gc.generational_forbidden && !GC_find_leak);
}


GC_API void GC_push_finalizer_structures(void) {}

GC_API void GC_dump(void) {
  LOCK();
  gc_dump_locked(stdout);
  UNLOCK();
}

/* ---- aligned allocation ------------------------------------------------------- */

GC_API void *GC_memalign(size_t align, size_t lb) {
  if (align == 0 || (align & (align - 1))) return NULL;
  if (align <= GRANULE_BYTES) return GC_malloc(lb);
  if (lb > SIZE_MAX - align) return alloc_out_of_memory(lb);
  /* Large objects start on block boundaries: enough for align <= 4 KiB. */
  char *p = GC_malloc(lb + align - 1 > MAX_SMALL_BYTES ? lb + align - 1 : MAX_SMALL_BYTES + 1);
  if (!p) return NULL;
  uintptr_t aligned = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
  if (aligned != (uintptr_t)p && !GC_all_interior_pointers && aligned - (uintptr_t)p < BLOCK_BYTES)
    GC_register_displacement(aligned - (uintptr_t)p);
  return (void *)aligned;
}

GC_API int GC_posix_memalign(void **memptr, size_t align, size_t lb) {
  if (!memptr || align < sizeof(void *) || (align & (align - 1))) return EINVAL;
  void *p = GC_memalign(align, lb);
  if (!p) return ENOMEM;
  *memptr = p;
  return 0;
}

GC_API void *GC_malloc_stubborn(size_t lb) { return GC_malloc(lb); }
GC_API void *GC_generic_or_special_malloc(size_t lb, int k) { return alloc_generic(lb, k); }
