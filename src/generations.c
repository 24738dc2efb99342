/*
 * generations.c: generational collection (issue #17) with sticky mark
 * bits and the kernel's write tracking (dirty.c). Owns the choice between
 * a minor and a major collection, which heap regions have their writes
 * tracked, and the rescan of old objects on written pages.
 *
 * Objects that survive two collections are old: their mark bits stay set.
 * A minor collection clears only the bits of young slots (alloc.c; young
 * large objects are still unmarked), then marks from the roots and from
 * every old object on a page written in the last two cycles; marking
 * stops at marked (old) objects. Sweeping is
 * unchanged: unmarked slots are free. A major collection is today's full
 * collection.
 *
 * Invariants:
 *  1. From the first collection in generational mode on, every heap region
 *     is registered and protected at the start of some collection (world
 *     stopped) before a minor collection relies on it; a region seen for
 *     the first time makes that collection major.
 *  2. Every collection in generational mode, minor or major, collects the
 *     written pages of every tracked region (which protects them again), so
 *     a minor collection sees every page written since the previous
 *     collection started. Pages the kernel cannot vouch for (decommitted
 *     and committed again, untracked) count as written.
 *  3. An old object is never freed by a minor collection. Objects are
 *     young for two cycles (age 0, then age 1 after one survival; alloc.c),
 *     so a young object reachable from an old one was stored there after
 *     the collection before the last began: a minor collection rescans the
 *     blocks written in the last two cycles.
 *  4. A major collection runs when asked for (GC_gcollect, the heap limit,
 *     external memory: anything but allocation pacing), after GC_full_freq
 *     minor ones, when the blocks in use have grown by more than
 *     1/GC_free_space_divisor since the last major one (old garbage is
 *     found only by majors), when a region is new, and when the allocator
 *     could not record young slots.
 */
#include "internal.h"

#include <string.h>

/* One region's blocks written in this cycle, reused across collections. */
static uint64_t dirty_map[BLOCKS_PER_REGION / 64];
static unsigned long minors_since_major;
/* Blocks in use after the last major collection, and after the last
   collection: old garbage accumulates between majors, and the old
   generation may grow by 1/GC_free_space_divisor of itself (plus the
   floor) before a major. */
static size_t blocks_after_major, blocks_after_last;
#define OLD_GROWTH_FLOOR_BLOCKS 256   /* 1 MiB */

/* Register and protect regions not tracked yet; true if there was one. A
   region the kernel refuses ends generational mode (with a warning): minor
   collections would have to rescan it whole every time. */
static bool track_new_regions(void) {
  bool any = false;
  for (size_t i = 0; i < pt_heap_region_count(); i++) {
    struct region_info *ri = pt_region_info(pt_heap_region(i));
    if (ri->dirty_tracked) continue;
    any = true;
    if (!ri->dirty_before) ri->dirty_before = meta_alloc(sizeof dirty_map);
    ri->dirty_tracked = ri->dirty_before && dirty_register(ri->base, REGION_BYTES) &&
                        dirty_protect(ri->base, REGION_BYTES);
    if (!ri->dirty_tracked) {
      gc_warn("bibop: writes to a heap region (%p) cannot be tracked: generational mode off\n",
              (GC_word)(uintptr_t)ri->base);
      gc.generational = false;
      gc.generational_forbidden = true;
      return true;
    }
  }
  return any;
}

/* Only allocation pacing may run a minor collection. External memory
   pacing runs majors: the foreign memory it must give back usually hangs
   from objects that died old (a minor collection would find none). */
static bool asked_for(const char *reason) {
  return strcmp(reason, "allocation") != 0;
}

bool gen_begin(const char *reason) {
  if (gc.generational_requested && !gc.generational_forbidden && !gc.generational && !GC_find_leak) {
    gc.generational = true;   /* from this collection on; it is a major one */
    (void)track_new_regions();
    return false;
  }
  if (!gc.generational) return false;
  bool new_region = track_new_regions();
  GC_word full_freq = GC_full_freq ? (GC_word)GC_full_freq : 1;
  GC_word divisor = GC_free_space_divisor ? GC_free_space_divisor : 1;
  bool old_grew = blocks_after_last > blocks_after_major + blocks_after_major / divisor +
                                             OLD_GROWTH_FLOOR_BLOCKS;
  return !new_region && !asked_for(reason) && !alloc_young_lost() && minors_since_major < full_freq &&
         !old_grew;
}

/* Collect one region's written blocks (protecting them again), keep them
   for the next collection, and, in a minor collection, rescan the old
   objects of the blocks written in this cycle or the one before (objects
   of age 1 may be referenced from a page written before the last
   collection: invariant 3). A large object spanning several such blocks is
   pushed once (blocks come in address order, its blocks are consecutive).
   Returns the blocks written in this cycle. */
static size_t collect_region(struct region_info *ri, bool minor) {
  size_t written = dirty_collect(ri->base, REGION_BYTES, BLOCK_SHIFT, dirty_map);
  struct block *last_large = NULL;
  for (size_t w = 0; w < BLOCKS_PER_REGION / 64; w++) {
    uint64_t now = dirty_map[w], bits = now | ri->dirty_before[w];
    ri->dirty_before[w] = now;
    if (!minor) continue;
    while (bits) {
      size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
      bits &= bits - 1;
      struct block *b = pt_block_of((uintptr_t)ri->base + (i << BLOCK_SHIFT));
      if (!b) continue;
      if (b->state == BLOCK_LARGE_TAIL) b = b->head;
      if (b->state == BLOCK_LARGE) {
        if (b == last_large) continue;
        last_large = b;
      } else if (b->state != BLOCK_SMALL) {
        continue;
      }
      mark_rescan_old(b);
    }
  }
  return written;
}

void gen_mark_written(bool minor) {
  if (!gc.generational) return;
  size_t written = 0;
  for (size_t i = 0; i < pt_heap_region_count(); i++) {
    struct region_info *ri = pt_region_info(pt_heap_region(i));
    if (ri->dirty_tracked) written += collect_region(ri, minor);
  }
  if (minor) {
    mark_drain();   /* mark_rescan_old drains in batches */
    gc.last_dirty_blocks = written;
  }
}

void gen_end(bool minor, uint64_t pause_ns) {
  gc.last_was_minor = minor;
  if (!gc.generational) return;
  blocks_after_last = gc.blocks_in_use;
  if (!minor) blocks_after_major = gc.blocks_in_use;
  if (minor) {
    minors_since_major++;
    gc.minor_collections++;
    gc.minor_pause_ns += pause_ns;
    if (pause_ns > gc.max_minor_pause_ns) gc.max_minor_pause_ns = pause_ns;
  } else {
    minors_since_major = 0;
    gc.major_collections++;
    gc.major_pause_ns += pause_ns;
    gc.last_dirty_blocks = 0;
  }
}
