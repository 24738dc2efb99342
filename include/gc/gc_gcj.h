/*
 * bibop: gcj-style allocation (bdwgc 8.2 gc_gcj.h compatible): the first
 * word of each object points to a type structure ("vtable") holding the
 * object's mark descriptor in its second word.
 */

#ifndef GC_GCJ_H
#define GC_GCJ_H

#ifndef GC_H
# include "gc.h"
#endif

#ifdef __cplusplus
  extern "C" {
#endif

/* Required before the allocators below: mp_index and mp (a GC_mark_proc) */
/* are the mark procedure used for debug-allocated gcj objects (env 1).   */
GC_API void GC_CALL GC_init_gcj_malloc(int /* mp_index */,
                                void * /* really mark_proc */ /* mp */);

/* Cleared object whose first word is set to the given type pointer; */
/* failures return GC_oom_fn(bytes).                                  */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_gcj_malloc(size_t /* lb */,
                      void * /* ptr_to_struct_containing_descr */);
/* Debug version (always marked through the mark procedure). */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_debug_gcj_malloc(size_t /* lb */,
                            void * /* ptr_to_struct_containing_descr */,
                            GC_EXTRA_PARAMS);
/* The same, kept alive only by pointers near its start. */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_gcj_malloc_ignore_off_page(size_t /* lb */,
                                void * /* ptr_to_struct_containing_descr */);

/* Kind numbers of gcj objects and of their debug variant. */
GC_API int GC_gcj_kind;
GC_API int GC_gcj_debug_kind;

#ifdef GC_DEBUG
# define GC_GCJ_MALLOC(s,d) GC_debug_gcj_malloc(s,d,GC_EXTRAS)
# define GC_GCJ_MALLOC_IGNORE_OFF_PAGE(s,d) GC_debug_gcj_malloc(s,d,GC_EXTRAS)
#else
# define GC_GCJ_MALLOC(s,d) GC_gcj_malloc(s,d)
# define GC_GCJ_MALLOC_IGNORE_OFF_PAGE(s,d) GC_gcj_malloc_ignore_off_page(s,d)
#endif

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_GCJ_H */
