/*
 * boxroot.c: boxroots (include/boxroot.h, paper 001): the slow paths, the
 * statistics and the collector's side. The fast paths are inline in
 * boxroot.h and exported from here as well.
 *
 * POOLS. Cells live in 16 KiB pools aligned to 16 KiB, in metadata memory:
 * the pool of a cell is found by masking its address. A free cell holds a
 * pointer into its own pool (the next free cell, or the pool header as end
 * mark), so "free or live" is a range check. Every cell of a new pool is
 * threaded on its free list at once, so the fast path is a list pop only.
 *
 * OWNERSHIP. Each registered thread has a boxroot_local_ (initial-exec TLS)
 * and a current pool. It creates by popping the current pool's free list and
 * deletes the cells of pools it owns by pushing on their lists, with no lock
 * and no atomic read-modify-write; an owner's deletion also makes that pool
 * current, so the next creation reuses the cell just freed (still in cache).
 * SPARE. Before all that, a linked thread keeps one deleted cell of any pool
 * as its spare and its next creation takes it: a delete+create pair touches
 * neither a free list nor a pool count, only the cell and the thread's own
 * words. The spare is marked free (it points into its pool) but is on no
 * list, so its pool counts it as used and is never freed while it is kept;
 * a thread leaving gives its spare back to the pool's remote list.
 * Any other thread (or an unregistered one) pushes onto the pool's remote
 * list with a compare-and-swap; the owner takes the whole remote list when
 * its local one runs dry. Changing pools, adopting orphans (pools of exited
 * threads) and freeing pools happen under the allocation lock.
 * Unregistered threads create from a shared pool owner (shared_local) under
 * their own small lock, shared_lock, not the allocation lock: a collection
 * holds the allocation lock throughout, and holds shared_lock only while it
 * scans the pools, so a thread unknown to the collector is not starved by a
 * program that collects in a loop. Such a creation is ordered before or
 * after the whole pool scan; its value came from a root (an unregistered
 * thread cannot hold a value any other way), so it is marked either way.
 * Lock order: the allocation lock, then shared_lock.
 *
 * FREEING POOLS. A pool with no live root and no spare is unmapped by a
 * collection if it is an orphan, or (world stopped) if it is not its owner's
 * current pool: an owner makes a pool current before pushing onto it
 * (boxroot.h), so a pool it is about to reuse is never freed under it.
 *
 * COUNTS. Each thread counts its own creations and its own deletions, two
 * monotonic words each written by one fast path only (a pair is one
 * increment of each, not two of a shared live count); its live count is the
 * difference, negative when it deletes others' roots. Pools count their
 * owner's pops minus pushes (used) and remote pushes, for pool choice and
 * freeing. Statistics sum the threads' counts under the lock: exact when
 * nobody is creating or deleting.
 * PEAK. The fast path creates only while live < limit. The limits keep
 *     sum over threads of limit + (live roots of no thread) <= peak,
 * so the total can never exceed the peak without some thread taking the
 * slow path, which recomputes the total under the lock, raises the peak and
 * shares the headroom (peak - total) out again as new limits. Exact whenever
 * the threads are not creating at the same instant; a thread's cost is one
 * locked slow path per new peak, or when its share of headroom runs out.
 */
#define BOXROOT_INLINE_ /* emit the exported definitions of the fast paths */
#include "internal.h"
#include "boxroot.h"

#include <stdatomic.h>
#include <string.h>

#define POOL_BYTES BOXROOT_POOL_BYTES_

struct pool {
  struct boxroot_pool_head_ head;  /* free, owner, used: the fast paths' part */
  struct pool *next, *prev;        /* every pool (under the lock) */
  void *_Atomic remote;            /* others' deletions; NULL when empty */
  _Atomic size_t remote_deleted;   /* how many there have been */
  void *cells[];
};

_Static_assert(offsetof(struct pool, head) == 0, "the fast paths see the header at the pool's start");

BOXROOT_API __thread struct boxroot_local_ boxroot_local_ __attribute__((tls_model("initial-exec")));

/* All below under the lock, except deletions_unregistered (atomic) and
   shared_local's pool and counts (shared_lock). */
static struct pool *all_pools;
static size_t pool_count;
static struct boxroot_local_ *linked;        /* threads with counts */
static struct boxroot_local_ shared_local;   /* unregistered threads' creations */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
/* The current pool of a linked thread before it has one: always empty, so
   "live < limit implies a current pool to pop from" holds for the fast path. */
static struct boxroot_pool_head_ no_pool = { .free = (void **)&no_pool };
static long exited_live;                     /* counts of threads gone */
static size_t exited_deletions;
static _Atomic size_t deletions_unregistered;
static size_t peak_live;

static struct pool *pool_of(void *cell) {
  return (struct pool *)((uintptr_t)cell & ~(uintptr_t)(POOL_BYTES - 1));
}

static size_t pool_capacity(void) {
  return (POOL_BYTES - sizeof(struct pool)) / sizeof(void *);
}

static void **pool_end_of(struct pool *p) {
  return (void **)((char *)p + POOL_BYTES);
}

/* Roots and spare cells in p (cells on neither free list). The remote count
   is read first: a racing deleter can only make the pool look fuller, never
   empty too early. */
static size_t pool_live(struct pool *p) {
  size_t remote = atomic_load_explicit(&p->remote_deleted, memory_order_acquire);
  return BOXROOT_LOAD_(p->head.used) - remote;
}

/* Give cell back to its pool from any thread: onto the pool's remote list.
   The count comes last: until then the pool cannot look empty (freed). */
static void push_remote(void **cell) {
  struct pool *p = pool_of(cell);
  void *old = atomic_load_explicit(&p->remote, memory_order_relaxed);
  do {
    *cell = old ? old : (void *)p;
  } while (!atomic_compare_exchange_weak_explicit(&p->remote, &old, (void *)cell,
                                                  memory_order_release, memory_order_relaxed));
  atomic_fetch_add_explicit(&p->remote_deleted, 1, memory_order_release);
}

/* ---- counts and the peak (under the lock) ----------------------------------- */

/* l's roots created minus deleted. Creations are read first, with acquire
   (paired with the release of every creation count): the deletions read
   then include all those that preceded that count, so the result is never
   above l's true count at any instant (stats_race), only below it. */
static long live_of(struct boxroot_local_ *l) {
  size_t created = __atomic_load_n(&l->creations, __ATOMIC_ACQUIRE);
  return (long)(created - BOXROOT_LOAD_(l->deletions));
}

static void link_locked(struct boxroot_local_ *l) {
  if (l->linked) return;
  l->pool = &no_pool;
  l->spare = BOXROOT_NO_SPARE_;
  l->creations = 0;
  l->deletions = 0;
  l->limit = 0;
  l->next = linked;
  linked = l;
  l->linked = 1;
}

static void unlink_locked(struct boxroot_local_ *l) {
  if (!l->linked) return;
  if (l->spare != BOXROOT_NO_SPARE_) push_remote(l->spare);   /* already counted */
  l->spare = NULL;
  for (struct boxroot_local_ **link = &linked; *link; link = &(*link)->next) {
    if (*link == l) {
      *link = l->next;
      break;
    }
  }
  exited_live += live_of(l);
  exited_deletions += BOXROOT_LOAD_(l->deletions);
  l->linked = 0;
  BOXROOT_STORE_(l->limit, 0);
  BOXROOT_STORE_(l->creations, 0);
  BOXROOT_STORE_(l->deletions, 0);
  l->pool = NULL;
}

static long total_live_locked(void) {
  long live = exited_live + live_of(&shared_local) -
              (long)atomic_load_explicit(&deletions_unregistered, memory_order_relaxed);
  for (struct boxroot_local_ *l = linked; l; l = l->next) live += live_of(l);
  return live;
}

/* The total has just been measured (`total`, counting a creation about to
   happen): raise the peak, then share the headroom out as limits, the
   caller's thread `me` (may be NULL) taking the remainder. */
static void peak_share_headroom_locked(long total, struct boxroot_local_ *me) {
  if (total > (long)peak_live) peak_live = (size_t)total;
  long headroom = (long)peak_live - total;
  /* shared_local, the unregistered threads' part, takes a share once an
     unregistered thread has created a root (a program without any would
     otherwise leave part of the headroom unused). */
  struct boxroot_local_ *s = &shared_local;
  bool shared_takes_part = s == me || s->pool != NULL;
  long threads = shared_takes_part ? 1 : 0;
  for (struct boxroot_local_ *l = linked; l; l = l->next) threads++;
  long share = headroom / threads;
  long mine = headroom - share * (threads - 1);
  for (struct boxroot_local_ *l = linked; l; l = l->next)
    BOXROOT_STORE_(l->limit, live_of(l) + (l == me ? mine : share));
  if (shared_takes_part) BOXROOT_STORE_(s->limit, live_of(s) + (s == me ? mine : share));
  BOXROOT_STORE_(me->limit, BOXROOT_LOAD_(me->limit) + 1);   /* the creation itself */
}

/* ---- pools (under the lock) -------------------------------------------------- */

static struct pool *new_pool_locked(struct boxroot_local_ *owner) {
  struct pool *p = os_map_noreserve(POOL_BYTES, POOL_BYTES);
  if (!p) return NULL;
  void **end = pool_end_of(p);
  for (void **c = p->cells; c < end; c++) *c = c + 1 < end ? (void *)(c + 1) : (void *)p;
  p->head.free = p->cells;
  p->head.owner = owner;
  p->head.used = 0;
  atomic_init(&p->remote, NULL);
  atomic_init(&p->remote_deleted, 0);
  p->prev = NULL;
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
  pool_count--;
  os_unmap(p, POOL_BYTES);
}

/* The owner takes the remote deletions when its own list is empty. */
static void take_remote(struct pool *p) {
  if (p->head.free != (void **)p) return;
  void *list = atomic_exchange_explicit(&p->remote, NULL, memory_order_acquire);
  if (list) p->head.free = list;
}

/* A pool with room for `owner` (one of its own, or an orphan it adopts), or
   a new one. Only a pool at least a quarter free is worth switching to: a
   pool with a cell or two would send the next creations straight back. */
static struct pool *pool_with_room_locked(struct boxroot_local_ *owner) {
  for (struct pool *p = all_pools; p; p = p->next) {
    if ((p->head.owner == owner || p->head.owner == NULL) &&
        pool_live(p) <= pool_capacity() * 3 / 4) {
      p->head.owner = owner;
      take_remote(p);
      if (p->head.free != (void **)p) return p;
    }
  }
  return new_pool_locked(owner);
}

/* Pop a cell for `l` from its current pool, taking the pool's remote
   deletions if its own list is empty; NULL if the pool has no free cell. */
static void **pop_current(struct boxroot_local_ *l, void *v) {
  struct pool *p = l->pool && l->pool != &no_pool ? (struct pool *)l->pool : NULL;
  if (!p) return NULL;
  take_remote(p);
  void **cell = p->head.free;
  if (cell == (void **)p) return NULL;
  p->head.free = *cell;
  *cell = v;
  BOXROOT_STORE_(p->head.used, p->head.used + 1);
  __atomic_store_n(&l->creations, l->creations + 1, __ATOMIC_RELEASE);   /* as in boxroot.h */
  return cell;
}

/* Pop a cell for `l`, changing pools if needed (the allocation lock). */
static void **pop_cell_locked(struct boxroot_local_ *l, void *v) {
  void **cell = pop_current(l, v);
  if (cell) return cell;
  struct pool *p = pool_with_room_locked(l);
  if (!p) {
    BOXROOT_STORE_(l->limit, live_of(l));   /* no pool: no fast path either */
    return NULL;
  }
  l->pool = &p->head;
  return pop_current(l, v);
}

/* ---- the slow paths --------------------------------------------------------- */

/* An unregistered thread's creation: from the shared pool under
   shared_lock while the shared share of the peak's headroom lasts; the
   allocation lock only to change pools or raise the peak. */
static boxroot create_unregistered(void *v) {
  struct boxroot_local_ *s = &shared_local;
  pthread_mutex_lock(&shared_lock);
  void **cell = live_of(s) < BOXROOT_LOAD_(s->limit) ? pop_current(s, v) : NULL;
  pthread_mutex_unlock(&shared_lock);
  if (cell) return (boxroot)cell;
  LOCK();
  pthread_mutex_lock(&shared_lock);
  peak_share_headroom_locked(total_live_locked() + 1, s);
  cell = pop_cell_locked(s, v);
  pthread_mutex_unlock(&shared_lock);
  UNLOCK();
  return (boxroot)cell;
}

BOXROOT_API boxroot boxroot_create_slow_(void *v) {
  gc_ensure_init();
  if (threads_self() == NULL) return create_unregistered(v);
  struct boxroot_local_ *l = &boxroot_local_;
  LOCK();
  link_locked(l);
  if (live_of(l) >= BOXROOT_LOAD_(l->limit))
    peak_share_headroom_locked(total_live_locked() + 1, l);
  void **cell = pop_cell_locked(l, v);
  UNLOCK();
  return (boxroot)cell;
}

/* Deleting a root of a pool this thread does not own. */
BOXROOT_API void boxroot_deleted_twice_(boxroot r) {
  gc_warn("bibop: boxroot_delete of a root already deleted (0x%lx): ignored\n", (GC_word)r);
}

BOXROOT_API void boxroot_delete_remote_(boxroot r) {
  push_remote((void **)r);
  struct boxroot_local_ *l = &boxroot_local_;
  if (!l->linked) {
    if (!threads_self()) {
      atomic_fetch_add_explicit(&deletions_unregistered, 1, memory_order_relaxed);
      return;
    }
    LOCK();
    link_locked(l);
    UNLOCK();
  }
  BOXROOT_STORE_(l->deletions, l->deletions + 1);
}

BOXROOT_API void boxroot_get_stats(struct boxroot_stats *out) {
  if (!out) return;
  gc_ensure_init();
  LOCK();
  long live = total_live_locked();
  if (live < 0) live = 0;
  if ((size_t)live > peak_live) peak_live = (size_t)live;
  size_t deleted = exited_deletions +
                   atomic_load_explicit(&deletions_unregistered, memory_order_relaxed);
  for (struct boxroot_local_ *l = linked; l; l = l->next) deleted += BOXROOT_LOAD_(l->deletions);
  out->live = (size_t)live;
  out->peak = peak_live;
  out->pools = pool_count;
  out->creations = deleted + (size_t)live;
  out->deletions = deleted;
  UNLOCK();
}

/* ---- the collector's side (lock held) ------------------------------------------ */

/* Every thread that may use its pools without the lock is stopped (none is
   in a blocking section, where bdwgc's contract is not always kept). */
static bool pool_owners_stopped(void) {
  for (struct gc_thread *t = gc.threads; t; t = t->next)
    if (t->blocking) return false;
  return true;
}

/* World stopped. One pass per pool: a free cell points into its own pool
   (one range check); every other word goes to the marker. Pools with no
   root that their owner is not creating from are freed here. */
void boxroot_mark_roots(void) {
  bool may_free_owned = pool_owners_stopped();
  pthread_mutex_lock(&shared_lock);   /* unregistered threads are not stopped */
  struct pool *p = all_pools;
  while (p) {
    struct pool *next = p->next;
    struct boxroot_local_ *owner = p->head.owner;
    if (pool_live(p) == 0 && (!owner || (may_free_owned && owner->pool != &p->head))) {
      free_pool_locked(p);
    } else {
      mark_root_cells(p->cells, pool_end_of(p), (uintptr_t)p, POOL_BYTES);
    }
    p = next;
  }
  pthread_mutex_unlock(&shared_lock);
}

/* World running: only orphans may go (an owner pops its current pool and
   pushes onto its pools without the lock). */
void boxroot_release_empty_pools(void) {
  struct pool *p = all_pools;
  while (p) {
    struct pool *next = p->next;
    if (p->head.owner == NULL && pool_live(p) == 0) free_pool_locked(p);
    p = next;
  }
}

/* A thread is leaving: its counts are kept, its pools become orphans,
   adopted by others later. */
void boxroot_thread_exit(void) {
  struct boxroot_local_ *me = &boxroot_local_;
  for (struct pool *p = all_pools; p; p = p->next)
    if (p->head.owner == me) p->head.owner = NULL;
  unlink_locked(me);
}

/* fork() with the allocation lock held: shared_lock is taken too, so the
   child's shared pool is never caught half-updated; both sides release it. */
void boxroot_fork_prepare(void) { pthread_mutex_lock(&shared_lock); }
void boxroot_fork_release(void) { pthread_mutex_unlock(&shared_lock); }

/* In a forked child only the forking thread exists: every other thread's
   counts are kept as those of a thread gone, and their pools are orphans. */
static void boxroot_after_fork(void) {
  struct boxroot_local_ *me = &boxroot_local_;
  for (struct pool *p = all_pools; p; p = p->next)
    if (p->head.owner != me && p->head.owner != &shared_local) p->head.owner = NULL;
  struct boxroot_local_ *l = linked;
  while (l) {
    struct boxroot_local_ *next = l->next;
    if (l != me) unlink_locked(l);
    l = next;
  }
}

void boxroot_fork_child(void) {
  boxroot_after_fork();
  boxroot_fork_release();
}
