/*
 * api_settings.c: bdwgc's settings — heap size and pacing knobs, the
 * client's callbacks (oom, warn, abort, collection events), the switches
 * bibop honours and the tuning knobs of features it does not have
 * (incremental collection, virtual dirty bits), kept so that a client reads
 * back what it wrote. Each knob without effect is listed with its reason in
 * docs/COMPATIBILITY.md. The values live in state.c; this file only
 * translates the interface.
 */
#include "internal.h"

#include <unistd.h>

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
GC_API GC_warn_proc GC_get_warn_proc(void) { return gc.warn_proc ? gc.warn_proc : gc_default_warn_proc; }

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

/* ---- settings kept for clients, without effect (see COMPATIBILITY.md) -- */

static GC_word allocd_bytes_per_finalizer;
static int manual_vdb_allowed, max_prior_attempts, rate = 10, pages_executable;
static struct GC_timeval_s time_limit_tv = { 50, 0 };
static GC_stop_func stop_func;
static GC_await_finalize_proc await_finalize_proc;
static GC_on_thread_event_proc on_thread_event;

GC_API void GC_set_allocd_bytes_per_finalizer(GC_word v) { allocd_bytes_per_finalizer = v; }
GC_API GC_word GC_get_allocd_bytes_per_finalizer(void) { return allocd_bytes_per_finalizer; }
GC_API void GC_set_manual_vdb_allowed(int v) { manual_vdb_allowed = v; }
GC_API int GC_get_manual_vdb_allowed(void) { return manual_vdb_allowed; }
GC_API void GC_set_max_prior_attempts(int v) { max_prior_attempts = v; }
GC_API int GC_get_max_prior_attempts(void) { return max_prior_attempts; }
GC_API void GC_set_rate(int v) { rate = v; }
GC_API int GC_get_rate(void) { return rate; }
GC_API void GC_set_pages_executable(int v) { pages_executable = v; }
GC_API int GC_get_pages_executable(void) { return pages_executable; }
GC_API void GC_set_time_limit_tv(struct GC_timeval_s tv) { time_limit_tv = tv; }
GC_API struct GC_timeval_s GC_get_time_limit_tv(void) { return time_limit_tv; }
GC_API void GC_set_stop_func(GC_stop_func fn) { stop_func = fn; }
GC_API GC_stop_func GC_get_stop_func(void) { return stop_func; }
GC_API void GC_set_await_finalize_proc(GC_await_finalize_proc fn) { await_finalize_proc = fn; }
GC_API GC_await_finalize_proc GC_get_await_finalize_proc(void) { return await_finalize_proc; }
GC_API void GC_set_on_thread_event(GC_on_thread_event_proc fn) { on_thread_event = fn; }
GC_API GC_on_thread_event_proc GC_get_on_thread_event(void) { return on_thread_event; }
GC_API int GC_incremental_protection_needs(void) { return 0; }   /* no write barrier */
GC_API void GC_start_incremental_collection(void) {}
GC_API void GC_deinit(void) {}   /* bibop's memory goes with the process */
GC_API void GC_register_altstack(void *s, GC_word ss, void *a, GC_word as) {
  (void)s, (void)ss, (void)a, (void)as;
}
GC_API void GC_register_describe_type_fn(int kind, GC_describe_type_fn fn) { (void)kind, (void)fn; }
GC_API int GC_is_tmp_root(void *p) { (void)p; return 0; }   /* no temporary roots */

/* ---- real settings ------------------------------------------------------ */

GC_API void GC_set_disable_automatic_collection(int v) {
  LOCK();
  gc.no_automatic_collection = v != 0;
  UNLOCK();
}
GC_API int GC_get_disable_automatic_collection(void) { return gc.no_automatic_collection; }
GC_API void GC_set_force_unmap_on_gcollect(int v) { gc.unmap_on_gcollect = v != 0; }
GC_API int GC_get_force_unmap_on_gcollect(void) { return gc.unmap_on_gcollect; }
GC_API void GC_set_min_bytes_allocd(size_t v) { gc.min_bytes_floor = v ? v : 1; }
/* bdwgc's default minimum is 1 byte; bibop's own floor when none was set
   (64 KiB, collect.c) is internal. */
GC_API size_t GC_get_min_bytes_allocd(void) { return gc.min_bytes_floor ? gc.min_bytes_floor : 1; }

GC_API void GC_set_log_fd(int fd) {
  FILE *f = fdopen(dup(fd), "a");
  if (f) gc.log = f;
}

GC_API void GC_clear_exclusion_table(void) {
  LOCK();
  roots_clear_exclusions();
  UNLOCK();
}

GC_API void GC_abort_on_oom(void) {
  gc_abort("bibop: out of memory (GC_abort_on_oom)");
}
