/*
 * boxroot.h: boxroots — GC roots that live in memory the collector does not
 * scan (C heap, C++ containers, foreign libraries), created and deleted in
 * O(1) (names and contracts of Munch-Maccagnoni and Scherer, "Boxroot").
 *
 * A boxroot is a pointer to a one-word cell that the collector treats as a
 * root: the object stored in it survives collections. Cells live in pools
 * of bibop's own memory; each thread creates from its own pool with no
 * lock. A boxroot may be deleted, read and modified from any thread.
 * The value stored must not point into a boxroot pool itself.
 */
#ifndef BOXROOT_H
#define BOXROOT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
# define BOXROOT_API __attribute__((visibility("default")))
#else
# define BOXROOT_API
#endif

typedef struct boxroot_cell *boxroot;

/* A new root holding v; NULL only if no pool memory can be obtained. */
BOXROOT_API boxroot boxroot_create(void *v);

/* The value held (one load). */
static inline void *boxroot_get(boxroot r) { return *(void **)r; }

/* The cell itself, for in-place updates by the client (one load). */
static inline void **boxroot_get_ref(boxroot r) { return (void **)r; }

/* Release the root; r must not be used afterwards. */
BOXROOT_API void boxroot_delete(boxroot r);

/* Store v in *r's cell; never fails, never reallocates. */
BOXROOT_API void boxroot_modify(boxroot *r, void *v);

/* Counts are read without stopping other threads: while they create and
   delete, live may be over-estimated (never negative); exact when quiet. */
struct boxroot_stats {
  size_t live;          /* roots created and not deleted */
  size_t peak;          /* most live roots seen at a statistics call or a
                           collection (not tracked on every create) */
  size_t pools;         /* pools in existence */
  size_t creations;     /* boxroot_create calls that succeeded */
  size_t deletions;     /* boxroot_delete calls */
};
BOXROOT_API void boxroot_get_stats(struct boxroot_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* BOXROOT_H */
