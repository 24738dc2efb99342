/*
 * bibop: disclaim callbacks and finalized allocation (bdwgc 8.2
 * gc_disclaim.h compatible): a per-kind hook called on objects about to be
 * reclaimed, and GC_finalized_malloc built on it.
 */

#ifndef GC_DISCLAIM_H
#define GC_DISCLAIM_H

#include "gc.h"

#ifdef __cplusplus
  extern "C" {
#endif

/* Set up the kind used by GC_finalized_malloc (thread-safe; call first). */
GC_API void GC_CALL GC_init_finalized_malloc(void);

/* Called (lock held) on an unreachable object; nonzero keeps it this cycle. */
typedef int (GC_CALLBACK *GC_disclaim_proc)(void * /*obj*/);

/* Install proc for objects of kind; mark_from_all nonzero also keeps     */
/* everything reachable from such objects alive until they are disclaimed. */
GC_API void GC_CALL GC_register_disclaim_proc(int /*kind*/,
                                GC_disclaim_proc /*proc*/,
                                int /*mark_from_all*/) GC_ATTR_NONNULL(2);

/* Finalizer and its data for GC_finalized_malloc. */
struct GC_finalizer_closure {
  GC_finalization_proc proc;
  void *cd;
};

/* Allocate size bytes whose finalizer fc runs when they are reclaimed     */
/* (the object is freed in that same cycle; GC_base points one word before). */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_finalized_malloc(size_t /*size*/,
                const struct GC_finalizer_closure * /*fc*/) GC_ATTR_NONNULL(2);

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_DISCLAIM_H */
