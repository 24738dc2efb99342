/*
 * bibop: allocation with an explicit pointer layout (bdwgc 8.2 gc_typed.h
 * compatible): build a descriptor from a bitmap of pointer-holding words,
 * then allocate objects or arrays that are scanned precisely with it.
 */

#ifndef GC_TYPED_H
#define GC_TYPED_H

#ifndef GC_H
# include "gc.h"
#endif

#ifdef __cplusplus
  extern "C" {
#endif

/* Bitmap of words that may hold pointers; bit 0 of word 0 = first word. */
typedef GC_word * GC_bitmap;

/* Bitmap helpers: bits per word, test/set bit, word offset of a field, */
/* words in a type, and bitmap words needed for a type.                 */
#define GC_WORDSZ (8 * sizeof(GC_word))
#define GC_get_bit(bm, index) \
        (((bm)[(index) / GC_WORDSZ] >> ((index) % GC_WORDSZ)) & 1)
#define GC_set_bit(bm, index) \
        ((bm)[(index) / GC_WORDSZ] |= (GC_word)1 << ((index) % GC_WORDSZ))
#define GC_WORD_OFFSET(t, f) (offsetof(t,f) / sizeof(GC_word))
#define GC_WORD_LEN(t) (sizeof(t) / sizeof(GC_word))
#define GC_BITMAP_SIZE(t) ((GC_WORD_LEN(t) + GC_WORDSZ - 1) / GC_WORDSZ)

/* A layout descriptor. */
typedef GC_word GC_descr;

/* Descriptor for objects whose first len words are described by bm (the */
/* rest hold no pointers).  Build it once per type and reuse it.         */
GC_API GC_descr GC_CALL GC_make_descriptor(const GC_word * /* GC_bitmap bm */,
                                size_t /* len (number_of_bits_in_bitmap) */);

/* Cleared object laid out as d (GC_realloc must not be used on it). */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc_explicitly_typed(size_t /* size_in_bytes */,
                                   GC_descr /* d */);
/* The same, kept alive only by pointers near its start. */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc_explicitly_typed_ignore_off_page(size_t /* size_in_bytes */,
                                                   GC_descr /* d */);
/* Cleared array of n elements, each element_size bytes laid out as d. */
GC_API GC_ATTR_MALLOC GC_ATTR_CALLOC_SIZE(1, 2) void * GC_CALL
        GC_calloc_explicitly_typed(size_t /* nelements */,
                                   size_t /* element_size_in_bytes */,
                                   GC_descr /* d */);

/* With GC_DEBUG the layout is ignored and GC_MALLOC is used. */
#ifdef GC_DEBUG
# define GC_MALLOC_EXPLICITLY_TYPED(bytes, d) ((void)(d), GC_MALLOC(bytes))
# define GC_CALLOC_EXPLICITLY_TYPED(n, bytes, d) \
        ((void)(d), GC_MALLOC((n) * (bytes)))
#else
# define GC_MALLOC_EXPLICITLY_TYPED(bytes, d) \
        GC_malloc_explicitly_typed(bytes, d)
# define GC_CALLOC_EXPLICITLY_TYPED(n, bytes, d) \
        GC_calloc_explicitly_typed(n, bytes, d)
#endif

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_TYPED_H */
