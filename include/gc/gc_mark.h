/*
 * bibop: the marker interface for language runtimes (bdwgc 8.2 gc_mark.h
 * compatible): mark descriptors, client mark procedures, custom object
 * kinds, mark bits, and explicit pushes of ranges onto the mark stack.
 */

#ifndef GC_MARK_H
#define GC_MARK_H

#ifndef GC_H
# include "gc.h"
#endif

#ifdef __cplusplus
  extern "C" {
#endif

/* Average number of bytes a mark procedure is expected to scan per call. */
#define GC_PROC_BYTES 100

/* A mark stack entry.  Clients only hold pointers to entries; the       */
/* collector (which defines GC_BUILD or NOT_GCBUILD) supplies the layout. */
#if defined(GC_BUILD) || defined(NOT_GCBUILD)
  struct GC_ms_entry;
#else
  struct GC_ms_entry { void *opaque; };
#endif

/* Client mark procedure: pushes the references of the object at addr and */
/* returns the new top of the mark stack.  It may be called on a cleared  */
/* free-list object and concurrently from several marker threads.         */
typedef struct GC_ms_entry * (*GC_mark_proc)(GC_word * /* addr */,
                                struct GC_ms_entry * /* mark_stack_ptr */,
                                struct GC_ms_entry * /* mark_stack_limit */,
                                GC_word /* env */);

/* Mark procedure table size and indices reserved for fixed clients. */
#define GC_LOG_MAX_MARK_PROCS 6
#define GC_MAX_MARK_PROCS (1 << GC_LOG_MAX_MARK_PROCS)
#define GC_RESERVED_MARK_PROCS 8
#define GC_GCJ_RESERVED_MARK_PROC_INDEX 0

/* Object descriptors: the low GC_DS_TAG_BITS bits select the format. */
#define GC_DS_TAG_BITS 2
#define GC_DS_TAGS   ((1 << GC_DS_TAG_BITS) - 1)
#define GC_DS_LENGTH 0          /* whole word = object length in bytes   */
#define GC_DS_BITMAP 1          /* pointer bitmap, first word in the msb */
#define GC_DS_PROC   2          /* mark procedure index and environment  */
#define GC_MAKE_PROC(proc_index, env) \
        (((((env) << GC_LOG_MAX_MARK_PROCS) \
           | (proc_index)) << GC_DS_TAG_BITS) | GC_DS_PROC)
#define GC_DS_PER_OBJECT 3      /* descriptor stored in the object; a    */
                                /* negative value means indirect through */
                                /* the first word, biased as below       */
#define GC_INDIR_PER_OBJ_BIAS 0x10

/* Address bounds of everything that may be a heap object. */
GC_API void *GC_least_plausible_heap_addr;
GC_API void *GC_greatest_plausible_heap_addr;

/* From a mark procedure: mark obj if it is a heap object and push it if it */
/* was unmarked; gives back the updated stack pointer.  src is the place   */
/* obj was read from (for back-pointer debugging).                         */
GC_API struct GC_ms_entry * GC_CALL GC_mark_and_push(void * /* obj */,
                                struct GC_ms_entry * /* mark_stack_ptr */,
                                struct GC_ms_entry * /* mark_stack_limit */,
                                void ** /* src */);

/* GC_mark_and_push, skipped inline for values outside the heap bounds. */
#define GC_MARK_AND_PUSH(obj, msp, lim, src) \
        ((GC_word)(obj) >= (GC_word)GC_least_plausible_heap_addr && \
         (GC_word)(obj) <= (GC_word)GC_greatest_plausible_heap_addr ? \
         GC_mark_and_push(obj, msp, lim, src) : (msp))

/* Size of the header in front of debug-allocated objects. */
GC_API GC_ATTR_CONST size_t GC_CALL GC_get_debug_header_size(void);
#define GC_USR_PTR_FROM_BASE(p) \
        ((void *)((char *)(p) + GC_get_debug_header_size()))

/* The same as a variable (kept for old clients). */
GC_API GC_ATTR_DEPRECATED
#ifdef GC_BUILD
  const
#endif
  size_t GC_debug_header_size;

/* New free-list arrays, kinds and mark procedures for runtimes; the    */
/* _inner versions expect the caller to hold the allocator lock.       */
GC_API void ** GC_CALL GC_new_free_list(void);
GC_API void ** GC_CALL GC_new_free_list_inner(void);

/* New object kind: free list, descriptor template, whether to add the    */
/* object size to the descriptor, whether to clear new objects (0 or 1). */
GC_API unsigned GC_CALL GC_new_kind(void ** /* free_list */,
                            GC_word /* mark_descriptor_template */,
                            int /* add_size_to_descriptor */,
                            int /* clear_new_objects */) GC_ATTR_NONNULL(1);
GC_API unsigned GC_CALL GC_new_kind_inner(void ** /* free_list */,
                            GC_word /* mark_descriptor_template */,
                            int /* add_size_to_descriptor */,
                            int /* clear_new_objects */) GC_ATTR_NONNULL(1);

/* New mark procedure index, for use with GC_MAKE_PROC. */
GC_API unsigned GC_CALL GC_new_proc(GC_mark_proc);
GC_API unsigned GC_CALL GC_new_proc_inner(GC_mark_proc);

/* Allocation in a given kind: plain, first-page-only, uncollectable. */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_generic_malloc(size_t /* lb */, int /* knd */);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_generic_malloc_ignore_off_page(size_t /* lb */, int /* knd */);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_generic_malloc_uncollectable(size_t /* lb */, int /* knd */);

/* Allocate like an existing object (kind from GC_get_kind_and_size); */
/* not for gcj or typed kinds.                                        */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_generic_or_special_malloc(size_t /* size */, int /* knd */);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_debug_generic_or_special_malloc(size_t /* size */, int /* knd */,
                                           GC_EXTRA_PARAMS);

#ifdef GC_DEBUG
# define GC_GENERIC_OR_SPECIAL_MALLOC(sz, knd) \
        GC_debug_generic_or_special_malloc(sz, knd, GC_EXTRAS)
#else
# define GC_GENERIC_OR_SPECIAL_MALLOC(sz, knd) \
        GC_generic_or_special_malloc(sz, knd)
#endif

/* Kind of an object; also its size through psize when that is non-NULL. */
GC_API int GC_CALL GC_get_kind_and_size(const void *, size_t * /* psize */)
                        GC_ATTR_NONNULL(1);

/* Writes a description of object p's type (at most GC_TYPE_DESCR_LEN */
/* bytes) for debug output; one may be registered per kind.            */
typedef void (GC_CALLBACK *GC_describe_type_fn)(void * /* p */,
                                                char * /* out_buf */);
#define GC_TYPE_DESCR_LEN 40
GC_API void GC_CALL GC_register_describe_type_fn(int /* kind */,
                                                 GC_describe_type_fn);

/* Clear part of the unused stack; returns its argument. */
GC_API void * GC_CALL GC_clear_stack(void *);

/* Called (lock held) at the start of each full collection; 0 = none. */
/* It must not allocate or call into the collector.                   */
typedef void (GC_CALLBACK *GC_start_callback_proc)(void);
GC_API void GC_CALL GC_set_start_callback(GC_start_callback_proc);
GC_API GC_start_callback_proc GC_CALL GC_get_start_callback(void);

/* Mark bit access for an object start (allocator lock held). */
GC_API int GC_CALL GC_is_marked(const void *) GC_ATTR_NONNULL(1);
GC_API void GC_CALL GC_clear_mark_bit(const void *) GC_ATTR_NONNULL(1);
GC_API void GC_CALL GC_set_mark_bit(const void *) GC_ATTR_NONNULL(1);

/* Push [bottom, top) for scanning: all of it, scanned at once, or all or */
/* only its dirty pages (third argument).                                 */
GC_API void GC_CALL GC_push_all(void * /* bottom */, void * /* top */);
GC_API void GC_CALL GC_push_all_eager(void * /* bottom */, void * /* top */);
GC_API void GC_CALL GC_push_conditional(void * /* bottom */, void * /* top */,
                                        int /* bool all */);
/* Push the collector's finalization tables. */
GC_API void GC_CALL GC_push_finalizer_structures(void);

/* Extra root-pushing hook; a replacement should call the previous one. */
typedef void (GC_CALLBACK *GC_push_other_roots_proc)(void);
GC_API void GC_CALL GC_set_push_other_roots(GC_push_other_roots_proc);
GC_API GC_push_other_roots_proc GC_CALL GC_get_push_other_roots(void);

/* Visit every reachable object (allocator lock held). */
typedef void (GC_CALLBACK *GC_reachable_object_proc)(void * /* obj */,
                                                size_t /* bytes */,
                                                void * /* client_data */);
GC_API void GC_CALL GC_enumerate_reachable_objects_inner(
                                GC_reachable_object_proc,
                                void * /* client_data */) GC_ATTR_NONNULL(1);

/* Nonzero if the address is inside a temporary root range. */
GC_API int GC_CALL GC_is_tmp_root(void *);

/* Print the collector's trace buffer back to collection gc_no. */
GC_API void GC_CALL GC_print_trace(GC_word /* gc_no */);
GC_API void GC_CALL GC_print_trace_inner(GC_word /* gc_no */);

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_MARK_H */
