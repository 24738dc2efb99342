/* unit_residency.c: which pages the heap makes resident and gives back
 * (heap.c, pagetable.c, arena.c), read with mincore. With small pages
 * (BIBOP_THP=0):
 *   - a block taken from a never-touched chunk of the small space faults in
 *     the 64 KiB batch it starts (os_populate) and nothing beyond it; blocks
 *     taken inside that batch populate nothing more; the next batch comes
 *     with the first block taken in it;
 *   - the blocks read zero;
 *   - when the chunk is whole free again, its descriptors read zero and
 *     stay resident (the chunk stays committed and is often taken again);
 *     when the arena decommits the chunk, its descriptors' pages go back
 *     too.
 * Skipped (77) where the kernel has no MADV_POPULATE_WRITE. All under the
 * allocation lock, after GC_init. */
#define _GNU_SOURCE
#include "internal.h"
#include "unit_check.h"

#include <sys/mman.h>

#define BATCH_BLOCKS 16   /* heap.c's POPULATE_BATCH_BLOCKS */

static bool resident(const void *p) {
  unsigned char v = 0;
  void *page = (void *)((uintptr_t)p & ~(uintptr_t)4095);
  REQUIRE(mincore(page, 4096, &v) == 0, "mincore(%p) failed", page);
  return v & 1;
}

static size_t index_in_chunk(const struct block *b) {
  return (size_t)(b - block_array_of(b)) & (BLOCKS_PER_CHUNK - 1);
}

/* Resident blocks of the chunk whose first descriptor is `first`, in [from, to). */
static size_t resident_blocks(struct block *first, size_t from, size_t to) {
  size_t n = 0;
  for (size_t i = from; i < to; i++) n += resident(block_addr(first) + i * BLOCK_BYTES);
  return n;
}

static bool kernel_populates(void) {
  char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  bool ok = madvise(p, 4096, 23 /* MADV_POPULATE_WRITE */) == 0;
  munmap(p, 4096);
  return ok;
}

/* A new small block of a size class the test has to itself. */
static struct block *small_block(void) { return heap_new_small_block(KIND_PTRFREE, 37); }

/* Small blocks until one comes from a chunk committed for it: the batch it
   starts is resident, and nothing beyond it, until a block is taken from
   the next batch. */
static void check_populated_batches(void) {
  LOCK();
  /* Small blocks until one comes from a chunk committed for it. */
  struct block *first = NULL;
  size_t n = 0;
  while (n < 8 * BLOCKS_PER_CHUNK) {
    size_t committed = arena_committed_bytes();
    struct block *b = small_block();
    REQUIRE(b, "heap_new_small_block failed after %zu blocks", n);
    n++;
    if (arena_committed_bytes() > committed) {
      EXPECT_EQ(index_in_chunk(b), 0);
      first = b;
      break;
    }
  }
  REQUIRE(first, "no chunk committed in %zu small blocks", n);
  NOTE("a fresh chunk after %zu small blocks", n);

  EXPECT_EQ(resident_blocks(first, 0, BATCH_BLOCKS), BATCH_BLOCKS);
  EXPECT_EQ(resident_blocks(first, BATCH_BLOCKS, BLOCKS_PER_CHUNK), 0);
  /* The rest of the batch: nothing more made resident. */
  size_t in_chunk = 1;
  for (; in_chunk < BATCH_BLOCKS; in_chunk++) {
    struct block *b = small_block();
    REQUIRE(b == first + in_chunk, "block %zu of the fresh chunk not taken in order (%p, expected %p)",
            in_chunk, (void *)b, (void *)(first + in_chunk));
  }
  EXPECT_EQ(resident_blocks(first, BATCH_BLOCKS, BLOCKS_PER_CHUNK), 0);
  /* The first block of the next batch brings that batch. */
  REQUIRE(small_block() == first + BATCH_BLOCKS, "block %d of the fresh chunk not taken in order",
          BATCH_BLOCKS);
  in_chunk++;
  EXPECT_EQ(resident_blocks(first, BATCH_BLOCKS, 2 * BATCH_BLOCKS), BATCH_BLOCKS);
  EXPECT_EQ(resident_blocks(first, 2 * BATCH_BLOCKS, BLOCKS_PER_CHUNK), 0);
  for (size_t i = 0; i < in_chunk; i++) {
    const uint64_t *w = (const uint64_t *)block_addr(first + i);
    size_t nonzero = 0;
    for (size_t k = 0; k < BLOCK_BYTES / 8; k++) nonzero += w[k] != 0;
    EXPECT(nonzero == 0, "block %zu of the fresh chunk has %zu non-zero words", i, nonzero);
  }
  /* A large object's blocks are not populated (the program may never
     touch them): the rest of the second batch goes to small blocks, then
     a three-block object comes from the fresh blocks after it. */
  for (; in_chunk < 2 * BATCH_BLOCKS; in_chunk++)
    REQUIRE(small_block() == first + in_chunk, "block %zu of the fresh chunk not taken in order",
            in_chunk);
  bool zeroed;
  struct block *large = heap_alloc_blocks(3, &zeroed);
  REQUIRE(large == first + 2 * BATCH_BLOCKS, "a 3-block run at %p, expected block %d of the fresh chunk",
          (void *)large, 2 * BATCH_BLOCKS);
  EXPECT(zeroed, "a run of never-touched blocks not said zeroed");
  EXPECT_EQ(resident_blocks(first, 2 * BATCH_BLOCKS, BLOCKS_PER_CHUNK), 0);
  /* A small block after it populates again, from where it starts. */
  struct block *after = small_block();
  REQUIRE(after == first + 2 * BATCH_BLOCKS + 3, "the small block after the large object at %p",
          (void *)after);
  EXPECT_EQ(resident_blocks(first, 2 * BATCH_BLOCKS, 2 * BATCH_BLOCKS + 3), 0);
  EXPECT_EQ(resident_blocks(first, 2 * BATCH_BLOCKS + 3, 3 * BATCH_BLOCKS), BATCH_BLOCKS - 3);
  EXPECT_EQ(resident_blocks(first, 3 * BATCH_BLOCKS, BLOCKS_PER_CHUNK), 0);
  heap_free_blocks(large, 3);
  NOTE("checked: a batch of %d blocks populated at a time", BATCH_BLOCKS);
  UNLOCK();
}

/* One-block runs until one comes from a chunk committed for it; then all
   given back, so that the chunk is whole free again and goes back to the
   arena, still committed: its descriptors read zero and stay resident.
   Decommitted, the chunk's descriptors' pages go with it. */
static void check_descriptors_follow_chunk(void) {
  enum { MOST = 8 * BLOCKS_PER_CHUNK };
  static struct block *taken[MOST];
  LOCK();
  size_t n = 0;
  struct block *first = NULL;
  while (n < MOST && !first) {
    size_t committed = arena_committed_bytes();
    bool zeroed;
    struct block *b = heap_alloc_blocks(1, &zeroed);
    REQUIRE(b, "heap_alloc_blocks(1) failed after %zu blocks", n);
    taken[n++] = b;
    if (arena_committed_bytes() > committed) first = b;
  }
  REQUIRE(first, "no chunk committed in %zu one-block runs", n);
  EXPECT_EQ(index_in_chunk(first), 0);
  for (size_t i = 0; i < n; i++) heap_free_blocks(taken[i], 1);
  struct region_info *ri = pt_region_info(block_array_of(first));
  size_t ci = ((uintptr_t)block_addr(first) >> CHUNK_SHIFT) & (CHUNKS_PER_REGION - 1);
  EXPECT(ri->chunk_committed[ci], "a chunk given back was decommitted at once");
  /* (Before reading them: a read maps a discarded page again.) */
  EXPECT(resident(first), "the descriptors of a chunk given back and still committed are not resident");
  size_t nonzero = 0;
  for (size_t i = 0; i < BLOCKS_PER_CHUNK; i++) {
    const unsigned char *d = (const unsigned char *)&first[i];
    for (size_t k = 0; k < sizeof *first; k++) nonzero += d[k] != 0;
  }
  EXPECT(nonzero == 0, "the descriptors of a chunk given back have %zu non-zero bytes", nonzero);
  (void)arena_decommit_idle(GC_gc_no, 0);
  EXPECT(!ri->chunk_committed[ci], "the chunk is still committed");
  size_t descr_resident = 0;
  for (size_t off = 0; off < BLOCKS_PER_CHUNK * sizeof *first; off += 4096)
    descr_resident += resident((char *)first + off);
  EXPECT(descr_resident == 0, "%zu descriptor pages of a decommitted chunk still resident", descr_resident);
  UNLOCK();
  NOTE("checked: descriptors resident while their chunk is committed, given back with it");
}

int main(void) {
  if (!kernel_populates()) {
    printf("unit_residency: no MADV_POPULATE_WRITE here: skipped\n");
    return 77;
  }
  GC_init();
  check_descriptors_follow_chunk();
  check_populated_batches();

  /* The collector still works. */
  void *p = GC_malloc(100);
  GC_gcollect();
  EXPECT(p && bibop_classify(p) == BIBOP_ADDR_HEAP_OBJECT, "object %p lost", p);
  return unit_finish("unit_residency");
}
