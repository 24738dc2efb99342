/*
 * pagetable.c: the one-level BiBoP page table and the registered ranges.
 *
 * pt_table[addr >> 28] is NULL or the block descriptor array of the region
 * holding addr (layout in internal.h). Entries are only ever added, never
 * removed (regions are reserved for the life of the process), so a reader
 * needs no lock: it sees NULL or a descriptor array that stays valid.
 * Static and foreign ranges registered through bibop.h are kept in a small
 * sorted table consulted only when classifying for the user and when
 * choosing roots, never in the marking loop: a word that is not in a region
 * of ours is skipped by the marker after one load whatever it points to.
 */
#include "internal.h"

#include <errno.h>
#include <string.h>

struct block *pt_table[PT_ENTRIES];

static struct meta_vec ranges = { .item_size = sizeof(struct pt_range) };  /* sorted by lo */

void pt_init(void) {}

struct block *pt_add_region(char *base) {
  /* Reserve twice the array so that a 4 MiB-aligned array with the info
     page just below it fits; give the unused head back. */
  char *map = os_map_noreserve(2 * DESCRIPTOR_ARRAY_BYTES, DESCRIPTOR_ARRAY_BYTES);
  if (!map) return NULL;
  char *array = map + DESCRIPTOR_ARRAY_BYTES;
  os_unmap(map, DESCRIPTOR_ARRAY_BYTES - REGION_INFO_BYTES);
  struct block *blocks = (struct block *)array;
  pt_region_info(blocks)->base = base;
  __atomic_store_n(&pt_table[(uintptr_t)base >> REGION_SHIFT], blocks, __ATOMIC_RELEASE);
  return blocks;
}

/* Forget the descriptors of whole chunks: their pages go back to the OS and
   read as zero (BLOCK_UNUSED) from now on. */
void pt_drop_descriptors(struct block *first, size_t n) {
  size_t bytes = n * sizeof(struct block);
  if (((uintptr_t)first & 4095) == 0 && (bytes & 4095) == 0) os_discard(first, bytes);
  else memset(first, 0, bytes);
}

static bool range_overlaps(uintptr_t lo, uintptr_t hi) {
  for (size_t i = 0; i < ranges.count; i++) {
    struct pt_range *r = &META_VEC_AT(&ranges, struct pt_range, i);
    if (lo < r->hi && r->lo < hi) return true;
  }
  for (uintptr_t a = lo & ~(uintptr_t)(REGION_BYTES - 1); a < hi && a >= (lo & ~(uintptr_t)(REGION_BYTES - 1)); a += REGION_BYTES)
    if (arena_contains(a)) return true;
  return false;
}

int pt_range_add(uintptr_t lo, uintptr_t hi, bibop_addr_class cls) {
  if (hi <= lo || range_overlaps(lo, hi)) { errno = EINVAL; return -1; }
  struct pt_range r = { lo, hi, cls };
  if (!meta_vec_push(&ranges, &r)) { errno = ENOMEM; return -1; }
  __atomic_store_n(&pt_range_count, ranges.count, __ATOMIC_RELEASE);
  struct pt_range *v = ranges.items;
  size_t i = ranges.count - 1;
  while (i > 0 && v[i - 1].lo > lo) { v[i] = v[i - 1]; i--; }
  v[i] = r;
  return 0;
}

int pt_range_remove(uintptr_t lo) {
  for (size_t i = 0; i < ranges.count; i++) {
    if (META_VEC_AT(&ranges, struct pt_range, i).lo == lo) {
      meta_vec_remove(&ranges, i);
      __atomic_store_n(&pt_range_count, ranges.count, __ATOMIC_RELEASE);
      return 0;
    }
  }
  errno = ENOENT;
  return -1;
}

bibop_addr_class pt_range_classify(uintptr_t w) {
  struct pt_range *v = ranges.items;
  size_t lo = 0, hi = ranges.count;
  while (lo < hi) {                       /* last range with v.lo <= w */
    size_t mid = (lo + hi) / 2;
    if (v[mid].lo <= w) lo = mid + 1; else hi = mid;
  }
  if (lo > 0 && w < v[lo - 1].hi) return v[lo - 1].cls;
  return BIBOP_ADDR_UNKNOWN;
}

/* The registered ranges, sorted by start, each beginning with {lo, hi}:
   roots.c never scans them (foreign ones are not ours to scan either). */
const struct meta_vec *pt_ranges(void) { return &ranges; }

size_t pt_range_count;   /* read without the lock by bibop_classify */
