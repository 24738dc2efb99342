/*
 * arena.c: the large-pages arena. Reserves address space in 256 MiB regions
 * aligned to 256 MiB (PROT_NONE, preferring addresses contiguous with the
 * last reservation), and hands out runs of 2 MiB chunks, best fit, keeping
 * free runs coalesced by address. Chunks are committed with THP advice when
 * handed out and decommitted when they have stayed free for a number of
 * collections. Knows nothing of blocks or objects; the page table learns of
 * each region as it is reserved.
 * Invariant: a chunk that is not handed out is never written by bibop.
 * All functions run under the allocation lock.
 */
#include "internal.h"

#include <string.h>

struct interval { uintptr_t start; size_t nchunks; };

static struct meta_vec free_runs = { .item_size = sizeof(struct interval) };
static char *last_reservation_end;
static size_t committed_bytes, reserved_bytes;
static bool use_huge_pages = true;

void arena_init(void) {
  long v;
  if (os_env_long("BIBOP_THP", &v) && v == 0) use_huge_pages = false;
}

static struct region_info *chunk_region(uintptr_t chunk) {
  return pt_region_info(pt_table[chunk >> REGION_SHIFT]);
}

static size_t chunk_index(uintptr_t chunk) {
  return (chunk >> CHUNK_SHIFT) & (CHUNKS_PER_REGION - 1);
}

/* Insert a free interval and merge it with its neighbours by address. */
static bool add_free_run(uintptr_t start, size_t nchunks) {
  struct interval *iv = free_runs.items;
  size_t n = free_runs.count, i = 0;
  while (i < n && iv[i].start < start) i++;
  bool joins_prev = i > 0 && iv[i - 1].start + iv[i - 1].nchunks * CHUNK_BYTES == start;
  bool joins_next = i < n && start + nchunks * CHUNK_BYTES == iv[i].start;
  if (joins_prev && joins_next) {
    iv[i - 1].nchunks += nchunks + iv[i].nchunks;
    meta_vec_remove(&free_runs, i);
  } else if (joins_prev) {
    iv[i - 1].nchunks += nchunks;
  } else if (joins_next) {
    iv[i].start = start;
    iv[i].nchunks += nchunks;
  } else {
    struct interval fresh = { start, nchunks };
    if (!meta_vec_push(&free_runs, &fresh)) return false;
    iv = free_runs.items;
    memmove(&iv[i + 1], &iv[i], (free_runs.count - 1 - i) * sizeof *iv);
    iv[i] = fresh;
  }
  return true;
}

/* Reserve enough whole regions for n chunks and make them free runs. */
static bool reserve_regions(size_t nchunks) {
  size_t nregions = (nchunks + CHUNKS_PER_REGION - 1) / CHUNKS_PER_REGION;
  if (nregions > PT_ENTRIES) return false;
  size_t bytes = nregions * REGION_BYTES;
  char *base = os_reserve(bytes, REGION_BYTES, last_reservation_end);
  if (!base) return false;
  for (size_t r = 0; r < nregions; r++) {
    if (!pt_add_region(base + r * REGION_BYTES)) {
      /* Descriptor memory refused: give back the regions not yet known. */
      os_unmap(base + r * REGION_BYTES, (nregions - r) * REGION_BYTES);
      if (r == 0) return false;
      nregions = r;
      bytes = r * REGION_BYTES;
      break;
    }
  }
  if (!add_free_run((uintptr_t)base, nregions * CHUNKS_PER_REGION)) return false;
  reserved_bytes += bytes;
  last_reservation_end = base + bytes;
  if ((void *)base < GC_least_plausible_heap_addr || GC_least_plausible_heap_addr == NULL)
    GC_least_plausible_heap_addr = base;
  if ((void *)(base + bytes) > GC_greatest_plausible_heap_addr)
    GC_greatest_plausible_heap_addr = base + bytes;
  return true;
}

char *arena_alloc_chunks(size_t n, bool *fresh) {
  if (n == 0 || n > PT_ENTRIES * CHUNKS_PER_REGION) return NULL;
  for (int attempt = 0; attempt < 2; attempt++) {
    struct interval *iv = free_runs.items;
    size_t best = free_runs.count;
    for (size_t i = 0; i < free_runs.count; i++) {
      if (iv[i].nchunks >= n && (best == free_runs.count || iv[i].nchunks < iv[best].nchunks))
        best = i;
    }
    if (best < free_runs.count) {
      uintptr_t start = iv[best].start;
      if (iv[best].nchunks == n) meta_vec_remove(&free_runs, best);
      else { iv[best].start += n * CHUNK_BYTES; iv[best].nchunks -= n; }
      bool all_zero = true;
      for (size_t c = 0; c < n; c++) {
        uintptr_t chunk = start + c * CHUNK_BYTES;
        struct region_info *ri = chunk_region(chunk);
        size_t ci = chunk_index(chunk);
        if (ri->chunk_dirty[ci]) all_zero = false;
        if (!ri->chunk_committed[ci]) committed_bytes += CHUNK_BYTES;
        ri->chunk_committed[ci] = 1;
        ri->chunk_dirty[ci] = 1;
      }
      if (!os_commit((void *)start, n * CHUNK_BYTES, use_huge_pages)) {
        arena_free_chunks((char *)start, n);
        return NULL;
      }
      *fresh = all_zero;
      return (char *)start;
    }
    if (attempt == 0 && !reserve_regions(n)) return NULL;
  }
  return NULL;
}

void arena_free_chunks(char *p, size_t n) {
  uintptr_t start = (uintptr_t)p;
  for (size_t c = 0; c < n; c++) {
    uintptr_t chunk = start + c * CHUNK_BYTES;
    chunk_region(chunk)->chunk_freed_at[chunk_index(chunk)] = (uint32_t)GC_gc_no;
  }
  if (!add_free_run(start, n)) {
    /* No memory to record the run: the chunks stay committed and lost to
       reuse, which is a leak of address space, never a correctness issue. */
    gc_warn("GC Warning: bibop could not record %lu free chunks\n", (GC_word)n);
  }
}

size_t arena_decommit_idle(unsigned long gc_no, unsigned long age) {
  size_t released = 0;
  struct interval *iv = free_runs.items;
  for (size_t i = 0; i < free_runs.count; i++) {
    uintptr_t run_start = 0;
    size_t run_len = 0;
    for (size_t c = 0; c <= iv[i].nchunks; c++) {
      bool take = false;
      uintptr_t chunk = iv[i].start + c * CHUNK_BYTES;
      if (c < iv[i].nchunks) {
        struct region_info *ri = chunk_region(chunk);
        size_t ci = chunk_index(chunk);
        if (ri->chunk_committed[ci] &&
            (age == 0 || gc_no - ri->chunk_freed_at[ci] >= age)) {
          ri->chunk_committed[ci] = 0;
          ri->chunk_dirty[ci] = 0;
          take = true;
        }
      }
      if (take) {
        if (!run_len) run_start = chunk;
        run_len++;
      } else if (run_len) {
        os_decommit((void *)run_start, run_len * CHUNK_BYTES);
        released += run_len * CHUNK_BYTES;
        run_len = 0;
      }
    }
  }
  committed_bytes -= released;
  return released;
}

size_t arena_committed_bytes(void) { return committed_bytes; }

size_t arena_unmapped_bytes(void) { return reserved_bytes - committed_bytes; }

bool arena_contains(uintptr_t w) {
  if (w >> ADDRESS_BITS) return false;
  struct block *blocks = pt_table[w >> REGION_SHIFT];
  return blocks && pt_is_heap_array(blocks);   /* not a static-only slot */
}
