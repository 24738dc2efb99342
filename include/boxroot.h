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

/* ---- private: what the inline fast paths below need to see ----------------
 * Not part of the API; names end in '_'. src/boxroot.c explains the design.
 * A pool is BOXROOT_POOL_BYTES_ aligned to its size; its header starts with
 * boxroot_pool_head_. Each thread has one boxroot_local_ (initial-exec TLS,
 * no function call to reach it). */
#define BOXROOT_POOL_BYTES_ ((unsigned long)16 << 10)

struct boxroot_local_;
struct boxroot_pool_head_ {
  void **free;                    /* owner's free list; ends at the pool itself */
  struct boxroot_local_ *owner;   /* owning thread; NULL: orphan */
  size_t used;                    /* owner's creations minus owner's deletions here */
};

struct boxroot_local_ {
  struct boxroot_pool_head_ *pool;  /* current pool: creations pop from it */
  long live;                        /* roots this thread created minus those it deleted */
  long limit;                       /* create fast only while live < limit (see peak) */
  size_t deletions;                 /* boxroot_delete calls by this thread */
  struct boxroot_local_ *next;      /* every linked thread (library lock) */
  int linked;
};

BOXROOT_API extern __thread struct boxroot_local_ boxroot_local_
    __attribute__((tls_model("initial-exec")));

BOXROOT_API boxroot boxroot_create_slow_(void *v);
BOXROOT_API void boxroot_delete_remote_(boxroot r);
BOXROOT_API void boxroot_deleted_twice_(boxroot r);

/* The fast paths are inline here and also exported by the library (which
   defines BOXROOT_INLINE_ empty before including this header). */
#ifndef BOXROOT_INLINE_
# define BOXROOT_INLINE_ extern __inline__ __attribute__((gnu_inline))
#endif

/* Relaxed single-word accesses: other threads read these counters. */
#define BOXROOT_LOAD_(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define BOXROOT_STORE_(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* ---- the API ------------------------------------------------------------------ */

/* A new root holding v; NULL only if no pool memory can be obtained.
   Fast path: pop the current pool's free list (no lock, no atomic). */
BOXROOT_API BOXROOT_INLINE_ boxroot boxroot_create(void *v) {
  struct boxroot_local_ *l = &boxroot_local_;
  long live = l->live;
  if (__builtin_expect(live < BOXROOT_LOAD_(l->limit), 1)) {
    struct boxroot_pool_head_ *p = l->pool;
    void **cell = p->free;
    if (__builtin_expect(cell != (void **)p, 1)) {
      p->free = (void **)*cell;
      *cell = v;
      BOXROOT_STORE_(p->used, p->used + 1);
      BOXROOT_STORE_(l->live, live + 1);
      return (boxroot)cell;
    }
  }
  return boxroot_create_slow_(v);
}

/* The value held (one load). */
static __inline__ void *boxroot_get(boxroot r) { return *(void **)r; }

/* The cell itself, for in-place updates by the client (one load). */
static __inline__ void **boxroot_get_ref(boxroot r) { return (void **)r; }

/* Release the root; r must not be used afterwards. NULL is ignored.
   Fast path (the owner of r's pool): push on the pool's free list and make
   it the current pool, so the next creation reuses this (cached) cell. */
BOXROOT_API BOXROOT_INLINE_ void boxroot_delete(boxroot r) {
  if (__builtin_expect(r == 0, 0)) return;
  void **cell = (void **)r;
  struct boxroot_pool_head_ *p =
      (struct boxroot_pool_head_ *)((unsigned long)cell & ~(BOXROOT_POOL_BYTES_ - 1));
  /* A free cell points into its own pool: deleting it again is reported
     (through the collector's warning function) and ignored. */
  if (__builtin_expect((unsigned long)*cell - (unsigned long)p < BOXROOT_POOL_BYTES_, 0)) {
    boxroot_deleted_twice_(r);
    return;
  }
  struct boxroot_local_ *l = &boxroot_local_;
  if (__builtin_expect(p->owner == l, 1)) {
    l->pool = p;
    /* A collection may stop this thread anywhere: the pool must be current
       before its count can reach zero (empty non-current pools are freed). */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    *cell = (void *)p->free;
    p->free = cell;
    BOXROOT_STORE_(p->used, p->used - 1);
    BOXROOT_STORE_(l->live, l->live - 1);
    BOXROOT_STORE_(l->deletions, l->deletions + 1);
    return;
  }
  boxroot_delete_remote_(r);
}

/* Store v in *r's cell; never fails, never reallocates. */
BOXROOT_API BOXROOT_INLINE_ void boxroot_modify(boxroot *r, void *v) { *(void **)*r = v; }

/* Exact when read while no other thread creates or deletes (each thread
   keeps its own counts; a statistics call sums them under the library's
   lock). While others run, each count is a sum of per-thread values each
   read at some instant: live is never negative. */
struct boxroot_stats {
  size_t live;          /* roots created and not deleted */
  size_t peak;          /* most live roots at once since the start */
  size_t pools;         /* pools in existence */
  size_t creations;     /* boxroot_create calls that succeeded */
  size_t deletions;     /* boxroot_delete calls */
};
BOXROOT_API void boxroot_get_stats(struct boxroot_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* BOXROOT_H */
