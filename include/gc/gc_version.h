/*
 * bibop: version of the bdwgc interface these headers implement (8.2.2).
 * Included by gc.h only; GC_get_version() reports the library's own value.
 */

#if defined(GC_H)

#define GC_TMP_VERSION_MAJOR 8
#define GC_TMP_VERSION_MINOR 2
#define GC_TMP_VERSION_MICRO 2

#ifndef GC_VERSION_MAJOR
# define GC_VERSION_MAJOR GC_TMP_VERSION_MAJOR
# define GC_VERSION_MINOR GC_TMP_VERSION_MINOR
# define GC_VERSION_MICRO GC_TMP_VERSION_MICRO
#elif GC_VERSION_MAJOR != GC_TMP_VERSION_MAJOR \
      || GC_VERSION_MINOR != GC_TMP_VERSION_MINOR \
      || GC_VERSION_MICRO != GC_TMP_VERSION_MICRO
# error GC_VERSION_* predefined with a value other than 8.2.2
#endif

#endif /* GC_H */
