/*
 * bibop: leak-detector mode (bdwgc 8.2 leak_detector.h compatible).
 * Including it (e.g. with -include) turns on GC_DEBUG and routes malloc,
 * calloc, free, realloc, strdup, memalign, ... to the collector.
 */

#ifndef GC_LEAK_DETECTOR_H
#define GC_LEAK_DETECTOR_H

#ifndef GC_DEBUG
# define GC_DEBUG
#endif
#include "gc.h"

/* Pull in the real declarations before the names are redefined. */
#ifndef GC_DONT_INCLUDE_STDLIB
# include <stdlib.h>
# include <string.h>
#endif

#undef malloc
#define malloc(n) GC_MALLOC(n)
#undef calloc
#define calloc(m,n) GC_MALLOC((m)*(n))
#undef free
#define free(p) GC_FREE(p)
#undef realloc
#define realloc(p,n) GC_REALLOC(p,n)

#undef strdup
#define strdup(s) GC_STRDUP(s)
#undef strndup
#define strndup(s,n) GC_STRNDUP(s,n)

#ifdef GC_REQUIRE_WCSDUP
# include <wchar.h>
# undef wcsdup
# define wcsdup(s) GC_WCSDUP(s)
#endif

#undef memalign
#define memalign(a,n) GC_memalign(a,n)
#undef posix_memalign
#define posix_memalign(p,a,n) GC_posix_memalign(p,a,n)

/* Collect now, reporting leaks found so far. */
#ifndef CHECK_LEAKS
# define CHECK_LEAKS() GC_gcollect()
#endif

#endif /* GC_LEAK_DETECTOR_H */
