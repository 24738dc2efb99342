/*
 * bibop: back-pointer queries for heap debugging (bdwgc 8.2 gc_backptr.h
 * compatible): who references an object, and random heap sampling.  Only
 * meaningful after a collection, and only in libraries built with support.
 */

#ifndef GC_BACKPTR_H
#define GC_BACKPTR_H

#ifndef GC_H
# include "gc.h"
#endif

#ifdef __cplusplus
  extern "C" {
#endif

/* What GC_get_back_ptr_info found as the referrer of an object. */
typedef enum {
  GC_UNREFERENCED,      /* nothing known                              */
  GC_NO_SPACE,          /* object not allocated by a debug allocator   */
  GC_REFD_FROM_ROOT,    /* a root at *base_p                          */
  GC_REFD_FROM_REG,     /* a register (root without an address)       */
  GC_REFD_FROM_HEAP,    /* heap object *base_p at offset *offset_p    */
  GC_FINALIZER_REFD     /* kept alive because it is finalizable       */
} GC_ref_kind;

/* Describe the (last traced) referrer of the object containing dest. */
GC_API GC_ref_kind GC_CALL GC_get_back_ptr_info(void * /* dest */,
                                void ** /* base_p */, size_t * /* offset_p */)
                                GC_ATTR_NONNULL(1);

/* A random address in the heap / inside a live marked object. */
GC_API void * GC_CALL GC_generate_random_heap_address(void);
GC_API void * GC_CALL GC_generate_random_valid_address(void);

/* Collect, then print the reference chain of a random live object. */
GC_API void GC_CALL GC_generate_random_backtrace(void);

/* Print the reference chain of the given object (collect first). */
GC_API void GC_CALL GC_print_backtrace(void *) GC_ATTR_NONNULL(1);

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_BACKPTR_H */
