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
  size_t used;                    /* owner's pops minus owner's pushes here */
};

/* boxroot_local_.spare of a linked thread keeping no spare cell (0, as in a
   fresh thread's TLS, means the thread may not keep one: it is not linked). */
#define BOXROOT_NO_SPARE_ ((void **)1)

struct boxroot_local_ {
  struct boxroot_pool_head_ *pool;  /* current pool: creations pop from it */
  void **spare;                     /* a deleted cell kept for the next creation */
  size_t creations;                 /* roots this thread created */
  size_t deletions;                 /* boxroot_delete calls by this thread */
  long limit;                       /* create fast only while creations - deletions < limit */
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
   Fast path: take the thread's spare cell, else pop the current pool's free
   list (no lock, no atomic read-modify-write). */
BOXROOT_API BOXROOT_INLINE_ boxroot boxroot_create(void *v) {
  struct boxroot_local_ *l = &boxroot_local_;
  size_t created = l->creations;
  if (__builtin_expect((long)(created - l->deletions) < BOXROOT_LOAD_(l->limit), 1)) {
    void **cell = l->spare;
    if (__builtin_expect(cell != BOXROOT_NO_SPARE_, 1)) {
      l->spare = BOXROOT_NO_SPARE_;   /* a linked thread's: never 0 here */
    } else {
      struct boxroot_pool_head_ *p = l->pool;
      cell = p->free;
      if (__builtin_expect(cell == (void **)p, 0)) return boxroot_create_slow_(v);
      p->free = (void **)*cell;
      BOXROOT_STORE_(p->used, p->used + 1);
    }
    *cell = v;
    /* Release: a reader that sees this count sees this thread's earlier
       deletions too, so creations - deletions is never read too high. */
    __atomic_store_n(&l->creations, created + 1, __ATOMIC_RELEASE);
    return (boxroot)cell;
  }
  return boxroot_create_slow_(v);
}

/* The value held (one load). */
static __inline__ void *boxroot_get(boxroot r) { return *(void **)r; }

/* The cell itself, for in-place updates by the client (one load). */
static __inline__ void **boxroot_get_ref(boxroot r) { return (void **)r; }

/* Release the root; r must not be used afterwards. NULL is ignored.
   Fast paths: keep the cell as the thread's spare if it has none (any pool,
   a linked thread only), else, if the thread owns r's pool, push it on the
   pool's free list and make that pool current; either way the next creation
   reuses a cell just freed (in cache). No lock, no atomic. */
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
  if (__builtin_expect(l->spare == BOXROOT_NO_SPARE_, 1)) {
    /* Free (it points into its pool) but on no list, so still counted in
       its pool's used: the pool is never freed while a thread keeps it. */
    *cell = (void *)p;
    l->spare = cell;
    BOXROOT_STORE_(l->deletions, l->deletions + 1);
    return;
  }
  if (__builtin_expect(p->owner == l, 1)) {
    l->pool = p;
    /* A collection may stop this thread anywhere: the pool must be current
       before its count can reach zero (empty non-current pools are freed). */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    *cell = (void *)p->free;
    p->free = cell;
    BOXROOT_STORE_(p->used, p->used - 1);
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
