/*
 * external.c: external-memory pacing (paper 002). Objects that own large
 * foreign memory (GMP integers, images, buffers) tell the collector how many
 * bytes they hold outside the heap, so that collections keep pace with the
 * foreign memory, not just with the small handles.
 *
 * The pacing rule (collect.c) counts external bytes with heap bytes: a
 * collection is due when bytes allocated since the last one, heap and
 * external together, exceed (live heap + live external) / divisor. Reports
 * can come from any thread (atomic counters); an external report can
 * trigger a collection by itself, at the reporting call.
 * Attached accounting: bibop_malloc_external allocates an object with a
 * finalizer that releases its foreign memory; the collector retracts the
 * object's external bytes right after that finalizer has run, so the two
 * cannot drift apart.
 * Invariants: sums of heap and external bytes saturate at SIZE_MAX, never
 * wrap; an object's recorded external bytes are at most RECORD_MAX, so no
 * record can be read as finalize_set_external's "not found" answer.
 */
#include "internal.h"

_Atomic size_t external_live;        /* foreign bytes reported and not retracted */
_Atomic size_t external_since_gc;    /* reported since the last collection */

/* finalize_set_external answers (size_t)-1 for "no such object": a record
   holds one byte less at most (the counters saturate far below anyway). */
#define RECORD_MAX (SIZE_MAX - 1)

static size_t record_bytes(size_t bytes) { return bytes > RECORD_MAX ? RECORD_MAX : bytes; }

static size_t since_last_collection(void) {
  return size_add_saturated(gc.bytes_since_gc,
                            atomic_load_explicit(&external_since_gc, memory_order_relaxed));
}

static void collect_if_due(void) {
  if (GC_dont_gc || !gc.initialized || gc.no_automatic_collection) return;
  if (since_last_collection() < gc.min_bytes_allocd) return;
  LOCK();
  if (since_last_collection() >= gc.min_bytes_allocd && !GC_dont_gc) gc_collect_locked("external memory");
  UNLOCK();
  finalize_run_pending();
}

/* counter += bytes, saturating at SIZE_MAX rather than wrapping. */
static void saturating_add(_Atomic size_t *counter, size_t bytes) {
  size_t now = atomic_load_explicit(counter, memory_order_relaxed);
  size_t next;
  do {
    next = size_add_saturated(now, bytes);
  } while (!atomic_compare_exchange_weak_explicit(counter, &now, next, memory_order_relaxed,
                                                  memory_order_relaxed));
}

void external_report(size_t bytes) {
  saturating_add(&external_live, bytes);
  saturating_add(&external_since_gc, bytes);
}

/* Never below zero: a retraction larger than what is live is clamped. */
void external_retract(size_t bytes) {
  size_t live = atomic_load_explicit(&external_live, memory_order_relaxed);
  size_t next;
  do {
    next = live > bytes ? live - bytes : 0;
  } while (!atomic_compare_exchange_weak_explicit(&external_live, &live, next,
                                                  memory_order_relaxed, memory_order_relaxed));
}

BIBOP_API void bibop_alloc_external(size_t bytes) {
  gc_ensure_init();
  external_report(bytes);
  collect_if_due();
}

BIBOP_API void bibop_free_external(size_t bytes) {
  external_retract(bytes);
}

BIBOP_API void *bibop_malloc_external(size_t lb, size_t external_bytes,
                                      void (*release)(void *obj, void *cd), void *cd) {
  if (!release) return NULL;
  /* Report (and maybe collect) first: between the allocation and the
     return the new object is held only by this frame, which a thread in
     precise mode does not scan. */
  gc_ensure_init();
  external_bytes = record_bytes(external_bytes);
  external_report(external_bytes);
  collect_if_due();
  void *obj = GC_malloc(lb);
  if (!obj || !finalize_register_external(obj, release, cd, external_bytes)) {
    external_retract(external_bytes);
    return NULL;
  }
  return obj;
}

BIBOP_API int bibop_resize_external(void *obj, size_t external_bytes) {
  external_bytes = record_bytes(external_bytes);
  size_t old = finalize_set_external(obj, external_bytes);
  if (old == (size_t)-1) return -1;
  if (external_bytes > old) {
    external_report(external_bytes - old);
    collect_if_due();
  } else {
    external_retract(old - external_bytes);
  }
  return 0;
}

BIBOP_API void bibop_get_external_stats(struct bibop_external_stats *out) {
  if (!out) return;
  out->live_bytes = atomic_load(&external_live);
  out->since_gc_bytes = atomic_load(&external_since_gc);
  out->last_trigger_external_bytes = gc.last_trigger_external;
  out->last_trigger_heap_bytes = gc.last_trigger_heap;
}
