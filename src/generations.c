/*
 * generations.c: generational collection (issue #17) with sticky mark
 * bits and the kernel's write tracking (dirty.c). Owns the choice between
 * a minor and a major collection, which heap regions have their writes
 * tracked, and the rescan of old objects on written pages.
 *
 * Objects that survive two collections are old: their mark bits stay set;
 * where survivors go on living, one survival (gen_choose_promotion).
 * A minor collection clears only the bits of young slots (alloc.c; young
 * large objects are still unmarked), then marks from the roots and from
 * the old objects of pages written in the last two cycles that hold a word
 * into an unmarked object (mark_rescan_filtered); marking stops at marked
 * (old) objects. Sweeping is unchanged: unmarked slots are free. A major
 * collection is today's full collection.
 *
 * Invariants:
 *  1. From the first collection in generational mode on, every heap region
 *     is registered at the start of some collection (world stopped), whose
 *     scan (invariant 2) finds its populated pages written, before a minor
 *     collection relies on it; a region seen for the first time makes that
 *     collection major. Pages never populated are never protected: they
 *     hold nothing, and once written they read as written (dirty.c).
 *  2. Every collection in generational mode, minor or major, finds the
 *     written pages of every tracked region, and before the world runs
 *     again protects those of the blocks that hold old objects
 *     (gen_protect_old_written), but for sparse ones the allocator is
 *     filling (needs_protection: listed in unprotected_old); the others
 *     stay unprotected and read as written at every collection. So a
 *     block holding an old object is protected, or reads as written, from
 *     the end of the collection that made the object old on, and a minor
 *     collection sees every page written since the previous collection
 *     started. Pages the kernel
 *     cannot vouch for (decommitted and committed again, untracked) count
 *     as written. region_info.protected_blocks is exactly the blocks the
 *     last collection left protected (a written one took a fault).
 *  3. An old object is never freed by a minor collection. Objects are
 *     young for two cycles (age 0, then age 1 after one survival; alloc.c),
 *     so a young object reachable from an old one was stored there after
 *     the collection before the last began: a minor collection rescans the
 *     old objects of blocks written in this cycle, and of blocks written
 *     only in the cycle before those the last collection remembered: the
 *     ones it found holding a word into a young object, and its objects of
 *     age 1 (old now). An object of age 1 now was of age 0 then, so a
 *     pointer to it in an old object was stored in the cycle before, into
 *     an object that was old (then found) or of age 1 (then remembered).
 *     After a major collection, which remembers nothing, all of them.
 *     A collection that makes every survivor old (gen_choose_promotion)
 *     leaves no young object older than the next cycle, so the next minor
 *     collection rescans only the blocks written in its own cycle: a
 *     pointer to a young object was stored in that cycle.
 *  4. A major collection runs when asked for (GC_gcollect, the heap limit,
 *     external memory, and the budget about to grow after a minor one while
 *     old objects are estimated dead, gen_major_before_growth: anything but
 *     allocation pacing), after GC_full_freq
 *     minor ones, when the blocks in use have grown by more than
 *     1/GC_free_space_divisor since the last major one (old garbage is
 *     found only by majors), when a region is new, and when the allocator
 *     could not record young slots.
 *  5. Where tracking costs more than it saves (gen_judge_period), the mode
 *     stops tracking: every region is unprotected and unregistered, and
 *     collections are full ones, exactly as outside the mode, for
 *     fallback_left collections; then the mode starts again as at first
 *     (a major collection that registers every region).
 */
#include "internal.h"

#include <string.h>

/* One region's blocks written in this cycle, reused across collections. */
static uint64_t dirty_map[BLOCKS_PER_REGION / 64];
static unsigned long minors_since_major;
/* The last collection was a minor one, which remembered in the blocks it
   saw written the objects to scan again in the next (rescan_small). */
static bool remembered_valid;
/* Blocks in use after the last major collection, and after the last
   collection: old garbage accumulates between majors, and the old
   generation may grow by 1/GC_free_space_divisor of itself (plus the
   floor) before a major. */
static size_t blocks_after_major, blocks_after_last;
/* The last collection made every survivor old (gen_choose_promotion): no
   object older than the current cycle is young, so a block written only in
   the cycle before holds nothing a minor collection must rescan. */
static bool promoted_all;
#define OLD_GROWTH_FLOOR_BLOCKS 256   /* 1 MiB */
/* The old generation may grow by 1/GC_free_space_divisor of itself
   between majors. Twice that (bdwgc's own generational mode collects in
   full when the heap in use has grown by its allocation step) spared
   guile-list two majors of eight (marked in all: 253 MiB against 399),
   but GCBench's temporary trees, promoted while its long-lived tree was
   being built, then stayed until a major far later: peak RSS 29 -> 50
   MiB. */

/* Register regions not tracked yet; true if there was one. Nothing is
   protected here: the end of this collection protects the populated
   pages holding old objects, and the fresh ones stay unprotected until
   written, so a first write to one costs one fault, not two (dirty.c).
   Protecting whole regions here cost guile-list 60,000 more faults than
   full collections (223,000 against 164,000), ecl-list 95,000, nix-eval
   100,000. A region the kernel refuses ends generational mode (with a
   warning): minor collections would have to rescan it whole every time. */
static bool track_new_regions(void) {
  bool any = false;
  for (size_t i = 0; i < pt_heap_region_count(); i++) {
    struct region_info *ri = pt_region_info(pt_heap_region(i));
    if (ri->dirty_tracked) continue;
    any = true;
    if (!ri->dirty_before) ri->dirty_before = meta_alloc(sizeof dirty_map);
    if (!ri->remembered) ri->remembered = meta_alloc(BLOCKS_PER_REGION * sizeof *ri->remembered);
    if (!ri->protected_blocks) ri->protected_blocks = meta_alloc(sizeof dirty_map);
    if (!ri->may_hold_young) ri->may_hold_young = meta_alloc(sizeof dirty_map);
    if (!ri->unprotected_old) ri->unprotected_old = meta_alloc(sizeof dirty_map);
    ri->dirty_tracked = ri->dirty_before && ri->remembered && ri->protected_blocks &&
                        ri->may_hold_young && ri->unprotected_old &&
                        dirty_register(ri->base, REGION_BYTES);
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
  return strncmp(reason, "allocation", strlen("allocation")) != 0;
}

/* ---- falling back to full collections where tracking does not pay ----
   On small heaps collected often, nearly every page holding old objects is
   written again each cycle, and each such write costs a write-protect
   fault: guile-interp (a 14 MiB heap, 750 collections) took 378,000 faults
   against 5,000 with full collections only and used 1.07-1.40 x the CPU
   time while marking a quarter of the bytes; w3m-dump 165,000 against
   32,000, 1.22-1.35 x. So each period between two majors is judged: the
   minors' marking time (the rescan of written blocks included) and
   protection of the written pages, plus the write faults of every cycle,
   against as many full marks at the last major's marking time. Times are
   the process's CPU time from the start of the collection (world
   stopped) to the end of marking and finalization, both kinds alike, the
   minors' protection after marking (gen_protect_old_written) added: the
   wall-clock mark time used until session 13 grew up to 25 x under load
   (a marker waiting for a CPU), and a major priced while the machine was
   busy kept a losing period, one priced while it was quiet ended a
   winning one. Tracking that lost stops (invariant 5) for
   FALLBACK_FIRST collections, twice as many after each further loss (up
   to FALLBACK_MAX); a period that won resets the length.
   A write fault is priced at what a store to a protected page costs on
   this machine (dirty_write_fault_ns, measured once): 0.85-1.37 us on
   session 12's KVM host, ~16 us on session 25's host with shadow page
   tables. The constant 1.5 us used until session 26 kept guile-interp in
   generational mode there at 1.2-1.6 x the wall time of full collections
   (periods of ~2,200 faults priced 3 ms, costing ~35). */
#define FALLBACK_FIRST 16
#define FALLBACK_MAX 1024
#define JUDGE_MIN_MINORS 4     /* fewer minors in a period: no verdict... */
#define JUDGE_EARLY_MINORS 2   /* ...but from this many, one that lost by */
#define JUDGE_EARLY_FACTOR 2   /* this factor stops the mode at once */
static uint64_t period_minor_cpu_ns, period_faults, last_major_cpu_ns;
static uint64_t cpu_at_begin, collection_cpu_ns;   /* this collection's, see above */
static unsigned long fallback_left, fallback_length = FALLBACK_FIRST;
/* BIBOP_GENERATIONAL_FALLBACK (docs/GUIDE.md) fixes the verdict for tests,
   which check behaviour, never time: 0 keeps every period, 2 loses every
   period judged (JUDGE_MIN_MINORS minors), whatever it cost. */
enum fallback_rule { FALLBACK_NEVER = 0, FALLBACK_TIMED = 1, FALLBACK_ALWAYS = 2 };
static int fallback_rule = -1;   /* not read yet */

static enum fallback_rule read_fallback_rule(void) {
  long v;
  if (!os_env_long("BIBOP_GENERATIONAL_FALLBACK", &v)) return FALLBACK_TIMED;
  return v == 0 ? FALLBACK_NEVER : v == 2 ? FALLBACK_ALWAYS : FALLBACK_TIMED;
}

static void stop_tracking(void) {
  for (size_t i = 0; i < pt_heap_region_count(); i++) {
    struct region_info *ri = pt_region_info(pt_heap_region(i));
    if (!ri->dirty_tracked) continue;
    (void)dirty_unprotect(ri->base, REGION_BYTES);
    dirty_unregister(ri->base, REGION_BYTES);
    ri->dirty_tracked = false;
    memset(ri->dirty_before, 0, sizeof dirty_map);
    memset(ri->protected_blocks, 0, sizeof dirty_map);
    memset(ri->unprotected_old, 0, sizeof dirty_map);
  }
  gc.generational = false;
  gc.promote_survivors = false;
}

/* At the end of a collection: has the period since the last major paid so
   far? It is judged at each collection once it holds JUDGE_MIN_MINORS
   minors (the first minor after a major rescans every old object of the
   blocks written before it), so a losing one stops early: guile-interp
   judged at majors only still took 101,000 faults (against 380,000). A
   period whose minors already cost JUDGE_EARLY_FACTOR times as many full
   marks is judged lost from JUDGE_EARLY_MINORS minors on: on a host with
   shadow page tables asy-render's minors cost 43-69 ms each against a
   20 ms major (7,000 write faults a cycle), and the first period was
   most of its 1.31 x against full collections only (session 26). A
   major ends the period (and sets the price of a full mark). */
static void judge_period(bool minor, unsigned long minors) {
  if (fallback_rule < 0) fallback_rule = read_fallback_rule();
  uint64_t fault_ns = dirty_write_fault_ns();
  uint64_t tracked_ns = period_minor_cpu_ns + period_faults * fault_ns;
  uint64_t full_ns = minors * last_major_cpu_ns;
  bool early = fallback_rule == FALLBACK_TIMED && minor && minors >= JUDGE_EARLY_MINORS &&
               tracked_ns > JUDGE_EARLY_FACTOR * full_ns;
  bool judged = (minors >= JUDGE_MIN_MINORS || early) && fallback_rule != FALLBACK_NEVER &&
                (last_major_cpu_ns || fallback_rule == FALLBACK_ALWAYS);
  bool lost = judged && (tracked_ns > full_ns || fallback_rule == FALLBACK_ALWAYS);
  if ((lost || (judged && !minor)) && gc.print_stats)
    fprintf(gc_log(), "bibop: generational period: %lu minors, %.1f ms CPU marking + %llu faults "
            "at %.1f us against %.1f ms in full marks: %s\n", minors, period_minor_cpu_ns / 1e6,
            (unsigned long long)period_faults, fault_ns / 1e3, full_ns / 1e6,
            lost ? "full collections only for a while" : "kept");
  if (minor && !lost) return;
  period_minor_cpu_ns = period_faults = 0;
  if (!minor) last_major_cpu_ns = collection_cpu_ns;
  if (!lost) {
    if (judged) fallback_length = FALLBACK_FIRST;
    return;
  }
  stop_tracking();
  fallback_left = fallback_length;
  if (fallback_length < FALLBACK_MAX) fallback_length *= 2;
}

static bool minor_or_major(const char *reason);

/* Whether this collection is a minor one (gc.last_was_minor from here on:
   pacing reads it before gen_end). */
bool gen_begin(const char *reason) {
  gc.last_was_minor = minor_or_major(reason);
  collection_cpu_ns = 0;
  if (gc.generational) cpu_at_begin = os_process_cpu_ns();
  return gc.last_was_minor;
}

static bool minor_or_major(const char *reason) {
  if (!gc.generational && fallback_left) {
    fallback_left--;
    return false;
  }
  if (gc.generational_requested && !gc.generational_forbidden && !gc.generational && !GC_find_leak) {
    gc.generational = true;   /* from this collection on; it is a major one */
    minors_since_major = 0;   /* a new first period: the major prices a full mark */
    last_major_cpu_ns = 0;
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

/* Which old objects of a written small block to scan again. Written in
   this cycle: all of them (any may have been written). Written only in the
   cycle before: those remembered then (invariant 3) -- all of them when
   the last collection did not remember (a major one). */
static void rescan_small(struct region_info *ri, size_t i, struct block *b, bool written_now) {
  uint64_t candidates[MARK_WORDS], found[MARK_WORDS], age1[MARK_WORDS];
  for (unsigned w = 0; w < MARK_WORDS; w++)
    candidates[w] = b->u.mark[w] & (written_now || !remembered_valid ? ~(uint64_t)0 : ri->remembered[i][w]);
  if (!mark_rescan_filtered(b, candidates, found)) {
    mark_rescan_old(b);
    return;
  }
  if (!written_now || gc.kinds[b->kind].pointer_free) return;
  /* For the next collection: the objects found holding young pointers,
     and those of age 1 (if they survive they are old then, and may have
     been given pointers to objects of age 0 in this cycle). */
  if (!alloc_age1_mask(b, age1)) memset(age1, 0, sizeof age1);
  for (unsigned w = 0; w < MARK_WORDS; w++) ri->remembered[i][w] = found[w] | age1[w];
}

/* A written block, soon rescanned: its descriptor, its records, the first
   of its objects the rescan reads. Each block costs several cache misses
   one after the other (descriptor, then objects; young and remembered
   records), and the blocks the allocator refilled hold one or two old
   objects each: prefetched a few blocks ahead, the misses overlap. A
   block written in this cycle has all its old objects read: the whole
   page is prefetched, not only its first objects. The processor's own
   prefetcher starts afresh at each page and these pages lie far apart:
   genheap's minor collections (2,600 written pages of 64-byte objects)
   spent 8.5-11.0 ms in this loop with the first four objects prefetched,
   6.6-8.2 ms with the whole page (session 18, alternating runs). A block
   written only in the cycle before has its remembered objects read, and
   those are the ones prefetched (they were the first marked ones: 10.3-
   14.0 ms against 12.3-14.3 for the phase that finds and rescans the
   written blocks, 4 alternating runs on a noisy host). */
#define RESCAN_AHEAD 8
#define RESCAN_AHEAD_OBJECTS 4
static void prefetch_records(struct region_info *ri, size_t i) {
  struct block *b = pt_block_of((uintptr_t)ri->base + (i << BLOCK_SHIFT));
  if (!b) return;
  __builtin_prefetch(b);
  __builtin_prefetch(ri->remembered[i]);
  alloc_young_prefetch(b);
}

static void prefetch_objects(struct region_info *ri, size_t i, bool written_now) {
  struct block *b = pt_block_of((uintptr_t)ri->base + (i << BLOCK_SHIFT));
  if (!b || b->state != BLOCK_SMALL) return;
  char *base = ri->base + (i << BLOCK_SHIFT);
  if (written_now && !(b->kind_flags & BLOCK_KIND_POINTER_FREE)) {
    for (size_t off = 0; off < BLOCK_BYTES; off += 64) __builtin_prefetch(base + off);
    return;
  }
  unsigned left = RESCAN_AHEAD_OBJECTS;
  for (unsigned w = 0; w < MARK_WORDS && left; w++)
    for (uint64_t bits = b->u.mark[w] & (remembered_valid ? ri->remembered[i][w] : ~(uint64_t)0);
         bits && left; bits &= bits - 1, left--)
      __builtin_prefetch(base + (size_t)(w * 64 + (unsigned)__builtin_ctzll(bits)) * b->obj_bytes);
}

/* The blocks of one region to rescan, in address order; the top bit says
   written in this cycle. */
#define WRITTEN_NOW ((uint32_t)1 << 31)
static uint32_t rescan_list[BLOCKS_PER_REGION];

/* The scan of a region's written pages protects again, in the same walk,
   the runs of blocks the last collection left protected: in a minor
   collection they still hold old objects (only a major frees them, and
   then gen_protect_old_written unprotects those whose old objects died).
   The other blocks are only scanned: young and free ones stay
   unprotected. Each run costs two system calls, so a region with more than
   SCAN_RUNS_MAX runs of protected blocks is scanned whole without
   protecting, and the end of the collection protects its written blocks
   that hold old objects (gen_protect_old_written). Protecting them only
   there cost genheap's minors a second walk of the page tables of the
   whole heap: 1.2-1.4 ms for ~60 spans over 300,000 blocks. */
#define SCAN_RUNS_MAX 64

/* The first block from i on whose bit in bitmap is set (set: false) or
   clear (set: true), or BLOCKS_PER_REGION: where a run of clear (set)
   bits ends. */
static size_t next_change(const uint64_t *bitmap, size_t i, bool set) {
  uint64_t flip = set ? ~(uint64_t)0 : 0;
  size_t w = i / 64;
  uint64_t x = (bitmap[w] ^ flip) & (~(uint64_t)0 << (i & 63));
  while (!x && ++w < BLOCKS_PER_REGION / 64) x = bitmap[w] ^ flip;
  return x ? w * 64 + (size_t)__builtin_ctzll(x) : BLOCKS_PER_REGION;
}

static bool reprotected_in_scan(const struct region_info *ri) {
  size_t runs = 0;
  for (size_t i = next_change(ri->protected_blocks, 0, false); i < BLOCKS_PER_REGION;
       i = next_change(ri->protected_blocks, i, false)) {
    if (++runs > SCAN_RUNS_MAX) return false;
    i = next_change(ri->protected_blocks, i, true);
    if (i == BLOCKS_PER_REGION) break;
  }
  return true;
}

static size_t scan_region(struct region_info *ri) {
  if (!reprotected_in_scan(ri)) return dirty_written(ri->base, REGION_BYTES, BLOCK_SHIFT, dirty_map);
  memset(dirty_map, 0, sizeof dirty_map);
  size_t written = 0;
  for (size_t i = 0; i < BLOCKS_PER_REGION;) {
    bool is_protected = (ri->protected_blocks[i / 64] >> (i & 63)) & 1;
    size_t end = next_change(ri->protected_blocks, i, is_protected);
    written += dirty_collect_units(ri->base, i, end - i, BLOCK_SHIFT, dirty_map, is_protected);
    i = end;
  }
  return written;
}

/* Find one region's written blocks (they stay as they are: written ones
   unprotected; gen_protect_old_written decides), keep them for the next
   collection, count the write faults they took, and, in a minor
   collection, rescan the old objects of the blocks written in this cycle
   or the one before (rescan_small; large objects whole). A large object
   spanning several such blocks is pushed once (blocks come in address
   order, its blocks are consecutive). Nothing is drained here: the filter
   of rescan_small needs every young object still unmarked.
   Returns the blocks written in this cycle; *faults gets those of them
   that were protected (one write-protect fault each: a block is a page). */
static size_t collect_region(struct region_info *ri, bool minor, size_t *faults) {
  size_t written = scan_region(ri);
  size_t n = 0;
  for (size_t w = 0; w < BLOCKS_PER_REGION / 64; w++) {
    uint64_t now = dirty_map[w], before = ri->dirty_before[w];
    uint64_t faulted = now & ri->protected_blocks[w];
    uint64_t young_only = now & before & ~faulted & ~ri->unprotected_old[w];
    uint64_t bits = (now & ~young_only) | (promoted_all ? 0 : before & ~now);
    *faults += bits_set(faulted);
    ri->dirty_before[w] = now;
    if (!minor) continue;
    /* Written now and when the last collection ended, which left it
       unprotected: it held no old object then (gen_protect_old_written),
       so it holds none now and is not rescanned. (A block not written
       then may hold old objects on a page never populated until now:
       rescanned.) If one of its objects becomes old at the end of this
       collection, the next one rescans all of its old objects when it is
       not written again: they are the ones made old now. GCBench's minor
       collections found ~5,000 blocks written, all but a few hundred of
       them young-only. */
    for (uint64_t b = young_only; b; b &= b - 1)
      memset(ri->remembered[w * 64 + (size_t)__builtin_ctzll(b)], 0xff, sizeof ri->remembered[0]);
    for (; bits; bits &= bits - 1) {
      size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
      rescan_list[n++] = (uint32_t)i | ((now >> (i & 63)) & 1 ? WRITTEN_NOW : 0);
    }
  }
  struct block *last_large = NULL;
  for (size_t k = 0; k < n + RESCAN_AHEAD; k++) {
    if (k < n) prefetch_records(ri, rescan_list[k] & ~WRITTEN_NOW);
    if (k >= RESCAN_AHEAD / 2 && k - RESCAN_AHEAD / 2 < n)
      prefetch_objects(ri, rescan_list[k - RESCAN_AHEAD / 2] & ~WRITTEN_NOW,
                       rescan_list[k - RESCAN_AHEAD / 2] & WRITTEN_NOW);
    if (k < RESCAN_AHEAD) continue;
    size_t i = rescan_list[k - RESCAN_AHEAD] & ~WRITTEN_NOW;
    bool written_now = rescan_list[k - RESCAN_AHEAD] & WRITTEN_NOW;
    struct block *b = pt_block_of((uintptr_t)ri->base + (i << BLOCK_SHIFT));
    if (!b) continue;
    if (b->state == BLOCK_SMALL) {
      rescan_small(ri, i, b, written_now);
    } else if (b->state == BLOCK_LARGE || b->state == BLOCK_LARGE_TAIL) {
      if (b->state == BLOCK_LARGE_TAIL) b = b->head;
      if (b->state == BLOCK_LARGE && b != last_large) {
        last_large = b;
        mark_rescan_old(b);
      }
    }
  }
  return written;
}

/* In the cycle this collection ends (statistics, fallback): blocks
   written, and write-protect faults taken. */
static size_t written_blocks, write_faults;

/* ---- which blocks may hold an unmarked object ----
   The rescan's filter (mark_rescan_filtered) asks, for each word of an old
   object that the page table places in the heap, whether it leads to an
   unmarked object. In a minor collection, before anything is marked, the
   unmarked objects are the young slots (mark_clear_young cleared exactly
   those; every other allocated slot of a small block is old, hence
   marked), the large objects allocated since the last collection, and
   free slots, which lead nowhere. So a dense map of the blocks holding
   such objects answers for the rest without their descriptors: genheap's
   old nodes point to old nodes allocated far away, and each of those
   descriptors was a cache miss. Rebuilt by every minor collection. */
/* Set bits [lo, hi) of map, whole words at a time where they fit (a young
   object of 256 MiB covers 65,536 blocks); dirty.c's set_bits counts the
   bits it sets, one at a time, which this needs not. */
static void set_map_range(uint64_t *map, size_t lo, size_t hi) {
  for (size_t i = lo; i < hi;) {
    if (!(i & 63) && hi - i >= 64) {
      map[i / 64] = ~(uint64_t)0;
      i += 64;
    } else {
      map[i / 64] |= (uint64_t)1 << (i & 63);
      i++;
    }
  }
}

/* The blocks [a, a + bytes) of a young large object, through the page
   table (a region an object covers whole reads its lender's descriptors,
   and pt_may_hold_young finds them the same way). */
static void map_large(char *a, size_t bytes) {
  char *end = a + bytes;
  while (a < end) {
    char *region_end = (char *)(((uintptr_t)a | (REGION_BYTES - 1)) + 1);
    char *stop = end < region_end ? end : region_end;
    struct block *t = pt_block_of((uintptr_t)a), *blocks = block_array_of(t);
    size_t lo = (size_t)(t - blocks);
    uint64_t *map = pt_region_info(blocks)->may_hold_young;
    if (map) set_map_range(map, lo, lo + (size_t)((stop - a) >> BLOCK_SHIFT));
    a = stop;
  }
}

static void map_unmarked_blocks(void) {
  for (size_t i = 0; i < pt_heap_region_count(); i++) {
    struct region_info *ri = pt_region_info(pt_heap_region(i));
    if (ri->may_hold_young) memset(ri->may_hold_young, 0, sizeof dirty_map);
  }
  for (size_t i = 0; i < alloc_young_count(); i++) {
    struct block *b = alloc_young_block(i), *blocks = block_array_of(b);
    uint64_t *map = pt_region_info(blocks)->may_hold_young;
    size_t k = (size_t)(b - blocks);
    if (map) set_map_range(map, k, k + 1);
  }
  struct block *h = gc.large;
  for (size_t n = alloc_large_since_gc(); n && h; n--, h = h->next)
    if (!h->u.large.marked) map_large(block_addr(h), h->u.large.nblocks * BLOCK_BYTES);
}

void gen_mark_written(bool minor) {
  if (!gc.generational) return;
  size_t written = 0, faults = 0;
  if (minor) map_unmarked_blocks();
  for (size_t i = 0; i < pt_heap_region_count(); i++) {
    struct region_info *ri = pt_region_info(pt_heap_region(i));
    if (ri->dirty_tracked) written += collect_region(ri, minor, &faults);
  }
  written_blocks = written;
  write_faults = faults;
  if (minor) {
    mark_rescan_traced_by_contents();
    mark_drain();
    gc.last_dirty_blocks = written;
  }
  remembered_valid = minor;
}

/* Does block b hold an old object once this collection ends, and if so,
   are a quarter or more of its slots free (the allocator will fill them,
   writing the page)? Judged from its marks and young records after
   alloc_after_mark (marking is over; sweep setup changes neither for a
   block that keeps an object). Pointer-free blocks never need
   rescanning: no old object. Large objects fill their blocks. */
enum old_objects { OLD_NONE, OLD_SPARSE, OLD_DENSE };
static enum old_objects old_objects(struct block *b) {
  if (b->state == BLOCK_FREE || b->state == BLOCK_UNUSED) return OLD_NONE;
  if (b->state != BLOCK_SMALL) return OLD_DENSE;
  if (gc.kinds[b->kind].pointer_free) return OLD_NONE;
  uint64_t young[MARK_WORDS], old = 0, marked = 0;
  for (unsigned w = 0; w < MARK_WORDS; w++) marked |= b->u.mark[w];
  if (!marked) return OLD_NONE;   /* a block of dead young objects: no young record read */
  if (!alloc_young_mask(b, young)) memset(young, 0, sizeof young);
  unsigned live = 0;
  for (unsigned w = 0; w < MARK_WORDS; w++) {
    old |= b->u.mark[w] & ~young[w];
    live += (unsigned)__builtin_popcountll(b->u.mark[w]);
  }
  if (!old) return OLD_NONE;
  return 4 * (b->nobjs - live) >= b->nobjs ? OLD_SPARSE : OLD_DENSE;
}

/* Blocks of one region whose protection changes, gathered in spans: one
   system call per span. Protecting, a span may run over blocks not
   written (they are protected already, or empty: the scan of
   dirty_protect_written protects only what reads as written), up to a
   gap of PROTECT_GAP_BLOCKS; unprotecting (after the protecting, which
   the blocks between might undo), over none. A block that must keep its
   state ends a span. The gap:
   walking 512 page table entries that need nothing costs about what one
   more system call does (a 1 GiB range, 262,144 entries, is scanned in
   ~1 ms: 4 ns each). */
#define PROTECT_GAP_BLOCKS 512
struct protect_span { struct region_info *ri; bool protect; size_t first, end; };

static void span_flush(struct protect_span *s) {
  if (s->end > s->first) {
    void *start = s->ri->base + (s->first << BLOCK_SHIFT);
    size_t bytes = (s->end - s->first) << BLOCK_SHIFT;
    (void)(s->protect ? dirty_protect_written(start, bytes) : dirty_unprotect(start, bytes));
  }
  s->first = s->end = 0;
}

/* Must block b be protected once this collection ends? When it holds
   old objects, unless they are sparse and the allocator is filling the
   block: written in a minor collection's cycle, or, for a major, written
   in its cycle while protected (a fault) or fresh. A sparse block left
   unprotected reads as written at every collection, so its old objects
   are rescanned by each minor one (in unprotected_old, collect_region
   does not take it for young-only) until it is dense or a major protects
   it; one that stopped being filled costs those rescans until the next
   major, which protects it: the sparse blocks of a heap left fragmented
   are not rescanned minor after minor. Otherwise each refill cost a write
   fault and, at the next collection, protecting the page again: genheap's
   blocks holding one or two promoted survivors among 64 slots took ~4,000
   of its ~6,600 faults per cycle, each 16 us and the protection 6 us more
   on a host with shadow page tables (bench/run-dirty.sh, session 25). */
static bool needs_protection(struct region_info *ri, size_t i, struct block *b, bool minor) {
  enum old_objects old = b ? old_objects(b) : OLD_NONE;
  uint64_t bit = (uint64_t)1 << (i & 63);
  bool written = ri->dirty_before[i >> 6] & bit, was_sparse = ri->unprotected_old[i >> 6] & bit;
  bool filled = minor ? written : written && !was_sparse;
  bool protect = old == OLD_DENSE || (old == OLD_SPARSE && !filled);
  if (old != OLD_NONE && !protect) ri->unprotected_old[i >> 6] |= bit;
  else ri->unprotected_old[i >> 6] &= ~bit;
  return protect;
}

/* Of the blocks in candidates (one region's), those that need protection
   (protect) or need none (unprotect) change it, and protected_blocks with
   them; the others keep theirs. The blocks are listed first, then judged
   with their descriptors and young records prefetched a few blocks ahead:
   genheap's minors write ~26,000 blocks of garbage besides ~2,600 of old
   objects, one or two cache misses each. */
static void change_protection(struct region_info *ri, const uint64_t *candidates, bool protect,
                              bool minor) {
  size_t n = 0;
  for (size_t w = 0; w < BLOCKS_PER_REGION / 64; w++)
    for (uint64_t bits = candidates[w]; bits; bits &= bits - 1)
      rescan_list[n++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
  struct protect_span span = { ri, protect, 0, 0 };
  for (size_t k = 0; k < n + RESCAN_AHEAD; k++) {
    if (k < n) {
      struct block *ahead = pt_block_of((uintptr_t)ri->base + ((size_t)rescan_list[k] << BLOCK_SHIFT));
      __builtin_prefetch(ahead);
      alloc_young_prefetch(ahead);
    }
    if (k < RESCAN_AHEAD) continue;
    size_t i = rescan_list[k - RESCAN_AHEAD];
    uint64_t bit = (uint64_t)1 << (i & 63);
    struct block *b = pt_block_of((uintptr_t)ri->base + (i << BLOCK_SHIFT));
    bool need = needs_protection(ri, i, b, minor);
    if (need) ri->protected_blocks[i >> 6] |= bit;
    else ri->protected_blocks[i >> 6] &= ~bit;
    if (need != protect) {
      span_flush(&span);
      continue;
    }
    if (span.end > span.first && i - span.end > (protect ? PROTECT_GAP_BLOCKS : 0)) span_flush(&span);
    if (span.end == span.first) span.first = i;
    span.end = i + 1;
  }
  span_flush(&span);
}

/* With the world still stopped, after alloc_after_mark: protect again the
   written blocks that need it (needs_protection); the others, free,
   holding only young objects or sparse old ones being filled, stay
   unprotected until a collection finds them needing it. Writes there go to young objects, traced
   anyway when reachable, or to free slots; an unprotected page reads as
   written at every collection (invariant 2), which is how the collection
   that makes one of its objects old finds it. So the allocator fills young
   and free blocks without a write fault per page per cycle, and a
   collection changes the protection only of the blocks that hold old
   objects: GCBench's minor collections found ~5,000 blocks written, of
   which a few hundred hold an old object; protecting all of them while
   scanning and unprotecting the young ones after the world restarted put
   ~10,000 page table changes in every minor collection.
   After a major collection, the protected blocks whose old objects all
   died are unprotected: the allocator fills them next, a fault per page.
   GCBench's stretch tree (16 MiB, old when it dies) cost 3,551 faults in
   the cycle after the major that freed it.
   The written blocks were found at the start of this collection; since
   then only the collector ran, and it stores no pointer into the heap (it
   clears disappearing links), so protecting them now loses no write a
   minor collection needs. */
static uint64_t to_protect[BLOCKS_PER_REGION / 64], to_unprotect[BLOCKS_PER_REGION / 64];

void gen_protect_old_written(bool minor) {
  if (!gc.generational) return;
  uint64_t cpu_at_start = minor ? os_process_cpu_ns() : 0;   /* judge_period prices minors only */
  for (size_t r = 0; r < pt_heap_region_count(); r++) {
    struct region_info *ri = pt_region_info(pt_heap_region(r));
    if (!ri->dirty_tracked) continue;
    /* Written blocks not protected again by the scan (scan_region) may
       need it; written ones it protected again may be sparse; after a
       major, the protected blocks may hold no old object. (A minor frees
       no old object, so a block it did not see written keeps its state.) */
    bool reprotected = reprotected_in_scan(ri);
    for (size_t w = 0; w < BLOCKS_PER_REGION / 64; w++) {
      uint64_t written = ri->dirty_before[w], prot = ri->protected_blocks[w];
      to_protect[w] = reprotected ? written & ~prot : written;
      to_unprotect[w] = minor ? (reprotected ? written & prot : 0) : (reprotected ? prot : prot & ~written);
    }
    change_protection(ri, to_protect, true, minor);
    change_protection(ri, to_unprotect, false, minor);
  }
  if (minor) collection_cpu_ns += os_process_cpu_ns() - cpu_at_start;   /* judge_period */
}

/* Promotion. Objects become old after two survivals, so that data which
   dies just after surviving one collection (GCBench's temporary trees) is
   still found by minor collections; but where survivors go on living (a
   program building its data: guile-list's and ecl-list's lists), the
   second survival only costs: each survivor is marked by two minor
   collections, and its block is read whole by a third (its objects were
   of age 1 when the block was written, so they are remembered). So the
   survivors of age 0 become old at once when
     - at least PROMOTE_SURVIVAL_PERCENT of the bytes allocated in the
       cycle survived it, or
     - at least that share of the objects of age 1 survived their second
       collection, measured in one of the last PROMOTE_MEMORY collections
       (a collection that promotes leaves no object of age 1 to measure;
       every PROMOTE_MEMORY + 1 collections, survivors age once again and
       the share is measured anew), over at least PROMOTE_MIN_BYTES.
   Measured (GC_PRINT_STATS): guile-list's allocation survives at 33 %
   (two garbage objects of the interpreter per cons), its objects of age 1
   at 100 %; GCBench's temporary trees at 0-17 % (peak RSS unchanged, 29
   MiB), its long-lived tree at 100 %. */
#define PROMOTE_SURVIVAL_PERCENT 50
#define PROMOTE_MEMORY 4
#define PROMOTE_MIN_BYTES ((size_t)64 << 10)
static unsigned age1_measured_ago = PROMOTE_MEMORY + 1;   /* collections */
static bool age1_survive;
static unsigned age1_survival_pct;   /* of the bytes, when measured */
/* Of the bytes of age 0 the last minor collection found, the share that
   survived it (0 after a major, or over fewer than PROMOTE_MIN_BYTES). */
static unsigned age0_survival_pct;

static bool survived_mostly(size_t young, size_t surviving) {
  return surviving >= young / 100 * PROMOTE_SURVIVAL_PERCENT;
}

/* The bytes of the young large objects this collection marked (those
   allocated since the last one: alloc_large_since_gc). */
static size_t young_large_marked(void) {
  size_t bytes = 0;
  struct block *h = gc.large;
  for (size_t n = alloc_large_since_gc(); n && h; n--, h = h->next)
    if (h->u.large.marked) bytes += h->u.large.bytes;
  return bytes;
}

void gen_choose_promotion(bool minor) {
  gc.promote_survivors = false;
  if (!gc.generational) return;
  collection_cpu_ns = os_process_cpu_ns() - cpu_at_begin;   /* marking is over */
  size_t young[2], surviving[2];
  /* What a minor collection marked is young (or a free slot): counted,
     not walked, when no slot is of age 1 (alloc.c). */
  size_t marked = minor ? mark_marked_bytes() : 0, large = minor ? young_large_marked() : 0;
  if (!minor || !alloc_young_survival_counted(young, surviving, marked > large ? marked - large : 0))
    alloc_young_survival(young, surviving);
  if (young[1] >= PROMOTE_MIN_BYTES) {
    age1_survive = survived_mostly(young[1], surviving[1]);
    age1_survival_pct = (unsigned)(surviving[1] / (young[1] / 100));
    age1_measured_ago = 0;
  } else if (age1_measured_ago <= PROMOTE_MEMORY) {
    age1_measured_ago++;
  }
  age0_survival_pct = minor && young[0] >= PROMOTE_MIN_BYTES
                          ? (unsigned)(surviving[0] / (young[0] / 100)) : 0;
  gc.promote_survivors = (young[0] && survived_mostly(young[0], surviving[0])) ||
                         (age1_survive && age1_measured_ago < PROMOTE_MEMORY);
  if (gc.print_stats)
    fprintf(gc_log(), "bibop: survivors: %zu of %zu KiB of age 0, %zu of %zu KiB of age 1; %s; "
            "blocks written in the cycle: %zu (write faults: %zu)\n",
            surviving[0] >> 10, young[0] >> 10, surviving[1] >> 10, young[1] >> 10,
            gc.promote_survivors ? "all old now" : "those of age 0 now of age 1", written_blocks,
            write_faults);
}

/* ---- the heap budget after minor collections ----
   A minor collection never frees an old object, so its marked bytes
   count the old objects that died since the last major as live. Sized
   from them, pacing asked for ever more allocation between collections
   and the budget grew to make room for old garbage, never to come down
   again: neko-st's "live" went 9.6 -> 11.0 -> 11.8 -> 13.1 MiB over three
   minors (9.6 in every full collection of the same program), its budget
   18.8 -> 22.9 MiB, peak RSS 1.22-1.35 x full-only's. So:
    - each major measures which share of the bytes made old since the
      last major it found still live (old_survival_pct: neko-st ~0, a list
      being built ~100, guile-list 100 at every major), and until the next
      major the old generation's growth counts as live in that share only
      (gen_live_for_pacing, old_survival_estimate);
    - when the budget is used up before a collection is due and the minors
      since the last major left old garbage (by that estimate) of at least
      a quarter of the growth step, a major runs instead of the growth
      (gen_major_before_growth): full-only mode would not have needed the
      room. Until a major has measured, the old generation's growth is
      taken for garbage (the first such majors are small and early).
   On heaps under SMALL_HEAP_BYTES the estimate takes all of the old
   generation's growth for garbage: there a growth step (at most 4 MiB) is
   an eighth of the heap or more, and a major costs a few ms; and the
   measured share lags where a program stops building its data: neko-mt's
   majors measured 100 % just before it ran steadily, and two 4 MiB steps
   followed (budget 27.6 MiB against full-only's 18.8). Costs measured
   (same invocation, CPU): guile-list 11 such majors while its heap was
   small, 1.48 s against 1.52 s before (its first period no longer falls
   back on a price set by the empty initial major) and 1.59 s full-only.
   Except while a program builds its data: when the last major found at
   least BUILDING_PERCENT of the old generation's growth live and the last
   minor saw as large a share of its young bytes survive, the measured
   share stands on small heaps too. GCBench's long-lived tree, built on a
   heap of 64 KiB to 16 MiB, had a major before each of its growth steps:
   nine majors that found nothing dead. 45 collections against 39 (full-only
   mode: 35), their total pause 38-41 ms against 34-35 (6 alternating
   runs); neko-mt and neko-st (whose young objects die) unchanged.
   bdwgc's generational mode collects in full when the heap in use has
   grown by a collection's allocation since the last full one, and when it
   would otherwise expand the heap. */
#define SURVIVAL_MIN_BYTES ((size_t)256 << 10)   /* fewer made old: no measurement */
#define BUILDING_PERCENT 90
#define SMALL_HEAP_BYTES ((size_t)32 << 20)
static size_t live_after_major[2], live_after_last[2];   /* pointerful, pointer-free */
static unsigned old_survival_pct;   /* 0 until a major has measured */

static void measure_old_survival(void) {
  size_t before = live_after_last[0] + live_after_last[1];
  size_t base = live_after_major[0] + live_after_major[1];
  size_t now = gc.live_ptr_bytes + gc.live_atomic_bytes;
  if (minors_since_major && before > base && before - base >= SURVIVAL_MIN_BYTES) {
    size_t made_old = before - base, kept = now > base ? now - base : 0;
    old_survival_pct = kept >= made_old ? 100 : (unsigned)(kept * 100 / made_old);
    if (gc.print_stats)
      fprintf(gc_log(), "bibop: old generation: %zu KiB made old since the last major, %u%% of it "
              "live\n", made_old >> 10, old_survival_pct);
  }
  live_after_major[0] = gc.live_ptr_bytes;
  live_after_major[1] = gc.live_atomic_bytes;
}

/* Which share of the old generation's growth since the last major is
   live: as the last major measured, but no more than the share of objects
   of age 1 that survived their second collection lately (those are what
   becomes old; an old object dies less often than a young one, so this
   errs towards a major). neko-st's majors measured 100 % while it built
   its data, then its objects of age 1 survived at 0-38 % once it ran
   steadily: the last major's figure alone let the budget grow by a step
   for old garbage at that turn. */
static unsigned old_survival_estimate(void) {
  if (gc.heap_budget <= SMALL_HEAP_BYTES)
    return old_survival_pct >= BUILDING_PERCENT && age0_survival_pct >= BUILDING_PERCENT
           ? old_survival_pct : 0;
  unsigned pct = old_survival_pct;
  if (age1_measured_ago < PROMOTE_MEMORY && age1_survival_pct < pct) pct = age1_survival_pct;
  return pct;
}

/* Of the bytes a minor collection found marked, those grown since the last
   major beyond the share estimated to survive. */
static size_t old_garbage_estimate(unsigned k, size_t marked) {
  if (!gc.last_was_minor || marked <= live_after_major[k]) return 0;
  return (marked - live_after_major[k]) / 100 * (100 - old_survival_estimate());
}

void gen_live_for_pacing(size_t *live_ptr, size_t *live_atomic) {
  *live_ptr -= old_garbage_estimate(0, *live_ptr);
  *live_atomic -= old_garbage_estimate(1, *live_atomic);
}

bool gen_major_before_growth(size_t growth) {
  if (!gc.last_was_minor) return false;
  size_t garbage = old_garbage_estimate(0, gc.live_ptr_bytes) +
                   old_garbage_estimate(1, gc.live_atomic_bytes);
  return garbage >= growth / 4;
}

void gen_end(bool minor, uint64_t pause_ns) {
  promoted_all = gc.generational && gc.promote_survivors;
  if (!gc.generational) return;
  period_faults += write_faults;
  if (minor) period_minor_cpu_ns += collection_cpu_ns;
  judge_period(minor, minors_since_major + minor);
  blocks_after_last = gc.blocks_in_use;
  if (!minor) blocks_after_major = gc.blocks_in_use;
  if (!minor) measure_old_survival();
  live_after_last[0] = gc.live_ptr_bytes;
  live_after_last[1] = gc.live_atomic_bytes;
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
