/*
 * boxroot.c: boxroots (include/boxroot.h, paper 001).
 *
 * Cells live in 16 KiB pools aligned to 16 KiB, in metadata memory: the pool
 * of a cell is found by masking its address. A free cell holds a pointer
 * into its own pool (the next free cell, or the pool header as end mark), so
 * "free or live" is a range check — and since pools are not heap, the
 * marker's page table skips free cells by itself: scanning a pool is one
 * plain pass over its used cells.
 *
 * Each registered thread owns a current pool and creates from it with no
 * lock and no atomic: pop the local free list, else bump. The owner deletes
 * onto the local list; any other thread (or an unregistered one) pushes
 * onto the pool's remote list with a compare-and-swap; the owner takes the
 * whole remote list when its local one runs dry. Changing pools, adopting
 * orphans (pools of exited threads) and freeing empty pools happen under the
 * allocation lock, so a collection never sees the pool list half-changed.
 * Unregistered threads create under the lock, so never during marking.
 */
#include "internal.h"
#include "boxroot.h"

#include <stdatomic.h>
#include <string.h>

#define POOL_BYTES ((size_t)16 << 10)

struct pool {
  struct pool *next, *prev;        /* every pool (under the lock) */
  void *owner;                     /* owning thread's token; NULL: orphan */
  void **free;                     /* owner's free list, ends at the pool itself */
  void **bump, **end;              /* never-used cells */
  void *_Atomic remote;            /* others' deletions; NULL when empty */
  _Atomic size_t created, deleted_local; /* written by the owner only (plain stores) */
  _Atomic size_t deleted_remote;
  void *cells[];
};

static struct pool *all_pools;     /* under the lock */
static size_t pool_count, creations_done, deletions_done, peak_live;
static __thread struct pool *tl_pool __attribute__((tls_model("initial-exec")));
static __thread char tl_token;     /* its address identifies the thread */

static struct pool *pool_of(void *cell) {
  return (struct pool *)((uintptr_t)cell & ~(uintptr_t)(POOL_BYTES - 1));
}

static size_t pool_capacity(void) {
  return (POOL_BYTES - sizeof(struct pool)) / sizeof(void *);
}

/* Deletions are read before creations so a racing owner can only make the
   count look larger, never wrap below zero. */
static size_t pool_live(struct pool *p) {
  size_t deleted = atomic_load_explicit(&p->deleted_remote, memory_order_acquire) +
                   atomic_load_explicit(&p->deleted_local, memory_order_acquire);
  size_t created = atomic_load_explicit(&p->created, memory_order_acquire);
  return created > deleted ? created - deleted : 0;
}

/* The owner bumps its own counters: a relaxed load and store, no atomic RMW. */
static inline void owner_count(_Atomic size_t *counter) {
  atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1,
                        memory_order_release);
}

static bool pool_has_room(struct pool *p) {
  return p->free != (void **)p || p->bump < p->end ||
         atomic_load_explicit(&p->remote, memory_order_relaxed) != NULL;
}

/* The owner takes the remote deletions when its own list is empty. */
static void take_remote(struct pool *p) {
  if (p->free != (void **)p) return;
  void *list = atomic_exchange_explicit(&p->remote, NULL, memory_order_acquire);
  if (list) p->free = list;
}

static struct pool *new_pool_locked(void) {
  struct pool *p = os_map_noreserve(POOL_BYTES, POOL_BYTES);
  if (!p) return NULL;
  p->free = (void **)p;
  p->bump = p->cells;
  p->end = (void **)((char *)p + POOL_BYTES);
  atomic_init(&p->remote, NULL);
  atomic_init(&p->created, 0);
  atomic_init(&p->deleted_local, 0);
  atomic_init(&p->deleted_remote, 0);
  p->next = all_pools;
  if (all_pools) all_pools->prev = p;
  all_pools = p;
  pool_count++;
  return p;
}

static void free_pool_locked(struct pool *p) {
  if (p->prev) p->prev->next = p->next;
  else all_pools = p->next;
  if (p->next) p->next->prev = p->prev;
  creations_done += atomic_load(&p->created);
  deletions_done += atomic_load(&p->deleted_local) + atomic_load(&p->deleted_remote);
  pool_count--;
  os_unmap(p, POOL_BYTES);
}

/* Under the lock: a pool with room for the calling thread (owned by it, or
   adopted), or a new one. */
/* Only a pool at least a quarter free is worth switching to: a pool with a
   cell or two would send the next creations straight back here. */
static struct pool *pool_with_room_locked(void *owner) {
  for (struct pool *p = all_pools; p; p = p->next) {
    if ((p->owner == owner || p->owner == NULL) && pool_has_room(p) &&
        pool_live(p) <= pool_capacity() * 3 / 4) {
      p->owner = owner;
      take_remote(p);
      return p;
    }
  }
  struct pool *p = new_pool_locked();
  if (p) p->owner = owner;
  return p;
}

static void *pop_cell(struct pool *p, void *v) {
  void **cell = p->free;
  if (cell != (void **)p) {
    p->free = *cell;
  } else if (p->bump < p->end) {
    cell = p->bump++;
  } else {
    return NULL;
  }
  *cell = v;
  owner_count(&p->created);
  return cell;
}

static void note_peak_locked(void) {
  size_t live = 0;
  for (struct pool *p = all_pools; p; p = p->next) live += pool_live(p);
  if (live > peak_live) peak_live = live;
}

static boxroot create_slow(void *v) {
  gc_ensure_init();
  bool registered = threads_self() != NULL;
  void *owner = registered ? (void *)&tl_token : (void *)&all_pools;  /* unregistered: shared */
  LOCK();
  struct pool *p = registered ? tl_pool : NULL;
  void *cell = NULL;
  if (p) {
    take_remote(p);
    cell = pop_cell(p, v);
  }
  if (!cell) {
    p = pool_with_room_locked(owner);
    if (p) {
      take_remote(p);
      cell = pop_cell(p, v);
    }
    if (registered) tl_pool = p;
  }
  UNLOCK();
  return cell;
}

BOXROOT_API boxroot boxroot_create(void *v) {
  struct pool *p = tl_pool;
  if (LIKELY(p != NULL)) {
    void **cell = p->free;
    if (LIKELY(cell != (void **)p)) {
      p->free = *cell;
      *cell = v;
      owner_count(&p->created);
      return (boxroot)cell;
    }
    if (p->bump < p->end) {
      cell = p->bump++;
      *cell = v;
      owner_count(&p->created);
      return (boxroot)cell;
    }
  }
  return create_slow(v);
}

BOXROOT_API void boxroot_delete(boxroot r) {
  if (!r) return;
  void **cell = (void **)r;
  struct pool *p = pool_of(cell);
  if (p->owner == &tl_token) {
    *cell = p->free;
    p->free = cell;
    owner_count(&p->deleted_local);
    return;
  }
  void *old = atomic_load_explicit(&p->remote, memory_order_relaxed);
  do {
    *cell = old ? old : (void *)p;
  } while (!atomic_compare_exchange_weak_explicit(&p->remote, &old, (void *)cell,
                                                  memory_order_release, memory_order_relaxed));
  atomic_fetch_add_explicit(&p->deleted_remote, 1, memory_order_relaxed);
}

BOXROOT_API void boxroot_modify(boxroot *r, void *v) {
  *(void **)*r = v;
}

BOXROOT_API void boxroot_get_stats(struct boxroot_stats *out) {
  if (!out) return;
  LOCK();
  note_peak_locked();
  size_t live = 0, created = creations_done, deleted = deletions_done;
  for (struct pool *p = all_pools; p; p = p->next) {
    live += pool_live(p);
    created += atomic_load(&p->created);
    deleted += atomic_load(&p->deleted_local) + atomic_load(&p->deleted_remote);
  }
  out->live = live;
  out->peak = peak_live;
  out->pools = pool_count;
  out->creations = created;
  out->deletions = deleted;
  UNLOCK();
}

/* ---- the collector's side (lock held, world stopped) ------------------------ */

void boxroot_mark_roots(void) {
  for (struct pool *p = all_pools; p; p = p->next)
    mark_range(p->cells, p->bump);      /* free cells point into the pool: skipped */
  note_peak_locked();
}

/* Pools that nobody can create from any more and that hold no root. */
void boxroot_release_empty_pools(void) {
  struct pool *p = all_pools;
  while (p) {
    struct pool *next = p->next;
    if (p->owner == NULL && pool_live(p) == 0) free_pool_locked(p);
    p = next;
  }
}

/* A thread is leaving: its pools become orphans, adopted by others later. */
void boxroot_thread_exit(void) {
  for (struct pool *p = all_pools; p; p = p->next)
    if (p->owner == &tl_token) p->owner = NULL;
  tl_pool = NULL;
}

/* In a forked child only the forking thread exists: every other owner is gone. */
void boxroot_after_fork(void) {
  for (struct pool *p = all_pools; p; p = p->next)
    if (p->owner != &tl_token && p->owner != (void *)&all_pools) p->owner = NULL;
}
