/*
 * bibop: inline allocation from client-owned "tiny" free lists (bdwgc 8.2
 * gc_inline.h compatible): GC_FAST_MALLOC_GRANS and the GC_MALLOC_WORDS /
 * GC_CONS helpers built on it, refilled by GC_generic_malloc_many().
 * The caller must add any one-past-the-end byte itself.
 */

#ifndef GC_INLINE_H
#define GC_INLINE_H

#include "gc.h"
#include "gc_tiny_fl.h"

/* Branch-prediction hint: expr, expected to equal outcome. */
#define GC_EXPECT(expr, outcome) __builtin_expect(expr,outcome)

#ifndef GC_ASSERT
# ifdef NDEBUG
#   define GC_ASSERT(expr)
# else
#   include <assert.h>
#   define GC_ASSERT(expr) assert(expr)
# endif
#endif

#ifdef __cplusplus
  extern "C" {
#endif

#ifndef GC_PREFETCH_FOR_WRITE
# ifndef GC_NO_PREFETCH_FOR_WRITE
#   define GC_PREFETCH_FOR_WRITE(x) __builtin_prefetch((x), 1)
# else
#   define GC_PREFETCH_FOR_WRITE(x) (void)0
# endif
#endif

/* Kind numbers of pointer-free and ordinary (scanned) objects. */
#define GC_I_PTRFREE 0
#define GC_I_NORMAL 1

/* Put in *result a chain of new lb-byte objects of kind k, linked through */
/* their first words (NULL when memory ran out).  The caller must keep     */
/* *result visible to the collector, even for pointer-free kinds.          */
GC_API void GC_CALL GC_generic_malloc_many(size_t /* lb */, int /* k */,
                                           void ** /* result */);

/* Allocate lb bytes of kind k (thread-local free lists when available). */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc_kind(size_t /* lb */, int /* k */);

#ifdef GC_THREADS
  /* The same, always from the global free lists. */
  GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc_kind_global(size_t /* lb */, int /* k */);
#else
# define GC_malloc_kind_global GC_malloc_kind
#endif

/* Free-list head update (atomic when libatomic_ops is in use). */
#if defined(GC_THREADS) && defined(AO_HAVE_store)
# define GC_FAST_M_AO_STORE(my_fl, next) \
        AO_store((volatile AO_t *)(my_fl), (AO_t)(next))
#else
# define GC_FAST_M_AO_STORE(my_fl, next) (void)(*(my_fl) = (next))
#endif

/*
 * result = an object of `granules` granules taken from tiny_fl[granules],
 * an array of GC_TINY_FREELISTS heads.  Sizes beyond the array use
 * default_expr.  An entry is either a list (refilled with
 * GC_generic_malloc_many of kind `kind` when empty), or a small count: while
 * it is at most num_direct the request is served by default_expr and the
 * count grows by granules + 1.  `init` runs on each object taken from a list.
 * Entry 0 serves zero-byte requests with one-granule objects.  On refill
 * failure the result comes from the out-of-memory handler.
 */
#define GC_FAST_MALLOC_GRANS(result, granules, tiny_fl, num_direct, \
                             kind, default_expr, init) \
  do { \
    if (GC_EXPECT((granules) >= GC_TINY_FREELISTS, 0)) { \
      result = (default_expr); \
    } else { \
      void **my_fl = (tiny_fl) + (granules); \
      void *my_entry = *my_fl; \
      void *next; \
      for (;;) { \
        if (GC_EXPECT((GC_word)my_entry \
                      > (num_direct) + GC_TINY_FREELISTS + 1, 1)) { \
          /* a real list: pop its head */ \
          next = *(void **)(my_entry); \
          result = (void *)my_entry; \
          GC_FAST_M_AO_STORE(my_fl, next); \
          init; \
          GC_PREFETCH_FOR_WRITE(next); \
          if ((kind) != GC_I_PTRFREE) { \
            GC_end_stubborn_change(my_fl); \
            GC_reachable_here(next); \
          } \
          GC_ASSERT(GC_size(result) >= (granules)*GC_GRANULE_BYTES); \
          GC_ASSERT((kind) == GC_I_PTRFREE \
                    || ((GC_word *)result)[1] == 0); \
          break; \
        } \
        if ((GC_signed_word)my_entry - (GC_signed_word)(num_direct) <= 0 \
            && my_entry != 0) { \
          /* a small count: allocate directly and bump it */ \
          GC_FAST_M_AO_STORE(my_fl, (char *)my_entry + (granules) + 1); \
          result = (default_expr); \
          break; \
        } \
        /* empty, or the count ran out: refill the list and retry */ \
        GC_generic_malloc_many((granules) == 0 ? GC_GRANULE_BYTES \
                                 : GC_RAW_BYTES_FROM_INDEX(granules), \
                               kind, my_fl); \
        my_entry = *my_fl; \
        if (my_entry == 0) { \
          result = (*GC_get_oom_fn())((granules)*GC_GRANULE_BYTES); \
          break; \
        } \
      } \
    } \
  } while (0)

/* Granules needed for n words. */
#define GC_WORDS_TO_WHOLE_GRANULES(n) \
        GC_WORDS_TO_GRANULES((n) + GC_GRANULE_WORDS - 1)

/* result = an n-word object of the given kind from a cleared tiny_fl     */
/* array (no lock taken; a single-threaded client may use a global one). */
#define GC_MALLOC_WORDS_KIND(result, n, tiny_fl, kind, init) \
  do { \
    size_t granules = GC_WORDS_TO_WHOLE_GRANULES(n); \
    GC_FAST_MALLOC_GRANS(result, granules, tiny_fl, 0, kind, \
                         GC_malloc_kind(granules*GC_GRANULE_BYTES, kind), \
                         init); \
  } while (0)

/* n-word scanned object (first word cleared) / pointer-free object. */
#define GC_MALLOC_WORDS(result, n, tiny_fl) \
        GC_MALLOC_WORDS_KIND(result, n, tiny_fl, GC_I_NORMAL, \
                             *(void **)(result) = 0)
#define GC_MALLOC_ATOMIC_WORDS(result, n, tiny_fl) \
        GC_MALLOC_WORDS_KIND(result, n, tiny_fl, GC_I_PTRFREE, (void)0)

/* result = a two-word scanned object holding (first, second). */
#define GC_CONS(result, first, second, tiny_fl) \
  do { \
    void *l = (void *)(first); \
    void *r = (void *)(second); \
    GC_MALLOC_WORDS_KIND(result, 2, tiny_fl, GC_I_NORMAL, (void)0); \
    if ((result) != 0) { \
      *(void **)(result) = l; \
      GC_PTR_STORE_AND_DIRTY((void **)(result) + 1, r); \
      GC_reachable_here(l); \
    } \
  } while (0)

/* Debug print of one global free list (kind, size in granules). */
GC_API void GC_CALL GC_print_free_list(int /* kind */,
                                       size_t /* sz_in_granules */);

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_INLINE_H */
