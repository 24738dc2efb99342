/*
 * bibop: granule size and "tiny" free-list geometry shared with inlined
 * client allocators (bdwgc 8.2 gc_tiny_fl.h compatible).  Part of the
 * binary interface: free list i holds objects of i granules.
 */

#ifndef GC_TINY_FL_H
#define GC_TINY_FL_H

/* Allocation granule: two pointers (16 bytes on 64-bit targets). */
#ifndef GC_GRANULE_BYTES
# if defined(__LP64__) || defined(_LP64)
#   define GC_GRANULE_BYTES 16
# else
#   define GC_GRANULE_BYTES 8
# endif
# define GC_GRANULE_WORDS 2
#endif

#if GC_GRANULE_WORDS == 2
# define GC_WORDS_TO_GRANULES(n) ((n)>>1)
#else
# define GC_WORDS_TO_GRANULES(n) ((n)*sizeof(void *)/GC_GRANULE_BYTES)
#endif

/* Number of tiny free lists (sizes 0 .. GC_TINY_FREELISTS-1 granules). */
#ifndef GC_TINY_FREELISTS
# if GC_GRANULE_BYTES == 16
#   define GC_TINY_FREELISTS 25
# else
#   define GC_TINY_FREELISTS 33
# endif
#endif

/* Object size in bytes for free list i (any added end byte included). */
#define GC_RAW_BYTES_FROM_INDEX(i) ((i) * GC_GRANULE_BYTES)

#endif /* GC_TINY_FL_H */
