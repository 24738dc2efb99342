/* unit_heap.c: free block runs (heap.c). Runs of 1..512 blocks are taken with
 * heap_alloc_blocks and given back with heap_free_blocks in random order,
 * whole or in pieces. After every step the descriptors of the chunks
 * involved are parsed and checked: a free run's head says FREE with its
 * length and its last block points back to the head; free runs are always
 * coalesced (no two adjacent, no fully free chunk kept); a freed run never
 * reads SMALL or LARGE; a run handed out reads UNUSED, stays inside one
 * chunk, and is zero when the heap says so. Freeing one chunk block by block
 * must give exactly the maximal runs of the freed set. When everything is
 * back, every region's descriptors parse exactly as before the test, a
 * 512-block run is available without new address space, and blocks_in_use
 * is unchanged. Also runs longer than a chunk and heap_new_small_block's
 * descriptor fields. All under the allocation lock, after GC_init. */
#include "internal.h"
#include "unit_check.h"

/* Parsed chunk: one code per block. */
#define CODE_RUN_HEAD 0x8000u   /* | run length */
#define CODE_IN_RUN 0x7fffu     /* a block inside a free run, after its head */

static size_t index_in_chunk(const struct block *b) {
  return (size_t)(b - block_array_of(b)) & (BLOCKS_PER_CHUNK - 1);
}

static struct block *chunk_first(struct block *b) { return b - index_in_chunk(b); }

/* Parse the descriptors of the chunk whose first descriptor is `first`,
   checking the free-run invariants; codes[] gets the canonical form. */
static void parse_chunk(struct block *first, uint16_t codes[BLOCKS_PER_CHUNK], const char *when) {
  char *addr = block_addr(first);
  size_t i = 0;
  bool prev_was_run = false;
  while (i < BLOCKS_PER_CHUNK) {
    struct block *b = &first[i];
    if (b->state != BLOCK_FREE) {
      EXPECT(b->state <= BLOCK_LARGE_TAIL, "%s: chunk %p block %zu: bad state %u", when,
             (void *)addr, i, b->state);
      codes[i++] = b->state;
      prev_was_run = false;
      continue;
    }
    size_t n = b->u.run.nblocks;
    REQUIRE(n >= 1 && n <= BLOCKS_PER_CHUNK - i,
            "%s: chunk %p: free run at block %zu has length %zu", when, (void *)addr, i, n);
    struct block *last = &first[i + n - 1];
    EXPECT(last->state == BLOCK_FREE && last->head == b,
           "%s: chunk %p: run [%zu, +%zu): last block state %u head %p, expected FREE and %p",
           when, (void *)addr, i, n, last->state, (void *)last->head, (void *)b);
    EXPECT(!prev_was_run, "%s: chunk %p: free run at block %zu follows another free run "
           "(not coalesced)", when, (void *)addr, i);
    EXPECT(n < BLOCKS_PER_CHUNK, "%s: chunk %p is one whole free run but was kept by the heap",
           when, (void *)addr);
    for (size_t k = i + 1; k < i + n; k++) {
      EXPECT(first[k].state == BLOCK_FREE || first[k].state == BLOCK_UNUSED,
             "%s: chunk %p block %zu inside a free run reads state %u", when, (void *)addr, k,
             first[k].state);
      codes[k] = CODE_IN_RUN;
    }
    codes[i] = (uint16_t)(CODE_RUN_HEAD | n);
    i += n;
    prev_was_run = true;
  }
}

/* ---- snapshots of every region's descriptors -------------------------------- */

struct region_snap { size_t index; uint16_t *codes; };  /* BLOCKS_PER_REGION codes */
struct snapshot { struct region_snap *r; size_t n; };

static struct snapshot take_snapshot(const char *when) {
  struct snapshot s = { NULL, 0 };
  for (size_t idx = 0; idx < PT_ENTRIES; idx++) {
    struct block *blocks = pt_table[idx];
    if (!blocks) continue;
    s.r = realloc(s.r, (s.n + 1) * sizeof *s.r);
    uint16_t *codes = malloc(BLOCKS_PER_REGION * sizeof *codes);
    REQUIRE(s.r && codes, "malloc failed");
    for (size_t c = 0; c < CHUNKS_PER_REGION; c++)
      parse_chunk(&blocks[c * BLOCKS_PER_CHUNK], &codes[c * BLOCKS_PER_CHUNK], when);
    s.r[s.n++] = (struct region_snap){ idx, codes };
  }
  return s;
}

/* Every region of `before` parses the same in `after`; regions reserved
   since hold nothing. */
static void compare_snapshots(struct snapshot before, struct snapshot after) {
  for (size_t j = 0; j < after.n; j++) {
    const uint16_t *old = NULL;
    for (size_t i = 0; i < before.n; i++)
      if (before.r[i].index == after.r[j].index) old = before.r[i].codes;
    for (size_t k = 0; k < BLOCKS_PER_REGION; k++) {
      uint16_t want = old ? old[k] : BLOCK_UNUSED, got = after.r[j].codes[k];
      if (want != got) {
        EXPECT(want == got, "region %#zx0000000 block %zu: code %#x before the test, %#x after "
               "everything was freed", after.r[j].index, k, want, got);
        break;   /* one line per region is enough */
      }
    }
  }
}

static void free_snapshot(struct snapshot s) {
  for (size_t i = 0; i < s.n; i++) free(s.r[i].codes);
  free(s.r);
}

/* ---- runs handed out to the test -------------------------------------------- */

struct run { struct block *first; size_t n; uint64_t tag; };

static uint64_t block_tag(uint64_t tag, size_t k) { return unit_payload(tag, k); }

static void check_zero(const char *p, size_t bytes, const char *what) {
  for (size_t off = 0; off < bytes; off += 512) {
    uint64_t w;
    memcpy(&w, p + off, sizeof w);
    if (w) {
      EXPECT(w == 0, "%s: memory said to be zeroed is not at %p: %#" PRIx64, what,
             (void *)(p + off), w);
      return;
    }
  }
}

static struct run take_run(size_t n, uint64_t tag) {
  bool zeroed = false;
  struct block *b = heap_alloc_blocks(n, &zeroed);
  REQUIRE(b != NULL, "heap_alloc_blocks(%zu) returned NULL", n);
  char *addr = block_addr(b);
  EXPECT_PTR_EQ(pt_block_of((uintptr_t)addr), b);
  if (n <= BLOCKS_PER_CHUNK)
    EXPECT(index_in_chunk(b) + n <= BLOCKS_PER_CHUNK, "run of %zu blocks at %p crosses a chunk",
           n, (void *)addr);
  for (size_t k = 0; k < n; k++) {
    struct block *d = pt_block_of((uintptr_t)addr + k * BLOCK_BYTES);
    EXPECT(d->state == BLOCK_UNUSED, "run %p (%zu blocks) handed out with block %zu in state %u",
           (void *)addr, n, k, d->state);
  }
  if (zeroed) check_zero(addr, n * BLOCK_BYTES, "heap_alloc_blocks");
  for (size_t k = 0; k < n; k++) {
    uint64_t w = block_tag(tag, k);
    memcpy(addr + k * BLOCK_BYTES, &w, sizeof w);   /* overlapping runs would clobber it */
  }
  return (struct run){ b, n, tag };
}

static void check_tags(const struct run *r) {
  char *addr = block_addr(r->first);
  for (size_t k = 0; k < r->n; k++) {
    uint64_t w;
    memcpy(&w, addr + k * BLOCK_BYTES, sizeof w);
    if (w != block_tag(r->tag, k)) {
      EXPECT(w == block_tag(r->tag, k), "block %zu of run %p (%zu blocks) was overwritten: "
             "%#" PRIx64, k, (void *)addr, r->n, w);
      return;
    }
  }
}

/* Free blocks [from, from + count) of run r and check what the heap did. */
static void give_back(const struct run *r, size_t from, size_t count) {
  char *addr = block_addr(r->first) + from * BLOCK_BYTES;
  heap_free_blocks(pt_block_of((uintptr_t)addr), count);
  uint16_t codes[BLOCKS_PER_CHUNK];
  for (size_t k = 0; k < count; k++) {
    struct block *d = pt_block_of((uintptr_t)addr + k * BLOCK_BYTES);
    EXPECT(d->state == BLOCK_FREE || d->state == BLOCK_UNUSED,
           "block %zu of a freed run at %p reads state %u", k, (void *)addr, d->state);
    if (k == 0 || index_in_chunk(d) == 0) {
      parse_chunk(chunk_first(d), codes, "after a free");
      /* The freed blocks are in free runs now, or the chunk went back to
         the arena, which leaves all its descriptors UNUSED. */
      size_t i = index_in_chunk(d);
      bool all_unused = true;
      for (size_t j = 0; j < BLOCKS_PER_CHUNK; j++) all_unused &= codes[j] == BLOCK_UNUSED;
      EXPECT(all_unused || codes[i] == CODE_IN_RUN || (codes[i] & CODE_RUN_HEAD),
             "freed block %p is in no free run (code %#x)", (void *)(addr + k * BLOCK_BYTES),
             codes[i]);
    }
  }
}

/* One chunk freed block by block in random order: the free runs are exactly
   the maximal runs of freed blocks, until the whole chunk goes back. */
static void check_block_by_block(unit_rng_t *rng) {
  struct run r = take_run(BLOCKS_PER_CHUNK, 1);
  EXPECT_EQ(index_in_chunk(r.first), 0);
  size_t order[BLOCKS_PER_CHUNK];
  bool freed[BLOCKS_PER_CHUNK] = { false };
  for (size_t i = 0; i < BLOCKS_PER_CHUNK; i++) order[i] = i;
  for (size_t i = BLOCKS_PER_CHUNK - 1; i > 0; i--) {
    size_t j = unit_below(rng, i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  check_tags(&r);
  uint16_t codes[BLOCKS_PER_CHUNK], want[BLOCKS_PER_CHUNK];
  for (size_t step = 0; step < BLOCKS_PER_CHUNK; step++) {
    give_back(&r, order[step], 1);
    freed[order[step]] = true;
    if (step == BLOCKS_PER_CHUNK - 1) memset(want, 0, sizeof want);   /* back to the arena */
    else {
      for (size_t i = 0; i < BLOCKS_PER_CHUNK;) {
        if (!freed[i]) { want[i++] = BLOCK_UNUSED; continue; }
        size_t j = i;
        while (j < BLOCKS_PER_CHUNK && freed[j]) j++;
        want[i] = (uint16_t)(CODE_RUN_HEAD | (j - i));
        for (size_t k = i + 1; k < j; k++) want[k] = CODE_IN_RUN;
        i = j;
      }
    }
    parse_chunk(r.first, codes, "block by block");
    for (size_t i = 0; i < BLOCKS_PER_CHUNK; i++)
      if (codes[i] != want[i]) {
        EXPECT(codes[i] == want[i], "after freeing %zu blocks (last %zu) of chunk %p: block %zu "
               "has code %#x, expected %#x", step + 1, order[step], (void *)block_addr(r.first),
               i, codes[i], want[i]);
        break;
      }
  }
}

/* Random run lengths, biased to short runs as the allocator asks for. */
static size_t random_length(unit_rng_t *rng) {
  uint64_t x = unit_below(rng, 10);
  if (x < 5) return 1 + unit_below(rng, 16);
  if (x < 8) return 17 + unit_below(rng, 112);
  return 129 + unit_below(rng, 384);
}

#define MAX_LIVE 256

static void *keep[6000];   /* the collector's own objects, live through the test */

static void check_random_runs(unit_rng_t *rng) {
  static struct run live[MAX_LIVE];
  size_t n_live = 0;
  uint64_t tag = 100;
  for (int step = 0; step < 6000; step++) {
    bool alloc = n_live == 0 || (n_live < MAX_LIVE && unit_below(rng, 100) < 55);
    if (step >= 4000) alloc = false;   /* drain at the end */
    if (n_live == 0 && step >= 4000) break;
    if (alloc) {
      live[n_live++] = take_run(random_length(rng), tag++);
      continue;
    }
    size_t i = unit_below(rng, n_live);
    struct run r = live[i];
    live[i] = live[--n_live];
    check_tags(&r);
    if (r.n > 1 && unit_below(rng, 3) == 0) {
      /* In two pieces, either order: the second free must join the first. */
      size_t cut = 1 + unit_below(rng, r.n - 1);
      if (unit_below(rng, 2)) { give_back(&r, 0, cut); give_back(&r, cut, r.n - cut); }
      else { give_back(&r, cut, r.n - cut); give_back(&r, 0, cut); }
    } else {
      give_back(&r, 0, r.n);
    }
  }
  EXPECT_EQ(n_live, 0);
}

/* Runs longer than a chunk take whole chunks; the spare tail is a free run
   of the last chunk. */
static void check_long_runs(void) {
  static const size_t sizes[] = { 513, 1000, 1024, 1536, 2047 };
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    size_t n = sizes[s];
    struct run r = take_run(n, 7 + s);
    EXPECT_EQ(index_in_chunk(r.first), 0);
    size_t spare = (BLOCKS_PER_CHUNK - n % BLOCKS_PER_CHUNK) % BLOCKS_PER_CHUNK;
    if (spare) {
      char *tail = block_addr(r.first) + n * BLOCK_BYTES;
      uint16_t codes[BLOCKS_PER_CHUNK];
      struct block *tb = pt_block_of((uintptr_t)tail);
      parse_chunk(chunk_first(tb), codes, "long run");
      EXPECT(codes[index_in_chunk(tb)] == (CODE_RUN_HEAD | spare),
             "run of %zu blocks: spare tail at %p has code %#x, expected a free run of %zu", n,
             (void *)tail, codes[index_in_chunk(tb)], spare);
    }
    check_tags(&r);
    give_back(&r, 0, n);
  }
}

static void check_small_blocks(void) {
  size_t in_use = heap_blocks_in_use();
  static const unsigned granules[] = { 1, 2, 3, 5, 7, 12, 31, 64, 85, 127, 128 };
  for (size_t i = 0; i < sizeof granules / sizeof *granules; i++) {
    unsigned g = granules[i];
    struct block *b = heap_new_small_block(KIND_NORMAL, g);
    REQUIRE(b != NULL, "heap_new_small_block(%u) failed", g);
    uint32_t bytes = g * (uint32_t)GRANULE_BYTES;
    EXPECT_EQ(b->state, BLOCK_SMALL);
    EXPECT_EQ(b->kind, KIND_NORMAL);
    EXPECT_EQ(b->granules, g);
    EXPECT_EQ(b->obj_bytes, bytes);
    EXPECT_EQ(b->nobjs, BLOCK_BYTES / bytes);
    EXPECT_EQ(b->recip, reciprocal_of(bytes));
    EXPECT(b->u.mark[0] == 0 && b->u.mark[1] == 0 && b->u.mark[2] == 0 && b->u.mark[3] == 0,
           "new block of %u granules has mark bits set", g);
    EXPECT_EQ(heap_blocks_in_use(), in_use + 1);
    /* Take it off its class list again (the collector does this when it
       releases an empty block) and release it. */
    struct size_class_list *cls = &gc.classes[KIND_NORMAL][g];
    REQUIRE(cls->blocks == b, "new block is not at the head of its class list");
    cls->blocks = b->next;
    struct release_run r = { 0 };
    heap_release_small_block(&r, b);
    heap_release_flush(&r);
    EXPECT(b->state == BLOCK_FREE || b->state == BLOCK_UNUSED,
           "released small block reads state %u", b->state);
    EXPECT_EQ(heap_blocks_in_use(), in_use);
  }
}

/* A sweep gives back many empty blocks through one release_run, which
   frees neighbours as one run: blocks taken off their class list in list
   order (the last made first), then in a random order; each time every
   block reads free and the heap's runs end as they began (the snapshots
   in main). */
static void check_small_blocks_released_together(unit_rng_t *rng) {
  enum { N = 300 };
  static struct block *blocks[N];
  for (int round = 0; round < 2; round++) {
    size_t in_use = heap_blocks_in_use();
    struct size_class_list *cls = &gc.classes[KIND_NORMAL][4];
    for (int i = 0; i < N; i++) {
      struct block *b = heap_new_small_block(KIND_NORMAL, 4);
      REQUIRE(b != NULL, "heap_new_small_block failed");
    }
    for (int i = 0; i < N; i++) {   /* off the list, head first */
      blocks[i] = cls->blocks;
      cls->blocks = cls->blocks->next;
    }
    if (round == 1)
      for (int i = N - 1; i > 0; i--) {
        size_t j = unit_below(rng, (uint64_t)i + 1);
        struct block *t = blocks[i];
        blocks[i] = blocks[j];
        blocks[j] = t;
      }
    struct release_run r = { 0 };
    for (int i = 0; i < N; i++) heap_release_small_block(&r, blocks[i]);
    heap_release_flush(&r);
    for (int i = 0; i < N; i++)
      EXPECT(blocks[i]->state == BLOCK_FREE || blocks[i]->state == BLOCK_UNUSED,
             "block %d of %d released together reads state %u", i, N, blocks[i]->state);
    EXPECT_EQ(heap_blocks_in_use(), in_use);
  }
}

int main(void) {
  unit_rng_t rng = unit_rng(4242);
  GC_init();
  /* A fragmented heap to work around: live objects of many sizes with free
     runs between them. */
  for (int i = 0; i < 6000; i++) keep[i] = GC_malloc(unit_below(&rng, 9000));
  for (int i = 0; i < 6000; i++)
    if (unit_below(&rng, 3)) keep[i] = NULL;
  GC_gcollect();
  LOCK();
  size_t in_use = heap_blocks_in_use();
  struct snapshot before = take_snapshot("initial heap");
  NOTE("snapshot of %zu region(s) taken; %zu blocks in use", before.n, in_use);

  for (int i = 0; i < 4; i++) check_block_by_block(&rng);
  NOTE("block-by-block frees of whole chunks checked");
  check_random_runs(&rng);
  NOTE("random runs of 1..512 blocks checked");
  check_long_runs();
  NOTE("runs longer than a chunk checked");

  struct snapshot after = take_snapshot("after freeing everything");
  compare_snapshots(before, after);
  EXPECT_EQ(heap_blocks_in_use(), in_use);

  /* A whole chunk is available, and no address space is needed for it. */
  size_t reserved = arena_unmapped_bytes() + arena_committed_bytes();
  struct run whole = take_run(BLOCKS_PER_CHUNK, 99);
  EXPECT_EQ(index_in_chunk(whole.first), 0);
  EXPECT_EQ(arena_unmapped_bytes() + arena_committed_bytes(), reserved);
  give_back(&whole, 0, BLOCKS_PER_CHUNK);

  check_small_blocks();
  check_small_blocks_released_together(&rng);
  NOTE("small blocks released together checked");
  struct snapshot end = take_snapshot("at the end");
  compare_snapshots(before, end);
  EXPECT_EQ(heap_blocks_in_use(), in_use);
  UNLOCK();
  free_snapshot(before);
  free_snapshot(after);
  free_snapshot(end);

  /* The collector still works on the heap we handled. */
  for (int i = 0; i < 20000; i++) (void)GC_malloc(unit_below(&rng, 5000));
  GC_gcollect();
  size_t kept = 0;
  for (int i = 0; i < 6000; i++)
    if (keep[i]) {
      kept++;
      EXPECT_PTR_EQ(GC_base(keep[i]), keep[i]);
      EXPECT(bibop_classify(keep[i]) == BIBOP_ADDR_HEAP_OBJECT, "kept object %p lost", keep[i]);
    }
  NOTE("%zu objects of the collector's kept live throughout", kept);
  return unit_finish("unit_heap");
}
