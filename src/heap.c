/*
 * heap.c: blocks, free block runs and size classes. The heap is the set of
 * chunks taken from the arena; inside them, blocks are SMALL (one kind and
 * size class), LARGE (+ tails) or FREE. Free blocks form runs that never
 * cross a chunk boundary, kept coalesced and bucketed by length; a chunk that
 * becomes one whole free run goes back to the arena at once (with its
 * descriptors dropped). Objects larger than a chunk take whole chunk runs
 * from the arena directly.
 *
 * Two spaces: each chunk the heap holds belongs to the small space (small
 * blocks and runs of fewer than LARGE_SPACE_MIN_BLOCKS) or to the large
 * space (longer runs, and the spare end of an object larger than a chunk),
 * after the request that took it from the arena; its free runs are filed
 * with its space. A request is served from its own space's runs, then from
 * a committed free chunk, and only then from the other space, before a
 * chunk is committed: so small blocks that outlive their neighbours do not
 * pepper the chunks where medium objects (up to a chunk) come and go, and
 * those find runs long enough, while no space commits memory the other
 * has free. (With one pool, objects of 300 KiB-1.5 MiB among scattered
 * small survivors kept the heap 50% above its budget.)
 * Idle runs: a free run no allocation has taken for GC_UNMAP_THRESHOLD
 * collections has its pages given back (heap_discard_idle_runs) and stays
 * filed; its bytes count as unmapped in the arena until the run is taken
 * or merged, when they count as committed again.
 * Fresh pages: a free run knows from which of its chunk's blocks on its
 * pages were never touched since the chunk was committed (fresh_from;
 * none once it is merged with a freed neighbour). Blocks taken there read
 * zero, and small blocks taken there are faulted in a batch at a time
 * (populate_taken).
 *
 * Invariants: a free run's first block has state FREE and its length, its
 * last block has state FREE and points to the first; blocks in between read
 * FREE or UNUSED, which the marker skips alike. A run is filed in its
 * chunk's space, and a chunk's space is set only when the heap takes it from
 * the arena, before any of its runs is filed. All under the allocation lock.
 *
 * Large objects' tails: every block of a large object but the first reads
 * LARGE_TAIL with its head, through the page table. A region that an object
 * covers whole would need 65,536 identical tails (4 MiB of descriptors), so
 * all such regions but the first of an object borrow that first one's
 * array through their page-table slots (pt_lend_region): a huge object
 * costs one array plus its partial regions, not 1/64 of its size. Only
 * tails are ever read through a borrowed slot, and a tail is only ever
 * followed to its head (never block_addr), so the borrowed array answers
 * for every region it stands in for. The slots are given back before the
 * object's blocks are freed. Not with the legacy hash page table, which
 * maps every page to its region's own descriptor.
 */
#include "internal.h"

#include <string.h>

#define EXACT_RUN_BUCKETS 32
#define RUN_BUCKETS (EXACT_RUN_BUCKETS + 5)   /* then 33-64, ..., 257-512 */

enum heap_space { SPACE_SMALL, SPACE_LARGE, HEAP_SPACES };
/* Runs this long (32 KiB) and longer belong to the large space: shorter
   ones fit the holes small blocks leave. */
#define LARGE_SPACE_MIN_BLOCKS 8

static struct block *run_buckets[HEAP_SPACES][RUN_BUCKETS + 1];
/* Madvise calls one collection may make for idle runs (the rest wait for
   the next one): a heap of scattered one-block runs must not turn one
   collection into a storm of system calls. */
#define DISCARDS_PER_COLLECTION 256

static unsigned bucket_of(size_t nblocks) {
  if (nblocks <= EXACT_RUN_BUCKETS) return (unsigned)nblocks;
  unsigned b = EXACT_RUN_BUCKETS;
  size_t limit = EXACT_RUN_BUCKETS;
  while (nblocks > limit) { limit *= 2; b++; }
  return b;
}

void heap_init(void) {}

size_t heap_blocks_in_use(void) { return gc.blocks_in_use; }

/* Committed bytes in no SMALL or LARGE block (bdwgc's free bytes: free
   slots inside blocks do not count). Blocks in use lie in committed chunks,
   so this never exceeds the committed heap. */
size_t heap_free_bytes(void) {
  size_t heap = arena_committed_bytes(), used = gc.blocks_in_use * BLOCK_BYTES;
  return heap > used ? heap - used : 0;
}

/* Give back the pages of free runs that no allocation has touched for
   `age` collections (bdwgc's GC_unmap_threshold, at block granularity: a
   whole free chunk goes back to the arena, which decommits it on the same
   rule; age 0: every free run). The longest runs first, at most
   DISCARDS_PER_COLLECTION calls unless age is 0. Their bytes move from
   the arena's committed count to its unmapped one while they stay given
   back (bdwgc's heap size leaves unmapped blocks out).
   The run stays in the heap: its pages read zero when touched again, and
   the block it gives then needs no clearing. */
void heap_discard_idle_runs(unsigned long gc_no, unsigned long age) {
  unsigned calls = 0;
  for (unsigned k = RUN_BUCKETS + 1; k-- > 1;)
    for (int space = 0; space < HEAP_SPACES; space++)
      for (struct block *h = run_buckets[space][k]; h; h = h->next) {
        if (h->u.run.discarded || (uint32_t)((uint32_t)gc_no - h->u.run.freed_at) < age) continue;
        if (age && calls++ == DISCARDS_PER_COLLECTION) return;
        os_discard(block_addr(h), h->u.run.nblocks * BLOCK_BYTES);
        h->u.run.discarded = 1;
        arena_note_discarded(h->u.run.nblocks * BLOCK_BYTES);
      }
}

static size_t block_index_in_chunk(const struct block *b) {
  return (size_t)(b - block_array_of(b)) & (BLOCKS_PER_CHUNK - 1);
}

/* The space of the chunk holding b (a descriptor in its region's own array:
   free runs never lie in a borrowed one). */
static enum heap_space chunk_space_of(struct block *b) {
  struct block *blocks = block_array_of(b);
  return pt_region_info(blocks)->chunk_space[(size_t)(b - blocks) / BLOCKS_PER_CHUNK];
}

/* The chunk at address chunk (not in a region lent to a large object) now
   belongs to space. */
static void set_chunk_space(uintptr_t chunk, enum heap_space space) {
  struct region_info *ri = pt_region_info(pt_table[chunk >> REGION_SHIFT]);
  size_t ci = (chunk >> CHUNK_SHIFT) & (CHUNKS_PER_REGION - 1);
  ri->chunk_space[ci] = (uint8_t)space;
  ri->chunk_in_runs[ci] = 1;
}

bool heap_chunk_inside_large_object(const struct block *first) {
  const struct block *last = first + BLOCKS_PER_CHUNK - 1;
  if (last->state != BLOCK_LARGE_TAIL) return false;
  return first == last->head || (first->state == BLOCK_LARGE_TAIL && first->head == last->head);
}

struct block *heap_next_small_chunk(size_t *at) {
  for (size_t end = pt_heap_region_count() * CHUNKS_PER_REGION; *at < end;) {
    size_t c = (*at)++;
    struct block *blocks = pt_heap_region(c / CHUNKS_PER_REGION);
    if (pt_region_lent(blocks)) continue;   /* inside a huge object: its own are unused */
    if (!pt_region_info(blocks)->chunk_in_runs[c % CHUNKS_PER_REGION]) continue;
    struct block *first = blocks + (c % CHUNKS_PER_REGION) * BLOCKS_PER_CHUNK;
    if (!heap_chunk_inside_large_object(first)) return first;
  }
  return NULL;
}

/* A whole free chunk goes back to the arena (its descriptors dropped). */
static void return_chunk(struct block *first) {
  char *chunk = block_addr(first);
  struct block *blocks = block_array_of(first);
  pt_region_info(blocks)->chunk_in_runs[(size_t)(first - blocks) / BLOCKS_PER_CHUNK] = 0;
  pt_drop_descriptors(first, BLOCKS_PER_CHUNK);
  arena_free_chunks(chunk, 1);
}

static struct block **run_list(struct block *head, size_t nblocks) {
  return &run_buckets[chunk_space_of(head)][bucket_of(nblocks)];
}

static void run_unlink(struct block *head) {
  if (head->u.run.prev) head->u.run.prev->next = head->next;
  else *run_list(head, head->u.run.nblocks) = head->next;
  if (head->next) head->next->u.run.prev = head->u.run.prev;
}

/* A run leaves the free runs whole (merged or taken): its pages count as
   resident again. */
static void run_unlink_whole(struct block *head) {
  run_unlink(head);
  if (head->u.run.discarded) arena_note_recommitted(head->u.run.nblocks * BLOCK_BYTES);
  head->u.run.discarded = 0;
}

/* Make [head, head+n) a free run and file it; n never crosses a chunk.
   freed_at and discarded: see heap_discard_idle_runs. */
static void run_insert(struct block *head, size_t n, uint32_t freed_at, bool discarded) {
  head->state = BLOCK_FREE;
  head->u.run.nblocks = n;
  head->u.run.freed_at = freed_at;
  head->u.run.discarded = discarded;
  head->u.run.fresh_from = BLOCKS_PER_CHUNK;
  struct block *last = head + n - 1;
  last->state = BLOCK_FREE;
  last->head = head;
  struct block **list = run_list(head, n);
  head->u.run.prev = NULL;
  head->next = *list;
  if (head->next) head->next->u.run.prev = head;
  *list = head;
}

/* Free [first, first+n) inside one chunk: coalesce with free neighbours in
   the same chunk; a whole free chunk goes back to the arena. */
static void free_within_chunk(struct block *first, size_t n) {
  if (n == BLOCKS_PER_CHUNK) {                   /* nothing to coalesce with */
    return_chunk(first);
    return;
  }
  memset(first, 0, n * sizeof *first);           /* no stale object states */
  size_t idx = block_index_in_chunk(first);
  if (idx > 0 && first[-1].state == BLOCK_FREE) {
    struct block *prev_head = first[-1].head;
    size_t pn = prev_head->u.run.nblocks;
    run_unlink_whole(prev_head);
    first[-1].state = BLOCK_UNUSED;
    first[-1].head = NULL;
    first = prev_head;
    n += pn;
    idx -= pn;
  }
  if (idx + n < BLOCKS_PER_CHUNK && first[n].state == BLOCK_FREE) {
    struct block *next_head = &first[n];
    size_t nn = next_head->u.run.nblocks;
    run_unlink_whole(next_head);
    next_head->state = BLOCK_UNUSED;
    next_head->u.run.nblocks = 0;
    n += nn;
  }
  if (n == BLOCKS_PER_CHUNK) {
    return_chunk(first);
    return;
  }
  run_insert(first, n, (uint32_t)GC_gc_no, false);
}

void heap_set_large_tails(struct block *h, size_t nblocks) {
  uintptr_t a = (uintptr_t)block_addr(h) + BLOCK_BYTES;
  uintptr_t end = (uintptr_t)block_addr(h) + nblocks * BLOCK_BYTES;
  struct block *shared = NULL;   /* the array of the first region covered whole */
  while (a < end) {
    uintptr_t region_end = (a | (REGION_BYTES - 1)) + 1;
    uintptr_t stop = end < region_end ? end : region_end;
    bool whole = stop - a == REGION_BYTES;
    if (whole && shared && !pagehash_enabled) {
      pt_lend_region(a, shared);
    } else {
      struct block *t = pt_block_of(a);
      if (whole && !shared) shared = t;
      for (uintptr_t x = a; x < stop; x += BLOCK_BYTES, t++) {
        t->state = BLOCK_LARGE_TAIL;
        t->head = h;
      }
    }
    a = stop;
  }
}

void heap_free_large(struct block *h) {
  size_t nblocks = h->u.large.nblocks;
  uintptr_t start = (uintptr_t)block_addr(h), end = start + nblocks * BLOCK_BYTES;
  /* Regions covered whole start at region boundaries after the first block. */
  for (uintptr_t a = (start | (REGION_BYTES - 1)) + 1; a + REGION_BYTES <= end; a += REGION_BYTES)
    pt_reclaim_region(a);
  heap_free_blocks(h, nblocks);
}

void heap_free_blocks(struct block *first, size_t nblocks) {
  while (nblocks) {
    size_t idx = block_index_in_chunk(first);
    size_t in_chunk = BLOCKS_PER_CHUNK - idx;
    if (in_chunk > nblocks) in_chunk = nblocks;
    /* A descriptor array covers a region; chunks never straddle regions,
       so the next chunk's descriptors are found through the page table. */
    char *next_addr = block_addr(first) + in_chunk * BLOCK_BYTES;
    free_within_chunk(first, in_chunk);
    nblocks -= in_chunk;
    if (nblocks) first = pt_block_of((uintptr_t)next_addr);
  }
}

/* Never-touched pages of the small space are faulted in ahead of the
   allocator, 64 KiB at a time, by one system call (os_populate), not one
   fault per 4 KiB block: on a host with shadow page tables a fault costs
   ~12 us, and a page populated in a batch about half that
   (bench/firsttouch). Only for small blocks, whose pages the allocator
   fills: a large object's may stay untouched (ecl-weak's peak RSS grew by
   1.2 MiB when they were populated too). At most a batch beyond what the
   allocator took is made resident. Not with huge pages, which take one
   fault per chunk. */
#define POPULATE_BATCH_BLOCKS 16

/* Blocks [h, h+n) leave a small-space run that ends at chunk index `end`
   and whose blocks from chunk index fresh_from on were never touched:
   fault in the batches they start if `populate`. Returns the remainder's
   fresh_from. */
static uint32_t populate_taken(struct block *h, size_t n, size_t end, uint32_t fresh_from,
                               bool populate) {
  size_t i = block_index_in_chunk(h);
  if (i + n <= fresh_from) return fresh_from;
  if (!populate || arena_huge_pages_on()) return (uint32_t)(i + n);
  size_t from = i > fresh_from ? i : fresh_from;
  size_t to = (i + n + POPULATE_BATCH_BLOCKS - 1) / POPULATE_BATCH_BLOCKS * POPULATE_BATCH_BLOCKS;
  if (to > end) to = end;
  os_populate(block_addr(h) + (from - i) * BLOCK_BYTES, (to - from) * BLOCK_BYTES);
  return (uint32_t)to;
}

/* A run of n blocks from the free runs of one space, or NULL; *zeroed if
   its pages were given back or never touched (they read zero).
   populate: for a small block (see populate_taken). */
static struct block *take_free_run(enum heap_space space, size_t n, bool populate, bool *zeroed) {
  for (unsigned k = bucket_of(n); k <= RUN_BUCKETS; k++) {
    for (struct block *h = run_buckets[space][k]; h; h = h->next) {
      size_t have = h->u.run.nblocks;
      if (have < n) continue;
      run_unlink(h);
      bool discarded = h->u.run.discarded;
      if (discarded) arena_note_recommitted(n * BLOCK_BYTES);
      uint32_t fresh_from = h->u.run.fresh_from;
      size_t index = block_index_in_chunk(h);
      *zeroed = discarded || index >= fresh_from;
      if (space == SPACE_SMALL) fresh_from = populate_taken(h, n, index + have, fresh_from, populate);
      struct block *last = h + have - 1;
      last->state = BLOCK_UNUSED;
      last->head = NULL;
      if (have > n) {
        run_insert(h + n, have - n, h->u.run.freed_at, discarded);
        h[n].u.run.fresh_from = fresh_from;
      }
      h->u.run.discarded = 0;
      h->state = BLOCK_UNUSED;
      h->u.run.nblocks = 0;
      h->next = NULL;
      h->u.run.prev = NULL;
      return h;
    }
  }
  return NULL;
}

/* A run of n <= BLOCKS_PER_CHUNK blocks: from the free runs of its space,
   a committed free chunk, the other space's runs, a newly committed chunk,
   in that order (see the top of the file). */
static struct block *alloc_run(size_t n, bool populate, bool *zeroed) {
  enum heap_space own = n >= LARGE_SPACE_MIN_BLOCKS ? SPACE_LARGE : SPACE_SMALL;
  struct block *h = take_free_run(own, n, populate, zeroed);
  if (h) return h;
  bool fresh;
  char *chunk = arena_alloc_committed_chunks(1, &fresh);
  if (!chunk) {
    h = take_free_run(own == SPACE_SMALL ? SPACE_LARGE : SPACE_SMALL, n, populate, zeroed);
    if (h) return h;
    chunk = arena_alloc_chunks(1, &fresh);
    if (!chunk) return NULL;
  }
  set_chunk_space((uintptr_t)chunk, own);
  h = pt_block_of((uintptr_t)chunk);
  if (n < BLOCKS_PER_CHUNK) run_insert(h + n, BLOCKS_PER_CHUNK - n, (uint32_t)GC_gc_no, false);
  if (fresh && own == SPACE_SMALL) {
    uint32_t fresh_from = populate_taken(h, n, BLOCKS_PER_CHUNK, 0, populate);
    if (n < BLOCKS_PER_CHUNK) h[n].u.run.fresh_from = fresh_from;
  }
  *zeroed = fresh;
  return h;
}

struct block *heap_alloc_blocks(size_t nblocks, bool *zeroed) {
  if (nblocks <= BLOCKS_PER_CHUNK) return alloc_run(nblocks, false, zeroed);
  size_t nchunks = (nblocks + BLOCKS_PER_CHUNK - 1) / BLOCKS_PER_CHUNK;
  bool fresh;
  char *start = arena_alloc_chunks(nchunks, &fresh);
  if (!start) return NULL;
  size_t spare = nchunks * BLOCKS_PER_CHUNK - nblocks;
  if (spare) {
    char *tail = start + nblocks * BLOCK_BYTES;
    set_chunk_space((uintptr_t)tail & ~(uintptr_t)(CHUNK_BYTES - 1), SPACE_LARGE);
    run_insert(pt_block_of((uintptr_t)tail), spare, (uint32_t)GC_gc_no, false);
  }
  *zeroed = fresh;
  return pt_block_of((uintptr_t)start);
}

struct block *heap_new_small_block(int kind, unsigned granules) {
  bool zeroed;
  struct block *b = alloc_run(1, true, &zeroed);
  if (!b) return NULL;
  uint32_t bytes = (uint32_t)granules * GRANULE_BYTES;
  memset(b, 0, sizeof *b);
  b->state = BLOCK_SMALL;
  b->kind = (uint8_t)kind;
  b->granules = (uint16_t)granules;
  b->obj_bytes = bytes;
  b->nobjs = (uint16_t)(BLOCK_BYTES / bytes);
  b->recip = reciprocal_of(bytes);
  const struct kind *k = &gc.kinds[kind];
  b->kind_flags = (uint8_t)((k->pointer_free ? BLOCK_KIND_POINTER_FREE : 0) |
                            (k->uncollectable ? BLOCK_KIND_UNCOLLECTABLE : 0) |
                            (k->any_interior ? BLOCK_KIND_ANY_INTERIOR : 0) |
                            (k->add_size && k->descr == GC_DS_LENGTH ? BLOCK_KIND_LENGTH_DESCR : 0));
  if (k->free_slots_zero && !zeroed) memset(block_addr(b), 0, BLOCK_BYTES);
  struct size_class_list *cls = &gc.classes[kind][granules];
  b->next = cls->blocks;
  cls->blocks = b;
  gc.blocks_in_use++;
  return b;
}

/* The empty blocks a sweep finds come in address order: upwards in a full
   collection (collect.c walks the chunks), and mostly downwards in a minor
   one, which follows the size classes' lists: a list takes new blocks at
   its head, so the blocks a cycle filled one after another are met from
   the last down (genheap's minor collections: 19,000 of them a
   collection, all but 15 next to the one before). Neighbours within a
   chunk are freed as one run: one coalescing and one insertion into the
   run buckets for all of them. */
void heap_release_small_block(struct release_run *r, struct block *b) {
  gc.blocks_in_use--;
  if (r->n && block_index_in_chunk(r->lo) > 0 && r->lo - 1 == b) {
    r->lo = b;
    r->n++;
    return;
  }
  if (r->n && block_index_in_chunk(b) > 0 && r->lo + r->n == b) {
    r->n++;
    return;
  }
  heap_release_flush(r);
  r->lo = b;
  r->n = 1;
}

void heap_release_flush(struct release_run *r) {
  if (r->n) heap_free_blocks(r->lo, r->n);
  r->n = 0;
}
