/*
 * alloc.c: the allocator and the GC_malloc family.
 *
 * Small objects come from cursors: a cursor holds the free slots of one
 * 64-slot window of one block, already claimed in the block's mark bits (see
 * "mark bits are allocation bits" in internal.h). The fast path pops the
 * lowest free slot and zeroes it: no lock, no atomic, no write to metadata.
 * Each thread has its own cache of cursors for the two common kinds; other
 * kinds use cursors in the collector state, under the lock. Refilling a
 * cursor sweeps lazily: it reads the next window of the current block, then
 * the next block of the size class's list, then asks for a new block.
 * Large objects are block runs, zeroed unless fresh from the OS.
 * Invariants: a slot is handed out only after its bit is claimed under the
 * lock; after marking, a collection sets again the bits of every window a
 * cursor, or a list GC_generic_malloc_many is linking, still claims.
 */
#include "internal.h"

#include <string.h>

static __thread struct alloc_cache *tl_cache __attribute__((tls_model("initial-exec")));

/* What the allocator calls in finalization, above it (set by init.c; no-ops
   until then). */
static void nothing_freed(void *obj) { (void)obj; }
static void nothing_pending(void) {}
static struct alloc_hooks hooks = { .object_freed = nothing_freed, .run_pending = nothing_pending };

void alloc_set_hooks(const struct alloc_hooks *h) { hooks = *h; }

size_t alloc_granules(size_t lb) {
  if (lb > MAX_SMALL_BYTES - gc.extra_bytes) return 0;
  size_t g = (lb + gc.extra_bytes + GRANULE_BYTES - 1) >> GRANULE_SHIFT;
  return g ? g : 1;
}

/* The common small sizes are zeroed by inline stores (constant-size
   memsets the compiler expands), not by a call to memset: GC_malloc's fast
   path is a few dozen instructions, and the call cost a quarter of them. */
static inline void zero_object(void *p, size_t bytes) {
  switch (bytes) {
    case 16: memset(p, 0, 16); return;
    case 32: memset(p, 0, 32); return;
    case 48: memset(p, 0, 48); return;
    case 64: memset(p, 0, 64); return;
    default: memset(p, 0, bytes);
  }
}

static inline void *cursor_pop(struct cursor *c, size_t bytes) {
  uint64_t bits = c->bits;
  unsigned i = (unsigned)__builtin_ctzll(bits);
  c->bits = bits & (bits - 1);
  return c->base + (size_t)i * bytes;
}

static uint64_t window_mask(const struct block *b, unsigned w) {
  unsigned first = w * 64;
  if (b->nobjs >= first + 64) return ~(uint64_t)0;
  if (b->nobjs <= first) return 0;
  return ((uint64_t)1 << (b->nobjs - first)) - 1;
}

/* ---- generational mode (issue #17): young slots. A slot is young while
   it holds an object allocated since the last collection (age 0) or one
   that has survived exactly one collection (age 1); a minor collection
   clears the mark bits of young slots and keeps the others' (old objects).
   Two survivals make an object old: data that dies just after surviving
   one collection is still found by minor ones. Kept per region, beside the
   descriptor array (a block's words found by masking its descriptor
   address), only in generational mode; a block's words are nonzero
   exactly when it is on young_blocks. If memory for either is refused,
   young_lost makes the next collection a major one (which needs no
   record). */
enum { AGE0, AGE1 };
static struct meta_vec young_blocks = { .item_size = sizeof(struct block *) };
static bool young_lost;
/* Counted as slots become young, so that a minor collection after one
   that left no object of age 1 needs no walk of the young blocks to learn
   how much was young (alloc_young_survival_counted): the bytes in slots
   of age 0, and whether any slot is of age 1. */
static size_t age0_bytes;
static bool age1_any;
static size_t large_since_gc;   /* alloc_large calls since the last collection */

size_t alloc_large_since_gc(void) { return large_since_gc; }

static uint64_t (*young_ages(const struct block *b, bool create))[MARK_WORDS] {
  struct block *blocks = block_array_of(b);
  struct region_info *ri = pt_region_info(blocks);
  if (!ri->young) {
    if (!create) return NULL;
    ri->young = meta_alloc(BLOCKS_PER_REGION * sizeof *ri->young);
    if (!ri->young) return NULL;
  }
  return ri->young[b - blocks];
}

static bool any_young(uint64_t (*ages)[MARK_WORDS]) {
  uint64_t any = 0;
  for (unsigned w = 0; w < MARK_WORDS; w++) any |= ages[AGE0][w] | ages[AGE1][w];
  return any != 0;
}

static void note_young(struct block *b, unsigned w, uint64_t bits) {
  uint64_t (*ages)[MARK_WORDS] = young_ages(b, true);
  if (!ages) { young_lost = true; return; }
  if (!any_young(ages) && !meta_vec_push(&young_blocks, &b)) { young_lost = true; return; }
  age0_bytes += (size_t)bits_set(bits & ~ages[AGE0][w]) * b->obj_bytes;
  ages[AGE0][w] |= bits;
}

size_t alloc_young_count(void) { return young_blocks.count; }
struct block *alloc_young_block(size_t i) { return META_VEC_AT(&young_blocks, struct block *, i); }

/* The walks of the young list read each block's descriptor and record,
   and the blocks the allocator took lie anywhere: a walk prefetches both
   YOUNG_AHEAD blocks ahead of the one it is at. */
#define YOUNG_AHEAD 8
void alloc_young_prefetch_ahead(size_t i) {
  if (i + YOUNG_AHEAD >= young_blocks.count) return;
  struct block *b = alloc_young_block(i + YOUNG_AHEAD);
  __builtin_prefetch(b);
  alloc_young_prefetch(b);
}
bool alloc_young_lost(void) { return young_lost; }

bool alloc_has_young(const struct block *b) {
  uint64_t (*ages)[MARK_WORDS] = young_ages(b, false);
  return ages && any_young(ages);
}

bool alloc_age1_mask(const struct block *b, uint64_t age1[MARK_WORDS]) {
  uint64_t (*ages)[MARK_WORDS] = young_ages(b, false);
  if (!ages) return false;
  for (unsigned w = 0; w < MARK_WORDS; w++) age1[w] = ages[AGE1][w];
  return true;
}

void alloc_young_prefetch(const struct block *b) {
  struct block *blocks = block_array_of(b);
  struct region_info *ri = pt_region_info(blocks);
  if (ri->young) __builtin_prefetch(ri->young[b - blocks]);
}

bool alloc_young_mask(const struct block *b, uint64_t young[MARK_WORDS]) {
  uint64_t (*ages)[MARK_WORDS] = young_ages(b, false);
  if (!ages) return false;
  for (unsigned w = 0; w < MARK_WORDS; w++) young[w] = ages[AGE0][w] | ages[AGE1][w];
  return true;
}

/* After marking (before cursor windows are claimed again): survivors of
   age 0 are of age 1 now, those of age 1 old. Also young: the slots of live
   cursor windows that marking did not reach (not handed out yet, or handed
   out and already dead: those must never be scanned as old objects). */
static void young_record_cursor(struct cursor *c, void *ctx) {
  (void)ctx;
  if (!c->blk || gc.kinds[c->blk->kind].uncollectable) return;
  uint64_t unreached = c->claimed & ~c->blk->u.mark[c->word];
  if (unreached) note_young(c->blk, c->word, unreached);
}

static void for_each_cursor(void (*fn)(struct cursor *c, void *ctx), void *ctx);

/* After marking: per age (AGE0: allocated since the last collection or
   claimed by a cursor; AGE1: survived one), the bytes in young slots and
   those of them marked. generations.c decides from them whether
   survivors of age 0 become old at once. */
void alloc_young_survival(size_t young_bytes[2], size_t surviving_bytes[2]) {
  young_bytes[AGE0] = young_bytes[AGE1] = surviving_bytes[AGE0] = surviving_bytes[AGE1] = 0;
  for (size_t i = 0; i < young_blocks.count; i++) {
    alloc_young_prefetch_ahead(i);
    struct block *b = alloc_young_block(i);
    uint64_t (*ages)[MARK_WORDS] = young_ages(b, false);
    if (!ages || b->state != BLOCK_SMALL) continue;
    for (unsigned a = AGE0; a <= AGE1; a++) {
      size_t all = 0, marked = 0;
      for (unsigned w = 0; w < MARK_WORDS; w++) {
        all += (size_t)bits_set(ages[a][w]);
        marked += (size_t)bits_set(ages[a][w] & b->u.mark[w]);
      }
      young_bytes[a] += all * b->obj_bytes;
      surviving_bytes[a] += marked * b->obj_bytes;
    }
  }
}

/* The same without the walk, when no slot is of age 1: the bytes of age 0
   as counted when they became young, and marked_small (the small objects
   this minor collection marked: every one of them was in a young slot, or
   in a free slot a stray word led to) for their survivors. genheap's
   minor collections spent 0.6-1.0 ms in the walk, which reads the
   descriptor and record of every block allocated into since the last
   collection (23,000 of them), most of them evicted by the rescan of the
   written pages by then. False: walk (alloc_young_survival). */
bool alloc_young_survival_counted(size_t young_bytes[2], size_t surviving_bytes[2],
                                  size_t marked_small) {
  if (age1_any || young_lost) return false;
  young_bytes[AGE0] = age0_bytes;
  surviving_bytes[AGE0] = marked_small < age0_bytes ? marked_small : age0_bytes;
  young_bytes[AGE1] = surviving_bytes[AGE1] = 0;
  return true;
}

/* Every young slot becomes old: the records are zeroed without reading
   the blocks' descriptors (for the rest of the records' line only: a
   write of the whole line). */
static void young_promote_all(void) {
  for (size_t i = 0; i < young_blocks.count; i++) {
    if (i + YOUNG_AHEAD < young_blocks.count) {
      uint64_t (*ahead)[MARK_WORDS] = young_ages(alloc_young_block(i + YOUNG_AHEAD), false);
      if (ahead) __builtin_prefetch(ahead, 1);
    }
    uint64_t (*ages)[MARK_WORDS] = young_ages(alloc_young_block(i), false);
    if (ages) memset(ages, 0, 2 * sizeof ages[0]);
  }
  young_blocks.count = 0;
}

static void young_age(void) {
  age0_bytes = 0;
  age1_any = false;
  young_lost = false;
  if (!gc.generational || gc.promote_survivors) {
    young_promote_all();
    if (gc.generational) for_each_cursor(young_record_cursor, NULL);
    return;
  }
  size_t kept = 0;
  for (size_t i = 0; i < young_blocks.count; i++) {
    alloc_young_prefetch_ahead(i);
    struct block *b = alloc_young_block(i);
    uint64_t (*ages)[MARK_WORDS] = young_ages(b, false);
    if (!ages) continue;
    bool small = b->state == BLOCK_SMALL;
    for (unsigned w = 0; w < MARK_WORDS; w++) {
      ages[AGE1][w] = small ? ages[AGE0][w] & b->u.mark[w] : 0;
      ages[AGE0][w] = 0;
    }
    if (any_young(ages)) {
      META_VEC_AT(&young_blocks, struct block *, kept++) = b;
      age1_any = true;
    }
  }
  young_blocks.count = kept;
  for_each_cursor(young_record_cursor, NULL);
}

/* Claim the free slots of window w of block b for cursor c. */
static bool claim_window(struct cursor *c, struct block *b, unsigned w) {
  uint64_t free_bits = ~b->u.mark[w] & window_mask(b, w);
  if (!free_bits) return false;
  b->u.mark[w] |= free_bits;
  if (UNLIKELY(gc.generational)) note_young(b, w, free_bits);
  c->bits = free_bits;
  c->claimed = free_bits;
  c->blk = b;
  c->word = w;
  c->base = block_addr(b) + (size_t)w * 64 * b->obj_bytes;
  gc.bytes_since_gc += (size_t)bits_set(free_bits) * b->obj_bytes;
  return true;
}

/* Lazy sweeping: find free slots for cursor c of (kind, granules). */
static bool refill(struct cursor *c, int kind, unsigned granules) {
  if (c->blk) {
    /* The block may have been released while this cursor's window was
       empty (every slot handed out and freed), and even reused: continue
       in it only if it is still a block of this size class. */
    struct block *b = c->blk;
    if (b->state == BLOCK_SMALL && b->kind == kind && b->granules == granules)
      for (unsigned w = c->word + 1; w < MARK_WORDS; w++)
        if (claim_window(c, b, w)) return true;
    c->blk = NULL;
  }
  struct size_class_list *cls = &gc.classes[kind][granules];
  while (cls->freed) {                 /* explicitly freed slots first */
    struct block *b = cls->freed;
    cls->freed = b->head == FREED_LIST_END ? NULL : b->head;
    b->head = NULL;
    for (unsigned w = 0; w < MARK_WORDS; w++)
      if (claim_window(c, b, w)) return true;
  }
  while (cls->sweep && cls->sweep != cls->full) {
    struct block *b = cls->sweep;
    cls->sweep = b->next;
    for (unsigned w = 0; w < MARK_WORDS; w++)
      if (claim_window(c, b, w)) return true;
  }
  return false;
}

/* Registered threads allocate through their own cache; others share one,
   always under the lock. */
static struct alloc_cache *my_cache_locked(void) {
  return tl_cache ? tl_cache : &gc.shared_cache;
}

static struct cursor *cursor_for_locked(int kind, unsigned granules) {
  if (kind < CACHED_KINDS) return &my_cache_locked()->c[kind][granules];
  return &gc.locked_cursors[kind][granules];
}

/* Give unused claimed slots back and forget the window. */
static void cursor_drop(struct cursor *c) {
  if (c->blk && c->bits) c->blk->u.mark[c->word] &= ~c->bits;
  memset(c, 0, sizeof *c);
}

/* A cache for the calling thread (NULL if no memory: it then shares). */
struct alloc_cache *alloc_thread_attach(void) {
  if (tl_cache) return tl_cache;
  struct alloc_cache *ac = meta_alloc(sizeof *ac);
  if (!ac) return NULL;
  ac->next_cache = gc.caches;
  if (gc.caches) gc.caches->prev_cache = ac;
  gc.caches = ac;
  tl_cache = ac;
  return ac;
}

/* Give a cache's unused slots back and free it (any thread's: after fork,
   the child releases the caches of threads that do not exist there). */
void alloc_cache_release(struct alloc_cache *ac) {
  for (int k = 0; k < CACHED_KINDS; k++)
    for (unsigned g = 0; g <= MAX_SMALL_GRANULES; g++) cursor_drop(&ac->c[k][g]);
  /* Only after fork, for a thread that was linking a list: not in the child. */
  for (unsigned i = 0; i < ac->in_flight_count; i++) cursor_drop(&ac->in_flight[i]);
  if (ac->prev_cache) ac->prev_cache->next_cache = ac->next_cache;
  else gc.caches = ac->next_cache;
  if (ac->next_cache) ac->next_cache->prev_cache = ac->prev_cache;
  if (tl_cache == ac) tl_cache = NULL;
  meta_free(ac, sizeof *ac);
}

/* A collection recomputes every block's free slots: forget the freed lists. */
void alloc_before_mark(void) {
  for (unsigned k = 0; k < gc.n_kinds; k++)
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++) {
      struct size_class_list *cls = &gc.classes[k][g];
      while (cls->freed) {
        struct block *b = cls->freed;
        cls->freed = b->head == FREED_LIST_END ? NULL : b->head;
        b->head = NULL;
      }
    }
}

/* Keep a cursor's whole window claimed across the collection. */
static void reclaim_window(struct cursor *c, void *ctx) {
  (void)ctx;
  if (!c->blk || gc.kinds[c->blk->kind].uncollectable) return;
  uint64_t *word = &c->blk->u.mark[c->word];
  *word |= c->claimed;
}

/* Every cursor, of every cache, and the windows alloc_many is linking. */
static void for_each_cursor(void (*fn)(struct cursor *c, void *ctx), void *ctx) {
  for (struct alloc_cache *ac = gc.caches; ac; ac = ac->next_cache) {
    for (int k = 0; k < CACHED_KINDS; k++)
      for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++) fn(&ac->c[k][g], ctx);
    unsigned in_flight = __atomic_load_n(&ac->in_flight_count, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < in_flight; i++) fn(&ac->in_flight[i], ctx);
  }
  for (int k = 0; k < CACHED_KINDS; k++)
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++) fn(&gc.shared_cache.c[k][g], ctx);
  for (unsigned k = 0; k < gc.n_kinds; k++)
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++) fn(&gc.locked_cursors[k][g], ctx);
}

struct block_bits { struct block *b; uint64_t *bits; unsigned index; };

static void clear_unhanded(struct cursor *c, void *ctx) {
  struct block_bits *bb = ctx;
  if (c->blk == bb->b) bb->bits[c->word] &= ~c->bits;
}

/* Remove from bits (a copy of b's mark bits) the slots cursors still hold. */
void alloc_unclaimed_bits(struct block *b, uint64_t bits[MARK_WORDS]) {
  struct block_bits bb = { b, bits, 0 };
  for_each_cursor(clear_unhanded, &bb);
}

static void drop_from_claim(struct cursor *c, struct block *b, unsigned i) {
  if (c->blk == b && c->word == i / 64) c->claimed &= ~((uint64_t)1 << (i % 64));
}

/* Slot i of b is free again (GC_free, or a leak being reclaimed): the
   cursor window it came from must not claim it back after marking. Only
   cursors of its own kind and size can hold it. */
void alloc_forget_claim(struct block *b, unsigned i) {
  unsigned k = b->kind, g = b->granules;
  if (k < CACHED_KINDS) {
    for (struct alloc_cache *ac = gc.caches; ac; ac = ac->next_cache) drop_from_claim(&ac->c[k][g], b, i);
    drop_from_claim(&gc.shared_cache.c[k][g], b, i);
  }
  drop_from_claim(&gc.locked_cursors[k][g], b, i);
}

void alloc_after_mark(void) {
  large_since_gc = 0;
  if (gc.generational || young_blocks.count) young_age();
  for_each_cursor(reclaim_window, NULL);
}

/* Under the lock: a cursor of (kind, granules) with at least one free slot,
   or NULL when the heap is exhausted. */
static struct cursor *ready_cursor_locked(int kind, unsigned granules) {
  for (;;) {
    struct cursor *c = cursor_for_locked(kind, granules);
    if (c->bits || refill(c, kind, granules)) return c;
    size_t budget_before = gc.heap_budget;
    if (!gc_make_room(1)) return NULL;
    /* gc_make_room may have collected: cursors were dropped and the size
       class has a new sweep list; try it before taking a new block. */
    c = cursor_for_locked(kind, granules);
    if (refill(c, kind, granules)) return c;
    struct block *b = heap_new_small_block(kind, granules);
    if (!b) {
      gc_undo_growth(budget_before);
      return NULL;
    }
    if (claim_window(c, b, 0)) return c;
  }
}

/* No memory for a request of `bytes`: warn, then the client's oom function
   decides (NULL by default, and the program goes on). */
void *alloc_out_of_memory(size_t bytes) {
  gc_warn("GC Warning: Out of Memory! Heap size: %lu MiB. Returning NULL!\n",
          (GC_word)(arena_committed_bytes() >> 20));
  GC_oom_func fn = GC_oom_fn ? GC_oom_fn : gc_default_oom_fn;
  return fn(bytes);
}

/* lb is the size the client asked for: the oom function is told that. */
void *alloc_small_slow(int kind, unsigned granules, size_t lb) {
  gc_ensure_init();
  size_t bytes = (size_t)granules * GRANULE_BYTES;
  LOCK();
  struct cursor *c = ready_cursor_locked(kind, granules);
  if (!c) {
    UNLOCK();
    return alloc_out_of_memory(lb);
  }
  void *p = cursor_pop(c, bytes);
  UNLOCK();
  if (gc.kinds[kind].zero_on_alloc) zero_object(p, bytes);
  if (UNLIKELY(finalize_pending)) hooks.run_pending();
  return p;
}

void *alloc_large(int kind, size_t lb) {
  gc_ensure_init();
  if (lb > ((size_t)1 << ADDRESS_BITS)) return alloc_out_of_memory(lb);
  size_t bytes = lb + gc.extra_bytes;
  bytes = (bytes + GRANULE_BYTES - 1) & ~(GRANULE_BYTES - 1);
  size_t nblocks = (bytes + BLOCK_BYTES - 1) >> BLOCK_SHIFT;
  LOCK();
  size_t budget_before = gc.heap_budget;
  if (!gc_make_room(nblocks)) {
    UNLOCK();
    return alloc_out_of_memory(lb);
  }
  bool zeroed;
  struct block *h = heap_alloc_blocks(nblocks, &zeroed);
  if (!h) {
    gc_undo_growth(budget_before);
    UNLOCK();
    return alloc_out_of_memory(lb);
  }
  h->state = BLOCK_LARGE;
  h->kind = (uint8_t)kind;
  h->u.large.marked = gc.kinds[kind].uncollectable;
  h->u.large.bytes = bytes;
  h->u.large.nblocks = nblocks;
  h->u.large.prev = NULL;
  h->next = gc.large;
  if (gc.large) gc.large->u.large.prev = h;
  gc.large = h;
  large_since_gc++;
  char *start = block_addr(h);
  heap_set_large_tails(h, nblocks);
  gc.blocks_in_use += nblocks;
  gc.bytes_since_gc += bytes;
  UNLOCK();
  if (!zeroed && gc.kinds[kind].zero_on_alloc) zero_object(start, bytes);
  if (UNLIKELY(finalize_pending)) hooks.run_pending();
  return start;
}

void *alloc_generic(size_t lb, int kind) {
  if (kind < 0 || (unsigned)kind >= MAX_KINDS || !gc.kinds[kind].in_use) {
    gc_ensure_init();
    if (kind < 0 || (unsigned)kind >= MAX_KINDS || !gc.kinds[kind].in_use) {
      gc_warn("GC Warning: allocation of unknown kind %ld\n", (GC_word)kind);
      return NULL;
    }
  }
  size_t g = alloc_granules(lb);
  void *p = g ? alloc_small_slow(kind, (unsigned)g, lb) : alloc_large(kind, lb);
  /* gc.h: GC_non_gc_bytes, "bytes not considered candidates for
     collection", follows the uncollectable objects (GC_free takes them
     off); pacing leaves them out of the bytes allocated since the last
     collection, as bdwgc does. */
  if (p && gc.kinds[kind].uncollectable)
    __atomic_fetch_add(&GC_non_gc_bytes, (GC_word)object_size(p), __ATOMIC_RELAXED);
  return p;
}

/* The fast path: a thread-local cursor with a free slot. */
static inline void *alloc_cached(size_t lb, int kind) {
  if (LIKELY(lb <= MAX_SMALL_BYTES - 1)) {
    size_t g = (lb + gc.extra_bytes + GRANULE_BYTES - 1) >> GRANULE_SHIFT;
    g += (g == 0);
    struct alloc_cache *ac = tl_cache;
    if (LIKELY(ac != NULL)) {
      struct cursor *c = &ac->c[kind][g];
      if (LIKELY(c->bits != 0)) {
        size_t bytes = g << GRANULE_SHIFT;
        void *p = cursor_pop(c, bytes);
        if (kind == KIND_NORMAL) zero_object(p, bytes);
        return p;
      }
    }
    return alloc_small_slow(kind, (unsigned)g, lb);
  }
  return alloc_generic(lb, kind);
}

GC_API void *GC_malloc(size_t lb) { return alloc_cached(lb, KIND_NORMAL); }
GC_API void *GC_malloc_atomic(size_t lb) { return alloc_cached(lb, KIND_PTRFREE); }
GC_API void *GC_malloc_ignore_off_page(size_t lb) { return alloc_cached(lb, KIND_NORMAL); }
GC_API void *GC_malloc_atomic_ignore_off_page(size_t lb) { return alloc_cached(lb, KIND_PTRFREE); }
/* Uncollectable objects are always live, so like bdwgc they need no extra
   byte for a pointer just past their end (small ones only, as bdwgc). */
static size_t uncollectable_request(size_t lb) {
  return lb != 0 && lb <= MAX_SMALL_BYTES - gc.extra_bytes ? lb - gc.extra_bytes : lb;
}

GC_API void *GC_malloc_uncollectable(size_t lb) {
  return alloc_generic(uncollectable_request(lb), KIND_UNCOLLECTABLE);
}
GC_API void *GC_malloc_atomic_uncollectable(size_t lb) {
  return alloc_generic(uncollectable_request(lb), KIND_ATOMIC_UNCOLLECTABLE);
}
GC_API void *GC_generic_malloc(size_t lb, int k) { return alloc_generic(lb, k); }
GC_API void *GC_generic_malloc_ignore_off_page(size_t lb, int k) { return alloc_generic(lb, k); }
GC_API void *GC_generic_malloc_uncollectable(size_t lb, int k) {
  return alloc_generic(uncollectable_request(lb), k);
}

/* Link the free slots of window w into a list continuing at *tail, zeroing
   them first if the kind asks; the new tail. The list runs in address
   order, as bdwgc's free lists do: the client takes its objects from the
   front, so consecutive allocations ascend. Linked the other way round
   (each slot pushed on the front), Nix's values came out in descending
   order and nix-eval took 5-6% more CPU time (6 alternating runs:
   3.11-3.38 s against 3.00-3.16; Guile's workloads, the other client of
   GC_malloc_many, unchanged). */
static void **link_window(struct cursor w, size_t bytes, bool zero, void **tail) {
  while (w.bits) {
    void **p = cursor_pop(&w, bytes);
    if (zero) zero_object(p, bytes);
    *tail = p;
    tail = p;
  }
  *tail = NULL;
  return tail;
}

/* A list of objects of one size linked through their first word.
   About a block's worth per call, as bdwgc hands out: one 64-slot window
   of 16-byte objects made Guile take the lock 2.4 x as often as on stock.
   More windows only from what is already swept or free (the current
   block, freed slots, the sweep list): never a new block.
   The windows are taken under the lock and linked (and zeroed) outside it,
   in the memory of a block that may not have been touched yet: with 8
   Guile threads on 2 CPUs (guile-parmap) linking under the lock put 4.4%
   of the samples in the lock's spinning. While it links, the thread's
   cache lists the windows as in flight, and a collection in that time
   keeps their slots claimed as it keeps a cursor's (for_each_cursor),
   linked or not. Threads without a cache of their own, and a call nested
   in one that is linking (a signal handler), link under the lock. */
static void *alloc_many(size_t lb, int kind) {
  size_t g = alloc_granules(lb);
  if (!g) {
    void *p = alloc_generic(lb, kind);
    return p;   /* first word is zero: a one-element list */
  }
  gc_ensure_init();
  size_t bytes = g * GRANULE_BYTES;
  bool zero = gc.kinds[kind].zero_on_alloc;
  struct alloc_cache *ac = tl_cache;
  bool link_outside = ac && !ac->in_flight_count;
  LOCK();
  struct cursor *c = ready_cursor_locked(kind, (unsigned)g);
  if (!c) {
    UNLOCK();
    return alloc_out_of_memory(lb);
  }
  void *list = NULL, **tail = (void **)&list;
  size_t slots = 0, want = BLOCK_BYTES / bytes;
  unsigned windows = 0;
  do {
    /* The window stays claimed (by c until it moves on, then by the list
       or the in-flight record); its free slots are handed out here. */
    struct cursor taken = *c;
    taken.claimed = c->bits;
    slots += (size_t)bits_set(c->bits);
    c->bits = 0;
    if (link_outside) ac->in_flight[windows] = taken;
    else tail = link_window(taken, bytes, zero, tail);
  } while (++windows < MARK_WORDS && slots < want && refill(c, kind, (unsigned)g));
  if (!link_outside) {
    UNLOCK();
    return list;
  }
  ac->in_flight_count = windows;
  UNLOCK();
  /* A collection meanwhile only reads the records (for_each_cursor). */
  for (unsigned w = 0; w < windows; w++) tail = link_window(ac->in_flight[w], bytes, zero, tail);
  /* Every slot is now linked from `list`, which this frame holds. */
  __atomic_store_n(&ac->in_flight_count, 0, __ATOMIC_RELEASE);
  return list;
}

GC_API void *GC_malloc_many(size_t lb) { return alloc_many(lb, KIND_NORMAL); }

GC_API void GC_generic_malloc_many(size_t lb, int k, void **result) {
  if (k < 0 || (unsigned)k >= MAX_KINDS) { *result = NULL; return; }
  *result = alloc_many(lb, k);
}

void alloc_free(void *p) {
  if (!p) return;
  uintptr_t w = (uintptr_t)p;
  LOCK();
  struct block *b = pt_block_of(w);
  if (b && b->state == BLOCK_SMALL) {
    unsigned i;
    if (small_object_start(b, w, &i) == p) {
      uint64_t bit = (uint64_t)1 << (i % 64);
      if (!(b->u.mark[i / 64] & bit)) {
        UNLOCK();
        gc_warn("GC Warning: GC_free of an object that is already free: %p ignored\n", (GC_word)w);
        return;
      }
      b->u.mark[i / 64] &= ~bit;
      alloc_forget_claim(b, i);
      gc.freed_since_gc += b->obj_bytes;
      if (b->kind_flags & BLOCK_KIND_UNCOLLECTABLE)
        __atomic_fetch_sub(&GC_non_gc_bytes, (GC_word)b->obj_bytes, __ATOMIC_RELAXED);
      hooks.object_freed(p);
      if (gc.kinds[b->kind].free_slots_zero) memset(p, 0, b->obj_bytes);
      if (!b->head) {                  /* offer the slot for reuse soon */
        struct size_class_list *cls = &gc.classes[b->kind][b->granules];
        b->head = cls->freed ? cls->freed : FREED_LIST_END;
        cls->freed = b;
      }
      UNLOCK();
      return;
    }
  } else if (b && b->state == BLOCK_LARGE && block_addr(b) == p) {
    if (b->u.large.prev) b->u.large.prev->next = b->next;
    else gc.large = b->next;
    if (b->next) b->next->u.large.prev = b->u.large.prev;
    gc.freed_since_gc += b->u.large.bytes;
    if (gc.kinds[b->kind].uncollectable)
      __atomic_fetch_sub(&GC_non_gc_bytes, (GC_word)b->u.large.bytes, __ATOMIC_RELAXED);
    hooks.object_freed(p);
    gc.blocks_in_use -= b->u.large.nblocks;
    heap_free_large(b);
    UNLOCK();
    return;
  }
  UNLOCK();
  gc_warn("GC Warning: GC_free of a pointer that is not an object start: %p ignored\n", (GC_word)w);
}

GC_API void GC_free(void *p) { alloc_free(p); }

GC_API void *GC_realloc(void *p, size_t lb) {
  if (!p) return GC_malloc(lb);
  if (lb == 0) { GC_free(p); return NULL; }
  struct block *b = pt_block_of((uintptr_t)p);
  size_t old_bytes;
  int kind;
  if (b && b->state == BLOCK_SMALL) {
    unsigned i;
    if (small_object_start(b, (uintptr_t)p, &i) != p) goto invalid;
    old_bytes = b->obj_bytes;
    kind = b->kind;
  } else if (b && b->state == BLOCK_LARGE && block_addr(b) == p) {
    old_bytes = b->u.large.bytes;
    kind = b->kind;
  } else {
    goto invalid;
  }
  size_t usable = old_bytes - gc.extra_bytes;
  if (lb <= usable && (lb >= usable / 2 || old_bytes <= 2 * GRANULE_BYTES)) {
    /* Fits: keep the object, clear what the caller gave up so stale
       pointers there retain nothing. */
    if (!gc.kinds[kind].pointer_free) memset((char *)p + lb, 0, usable - lb);
    return p;
  }
  void *q = alloc_generic(lb, kind);
  if (!q) return NULL;
  memcpy(q, p, lb < usable ? lb : usable);
  GC_free(p);
  return q;
invalid:
  gc_warn("GC Warning: GC_realloc of a pointer that is not an object start: %p\n",
          (GC_word)(uintptr_t)p);
  return NULL;
}

GC_API char *GC_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *copy = GC_malloc_atomic(n);
  if (copy) memcpy(copy, s, n);
  return copy;
}

GC_API char *GC_strndup(const char *s, size_t n) {
  if (!s) return NULL;
  size_t len = strnlen(s, n);
  char *copy = GC_malloc_atomic(len + 1);
  if (!copy) return NULL;
  memcpy(copy, s, len);
  copy[len] = '\0';
  return copy;
}

/* A block is going back to the pool: a cursor left on it (its window empty)
   must not keep pointing there. */
void alloc_forget_block(struct block *b) {
  struct cursor *c = &gc.locked_cursors[b->kind][b->granules];
  if (c->blk == b) memset(c, 0, sizeof *c);
  if (b->kind < CACHED_KINDS) {
    c = &gc.shared_cache.c[b->kind][b->granules];
    if (c->blk == b && !c->bits) memset(c, 0, sizeof *c);
  }
}
