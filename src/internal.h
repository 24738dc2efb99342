/*
 * internal.h: bibop's internal types and the memory layout they describe.
 * Owns no state itself; every module's shared declarations live here.
 *
 * THE LAYOUT
 *
 * Address space is taken from the OS in REGIONS of 256 MiB, aligned to
 * 256 MiB and reserved PROT_NONE (arena.c). A region is cut into CHUNKS of
 * 2 MiB, the unit of commit, decommit and huge pages. A chunk handed to the
 * heap is cut into BLOCKS of 4 KiB, the unit of size-segregation: a block
 * holds objects of one size class and one kind (a SMALL block), or is part of
 * one LARGE object (a run of blocks: head block + tail blocks), or is FREE.
 *
 * Every region has a descriptor mapping (pagetable.c), allocated outside the
 * heap: one page of region information followed by an array of 65,536 block
 * descriptors (struct block, 64 bytes each), one per 4 KiB of the region. The
 * array is reserved with MAP_NORESERVE and only the entries of committed
 * chunks are ever touched; a chunk that goes back to the arena has its
 * descriptors' pages dropped, so they read as zero = BLOCK_UNUSED. A region
 * covered whole by one large object (not its first such region) has its
 * page-table slot lent to that first region's array of tails (heap.c).
 *
 * The PAGE TABLE is one static array of 2^20 pointers indexed by addr >> 28
 * (the 48-bit user address space). An entry is NULL (the address is not in
 * any region of ours) or points at the region's block descriptor array.
 * Classifying any machine word w is therefore:
 *
 *     (w >> 28) outside the table's used slots: not ours, skip (pt_bounds)
 *     blocks = pt_table[w >> 28]           load 1 (NULL: not ours, skip)
 *     b = &blocks[(w >> 12) & 0xffff]      index arithmetic, no load
 *     b->state, b->obj_bytes, b->recip     load 2 (one cache line)
 *     index = ((w & 4095) * b->recip) >> 32  object number, no division
 *
 * and a tail block of a large object costs one more load (b->head).
 *
 * INVARIANTS (kept by the modules named)
 *  1. The marker dereferences only addresses whose block descriptor says
 *     SMALL or LARGE/LARGE_TAIL, i.e. committed memory owned by the heap, or
 *     root ranges it was asked to scan (mark.c, heap.c, arena.c).
 *  2. Objects never move.
 *  3. Mark bits live in the block descriptors, never in objects; atomic
 *     objects are never read by the collector; a free object is written only
 *     when it is handed out (alloc.c zeroes it then).
 *  4. A block holds one size class and one kind; object start from an
 *     interior address is a multiplication by a reciprocal (heap.c).
 *  5. Every object reachable from a root at the start of a collection
 *     survives it with unchanged contents (collect.c, mark.c).
 *  6. Collectable allocations return zeroed memory (alloc.c).
 *  7. The collector's metadata is never scanned as a root (roots.c excludes
 *     our own data) and never holds the only pointer to an object.
 *
 * MARK BITS ARE ALLOCATION BITS. In a small block, a set bit means "in use":
 * allocation claims free slots by setting their bits, a collection clears the
 * bits of collectable blocks and marking sets those of reachable objects, so
 * after marking the clear bits are exactly the free slots. Sweeping is
 * therefore reading the bits (lazily, when a size class needs a block);
 * blocks with no marks go back to the block pool right after marking.
 * Uncollectable blocks keep their bits across collections (GC_free clears).
 */
#ifndef BIBOP_INTERNAL_H
#define BIBOP_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>

/* The public headers declare some parameters nonnull (GC_ATTR_NONNULL): a
   hint for clients' compilers. bdwgc ignores or rejects such calls all the
   same, and so must bibop; but a definition that saw the attribute would
   let the optimizer delete every NULL guard on those parameters (the
   attribute promises NULL never comes), so inside the library it is empty.
   -Wnonnull-compare stays on for everything else. */
#define GC_ATTR_NONNULL(argnum)
#include "gc/gc.h"
#include "gc/gc_mark.h"
#include "bibop.h"

#define BIBOP_INTERNAL __attribute__((visibility("hidden")))

/* Exported by bdwgc's library but declared in none of its public headers. */
extern __attribute__((visibility("default"))) GC_abort_func GC_on_abort;
extern __attribute__((visibility("default"))) void (*GC_push_other_roots)(void);
/* Declared by gc.h only for GC_THREADS clients. */
extern __attribute__((visibility("default"))) int GC_parallel;
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- geometry ---------------------------------------------------------- */

#define GRANULE_SHIFT 4
#define GRANULE_BYTES ((size_t)1 << GRANULE_SHIFT)        /* bdwgc's granule */
#define BLOCK_SHIFT 12
#define BLOCK_BYTES ((size_t)1 << BLOCK_SHIFT)
#define CHUNK_SHIFT 21                                    /* 2 MiB: a huge page */
#define CHUNK_BYTES ((size_t)1 << CHUNK_SHIFT)
#define BLOCKS_PER_CHUNK (CHUNK_BYTES / BLOCK_BYTES)      /* 512 */
#define REGION_SHIFT 28                                   /* 256 MiB */
#define REGION_BYTES ((size_t)1 << REGION_SHIFT)
#define BLOCKS_PER_REGION (REGION_BYTES / BLOCK_BYTES)    /* 65,536 */
#define CHUNKS_PER_REGION (REGION_BYTES / CHUNK_BYTES)    /* 128 */
#define ADDRESS_BITS 48                                   /* x86-64, aarch64 user space */
#define PT_ENTRIES ((size_t)1 << (ADDRESS_BITS - REGION_SHIFT))

/* Small objects: up to 2 KiB, one size class per granule count, as bdwgc
   (so GC_size answers what bdwgc answers). Larger ones are block runs. */
#define MAX_SMALL_GRANULES 128
#define MAX_SMALL_BYTES (MAX_SMALL_GRANULES * GRANULE_BYTES)
#define MAX_OBJS_PER_BLOCK (BLOCK_BYTES / GRANULE_BYTES)  /* 256 */
#define MARK_WORDS (MAX_OBJS_PER_BLOCK / 64)              /* 4 */

/* ---- kinds --------------------------------------------------------------- */

/* bdwgc's kind numbers: clients pass them to GC_generic_malloc. */
enum { KIND_PTRFREE = 0, KIND_NORMAL = 1, KIND_UNCOLLECTABLE = 2,
       KIND_ATOMIC_UNCOLLECTABLE = 3, KIND_BUILTIN_COUNT = 4,
       KIND_TYPED = 4 /* made by kinds_init, first after the builtins */ };
#define MAX_KINDS 16
#define CACHED_KINDS 2   /* PTRFREE and NORMAL have per-thread caches */

struct kind {
  GC_word descr;       /* mark descriptor template (GC_DS_* encoding) */
  bool add_size;       /* descriptor length is the object size */
  bool pointer_free;   /* never scanned */
  bool uncollectable;  /* never reclaimed, scanned as a root */
  bool zero_on_alloc;  /* hand out zeroed memory */
  bool any_interior;   /* interior pointers keep objects even when GC_all_interior_pointers is off */
  bool in_use;
  bool free_slots_zero; /* traced by its contents (a mark procedure or a per-object
                           descriptor): every free slot is kept zero, as
                           gc_mark.h promises mark procedures (kinds.c, mark.c) */
};

/* ---- block descriptors --------------------------------------------------- */

/* What the marker needs of a small block's kind, copied into the block so
   that marking an object reads no kind. */
enum {
  BLOCK_KIND_POINTER_FREE = 1,
  BLOCK_KIND_UNCOLLECTABLE = 2,
  BLOCK_KIND_ANY_INTERIOR = 4,
  BLOCK_KIND_LENGTH_DESCR = 8,   /* its objects are scanned whole: descriptor = size */
};

enum block_state {
  BLOCK_UNUSED = 0,   /* not part of the heap (zero page reads as this) */
  BLOCK_FREE,         /* committed, in a free run */
  BLOCK_SMALL,        /* objects of one size class */
  BLOCK_LARGE,        /* first block of a large object */
  BLOCK_LARGE_TAIL    /* later block of a large object: see head */
};

struct block {
  uint8_t state;       /* enum block_state */
  uint8_t kind;
  uint16_t granules;   /* SMALL: object size in granules */
  uint16_t nobjs;      /* SMALL: objects in the block */
  uint8_t others_marked;   /* SMALL: in a parallel phase, another marker than
                              the collector's set some of this block's bits in
                              block_others_bits; mark.c folds them into mark[]
                              and clears both when the phase ends */
  uint8_t kind_flags;  /* SMALL: the kind's BLOCK_KIND_* facts, for the marker
                          (kinds never change once defined) */
  uint32_t obj_bytes;  /* SMALL: object size in bytes */
  uint32_t recip;      /* SMALL: ceil(2^32 / obj_bytes), for object index */
  union {
    uint64_t mark[MARK_WORDS];              /* SMALL: one bit per object */
    struct {                                /* LARGE head */
      uint64_t marked;
      size_t bytes;                         /* object size (granule multiple) */
      size_t nblocks;
      struct block *prev;                   /* in heap.large list */
    } large;
    struct {                                /* FREE: first block of a run */
      size_t nblocks;
      struct block *prev;                   /* in a free-run bucket */
      uint32_t freed_at;                    /* gc_no when it last grew */
      uint32_t discarded;                   /* its pages were given back whole */
      uint32_t fresh_from;                  /* small space: its blocks from this index
                                               in the chunk on were never touched */
    } run;
  } u;
  struct block *head;  /* LARGE_TAIL: the head; FREE, last block of a run: run head;
                          SMALL: next on its class's freed list */
  struct block *next;  /* list link (class list, large list, free-run bucket) */
};
_Static_assert(sizeof(struct block) == 64, "block descriptor is one cache line");

/* The number of set bits of x. Built without a popcount instruction (the
   baseline x86-64 target has none), __builtin_popcountll is a call into
   libgcc; this is a dozen inline instructions on any target. */
static inline unsigned bits_set(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ULL;                                 /* pairs */
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);  /* nibbles */
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;                            /* bytes */
  return (unsigned)((x * 0x0101010101010101ULL) >> 56);                  /* sum of bytes */
}

/* Descriptor array of a region comes right after one page of region info. */
struct region_info {
  char *base;                          /* start of the 256 MiB region; NULL for a
                                          slot that only describes static ranges */
  uint8_t chunk_committed[CHUNKS_PER_REGION];
  uint8_t chunk_dirty[CHUNKS_PER_REGION];   /* may hold nonzero bytes */
  uint8_t chunk_returned[CHUNKS_PER_REGION];  /* decommitted after use, not committed since:
                                                 part of the heap's unmapped bytes */
  uint32_t chunk_freed_at[CHUNKS_PER_REGION]; /* gc_no when it became free */
  uint64_t (*young)[2][MARK_WORDS];   /* generational mode: per block, the slots of
                                          age 0 and 1 (alloc.c) */
  uint64_t *dirty_before;              /* generational mode: the blocks written in
                                          the cycle before the last (generations.c) */
  uint64_t (*remembered)[MARK_WORDS];  /* generational mode: per block, the objects to
                                          scan again while it is in dirty_before
                                          (generations.c) */
  uint64_t *protected_blocks;          /* generational mode: the blocks the last
                                          collection left write-protected (generations.c) */
  uint64_t *unprotected_old;           /* generational mode: the blocks of sparse old
                                          objects the last collection left unprotected
                                          for the allocator to fill (generations.c) */
  uint64_t *may_hold_young;            /* generational mode, a minor collection's
                                          rescan: the blocks that may hold an unmarked
                                          object (young slots, young large objects);
                                          the others' objects are all marked or free
                                          (generations.c) */
  bool dirty_tracked;                  /* generational mode: writes to the region are
                                          tracked (generations.c) */
  uint8_t chunk_space[CHUNKS_PER_REGION];   /* heap.c: the space (small blocks or
                                               large runs) whose free runs the chunk's
                                               free blocks join, while the heap holds it */
  uint8_t chunk_in_runs[CHUNKS_PER_REGION]; /* heap.c: the heap holds the chunk and
                                               hands out its blocks as runs (the only
                                               chunks with small blocks); 0 once it
                                               goes back to the arena */
  uint64_t *static_pages;              /* static-only slot: one bit per 4 KiB page,
                                          set for pages of registered static ranges */
};
#define REGION_INFO_BYTES 4096
_Static_assert(sizeof(struct region_info) <= REGION_INFO_BYTES, "region info fits its page");

/* ---- the page table (pagetable.c) ---------------------------------------- */

struct meta_vec;
/* A range registered through bibop.h (static or foreign). */
struct pt_range { uintptr_t lo, hi; bibop_addr_class cls; };

BIBOP_INTERNAL extern struct block *pt_table[PT_ENTRIES];
/* The set table entries all lie in slots [lo, lo + n), with lo in the low
   32 bits of pt_bounds and n in the high ones (one word, so a reader never
   sees half of an update; n is 0 while the table is empty). A word outside
   (NULL, a small integer, a tag) is rejected without a load from the
   table. */
BIBOP_INTERNAL extern uint64_t pt_bounds;

/* The descriptor of the block containing w, w being known to lie within the
   table's used slots (the marker tests its own copy of the bounds). */
static inline struct block *pt_block_in_table(uintptr_t w) {
  struct block *blocks = pt_table[w >> REGION_SHIFT];
  if (!blocks) return NULL;
  return &blocks[(w >> BLOCK_SHIFT) & (BLOCKS_PER_REGION - 1)];
}

/* The descriptor of the block containing w, or NULL if w is in no region of
   ours. Two loads at most: the table entry, then (by the caller) the block.
   bounds is pt_bounds as the caller read it (a marker reads it once per
   drain: the table does not change while the world is stopped). */
static inline struct block *pt_block_of_within(uintptr_t w, uint64_t bounds) {
  uintptr_t slot = w >> REGION_SHIFT;
  if (slot - (uint32_t)bounds >= (bounds >> 32)) return NULL;
  return pt_block_in_table(w);
}

static inline struct block *pt_block_of(uintptr_t w) {
  return pt_block_of_within(w, __atomic_load_n(&pt_bounds, __ATOMIC_RELAXED));
}

static inline struct region_info *pt_region_info(struct block *blocks_base) {
  return (struct region_info *)((char *)blocks_base - REGION_INFO_BYTES);
}

/* Descriptor arrays are aligned to their own size (4 MiB), so the array
   and its region info are found from any descriptor by masking. */
#define DESCRIPTOR_ARRAY_BYTES (BLOCKS_PER_REGION * sizeof(struct block))

static inline struct block *block_array_of(const struct block *b) {
  return (struct block *)((uintptr_t)b & ~(uintptr_t)(DESCRIPTOR_ARRAY_BYTES - 1));
}

/* The address a block descriptor describes. */
static inline char *block_addr(const struct block *b) {
  struct block *blocks = block_array_of(b);
  return pt_region_info(blocks)->base + ((size_t)(b - blocks) << BLOCK_SHIFT);
}

/* The other markers' mark bits of a heap block (mark.c): during a parallel
   phase the markers other than the collecting thread's claim objects here,
   MARK_WORDS words per block, all zero outside that phase. A heap region's
   descriptor array is followed by them, so they are found from the
   descriptor's address alone, with no load (pagetable.c reserves them with
   the array). */
#define OTHERS_BITS_PER_REGION ((size_t)BLOCKS_PER_REGION * MARK_WORDS * sizeof(uint64_t))
static inline uint64_t *block_others_bits(const struct block *b) {
  uintptr_t array = (uintptr_t)block_array_of(b);
  return (uint64_t *)(array + DESCRIPTOR_ARRAY_BYTES) +
         ((uintptr_t)b - array) / sizeof(struct block) * MARK_WORDS;
}

/* A descriptor array describes a heap region, or only static pages. Heap
   arrays sit at even multiples of 4 MiB, static-only ones at odd multiples,
   so the marker tells a static page from the descriptor's address alone:
   no load, and no prefetch of the static data. */
static inline bool pt_is_static_desc(const struct block *b) {
  return ((uintptr_t)b & DESCRIPTOR_ARRAY_BYTES) != 0;
}
static inline bool pt_is_heap_array(struct block *blocks) { return !pt_is_static_desc(blocks); }

/* Generational mode, during a minor collection's rescan: may the heap
   block t (its descriptor, as the page table gives it) hold an unmarked
   object? Read from a dense bitmap beside the region's descriptors, not
   from t, whose line is a cache miss for each old object pointed to from
   afar (generations.c builds the map; no map: maybe). */
static inline bool pt_may_hold_young(const struct block *t) {
  struct block *blocks = block_array_of(t);
  const uint64_t *map = pt_region_info(blocks)->may_hold_young;
  size_t i = (size_t)(t - blocks);
  return !map || ((map[i / 64] >> (i & 63)) & 1);
}

/* For a descriptor of a static-only slot: is its page in a static range?
   Two loads from a few hot lines (the slot's info page and its bitmap),
   never from the static data or its (untouched) descriptors. */
static inline bool pt_static_page(const struct block *b) {
  struct block *blocks = block_array_of(b);
  size_t i = (size_t)(b - blocks);
  return (pt_region_info(blocks)->static_pages[i / 64] >> (i % 64)) & 1;
}

BIBOP_INTERNAL void pt_init(void);
BIBOP_INTERNAL size_t pt_heap_region_count(void);
BIBOP_INTERNAL struct block *pt_heap_region(size_t i);   /* descriptor array, 0 <= i < count */
BIBOP_INTERNAL struct block *pt_add_region(char *base);  /* returns descriptor array */
/* Undo pt_add_region for a region that never held a block (a reservation
   that failed): its slot is cleared and its descriptors unmapped. */
BIBOP_INTERNAL void pt_remove_region(char *base);
BIBOP_INTERNAL void pt_drop_descriptors(struct block *first, size_t n);
BIBOP_INTERNAL void pt_discard_descriptors(uintptr_t start, size_t nchunks);
/* The slot of the heap region at base reads shared (another region's
   array, of tails of one large object covering both) until reclaimed. */
BIBOP_INTERNAL void pt_lend_region(uintptr_t base, struct block *shared);
BIBOP_INTERNAL void pt_reclaim_region(uintptr_t base);
/* A heap region's own array is not what its slot reads: lent out. */
static inline bool pt_region_lent(struct block *blocks) {
  return pt_table[(uintptr_t)pt_region_info(blocks)->base >> REGION_SHIFT] != blocks;
}
BIBOP_INTERNAL extern size_t pt_range_count;
BIBOP_INTERNAL int pt_range_add(uintptr_t lo, uintptr_t hi, bibop_addr_class cls);
BIBOP_INTERNAL int pt_range_remove(uintptr_t lo);
BIBOP_INTERNAL bibop_addr_class pt_range_classify(uintptr_t w);
BIBOP_INTERNAL const struct meta_vec *pt_ranges(void);
/* Heap bytes backed by transparent huge pages: AnonHugePages of the heap's
   mappings in /proc/self/smaps (a read of that file: call at stats time,
   never from the marker). 0 if it cannot be read. */
BIBOP_INTERNAL size_t pt_heap_huge_page_bytes(void);

/* ---- the legacy hash page table (pagehash.c) ------------------------------ */

/* OCaml 4's page table, for comparison only: 4 KiB page -> block descriptor
   in an open-addressing table with linear probing and a multiplicative
   (Fibonacci) hash, kept at most half full. Filled only when BIBOP_PAGEHASH=1
   at init; the marker then classifies through it instead of pt_table. Like
   bdwgc's and OCaml's checks, a bounds test on [lo, hi) (every page ever
   entered) comes first, so small integers never reach the table. */
struct pagehash_slot { uintptr_t page; struct block *desc; };  /* page 0: empty */
struct pagehash {
  struct pagehash_slot *slots;
  size_t mask;            /* slots - 1 (a power of two) */
  unsigned shift;         /* 64 - log2(slots) */
  size_t count;
  uintptr_t lo, hi;
};
BIBOP_INTERNAL extern struct pagehash pagehash;
BIBOP_INTERNAL extern bool pagehash_enabled;
BIBOP_INTERNAL void pagehash_insert(uintptr_t page_addr, struct block *desc);

static inline size_t pagehash_slot_of(uintptr_t page) {
  return (size_t)((page * (uint64_t)0x9E3779B97F4A7C15u) >> pagehash.shift);  /* 2^64 / phi */
}

static inline struct block *pagehash_block_of(uintptr_t w) {
  if (w < pagehash.lo || w >= pagehash.hi) return NULL;
  uintptr_t page = w >> BLOCK_SHIFT;
  size_t h = pagehash_slot_of(page);
  for (;;) {
    const struct pagehash_slot *s = &pagehash.slots[h];
    if (s->page == page) return s->desc;
    if (s->page == 0) return NULL;
    h = (h + 1) & pagehash.mask;
  }
}

/* ---- OS (os.c) ------------------------------------------------------------ */

BIBOP_INTERNAL void *os_reserve(size_t bytes, size_t align, void *hint);
BIBOP_INTERNAL void *os_map_noreserve(size_t bytes, size_t align);
/* Inside a spin-wait loop: tell the processor (the one architecture-specific
   line, empty elsewhere). */
static inline void os_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}
BIBOP_INTERNAL bool os_commit(void *p, size_t bytes, bool huge);
BIBOP_INTERNAL void os_advise_huge(void *p, size_t bytes);
BIBOP_INTERNAL uint64_t os_first_touch_ns(bool huge);   /* 2 MiB fresh, small or huge pages */
BIBOP_INTERNAL size_t os_commit_limit(void);   /* largest commit the system could back */
BIBOP_INTERNAL void os_decommit(void *p, size_t bytes);
BIBOP_INTERNAL void os_discard(void *p, size_t bytes);   /* contents to zero, stays mapped */
BIBOP_INTERNAL void os_populate(void *p, size_t bytes);  /* fault the range in, writable */
BIBOP_INTERNAL void os_unmap(void *p, size_t bytes);
BIBOP_INTERNAL uint64_t os_now_ns(void);
BIBOP_INTERNAL unsigned os_cpus_usable(void);   /* affinity mask, cgroup CPU quota */
/* Deeper than the frames a collection (the mark loop with its 1 KiB
   scan-ahead queue, roots, finalization) or a volunteer's marking leave,
   and than the library frames between a public entry and a collection:
   16 KiB zeroed costs about a microsecond. */
#define OS_DEAD_STACK_BYTES ((size_t)16 << 10)
BIBOP_INTERNAL void os_zero_stack_below(void);   /* the caller's dead stack */
BIBOP_INTERNAL uint64_t os_process_cpu_ns(void);
BIBOP_INTERNAL void *os_main_stack_base(void);
BIBOP_INTERNAL bool os_env_set(const char *name);   /* presence, like bdwgc */
BIBOP_INTERNAL bool os_env_size(const char *name, size_t *out); /* 64K, 8M, 1G */
BIBOP_INTERNAL bool os_env_long(const char *name, long *out);

/* ---- dirty pages (dirty.c): which pages were written since protected ------ */

/* The backend is chosen once, at the first call (BIBOP_DIRTY=0 forces
   "none"); "none" tracks nothing and reports every page written, as does
   a child of fork (registrations are not inherited). Ranges are
   page-aligned. Not yet used by collections (issue #17, step 1). */
enum dirty_backend { DIRTY_BACKEND_NONE, DIRTY_BACKEND_UFFD_ASYNC };
BIBOP_INTERNAL enum dirty_backend dirty_init(void);
BIBOP_INTERNAL const char *dirty_backend_name(void);   /* "uffd-wp-async", "none" */
/* Track writes to a mapped range (any protection; whole mappings or parts
   of them; a range stays registered until unmapped or unregistered).
   false: refused, and the range must be treated as always written. */
BIBOP_INTERNAL bool dirty_register(void *start, size_t bytes);
BIBOP_INTERNAL void dirty_unregister(void *start, size_t bytes);
/* Start a cycle: every page of the range counts as clean from now on. */
BIBOP_INTERNAL bool dirty_protect(void *start, size_t bytes);
/* Stop tracking writes to a range for now: its populated pages count as
   written at every dirty_collect until protected again (which
   dirty_collect does to every page it reports). */
BIBOP_INTERNAL bool dirty_unprotect(void *start, size_t bytes);
/* Fill bitmap (one bit per 2^unit_shift bytes from start, unit_shift >= the
   page shift; the caller's array holds them all) with the units holding a
   page written since the last protect or collect of it, and make those
   pages clean again in the same step (a write racing with the call is seen
   now or by the next call, never lost). Returns the number of dirty units.
   Unregistered ranges, failures and the "none" backend: all units dirty. */
BIBOP_INTERNAL size_t dirty_collect(void *start, size_t bytes, unsigned unit_shift, uint64_t *bitmap);
/* As dirty_collect, but the pages stay as they are: a written page reads as
   written again at the next call. */
BIBOP_INTERNAL size_t dirty_written(void *start, size_t bytes, unsigned unit_shift, uint64_t *bitmap);
/* Units [first, first + count) of the range at base: their written pages
   set their bits of bitmap (bit i: unit i from base; no other bit
   changes), protected again if protect, left as they are if not. */
BIBOP_INTERNAL size_t dirty_collect_units(void *base, size_t first, size_t count, unsigned unit_shift,
                                          uint64_t *bitmap, bool protect);
/* Protect the pages of the range that read as written; protected and empty
   pages are left as they are. false: the range could not be scanned. */
BIBOP_INTERNAL bool dirty_protect_written(void *start, size_t bytes);
/* The median cost of a first store to a protected page, measured once on a
   scratch range (0 without a backend). */
BIBOP_INTERNAL uint64_t dirty_write_fault_ns(void);

/* ---- metadata allocator (meta.c): memory outside the heap, never scanned -- */

BIBOP_INTERNAL void *meta_alloc(size_t bytes);          /* zeroed; NULL on failure */
BIBOP_INTERNAL void meta_free(void *p, size_t bytes);
/* A growable array of fixed-size items in metadata memory. */
struct meta_vec { void *items; size_t count, cap, item_size; };
BIBOP_INTERNAL bool meta_vec_push(struct meta_vec *v, const void *item);
BIBOP_INTERNAL void meta_vec_remove(struct meta_vec *v, size_t i);
#define META_VEC_AT(v, T, i) (((T *)(v)->items)[i])

/* ---- arena (arena.c) ------------------------------------------------------- */

BIBOP_INTERNAL void arena_init(void);
/* n contiguous committed chunks, or NULL if the OS refuses. *fresh tells
   whether all of it is known to read as zero. */
BIBOP_INTERNAL char *arena_alloc_chunks(size_t n, bool *fresh);
/* The same from free chunks already committed only; NULL if none fit. */
BIBOP_INTERNAL char *arena_alloc_committed_chunks(size_t n, bool *fresh);
BIBOP_INTERNAL void arena_free_chunks(char *p, size_t n);
/* Decommit chunks free for at least `age` collections (0: all free ones). */
BIBOP_INTERNAL size_t arena_decommit_idle(unsigned long gc_no, unsigned long age);
/* Decommit free chunks, whatever their age, beyond keep_chunks of them. */
BIBOP_INTERNAL size_t arena_decommit_surplus(size_t keep_chunks);
/* Commit n more chunks as free ones (GC_expand_hp, GC_INITIAL_HEAP_SIZE);
   all or nothing. */
BIBOP_INTERNAL bool arena_expand(size_t nchunks);
/* Keep committed memory within bytes (rounded up to chunks); 0: no limit. */
BIBOP_INTERNAL void arena_set_heap_limit(size_t bytes);
BIBOP_INTERNAL size_t arena_committed_bytes(void);
/* What the huge-page probe found (ns for 2 MiB in small pages, in a huge
   page; 0: not run, or no huge page given); false if it has not run. */
BIBOP_INTERNAL bool arena_first_touch_probe(uint64_t *small_ns, uint64_t *huge_ns);
/* Chunks are committed with huge pages from now on (and were before). */
BIBOP_INTERNAL bool arena_huge_pages_on(void);
/* heap.c gave back (or touches again) the pages of a free run inside a
   committed chunk: they move to the unmapped count (or back). */
BIBOP_INTERNAL void arena_note_discarded(size_t bytes);
BIBOP_INTERNAL void arena_note_recommitted(size_t bytes);   /* the heap: GC_get_heap_size */
BIBOP_INTERNAL size_t arena_unmapped_bytes(void);    /* decommitted after use */
BIBOP_INTERNAL size_t arena_reserved_bytes(void);    /* address space of all regions */
BIBOP_INTERNAL bool arena_contains(uintptr_t w);  /* inside a region of ours */

/* ---- heap: blocks and size classes (heap.c) -------------------------------- */

struct size_class_list {
  struct block *blocks;    /* every SMALL block of this kind and size: those
                              with free slots at the last collection (and
                              new ones) first, then those it left full */
  struct block *full;      /* the first of those left full (NULL: none); the
                              lazy sweep stops there (collect.c, sweep_setup) */
  struct block *sweep;     /* next block to examine for free slots */
  struct block *freed;     /* blocks with GC_free'd slots, linked by head */
};
/* Ends the freed list, so that head != NULL means "on the freed list". */
#define FREED_LIST_END ((struct block *)1)

/* An allocation cursor for one kind and size class: the free slots of one
   64-slot window of one block, claimed in the block's mark bits. The owning
   thread pops slots from bits without a lock; everything else is changed
   only under the allocation lock. Cursors survive collections: the claimed
   window's bits are set again after marking, so a slot a stopped thread was
   in the middle of taking can never be handed out twice. */
struct cursor {
  uint64_t bits;           /* free slots still to hand out */
  char *base;              /* address of slot 0 of the window */
  struct block *blk;
  uint64_t claimed;        /* every slot claimed with this window */
  uint32_t word;           /* window index in blk->u.mark */
};

struct alloc_cache {
  struct cursor c[CACHED_KINDS][MAX_SMALL_GRANULES + 1];
  /* Windows GC_generic_malloc_many took under the lock and links outside
     it (alloc.c): each claims the slots in its `bits`, not handed out yet,
     until in_flight_count returns to 0. Written by the owner thread only;
     read by a collection (world stopped) and by alloc_cache_release. */
  struct cursor in_flight[MARK_WORDS];
  unsigned in_flight_count;
  struct alloc_cache *next_cache, *prev_cache;
};

BIBOP_INTERNAL void heap_init(void);
BIBOP_INTERNAL struct block *heap_alloc_blocks(size_t nblocks, bool *zeroed);
BIBOP_INTERNAL void heap_free_blocks(struct block *first, size_t nblocks);
/* A large object's tails (heap.c: regions it covers whole share one array). */
BIBOP_INTERNAL void heap_set_large_tails(struct block *head, size_t nblocks);
BIBOP_INTERNAL void heap_free_large(struct block *head);   /* its blocks, and slots lent */
BIBOP_INTERNAL struct block *heap_new_small_block(int kind, unsigned granules);
/* The chunk whose descriptors start at first is all one large object (its
   first and last blocks belong to the same one, and objects are
   contiguous): a huge object's chunks are skipped, not walked block by
   block at every collection. */
BIBOP_INTERNAL bool heap_chunk_inside_large_object(const struct block *first);
/* Every small block, in address order: the descriptors of the next chunk
   from chunk number *at on (over all regions; start at 0) whose blocks the
   heap hands out as runs, the only chunks that can hold small blocks, and
   not all one large object; NULL after the last. A sweep that releases
   blocks meanwhile may drop the descriptors of a chunk it has walked whole. */
BIBOP_INTERNAL struct block *heap_next_small_chunk(size_t *at);
/* Small blocks a sweep gives back, freed a run of neighbours at a time
   (heap.c): add each, then flush. */
struct release_run { struct block *lo; size_t n; };
BIBOP_INTERNAL void heap_release_small_block(struct release_run *r, struct block *b);
BIBOP_INTERNAL void heap_release_flush(struct release_run *r);
BIBOP_INTERNAL size_t heap_blocks_in_use(void);
BIBOP_INTERNAL size_t heap_free_bytes(void);   /* committed, in no block in use */
BIBOP_INTERNAL void heap_discard_idle_runs(unsigned long gc_no, unsigned long age);

/* Object start of interior address w in small block b, or NULL (tail waste). */
static inline char *small_object_start(const struct block *b, uintptr_t w, unsigned *index) {
  uintptr_t off = w & (BLOCK_BYTES - 1);
  unsigned i = (unsigned)((off * (uint64_t)b->recip) >> 32);
  if (i >= b->nobjs) return NULL;
  *index = i;
  return (char *)(w - off) + (size_t)i * b->obj_bytes;
}

/* The start of the heap object holding p (GC_base), or NULL: any word is
   safe to ask about (the page table classifies it first). */
static inline void *object_base(const void *p) {
  struct block *b = pt_block_of((uintptr_t)p);
  if (!b) return NULL;
  switch (b->state) {
    case BLOCK_SMALL: {
      unsigned i;
      return small_object_start(b, (uintptr_t)p, &i);
    }
    case BLOCK_LARGE:
      return block_addr(b);
    case BLOCK_LARGE_TAIL:
      return b->head->state == BLOCK_LARGE ? block_addr(b->head) : NULL;
    default:
      return NULL;
  }
}

/* Whether the object holding p is marked: 1 or 0, and -1 if p is in no
   object. Only once no parallel phase runs (after mark_finish, every mark
   is in the bits): finalization's steps after marking ask it of every
   registered object and link, so it is one descriptor lookup, inline. */
static inline int object_mark_state(const void *p) {
  struct block *b = pt_block_of((uintptr_t)p);
  if (!b) return -1;
  switch (b->state) {
    case BLOCK_SMALL: {
      unsigned i;
      if (!small_object_start(b, (uintptr_t)p, &i)) return -1;
      return (int)((b->u.mark[i >> 6] >> (i & 63)) & 1);
    }
    case BLOCK_LARGE_TAIL:
      b = b->head;
      if (b->state != BLOCK_LARGE) return -1;
      return b->u.large.marked != 0;
    case BLOCK_LARGE:
      return b->u.large.marked != 0;
    default:
      return -1;
  }
}

/* The size of the object p starts (GC_size): its size class or the large
   object's size; 0 for anything else. */
static inline size_t object_size(const void *p) {
  struct block *b = pt_block_of((uintptr_t)p);
  if (!b) return 0;
  if (b->state == BLOCK_SMALL) return b->obj_bytes;
  if (b->state == BLOCK_LARGE_TAIL) b = b->head;
  if (b->state == BLOCK_LARGE) return b->u.large.bytes;
  return 0;
}

/* The heap part of classification: lock-free (page-table entries are only
   added, and a racing descriptor change makes the answer stale, never
   unsafe). UNKNOWN means "not in a region of ours". */
static inline bibop_addr_class pt_classify_heap(uintptr_t w) {
  struct block *b = pt_block_of(w);
  if (!b || pt_is_static_desc(b)) return BIBOP_ADDR_UNKNOWN;
  unsigned i;
  switch (b->state) {
    case BLOCK_SMALL:
      if (!small_object_start(b, w, &i)) return BIBOP_ADDR_HEAP_FREE;
      return (b->u.mark[i / 64] >> (i % 64)) & 1 ? BIBOP_ADDR_HEAP_OBJECT : BIBOP_ADDR_HEAP_FREE;
    case BLOCK_LARGE:
    case BLOCK_LARGE_TAIL:
      return BIBOP_ADDR_HEAP_OBJECT;
    default:
      return BIBOP_ADDR_HEAP_FREE;
  }
}

/* Byte counts that may add up past SIZE_MAX (external memory is reported
   by the client) saturate rather than wrap. */
static inline size_t size_add_saturated(size_t a, size_t b) {
  return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static inline uint32_t reciprocal_of(uint32_t size) {
  return (uint32_t)((((uint64_t)1 << 32) + size - 1) / size);
}

/* ---- threads (threads.c, stopworld.c) ---------------------------------------- */

/* A registered thread asleep in the lock (state.c) is *parked*: from
   before it sleeps until it holds the lock it touches no heap, and runs no
   signal handler but the stop-the-world ones (gc_lock_sleep_mask, set by
   stopworld_init, blocks the others), with its registers spilled below
   `sp`. A collection, which holds the lock, scans a parked thread's stack
   from `sp` instead of signalling it (stopworld.c), so the thread is
   neither woken to stop nor woken to restart. threads.c points
   gc_lock_parking at the record of each registered thread. */
struct lock_parking {
  char *sp;
  bool parked;
};
/* A registered thread. Fields change under the allocation lock, except
   stack_ptr and the acks, which the thread's own signal handler writes while
   the collector waits for them, and stack_base, which GC_set_stackbottom
   may move without it (read it through threads_stack_base). */
struct gc_thread {
  pthread_t id;
  char *stack_base;            /* highest address of its (current) stack */
  char *stack_ptr;             /* lowest live address while stopped or blocking */
  char *stack_limit;           /* the stack the system gave it: [stack_limit, */
  char *system_stack_hi;       /* system_stack_hi); both NULL if unknown */
  bool spinning;               /* polling for the restart in the suspend handler */
  struct lock_parking parking; /* written by the thread itself (state.c) */
  bool parked_in_lock;         /* parked when the current stop began: not signalled */
  struct alloc_cache *cache;
  bool primordial;             /* the process's first thread: its base is GC_stackbottom */
  bool outlives_exit;          /* started by GC_pthread_create: kept, finished, until joined */
  bool finished;               /* exited, not yet joined or detached: never signalled or scanned */
  bool blocking;               /* in GC_do_blocking: not signalled */
  bool precise;                /* bibop_set_precise_stack: stack and registers not scanned */
  bool stopped;                /* signalled in the current stop */
  bool vanished;               /* exited without unregistering */
  bool suspend_requested;      /* GC_suspend_thread: wait in the suspend handler */
  bool suspended;              /* waiting in the handler for GC_resume_thread */
  unsigned long stop_ack, resume_ack;   /* epochs acknowledged by the handler */
  bool stop_put_off;           /* the handler put off this stop: send it again soon */
  uint64_t redeliver_at;       /* when (the collector's clock; 0: not yet planned) */
  struct gc_thread *next;
};

BIBOP_INTERNAL void threads_init(void);
/* What the thread registry calls in boxroots, above it (init.c sets them,
   before threads_init installs the fork handlers). */
struct thread_hooks {
  void (*fork_prepare)(void);   /* lock held, before fork */
  void (*fork_parent)(void);    /* lock held, after fork, in the parent */
  void (*fork_child)(void);     /* lock held, after fork, in the child */
  void (*thread_exit)(void);    /* the calling thread leaves the registry */
};
BIBOP_INTERNAL void threads_set_hooks(const struct thread_hooks *h);
BIBOP_INTERNAL struct gc_thread *threads_self(void);
BIBOP_INTERNAL char *threads_stack_base(const struct gc_thread *t);   /* the highest address */
BIBOP_INTERNAL char *threads_own_stack_base(void);   /* the calling thread's, registered or not */
BIBOP_INTERNAL void threads_set_stack_base(struct gc_thread *t, char *base);
BIBOP_INTERNAL void stopworld_init(void);
BIBOP_INTERNAL void stopworld_stop(void);
BIBOP_INTERNAL void stopworld_start(void);
BIBOP_INTERNAL void stopworld_suspend_one(struct gc_thread *t);   /* GC_suspend_thread */
BIBOP_INTERNAL void stopworld_resume_one(struct gc_thread *t);    /* GC_resume_thread */
BIBOP_INTERNAL int stopworld_suspend_signal(void);
BIBOP_INTERNAL int stopworld_restart_signal(void);
BIBOP_INTERNAL void stopworld_print_stats(FILE *out);   /* the last stop and restart */

/* ---- marking statistics (mark.c, markers.c) ---------------------------------- */

/* What one marker did in one collection. Each marker counts in its own
   struct (no shared atomics on the hot path); mark_finish sums them into
   gc.mark_stats. Every candidate word the marker looked at is counted once
   in `candidates` and classified as exactly one of: not ours (no region, or
   a page of no object: UNUSED), free (a FREE block, tail waste, a rejected
   interior displacement), static (a page of a registered static range: no
   dereference of the data) or object (inside an object slot; marked now or
   already). cand_not_ours is derived when summing. */
struct mark_stats {
  uint64_t marked_objects, marked_bytes;
  uint64_t candidates, cand_not_ours, cand_free, cand_static, cand_object;
  uint64_t stack_growths;      /* mark stack doubled in place */
  uint64_t overflows;          /* entries dropped: rounds of overflow recovery */
  uint64_t mark_ns;            /* summed stats only: marking phase duration */
};

/* ---- the collector's state (state.c), diagnostics (diag.c), initialisation
        (init.c) and collection (collect.c) ------------------------------------- */

struct gc_state {
  uint32_t lock;                 /* the allocation lock (state.c): protects all below */
  bool initialized;
  bool collecting;
  const char *last_reason;       /* of the current or last collection */
  uint64_t last_start_ns;        /* its start (os_now_ns) */
  char *collect_entry_sp;        /* while collecting: the collecting thread's
                                    stack from here up is the client's and
                                    its spilled registers (collect.c) */

  struct kind kinds[MAX_KINDS];
  unsigned n_kinds;
  struct size_class_list classes[MAX_KINDS][MAX_SMALL_GRANULES + 1];
  struct block *large;           /* every LARGE head, doubly linked */
  struct alloc_cache *caches;    /* every thread's allocation cache */
  struct gc_thread *threads;     /* every registered thread */
  unsigned thread_count;
  struct alloc_cache shared_cache; /* threads without a cache of their own */
  struct cursor locked_cursors[MAX_KINDS][MAX_SMALL_GRANULES + 1]; /* other kinds */

  size_t extra_bytes;            /* 1 with all interior pointers, else 0 */
  size_t blocks_in_use;          /* SMALL and LARGE blocks */
  size_t heap_budget;            /* pacing: bytes of blocks allowed before collecting
                                    is considered (GC_get_heap_size is the arena's
                                    committed bytes) */
  size_t requested_heap;         /* GC_INITIAL_HEAP_SIZE + GC_expand_hp: the budget's floor */
  size_t max_heap;               /* 0: unlimited */
  size_t bytes_since_gc;         /* allocated since the last collection */
  size_t freed_since_gc;         /* explicitly GC_free'd since then */
  size_t total_bytes;            /* allocated since start */
  size_t live_ptr_bytes;         /* marked pointerful bytes at the last GC */
  size_t live_atomic_bytes;      /* marked pointer-free bytes at the last GC */
  size_t root_bytes;             /* bytes of roots scanned at the last GC */
  size_t min_bytes_allocd;       /* pacing: collect after this many bytes (heap + external) */
  size_t last_trigger_heap, last_trigger_external; /* what the last cycle allocated */
  unsigned long unmap_threshold; /* collections a free chunk waits before decommit */

  bool generational;             /* minor collections may run (generations.c) */
  bool generational_requested;   /* GC_enable_incremental / BIBOP_GENERATIONAL=1 */
  bool generational_forbidden;   /* BIBOP_GENERATIONAL=0 */
  bool last_was_minor;
  bool promote_survivors;        /* this collection makes its survivors of age 0 old
                                    (generations.c, gen_choose_promotion) */
  unsigned long minor_collections, major_collections;
  size_t last_dirty_blocks;      /* blocks a minor collection rescanned */
  uint64_t minor_pause_ns, major_pause_ns, max_minor_pause_ns;

  bool print_stats;
  bool loop_on_abort, abort_on_leak, unmap_on_gcollect, dump_regularly;
  bool no_automatic_collection;  /* GC_set_disable_automatic_collection */
  size_t min_bytes_floor;        /* GC_set_min_bytes_allocd; 0: the default */
  uint64_t measure_start_ns;     /* GC_start_performance_measurement */
  FILE *log;                     /* from GC_LOG_FILE, or NULL: stderr */
  uint64_t last_pause_ns, total_pause_ns, max_pause_ns;
  unsigned long marked_objects;
  struct mark_stats mark_stats;  /* the last collection's marking, all markers summed */

  GC_warn_proc warn_proc;
  GC_on_collection_event_proc on_event;
  GC_start_callback_proc start_callback;
  uint8_t valid_offsets[BLOCK_BYTES]; /* displacements recognised without interior pointers */
};

BIBOP_INTERNAL extern struct gc_state gc;

static inline size_t round_to_blocks(size_t bytes) {
  return (bytes + BLOCK_BYTES - 1) & ~(BLOCK_BYTES - 1);
}

/* The allocation lock is a futex word (state.c): LOCK_FREE, LOCK_HELD, or
   LOCK_CONTENDED (held, and a waiter may be asleep: the unlock wakes one).

   BIASED to the thread that initialised the collector, as long as no other
   thread has wanted it (state.c): that thread takes and releases the lock
   with plain stores to gc_lock_bias_active and a load of
   gc_lock_bias.revoking, no atomic read-modify-write. A lock's two atomic
   instructions were 15% of asy's CPU samples (GC_free: asy creates no
   thread) and 5% of guile-weak's (GC_call_with_alloc_lock). Another thread
   that wants the lock takes the futex word, sets `revoking`, makes every
   running thread of the process execute a memory barrier (membarrier(2):
   the owner's store of `active` is then visible, or its next load of
   `revoking` sees 1), waits for `active` to be 0, and turns the bias off
   for good; from then on every thread uses the futex word. Without
   membarrier (old kernels, seccomp) there is no bias. */
enum { LOCK_FREE = 0, LOCK_HELD = 1, LOCK_CONTENDED = 2 };
struct lock_bias {
  uint32_t on;         /* the bias is in force; written under the futex word */
  uint32_t revoking;   /* a thread holding the futex word is taking the bias away */
} __attribute__((aligned(64)));
BIBOP_INTERNAL extern struct lock_bias gc_lock_bias;
/* The owner holds the lock through the bias (only the owner writes it). */
BIBOP_INTERNAL extern uint32_t gc_lock_bias_active;
/* This thread owns the bias (until it sees `revoking`). */
BIBOP_INTERNAL extern __thread bool gc_lock_biased_here __attribute__((tls_model("initial-exec")));
BIBOP_INTERNAL void gc_lock_contended(void);
BIBOP_INTERNAL void gc_lock_wake(void);
BIBOP_INTERNAL void gc_lock_bias_revoke(void);
BIBOP_INTERNAL void gc_lock_bias_lost(void);
BIBOP_INTERNAL void gc_lock_reentered(void);
BIBOP_INTERNAL void gc_lock_bias_begin(void);
BIBOP_INTERNAL void gc_lock_bias_after_fork(void);
/* UNLOCK after a long hold, leaving a woken waiter the time to take it. */
BIBOP_INTERNAL void gc_unlock_to_waiter(void);
BIBOP_INTERNAL extern __thread struct lock_parking *gc_lock_parking
    __attribute__((tls_model("initial-exec")));
BIBOP_INTERNAL extern sigset_t gc_lock_sleep_mask;
/* The thread left GC_call_with_alloc_lock or GC_alloc_unlock and has not
   taken the lock since: its next stop is answered only when it comes
   again (threads.c says why, stopworld.c how). */
BIBOP_INTERNAL extern __thread bool gc_left_locked_call __attribute__((tls_model("initial-exec")));

/* The owner's acquisition: false if the bias is being revoked (the caller
   then takes the futex word like any thread). */
static inline bool gc_bias_lock(void) {
  if (UNLIKELY(gc_lock_bias_active)) gc_lock_reentered();
  __atomic_store_n(&gc_lock_bias_active, 1, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);   /* the store before the load, for the compiler */
  if (LIKELY(!__atomic_load_n(&gc_lock_bias.revoking, __ATOMIC_ACQUIRE))) return true;
  gc_lock_bias_lost();
  return false;
}
static inline bool gc_trylock_word(void) {
  uint32_t free_word = LOCK_FREE;
  return __atomic_compare_exchange_n(&gc.lock, &free_word, LOCK_HELD, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
}
/* After the futex word is taken: a bias still in force is revoked. */
static inline void gc_lock_word_taken(void) {
  if (UNLIKELY(__atomic_load_n(&gc_lock_bias.on, __ATOMIC_RELAXED))) gc_lock_bias_revoke();
}
/* The futex word alone: taken (waiting if need be), released. */
static inline void gc_lock_word(void) {
  if (UNLIKELY(!gc_trylock_word())) gc_lock_contended();
}
static inline void gc_unlock_word(void) {
  if (UNLIKELY(__atomic_exchange_n(&gc.lock, LOCK_FREE, __ATOMIC_RELEASE) == LOCK_CONTENDED))
    gc_lock_wake();
}
static inline bool gc_trylock(void) {
  if (gc_lock_biased_here) {
    if (gc_lock_bias_active) return false;   /* this thread holds it already */
    if (gc_bias_lock()) return true;
  }
  if (!gc_trylock_word()) return false;
  gc_lock_word_taken();
  return true;
}
static inline void gc_lock(void) {
  if (gc_lock_biased_here && gc_bias_lock()) return;   /* no other thread: no stop to put off */
  gc_left_locked_call = false;
  gc_lock_word();
  gc_lock_word_taken();
}
static inline void gc_unlock(void) {
  if (gc_lock_biased_here) __atomic_store_n(&gc_lock_bias_active, 0, __ATOMIC_RELEASE);
  else gc_unlock_word();
}
#define LOCK() gc_lock()
#define UNLOCK() gc_unlock()

/* futex(2) on a private 32-bit word (state.c): sleep while *word ==
   expected, at most timeout_ns (0: no limit), or until woken, a signal or
   spuriously (callers re-check); wake up to n sleepers. Raw system calls:
   async-signal-safe, and not cancellation points, so a volunteer marker
   may sleep in its suspend handler. */
BIBOP_INTERNAL void gc_futex_wait(uint32_t *word, uint32_t expected, uint64_t timeout_ns);
BIBOP_INTERNAL void gc_futex_wake(uint32_t *word, int n);

BIBOP_INTERNAL void gc_ensure_init(void);
BIBOP_INTERNAL void gc_collect_locked(const char *reason);
BIBOP_INTERNAL void gc_collect_explicit(void);
/* The points of a collection where the features above the collector act
   (registered by init.c, run in registration order). */
enum collect_hook_point {
  HOOK_BEFORE_MARK,       /* world stopped, caches dropped, marks not yet cleared */
  HOOK_MARK_MORE,         /* roots marked: mark what must survive regardless */
  HOOK_AFTER_FINALIZE,    /* marking and finalization done: survivors are marked */
  HOOK_DEAD_KNOWN,        /* allocation windows re-marked: unmarked = dead */
  HOOK_WORLD_RESTARTED,   /* world running, lock held, before sweep setup */
  HOOK_COLLECTION_END,    /* the collection's statistics are final */
  HOOK_POINTS
};
BIBOP_INTERNAL void collect_add_hook(enum collect_hook_point point, void (*fn)(void));   /* GC_gcollect: lock, collect, finalizers */
/* Called by the allocator before it takes n new blocks: true if they fit
   the budget and no collection is overdue, or if the caller should retry
   (a collection ran or the budget grew); false if the heap is exhausted. */
BIBOP_INTERNAL bool gc_make_room(size_t nblocks);
/* A collection if the pacing rule says one is due (lock held); true if it ran. */
BIBOP_INTERNAL bool gc_collect_if_due(void);
/* The blocks gc_make_room made room for were refused by the arena: growth
   of the budget since it read budget_before is taken back. */
BIBOP_INTERNAL void gc_undo_growth(size_t budget_before);
/* GC_expand_hp: commit bytes more of heap and raise the budget by as much. */
BIBOP_INTERNAL bool gc_expand_heap(size_t bytes);
/* Generational collection (generations.c): at the start of a collection,
   minor or major (true: minor; the world is stopped); after the marks are
   cleared and the markers started, the written pages are found and the old
   objects on them pushed (minor); after alloc_after_mark, world still
   stopped, the written blocks that hold old objects are protected again;
   at the end, the statistics. */
BIBOP_INTERNAL bool gen_begin(const char *reason);
BIBOP_INTERNAL void gen_mark_written(bool minor);
BIBOP_INTERNAL void gen_protect_old_written(bool minor);
BIBOP_INTERNAL void gen_choose_promotion(bool minor);   /* after marking, before alloc_after_mark */
BIBOP_INTERNAL void gen_end(bool minor, uint64_t pause_ns);
/* Pacing in generational mode (generations.c, "the heap budget after minor
   collections"): the live bytes to size the heap from, and whether to run a
   major collection rather than grow the budget by growth bytes. */
BIBOP_INTERNAL void gen_live_for_pacing(size_t *live_ptr, size_t *live_atomic);
BIBOP_INTERNAL bool gen_major_before_growth(size_t growth);
BIBOP_INTERNAL void gc_warn(const char *msg, GC_word arg);
BIBOP_INTERNAL FILE *gc_log(void);          /* where statistics go */
BIBOP_INTERNAL void gc_dump_locked(FILE *out);
BIBOP_INTERNAL void gc_default_warn_proc(char *msg, GC_word arg);
BIBOP_INTERNAL void gc_default_abort_func(const char *msg);   /* GC_on_abort's initial value */
BIBOP_INTERNAL void *gc_default_oom_fn(size_t bytes);
BIBOP_INTERNAL _Noreturn void gc_abort(const char *msg);

/* ---- trials (trial.c): choices measured on the machine at hand ------------- */

/* A choice between doing without (arm 0) and with (arm 1), for
   collections below a heap size; what it costs per word scanned is read
   from `clock` (process CPU or wall time, `measure` names which). */
struct trial {
  const char *what, *measure;     /* for the GC_PRINT_STATS verdict */
  size_t below_bytes;             /* the heap size the choice is for */
  uint64_t (*clock)(void);
  unsigned collections;           /* eligible ones since the first trial */
  bool choice;                    /* the arm outside trials */
  int trying;                     /* this collection's arm (0, 1), or -1 */
  uint64_t at_start;
  uint64_t cost[2], words[2];     /* per arm */
};
#define TRIAL_INIT(what_, measure_, clock_) \
  { .what = (what_), .measure = (measure_), .clock = (clock_), .trying = -1 }
BIBOP_INTERNAL void trial_collection_begins(void);
/* This eligible full collection's arm (counts it, unless another trial
   holds the collection). */
BIBOP_INTERNAL bool trial_arm(struct trial *t);
/* After marking: the collection's cost if t tried an arm; a verdict at
   the end of a trial. */
BIBOP_INTERNAL void trial_end(struct trial *t, uint64_t words);
/* Whether the next eligible collection could use arm 1. */
BIBOP_INTERNAL bool trial_next_may_try(const struct trial *t);

/* ---- allocation (alloc.c) ---------------------------------------------------- */

/* What the allocator calls in finalization, above it (init.c sets them). */
struct alloc_hooks {
  void (*object_freed)(void *obj);   /* GC_free'd: forget its finalizer */
  void (*run_pending)(void);         /* after an allocation, finalize_pending set */
};
BIBOP_INTERNAL void alloc_set_hooks(const struct alloc_hooks *h);
BIBOP_INTERNAL void *alloc_out_of_memory(size_t bytes);   /* warns, calls GC_oom_fn */
BIBOP_INTERNAL void *alloc_small_slow(int kind, unsigned granules, size_t lb);
BIBOP_INTERNAL void *alloc_large(int kind, size_t lb);
BIBOP_INTERNAL void *alloc_generic(size_t lb, int kind);
BIBOP_INTERNAL void alloc_before_mark(void);
BIBOP_INTERNAL void alloc_after_mark(void);
BIBOP_INTERNAL struct alloc_cache *alloc_thread_attach(void); /* a cache for this thread */
BIBOP_INTERNAL void alloc_cache_release(struct alloc_cache *ac);
BIBOP_INTERNAL void alloc_unclaimed_bits(struct block *b, uint64_t bits[MARK_WORDS]);
BIBOP_INTERNAL void alloc_forget_claim(struct block *b, unsigned i);
BIBOP_INTERNAL void alloc_forget_block(struct block *b);
/* Generational mode: the blocks with young slots (allocated since the last
   collection, or survivors of one collection only), and those slots
   (false: none); lost: a record could not be kept, the next collection
   must be major. */
BIBOP_INTERNAL size_t alloc_young_count(void);
BIBOP_INTERNAL void alloc_young_survival(size_t young_bytes[2], size_t surviving_bytes[2]);   /* [age] */
BIBOP_INTERNAL bool alloc_young_survival_counted(size_t young_bytes[2], size_t surviving_bytes[2],
                                                 size_t marked_small);
BIBOP_INTERNAL struct block *alloc_young_block(size_t i);
BIBOP_INTERNAL bool alloc_young_mask(const struct block *b, uint64_t young[MARK_WORDS]);
BIBOP_INTERNAL bool alloc_has_young(const struct block *b);   /* on the young list */
/* The slots of age 1 only: old after this collection if they survive. */
BIBOP_INTERNAL bool alloc_age1_mask(const struct block *b, uint64_t age1[MARK_WORDS]);
BIBOP_INTERNAL void alloc_young_prefetch(const struct block *b);   /* its record, soon read */
BIBOP_INTERNAL void alloc_young_prefetch_ahead(size_t i);   /* walking the list, at i */
/* Large objects allocated since the last collection: at least as many of
   the first objects of gc.large (young, or uncollectable). */
BIBOP_INTERNAL size_t alloc_large_since_gc(void);
BIBOP_INTERNAL bool alloc_young_lost(void);

/* ---- debugging allocator and leak detection (debug.c) ------------------------- */

BIBOP_INTERNAL void debug_init(void);
BIBOP_INTERNAL void debug_before_collection(void);   /* smash checks */
BIBOP_INTERNAL void debug_leak_snapshot(void);       /* before marks are cleared */
BIBOP_INTERNAL void debug_report_leaks(void);        /* after marking */
BIBOP_INTERNAL void alloc_free(void *p);
BIBOP_INTERNAL size_t alloc_granules(size_t lb);   /* 0 if not small */

/* ---- marking (mark.c, markers.c) ------------------------------------------------ */

struct mark_entry { char *start; GC_word descr; };   /* bdwgc's GC_ms_entry layout */

/* The prefetch FIFO holds candidates that passed the page table: their
   descriptor line and the line they point to are prefetched on entry, and
   they are marked (descriptor read, bit set, object pushed) on leaving. */
#define PREFETCH_FIFO_MAX 1024     /* ring capacity; the size in use is set at init */
struct prefetch_slot { uintptr_t word; struct block *desc; };

/* One marker's private state: its stack (top is the last entry in use, as
   in bdwgc), what it marked, whether it dropped an entry. */
struct marker {
  struct mark_entry *base, *limit, *top;
  size_t capacity;
  unsigned long marked;
  bool overflowed;
  bool parallel;       /* other markers run: set mark bits atomically */
  bool any_interior;   /* scanning a stack: interior pointers always count */
  bool in_mark_proc;   /* a client mark procedure holds pointers into the stack */
  bool fixed_stack;    /* a volunteer's: overflow rather than grow (markers.c) */
  bool writes_bits;    /* the collecting thread's: during a parallel phase the
                          only marker that writes small blocks' mark bits (mark.c) */
  struct mark_stats stats;
  struct prefetch_slot *fifo;       /* PREFETCH_FIFO_MAX slots of metadata memory:
                                       stale words there are never scanned as roots */
};

BIBOP_INTERNAL extern struct marker main_marker;
BIBOP_INTERNAL bool marker_init_stack(struct marker *m, size_t entries);
BIBOP_INTERNAL void marker_drain(struct marker *m);
BIBOP_INTERNAL void mark_init(void);
BIBOP_INTERNAL void mark_register_displacement(size_t offset);   /* < BLOCK_BYTES */
BIBOP_INTERNAL void mark_clear_all(void);          /* start of a collection */
/* Start of a minor collection: only young slots lose their marks. */
BIBOP_INTERNAL void mark_clear_young(void);
/* Scan an old object (marked before this collection) again: every marked
   object of a small block, or one large object. Pushed, not drained (the
   caller's mark_drain). */
BIBOP_INTERNAL void mark_rescan_old(struct block *b);
BIBOP_INTERNAL void mark_rescan_traced_by_contents(void);   /* minor: mark procedures' kinds */
/* Of the old objects `candidates` of small block b, push those holding a
   word that may lead to an unmarked object (young, or a free slot) and
   report them in found: the others can mark nothing. Only before anything
   is marked in the collection (unmarked must mean young). false, nothing
   pushed: b's kind is not scanned whole (mark procedure, bitmap), so its
   words cannot be judged here. */
BIBOP_INTERNAL bool mark_rescan_filtered(struct block *b, const uint64_t candidates[MARK_WORDS],
                                         uint64_t found[MARK_WORDS]);
BIBOP_INTERNAL void mark_zero_dead_slots(void);    /* after marking: see free_slots_zero */
BIBOP_INTERNAL void mark_range(const void *lo, const void *hi); /* roots, drained */
BIBOP_INTERNAL void mark_range_stack(const void *lo, const void *hi);
/* Boxroot cells: words inside [own, own + own_bytes) are free cells, skipped;
   the others are roots. Drained. */
BIBOP_INTERNAL void mark_root_cells(void *const *lo, void *const *hi, uintptr_t own,
                                    size_t own_bytes);
BIBOP_INTERNAL void mark_push_range(const void *lo, const void *hi); /* for GC_push_all */
BIBOP_INTERNAL void mark_drain(void);
BIBOP_INTERNAL void mark_finish(void);              /* all markers done, overflow recovered */
BIBOP_INTERNAL size_t mark_marked_bytes(void);      /* this collection's, finalization's included */
BIBOP_INTERNAL void mark_fold_prepare(int other_markers);  /* a parallel phase starts */
BIBOP_INTERNAL void mark_fold_share(void);          /* a marker's part of the fold: see mark.c */
BIBOP_INTERNAL void mark_uncollectable_roots(void);
/* Mark the object containing w if it is one; true if it was newly marked. */
BIBOP_INTERNAL bool mark_word(uintptr_t w);
BIBOP_INTERNAL void mark_recover_overflow(void);
BIBOP_INTERNAL void marker_signal_overflow(void);   /* from a mark procedure */
BIBOP_INTERNAL bool mark_is_marked(const void *obj);
BIBOP_INTERNAL void mark_set_bit(const void *obj, bool on);
BIBOP_INTERNAL void mark_from_contents(const void *obj);
BIBOP_INTERNAL void mark_push_contents(const void *obj);   /* the caller drains */
BIBOP_INTERNAL void mark_from_contents_except_self(const void *obj);

/* Parallel marking (markers.c). */
BIBOP_INTERNAL void markers_init(void);
BIBOP_INTERNAL void markers_before_stop(void);   /* starts the helper threads when due */
BIBOP_INTERNAL void markers_start_phase(struct marker *main, bool minor);  /* before roots */
BIBOP_INTERNAL void markers_finish_phase(struct marker *main); /* help until all done */
/* After marking (mark_finish): the helpers trial's cost of this collection. */
BIBOP_INTERNAL void markers_trial_end(uint64_t words);
BIBOP_INTERNAL void markers_share(struct marker *m);
BIBOP_INTERNAL bool markers_overflowed(void);
BIBOP_INTERNAL unsigned long markers_marked_objects(void);
BIBOP_INTERNAL void markers_add_stats(struct mark_stats *sum);  /* and reset them */
BIBOP_INTERNAL void mark_print_stats(FILE *out);   /* GC_PRINT_STATS: the last marking */
BIBOP_INTERNAL void mark_stats_add(struct mark_stats *sum, struct mark_stats *one); /* resets one */
BIBOP_INTERNAL void markers_after_fork(void);
BIBOP_INTERNAL void markers_print_stats(FILE *out);   /* the last phase's markers */
BIBOP_INTERNAL void markers_count_phase(void);   /* who joined: bibop_get_marker_counts */
BIBOP_INTERNAL bool markers_volunteer_offer(unsigned long *generation);
BIBOP_INTERNAL void markers_stop_closed(void);
BIBOP_INTERNAL int markers_volunteer_places(void);   /* stopworld_start: wake waiting volunteers */
BIBOP_INTERNAL void markers_volunteer_mark(unsigned long generation, volatile unsigned long *open_epoch,
                                           unsigned long epoch);
BIBOP_INTERNAL extern volatile int markers_waiting;  /* idle markers wanting work */
BIBOP_INTERNAL extern volatile size_t markers_pool_count;
static inline bool markers_hungry(void) {
  return __atomic_load_n(&markers_waiting, __ATOMIC_RELAXED) > 0 &&
         __atomic_load_n(&markers_pool_count, __ATOMIC_RELAXED) == 0;
}

/* ---- kinds, mark procedures, typed descriptors (kinds.c) ------------------------- */

BIBOP_INTERNAL extern GC_mark_proc mark_procs[1 << GC_LOG_MAX_MARK_PROCS];
BIBOP_INTERNAL void kinds_init(void);
BIBOP_INTERNAL void svector_init(void);

/* ---- external memory (external.c) -------------------------------------------------- */

BIBOP_INTERNAL extern _Atomic size_t external_live, external_since_gc;
BIBOP_INTERNAL void external_report(size_t bytes);
BIBOP_INTERNAL void external_retract(size_t bytes);
BIBOP_INTERNAL bool finalize_register_external(void *obj, GC_finalization_proc fn, void *cd,
                                               size_t bytes);
BIBOP_INTERNAL size_t finalize_set_external(void *obj, size_t bytes);

/* ---- boxroots (boxroot.c) ---------------------------------------------------------- */

BIBOP_INTERNAL void boxroot_mark_roots(void);
BIBOP_INTERNAL void boxroot_release_empty_pools(void);
BIBOP_INTERNAL void boxroot_thread_exit(void);
BIBOP_INTERNAL void boxroot_fork_child(void);     /* after fork, in the child */
BIBOP_INTERNAL void boxroot_fork_prepare(void);
BIBOP_INTERNAL void boxroot_fork_release(void);

/* ---- finalization and weak links (finalize.c) ------------------------------------ */

BIBOP_INTERNAL void finalize_mark_roots(void);     /* client data, queued objects */
BIBOP_INTERNAL void finalize_after_mark(void);     /* links, ordering, queueing */
BIBOP_INTERNAL void finalize_forget_object(void *obj);   /* GC_free'd */
BIBOP_INTERNAL void finalize_dump(FILE *out);
BIBOP_INTERNAL void finalize_print_stats(FILE *out);
BIBOP_INTERNAL void finalize_run_pending(void);     /* outside the lock */
/* For pacing: finalizers registered and not yet queued; finalizers the last
   collection queued, and the bytes of their objects and entries. */
BIBOP_INTERNAL size_t finalize_registered(void);
BIBOP_INTERNAL size_t finalize_queued_by_last_collection(void);
BIBOP_INTERNAL size_t finalize_queued_bytes_by_last_collection(void);
BIBOP_INTERNAL extern volatile bool finalize_pending; /* finalizers are queued */

/* ---- disclaim procedures (disclaim.c): phases of gc_collect_locked, in order -- */

BIBOP_INTERNAL void disclaim_snapshot(void);             /* before mark_clear_all */
BIBOP_INTERNAL void disclaim_mark_unconditionally(void); /* before finalize_after_mark */
BIBOP_INTERNAL void disclaim_find_dead(void);            /* after alloc_after_mark */
BIBOP_INTERNAL void disclaim_sweep(void);                /* before sweep_setup */

/* ---- roots (roots.c) ------------------------------------------------------------ */

BIBOP_INTERNAL void roots_init(void);
BIBOP_INTERNAL size_t roots_mark_all(void);   /* returns bytes of roots scanned */
BIBOP_INTERNAL void roots_exclude(const void *lo, const void *hi);
BIBOP_INTERNAL void roots_clear_exclusions(void);

#endif /* BIBOP_INTERNAL_H */
