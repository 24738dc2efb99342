/*
 * pagetable.c: the one-level BiBoP page table and the registered ranges.
 *
 * pt_table[addr >> 28] is NULL or the block descriptor array of the region
 * holding addr (layout in internal.h), or, while a large object covers the
 * region whole, the array of that object's first such region (lent: every
 * descriptor there is a tail of the object, heap.c). Entries stay once a
 * region holds blocks (regions are kept for the life of the process), so a
 * reader needs no lock: it sees NULL or a descriptor array that stays
 * valid; only a reservation that failed before any block was handed out
 * removes its entries again (pt_remove_region).
 * Static and foreign ranges registered through bibop.h are kept in a small
 * sorted table consulted when classifying for the user and when choosing
 * roots. Static ranges are also entered in the page table itself, so that
 * the marker recognises them from the page-table entry and skips them
 * without touching the static data: a slot (256 MiB) holding static ranges
 * gets a descriptor array of its own (at an odd multiple of 4 MiB, region
 * base NULL, every descriptor UNUSED and never written) and a bitmap of
 * its pages that are in static ranges, for the statistics. Pages are
 * whole 4 KiB: the words around a range that shares a page count as static
 * too, which only matters to the statistics (both are skipped).
 * A static range never shares a slot with a heap region (pt_range_add
 * refuses it), and a region reserved later cannot overlap mapped data.
 * Also: the heap's huge-page backing, read from /proc/self/smaps.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct block *pt_table[PT_ENTRIES];
uint64_t pt_bounds;

/* Set a table slot (never cleared), widening pt_bounds to cover it first,
   so a reader that sees the entry also passes the bounds. Writers hold the
   allocation lock or the ranges' lock; the bounds are updated with a
   compare-and-swap as the two may run at once. */
static void set_slot(struct block **slot, struct block *blocks) {
  uint64_t i = (uint64_t)(slot - pt_table);
  uint64_t old = __atomic_load_n(&pt_bounds, __ATOMIC_RELAXED), want;
  do {
    uint64_t lo = (uint32_t)old, n = old >> 32;
    uint64_t hi = lo + n;
    if (n == 0) lo = i, hi = i + 1;
    if (i < lo) lo = i;
    if (i + 1 > hi) hi = i + 1;
    want = lo | (hi - lo) << 32;
  } while (!__atomic_compare_exchange_n(&pt_bounds, &old, want, false, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
  __atomic_store_n(slot, blocks, __ATOMIC_RELEASE);
}

static struct meta_vec ranges = { .item_size = sizeof(struct pt_range) };  /* sorted by lo */
/* Every heap region's descriptor array, in reservation order (allocation
   lock; only appended, so a marker may read it during a phase). */
static struct meta_vec heap_arrays = { .item_size = sizeof(struct block *) };

size_t pt_heap_region_count(void) { return heap_arrays.count; }
struct block *pt_heap_region(size_t i) { return ((struct block **)heap_arrays.items)[i]; }

void pt_init(void) {
  long v;
  if (os_env_long("BIBOP_PAGEHASH", &v) && v != 0) pagehash_enabled = true;
}

/* A zeroed descriptor array (every block UNUSED) with its info page just
   below it, at an even multiple of 4 MiB for a heap region and an odd one
   for a static-only slot (pt_is_static_desc). A heap region's other
   markers' bits follow its array (block_others_bits), reserved only: a
   page of them is touched when parallel marking first marks an object of
   one of its 128 blocks. Reserve enough aligned to two array sizes, keep
   the array, its info page and the others' bits, give the rest back. */
static struct block *new_descriptor_array(bool static_only) {
  const size_t A = DESCRIPTOR_ARRAY_BYTES;
  const size_t kept = static_only ? A : A + OTHERS_BITS_PER_REGION;
  char *map = os_map_noreserve(2 * A + kept, 2 * A);
  if (!map) return NULL;
  char *array = map + (static_only ? A : 2 * A);
  os_unmap(map, (size_t)(array - map) - REGION_INFO_BYTES);
  if (static_only) os_unmap(array + A, A);
  return (struct block *)array;
}

struct block *pt_add_region(char *base) {
  /* A static-only array already in the slot (its ranges then were not
     mapped memory) is replaced: the heap's pages are not static. */
  struct block **slot = &pt_table[(uintptr_t)base >> REGION_SHIFT];
  struct block *blocks = new_descriptor_array(false);
  if (!blocks || !meta_vec_push(&heap_arrays, &blocks)) return NULL;   /* an array refused stays unused */
  pt_region_info(blocks)->base = base;
  if (pagehash_enabled)
    for (size_t i = 0; i < BLOCKS_PER_REGION; i++)
      pagehash_insert((uintptr_t)base + (i << BLOCK_SHIFT), &blocks[i]);
  set_slot(slot, blocks);
  return blocks;
}

/* Only the regions of a reservation that is being undone, last added
   first, none of which ever held a block. Lock-free readers (bibop_classify,
   GC_base) could only be looking at such a region with a word that never
   pointed to an object. With the legacy hash on, its entries still point
   into the array, which then stays mapped (all UNUSED). */
void pt_remove_region(char *base) {
  struct block **slot = &pt_table[(uintptr_t)base >> REGION_SHIFT];
  struct block *blocks = *slot;
  if (!blocks || !pt_is_heap_array(blocks)) return;
  __atomic_store_n(slot, NULL, __ATOMIC_RELEASE);
  struct block **arrays = heap_arrays.items;
  for (size_t i = heap_arrays.count; i-- > 0;)
    if (arrays[i] == blocks) {
      meta_vec_remove(&heap_arrays, i);
      break;
    }
  if (!pagehash_enabled)
    os_unmap((char *)blocks - REGION_INFO_BYTES,
             REGION_INFO_BYTES + DESCRIPTOR_ARRAY_BYTES + OTHERS_BITS_PER_REGION);
}

void pt_lend_region(uintptr_t base, struct block *shared) {
  __atomic_store_n(&pt_table[base >> REGION_SHIFT], shared, __ATOMIC_RELEASE);
}

/* The region's own array is found among the heap arrays by its base: a few
   dozen at most, and this runs once per region when a huge object dies. */
void pt_reclaim_region(uintptr_t base) {
  struct block **arrays = heap_arrays.items;
  for (size_t i = 0; i < heap_arrays.count; i++)
    if ((uintptr_t)pt_region_info(arrays[i])->base == base) {
      __atomic_store_n(&pt_table[base >> REGION_SHIFT], arrays[i], __ATOMIC_RELEASE);
      return;
    }
}

/* Mark the pages of [lo, hi) (a static range) as static or not in their
   slots' bitmaps, creating static-only arrays as needed. False if memory
   is refused (the range then stays a plain unknown address to the marker). */
static bool describe_static_pages(uintptr_t lo, uintptr_t hi, bool is_static) {
  for (uintptr_t page = lo & ~(uintptr_t)(BLOCK_BYTES - 1); page < hi; page += BLOCK_BYTES) {
    if (page >> ADDRESS_BITS) return true;
    struct block **slot = &pt_table[page >> REGION_SHIFT];
    if (!*slot) {
      if (!is_static) continue;
      struct block *blocks = new_descriptor_array(true);
      if (!blocks) return false;
      uint64_t *bits = meta_alloc(BLOCKS_PER_REGION / 8);
      if (!bits) return false;   /* the array stays unused in this process */
      pt_region_info(blocks)->static_pages = bits;
      set_slot(slot, blocks);
    }
    if (pt_is_heap_array(*slot)) continue;   /* never: refused at registration */
    uint64_t *bits = pt_region_info(*slot)->static_pages;
    size_t i = (page >> BLOCK_SHIFT) & (BLOCKS_PER_REGION - 1);
    if (is_static) bits[i / 64] |= (uint64_t)1 << (i % 64);
    else bits[i / 64] &= ~((uint64_t)1 << (i % 64));
    if (is_static && pagehash_enabled) pagehash_insert(page, &(*slot)[i]);
  }
  return true;
}

/* Forget the descriptors of whole chunks: they read as zero (BLOCK_UNUSED)
   from now on. Their pages stay resident while the chunks stay committed:
   a chunk the heap gives back is often taken again a collection later
   (GCBench's temporary trees), and discarded descriptors cost 8 page
   faults per chunk then (1,500 of GCBench's 9,000, ~12 us each on a host
   with shadow page tables). They go back with the chunks' own pages
   (pt_discard_descriptors). */
void pt_drop_descriptors(struct block *first, size_t n) {
  memset(first, 0, n * sizeof(struct block));
}

/* The chunks [start, start + nchunks * CHUNK_BYTES), free and their
   descriptors dropped, are decommitted: so are their descriptors' pages
   (a chunk's are 32 KiB, page-aligned; they read as zero after). */
void pt_discard_descriptors(uintptr_t start, size_t nchunks) {
  while (nchunks) {
    struct block *blocks = pt_table[start >> REGION_SHIFT];
    size_t ci = (start >> CHUNK_SHIFT) & (CHUNKS_PER_REGION - 1);
    size_t n = CHUNKS_PER_REGION - ci < nchunks ? CHUNKS_PER_REGION - ci : nchunks;
    if (blocks && (uintptr_t)pt_region_info(blocks)->base == start >> REGION_SHIFT << REGION_SHIFT)
      os_discard(blocks + ci * BLOCKS_PER_CHUNK, n * BLOCKS_PER_CHUNK * sizeof(struct block));
    start += n * CHUNK_BYTES;
    nchunks -= n;
  }
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
  if (cls == BIBOP_ADDR_STATIC) (void)describe_static_pages(lo, hi, true);
  __atomic_store_n(&pt_range_count, ranges.count, __ATOMIC_RELEASE);
  struct pt_range *v = ranges.items;
  size_t i = ranges.count - 1;
  while (i > 0 && v[i - 1].lo > lo) { v[i] = v[i - 1]; i--; }
  v[i] = r;
  return 0;
}

int pt_range_remove(uintptr_t lo) {
  for (size_t i = 0; i < ranges.count; i++) {
    struct pt_range r = META_VEC_AT(&ranges, struct pt_range, i);
    if (r.lo == lo) {
      meta_vec_remove(&ranges, i);
      if (r.cls == BIBOP_ADDR_STATIC) {
        /* Clear its pages, then describe again the static ranges that
           shared a page with it. */
        (void)describe_static_pages(r.lo, r.hi, false);
        for (size_t j = 0; j < ranges.count; j++) {
          struct pt_range *o = &META_VEC_AT(&ranges, struct pt_range, j);
          if (o->cls == BIBOP_ADDR_STATIC && o->lo < r.hi + BLOCK_BYTES && r.lo < o->hi + BLOCK_BYTES)
            (void)describe_static_pages(o->lo, o->hi, true);
        }
      }
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

/* ---- huge pages ------------------------------------------------------------ */

/* Parse a hexadecimal number at *p, advancing it. */
static uintptr_t parse_hex(const char **p) {
  uintptr_t v = 0;
  for (;; (*p)++) {
    char c = **p;
    if (c >= '0' && c <= '9') v = v * 16 + (uintptr_t)(c - '0');
    else if (c >= 'a' && c <= 'f') v = v * 16 + (uintptr_t)(c - 'a' + 10);
    else return v;
  }
}

/* One line of smaps: a mapping header ("lo-hi perms ...") starts a mapping;
   "AnonHugePages: N kB" counts if the current mapping is the heap's. */
static void smaps_line(const char *line, bool *in_heap, size_t *bytes) {
  static const char key[] = "AnonHugePages:";
  if (!strncmp(line, key, sizeof key - 1)) {
    if (*in_heap) *bytes += (size_t)strtoull(line + sizeof key - 1, NULL, 10) << 10;
    return;
  }
  const char *p = line;
  uintptr_t lo = parse_hex(&p);
  if (p != line && *p == '-') *in_heap = arena_contains(lo);
}

/* Read with open/read and a stack buffer: no malloc, so callable from a
   GC_PRINT_STATS line whatever the other threads were doing. */
size_t pt_heap_huge_page_bytes(void) {
  int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[8192];
  size_t have = 0, bytes = 0;
  bool in_heap = false;
  for (;;) {
    ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
    if (n <= 0) break;
    have += (size_t)n;
    buf[have] = '\0';
    char *line = buf, *nl;
    while ((nl = strchr(line, '\n'))) {
      *nl = '\0';
      smaps_line(line, &in_heap, &bytes);
      line = nl + 1;
    }
    have = (size_t)(buf + have - line);
    memmove(buf, line, have);
    if (have == sizeof buf - 1) have = 0;   /* a line longer than the buffer: drop it */
  }
  close(fd);
  return bytes;
}
