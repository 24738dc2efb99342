/*
 * arena.c: the large-pages arena. Reserves address space in 256 MiB regions
 * aligned to 256 MiB (PROT_NONE, preferring addresses contiguous with the
 * last reservation), and hands out runs of 2 MiB chunks, keeping free runs
 * coalesced by address: committed chunks first (best fit among stretches of
 * free committed chunks), then best fit among free runs. Chunks are
 * committed when handed out, with small pages while the heap is small and
 * huge pages from the first time it is large (commit_with_huge_pages), and
 * decommitted when they have stayed free for a number of collections, or
 * when the collector says it cannot use them (arena_decommit_surplus).
 * Knows nothing of blocks or objects; the page table learns of each region
 * as it is reserved.
 *
 * What bdwgc calls the heap is the committed chunks (committed_bytes:
 * GC_get_heap_size), whether handed out or free; chunks decommitted after
 * use are its unmapped part (returned_bytes: GC_get_unmapped_bytes) until
 * they are committed again. Reserved address space that was never committed
 * is neither. Invariants: a chunk that is not handed out is never written
 * by bibop; committed_bytes + discarded_bytes <= heap_limit whenever a
 * limit is set (chunks are committed only within it); a request that fails leaves no trace: the
 * regions it reserved are released with their descriptors, its flags and
 * counters are restored; no single commit exceeds what the system could
 * back (os_commit_limit). All functions run under the allocation lock.
 */
#include "internal.h"

#include <string.h>

struct interval { uintptr_t start; size_t nchunks; };

/* What one reservation added, so that a request that fails can undo it. */
struct reservation {
  char *base;                  /* NULL: nothing was reserved */
  size_t nregions;
  char *prev_end;              /* last_reservation_end before */
  void *prev_least, *prev_greatest;   /* the plausible heap bounds before */
};

static struct meta_vec free_runs = { .item_size = sizeof(struct interval) };
static char *last_reservation_end;
static size_t committed_bytes;    /* chunks mapped read-write */
static size_t returned_bytes;     /* chunks decommitted after use, not committed since */
/* Free runs given back inside committed chunks (heap.c): left out of
   committed_bytes, as bdwgc leaves unmapped blocks out of its heap size,
   but the heap may take them again at any time without asking, so the
   heap limit counts them (api.limits in generational mode went 36 KiB
   over its 64 MiB limit when chunks were committed while runs were
   discarded, then the runs were taken again). */
static size_t discarded_bytes;
static size_t reserved_bytes;     /* address space of every region */
static size_t commit_limit_chunks = SIZE_MAX;   /* the most one request may commit */
static size_t heap_limit;         /* 0: none; else committed_bytes stays below it */
static bool use_huge_pages = true;   /* BIBOP_THP: huge pages at all */

/* Huge pages pay on a large heap (fewer TLB misses while marking, one fault
   per chunk) and cost on a small one: a 2 MiB page is resident whole, and
   is zeroed (here, with THP defrag on "madvise", compacted too) on its first
   touch, however few of its blocks the heap uses: a program whose heap
   needs 800 KiB held 2 MiB, a 2.6 MiB budget held 4 MiB. So chunks are
   committed with small pages (and MADV_NOHUGEPAGE, for systems in THP
   "always" mode) until the committed heap first reaches
   huge_pages_min_heap; from then on every chunk committed gets
   MADV_HUGEPAGE, and so do the chunks committed before, which khugepaged
   may then collapse. Invariant: huge_pages_on never goes back to false, so
   a heap that shrinks again does not turn its advice back and forth.
   The default threshold, 1 GiB, is measured (docs/BENCHMARKS.md, session
   8): where free memory goes back to the hypervisor (virtio-balloon free
   page reporting, as on the machines bibop is measured on), every fresh
   huge page faults on the host, 5-10 ms per 2 MiB against 1-2 ms for the
   same memory in small pages; on the client suite, whose heaps reach
   450 MiB, small pages took the time geometric mean from 0.90 to 0.86 x
   stock (guile-list 1.20 -> 1.07, guile-parmap 1.43 -> 1.18, nix-eval
   1.09 -> 0.92). Marking a heap of a GiB and more still gains from huge
   pages (fewer TLB misses on random loads). */
#define HUGE_PAGES_MIN_HEAP_DEFAULT ((size_t)1 << 30)
static size_t huge_pages_min_heap = HUGE_PAGES_MIN_HEAP_DEFAULT;   /* BIBOP_THP_MIN_HEAP */
static bool huge_pages_on;

/* Hosts differ in what a fresh page costs (docs/BENCHMARKS.md, session
   27): where the hypervisor keeps shadow page tables, each small page's
   first touch costs ~11 us (5.6 ms per 2 MiB chunk), a fresh huge page
   0.1-3.7 ms, and huge pages from 32 MiB took the client suite's time
   to 0.96 x that of small pages up to 1 GiB (from 16 MiB: 0.93 x, but
   ecl-weak, whose heap hovers near 16 MiB, 1.16 x the RSS). So without
   BIBOP_THP_MIN_HEAP, when the committed heap first reaches
   HUGE_PAGES_PROBE_HEAP (small programs keep small pages: their chunks are
   not full), the first touch of each kind is timed once on scratch memory
   (os_first_touch_ns) and huge pages start there if theirs is the
   cheaper; otherwise at huge_pages_min_heap as before. */
#define HUGE_PAGES_PROBE_HEAP ((size_t)32 << 20)
static bool huge_pages_probe_pending = true;   /* cleared by BIBOP_THP_MIN_HEAP */
static uint64_t first_touch_small_ns, first_touch_huge_ns;   /* the probe's findings */

void arena_init(void) {
  long v;
  if (os_env_long("BIBOP_THP", &v) && v == 0) use_huge_pages = false;
  size_t min_heap;
  if (os_env_size("BIBOP_THP_MIN_HEAP", &min_heap)) {
    huge_pages_min_heap = min_heap;
    huge_pages_probe_pending = false;
  }
  huge_pages_on = use_huge_pages && huge_pages_min_heap == 0;
  commit_limit_chunks = os_commit_limit() / CHUNK_BYTES;
}

/* Advise huge pages for every committed chunk (the heap has just become
   large enough). Runs once. */
static void advise_committed_chunks_huge(void) {
  for (size_t r = 0; r < pt_heap_region_count(); r++) {
    struct region_info *ri = pt_region_info(pt_heap_region(r));
    for (size_t ci = 0; ci < CHUNKS_PER_REGION; ci++)
      if (ri->chunk_committed[ci]) os_advise_huge(ri->base + ci * CHUNK_BYTES, CHUNK_BYTES);
  }
}

/* The probe at HUGE_PAGES_PROBE_HEAP: whether a fresh huge page costs less
   than 2 MiB of fresh small pages here. Runs once. */
static bool huge_pages_cheaper(void) {
  huge_pages_probe_pending = false;
  first_touch_small_ns = os_first_touch_ns(false);
  first_touch_huge_ns = os_first_touch_ns(true);   /* 0: no huge page came */
  bool cheaper = first_touch_huge_ns && first_touch_huge_ns < first_touch_small_ns;
  if (gc.print_stats) {
    if (first_touch_huge_ns)
      fprintf(gc_log(), "bibop: first touch of 2 MiB: %.3f ms in small pages, %.3f ms in a huge page",
              first_touch_small_ns / 1e6, first_touch_huge_ns / 1e6);
    else
      fprintf(gc_log(), "bibop: first touch of 2 MiB: %.3f ms in small pages, no huge page given",
              first_touch_small_ns / 1e6);
    fprintf(gc_log(), "; huge pages from %zu MiB\n",
            (cheaper ? HUGE_PAGES_PROBE_HEAP : huge_pages_min_heap) >> 20);
  }
  return cheaper;
}

bool arena_huge_pages_on(void) { return huge_pages_on; }

bool arena_first_touch_probe(uint64_t *small_ns, uint64_t *huge_ns) {
  *small_ns = first_touch_small_ns;
  *huge_ns = first_touch_huge_ns;
  return first_touch_small_ns != 0;
}

/* Whether chunks committed now, making the committed heap `after` bytes,
   get huge pages; switches them on for good at the threshold (or at
   the probe's, if it finds them cheaper). */
static bool commit_with_huge_pages(size_t after) {
  if (!huge_pages_on && use_huge_pages &&
      (after >= huge_pages_min_heap ||
       (huge_pages_probe_pending && after >= HUGE_PAGES_PROBE_HEAP && huge_pages_cheaper()))) {
    huge_pages_on = true;
    advise_committed_chunks_huge();
  }
  return huge_pages_on;
}

/* bytes rounded up to whole chunks, at least one: a heap must hold one. */
void arena_set_heap_limit(size_t bytes) {
  if (bytes == 0) { heap_limit = 0; return; }
  size_t chunks = bytes / CHUNK_BYTES + (bytes % CHUNK_BYTES != 0);
  heap_limit = (chunks ? chunks : 1) * CHUNK_BYTES;
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

/* Take [start, start + nchunks) out of the free runs; it lies inside one.
   False, with nothing changed, if splitting a run needs memory that is
   refused. */
static bool remove_free_range(uintptr_t start, size_t nchunks) {
  struct interval *iv = free_runs.items;
  uintptr_t end = start + nchunks * CHUNK_BYTES;
  for (size_t i = 0; i < free_runs.count; i++) {
    uintptr_t run_end = iv[i].start + iv[i].nchunks * CHUNK_BYTES;
    if (start < iv[i].start || end > run_end) continue;
    size_t head = (start - iv[i].start) / CHUNK_BYTES, tail = (run_end - end) / CHUNK_BYTES;
    if (head && tail) {
      struct interval after = { end, tail };
      if (!meta_vec_push(&free_runs, &after)) return false;
      iv = free_runs.items;
      memmove(&iv[i + 2], &iv[i + 1], (free_runs.count - 2 - i) * sizeof *iv);
      iv[i + 1] = after;
      iv[i].nchunks = head;
    } else if (head) {
      iv[i].nchunks = head;
    } else if (tail) {
      iv[i].start = end;
      iv[i].nchunks = tail;
    } else {
      meta_vec_remove(&free_runs, i);
    }
    return true;
  }
  return false;
}

static void forget_regions(char *base, size_t nregions) {
  while (nregions > 0) {
    nregions--;
    pt_remove_region(base + nregions * REGION_BYTES);
  }
}

/* Reserve enough whole regions for n chunks and make them free runs; all
   or nothing (every region needs a descriptor array, and descriptor
   mappings are a limited resource: vm.max_map_count). */
static bool reserve_regions(size_t nchunks, struct reservation *res) {
  size_t nregions = (nchunks + CHUNKS_PER_REGION - 1) / CHUNKS_PER_REGION;
  if (nregions > PT_ENTRIES) return false;
  size_t bytes = nregions * REGION_BYTES;
  char *base = os_reserve(bytes, REGION_BYTES, last_reservation_end);
  if (!base) return false;
  for (size_t r = 0; r < nregions; r++) {
    if (!pt_add_region(base + r * REGION_BYTES)) {
      forget_regions(base, r);
      os_unmap(base, bytes);
      return false;
    }
  }
  if (!add_free_run((uintptr_t)base, nregions * CHUNKS_PER_REGION)) {
    forget_regions(base, nregions);
    os_unmap(base, bytes);
    return false;
  }
  *res = (struct reservation){ base, nregions, last_reservation_end,
                               GC_least_plausible_heap_addr, GC_greatest_plausible_heap_addr };
  reserved_bytes += bytes;
  last_reservation_end = base + bytes;
  if ((void *)base < GC_least_plausible_heap_addr || GC_least_plausible_heap_addr == NULL)
    GC_least_plausible_heap_addr = base;
  if ((void *)(base + bytes) > GC_greatest_plausible_heap_addr)
    GC_greatest_plausible_heap_addr = base + bytes;
  return true;
}

/* Undo a reservation whose chunks are all free and uncommitted again. */
static void release_reservation(const struct reservation *res) {
  if (!res->base) return;
  size_t bytes = res->nregions * REGION_BYTES;
  /* Out of metadata to split a run: the regions stay, reserved and free. */
  if (!remove_free_range((uintptr_t)res->base, res->nregions * CHUNKS_PER_REGION)) return;
  forget_regions(res->base, res->nregions);
  os_unmap(res->base, bytes);
  reserved_bytes -= bytes;
  last_reservation_end = res->prev_end;
  GC_least_plausible_heap_addr = res->prev_least;
  GC_greatest_plausible_heap_addr = res->prev_greatest;
}

/* Mark a chunk committed, out of the unmapped part if it was there. */
static void count_commit(struct region_info *ri, size_t ci) {
  if (ri->chunk_committed[ci]) return;
  ri->chunk_committed[ci] = 1;
  committed_bytes += CHUNK_BYTES;
  if (ri->chunk_returned[ci]) {
    ri->chunk_returned[ci] = 0;
    returned_bytes -= CHUNK_BYTES;
  }
}

/* May fresh_chunks more be committed under the heap limit? Idle free
   chunks are given back first if that makes room. */
static bool within_heap_limit(size_t fresh_chunks) {
  if (!heap_limit) return true;
  for (int attempt = 0; attempt < 2; attempt++) {
    size_t footprint = committed_bytes + discarded_bytes;
    if (footprint <= heap_limit && fresh_chunks <= (heap_limit - footprint) / CHUNK_BYTES)
      return true;
    if (attempt == 0) arena_decommit_idle(GC_gc_no, 0);
  }
  return false;
}

/* The start of the committed stretch of free chunks (a maximal sequence of
   free, committed, address-contiguous chunks) that fits n chunks best, or
   0 if none does. Taking committed chunks first keeps the heap's
   footprint at what it has already paid for: a best fit over free runs
   alone prefers a short uncommitted run (the unused tail of a region) to a
   longer committed one, and after GC_expand_hp a heap could commit 130 MiB
   beyond its size while 160 MiB of committed chunks lay idle (nix-eval,
   384 MiB expanded: 512 MiB committed). Chunk allocations are rare (one
   per 2 MiB handed out), so the scan of every free chunk costs little. */
static uintptr_t best_committed_fit(size_t n) {
  struct interval *iv = free_runs.items;
  uintptr_t best = 0;
  size_t best_len = SIZE_MAX;
  for (size_t i = 0; i < free_runs.count; i++) {
    uintptr_t stretch = 0;
    size_t len = 0;
    for (size_t c = 0; c <= iv[i].nchunks; c++) {
      uintptr_t chunk = iv[i].start + c * CHUNK_BYTES;
      if (c < iv[i].nchunks && chunk_region(chunk)->chunk_committed[chunk_index(chunk)]) {
        if (len++ == 0) stretch = chunk;
        continue;
      }
      if (len >= n && len < best_len) { best = stretch; best_len = len; }
      len = 0;
    }
    if (best_len == n) break;   /* exact: none fits better */
  }
  return best;
}

/* The free run that fits n chunks best, or free_runs.count. */
static size_t best_fit(size_t n) {
  struct interval *iv = free_runs.items;
  size_t best = free_runs.count;
  for (size_t i = 0; i < free_runs.count; i++) {
    if (iv[i].nchunks >= n && (best == free_runs.count || iv[i].nchunks < iv[best].nchunks))
      best = i;
  }
  return best;
}

/* A run taken out of the free runs goes back. If recording it needs memory
   that is refused, the run is lost to reuse: a leak of address space, never
   a correctness issue. */
static void give_back_run(uintptr_t start, size_t n) {
  if (!add_free_run(start, n))
    gc_warn("GC Warning: bibop could not record %lu free chunks\n", (GC_word)n);
}

/* Record [start, start + n), committed and out of the free runs, as handed
   out (and so dirty from now on); true if every chunk of it was zero. */
static bool hand_out(uintptr_t start, size_t n) {
  bool all_zero = true;
  for (size_t c = 0; c < n; c++) {
    uintptr_t chunk = start + c * CHUNK_BYTES;
    struct region_info *ri = chunk_region(chunk);
    size_t ci = chunk_index(chunk);
    if (ri->chunk_dirty[ci]) all_zero = false;
    count_commit(ri, ci);
    ri->chunk_dirty[ci] = 1;
  }
  return all_zero;
}

static void give_back_unfit_chunks(size_t fresh);

char *arena_alloc_committed_chunks(size_t n, bool *fresh) {
  if (n == 0) return NULL;
  uintptr_t committed = best_committed_fit(n);
  if (!committed || !remove_free_range(committed, n)) return NULL;
  *fresh = hand_out(committed, n);
  return (char *)committed;
}

char *arena_alloc_chunks(size_t n, bool *fresh) {
  if (n == 0 || n > PT_ENTRIES * CHUNKS_PER_REGION || n > commit_limit_chunks) return NULL;
  char *committed = arena_alloc_committed_chunks(n, fresh);
  if (committed) return committed;
  struct reservation res = { 0 };
  size_t best = best_fit(n);
  if (best == free_runs.count) {
    if (!reserve_regions(n, &res)) return NULL;
    best = best_fit(n);
    if (best == free_runs.count) {
      release_reservation(&res);
      return NULL;
    }
  }
  struct interval *iv = free_runs.items;
  uintptr_t start = iv[best].start;
  if (iv[best].nchunks == n) meta_vec_remove(&free_runs, best);
  else { iv[best].start += n * CHUNK_BYTES; iv[best].nchunks -= n; }
  size_t uncommitted = 0;
  for (size_t c = 0; c < n; c++) {
    uintptr_t chunk = start + c * CHUNK_BYTES;
    uncommitted += !chunk_region(chunk)->chunk_committed[chunk_index(chunk)];
  }
  if (!within_heap_limit(uncommitted) ||
      !os_commit((void *)start, n * CHUNK_BYTES,
                 commit_with_huge_pages(committed_bytes + uncommitted * CHUNK_BYTES))) {
    give_back_run(start, n);
    release_reservation(&res);
    return NULL;
  }
  *fresh = hand_out(start, n);
  if (uncommitted && n > 1) give_back_unfit_chunks(uncommitted);
  return (char *)start;
}

/* chunk_dirty of chunks committed by arena_expand and not yet known to be
   kept (undone all together if a later one is refused): whether the chunk
   was part of the unmapped bytes before, so that undoing restores it. */
enum { EXPANDING_FRESH = 2, EXPANDING_RETURNED = 3 };

/* Call fn on every free chunk, in address order, while it returns true. */
static void for_each_free_chunk(bool (*fn)(struct region_info *ri, size_t ci, uintptr_t chunk, void *ctx),
                                void *ctx) {
  struct interval *iv = free_runs.items;
  for (size_t i = 0; i < free_runs.count; i++)
    for (size_t c = 0; c < iv[i].nchunks; c++) {
      uintptr_t chunk = iv[i].start + c * CHUNK_BYTES;
      if (!fn(chunk_region(chunk), chunk_index(chunk), chunk, ctx)) return;
    }
}

static bool count_committed(struct region_info *ri, size_t ci, uintptr_t chunk, void *ctx) {
  (void)chunk;
  *(size_t *)ctx += ri->chunk_committed[ci] != 0;
  return true;
}

static bool count_uncommitted(struct region_info *ri, size_t ci, uintptr_t chunk, void *ctx) {
  (void)chunk;
  *(size_t *)ctx += !ri->chunk_committed[ci];
  return true;
}

struct expansion { size_t wanted, done; };   /* done < wanted at the end: refused */

static bool commit_for_expansion(struct region_info *ri, size_t ci, uintptr_t chunk, void *ctx) {
  struct expansion *x = ctx;
  if (x->done == x->wanted) return false;
  if (ri->chunk_committed[ci]) return true;
  if (!os_commit((void *)chunk, CHUNK_BYTES, commit_with_huge_pages(committed_bytes + CHUNK_BYTES)))
    return false;
  /* Clean once kept: fresh, or zeroed when it was decommitted. */
  ri->chunk_dirty[ci] = ri->chunk_returned[ci] ? EXPANDING_RETURNED : EXPANDING_FRESH;
  count_commit(ri, ci);
  ri->chunk_freed_at[ci] = (uint32_t)GC_gc_no;
  x->done++;
  return true;
}

static bool settle_expansion(struct region_info *ri, size_t ci, uintptr_t chunk, void *ctx) {
  bool undo = *(bool *)ctx;
  uint8_t state = ri->chunk_dirty[ci];
  if (state != EXPANDING_FRESH && state != EXPANDING_RETURNED) return true;
  ri->chunk_dirty[ci] = 0;
  if (undo) {
    os_decommit((void *)chunk, CHUNK_BYTES);
    ri->chunk_committed[ci] = 0;
    committed_bytes -= CHUNK_BYTES;
    if (state == EXPANDING_RETURNED) {
      ri->chunk_returned[ci] = 1;
      returned_bytes += CHUNK_BYTES;
    }
  }
  return true;
}

bool arena_expand(size_t nchunks) {
  if (nchunks == 0) return true;
  if (nchunks > PT_ENTRIES * CHUNKS_PER_REGION || nchunks > commit_limit_chunks) return false;
  if (heap_limit && (committed_bytes + discarded_bytes > heap_limit ||
                     nchunks > (heap_limit - committed_bytes - discarded_bytes) / CHUNK_BYTES))
    return false;
  struct reservation res = { 0 };
  size_t uncommitted = 0;
  for_each_free_chunk(count_uncommitted, &uncommitted);
  if (uncommitted < nchunks && !reserve_regions(nchunks - uncommitted, &res)) return false;
  struct expansion x = { nchunks, 0 };
  for_each_free_chunk(commit_for_expansion, &x);
  bool undo = x.done < nchunks;
  for_each_free_chunk(settle_expansion, &undo);
  if (undo) release_reservation(&res);
  return !undo;
}

void arena_free_chunks(char *p, size_t n) {
  uintptr_t start = (uintptr_t)p;
  for (size_t c = 0; c < n; c++) {
    uintptr_t chunk = start + c * CHUNK_BYTES;
    chunk_region(chunk)->chunk_freed_at[chunk_index(chunk)] = (uint32_t)GC_gc_no;
  }
  give_back_run(start, n);
}

/* Decommit every committed free chunk that take() chooses (called once per
   committed free chunk, in address order), in runs of adjacent chunks. */
static size_t decommit_free_chunks(bool (*take)(struct region_info *ri, size_t ci, void *ctx),
                                   void *ctx) {
  size_t released = 0;
  struct interval *iv = free_runs.items;
  for (size_t i = 0; i < free_runs.count; i++) {
    uintptr_t run_start = 0;
    size_t run_len = 0;
    for (size_t c = 0; c <= iv[i].nchunks; c++) {
      bool taken = false;
      uintptr_t chunk = iv[i].start + c * CHUNK_BYTES;
      if (c < iv[i].nchunks) {
        struct region_info *ri = chunk_region(chunk);
        size_t ci = chunk_index(chunk);
        if (ri->chunk_committed[ci] && take(ri, ci, ctx)) {
          ri->chunk_committed[ci] = 0;
          ri->chunk_dirty[ci] = 0;
          ri->chunk_returned[ci] = 1;
          taken = true;
        }
      }
      if (taken) {
        if (!run_len) run_start = chunk;
        run_len++;
      } else if (run_len) {
        os_decommit((void *)run_start, run_len * CHUNK_BYTES);
        pt_discard_descriptors(run_start, run_len);
        released += run_len * CHUNK_BYTES;
        run_len = 0;
      }
    }
  }
  committed_bytes -= released;
  returned_bytes += released;
  return released;
}

struct idle_age { unsigned long gc_no, age; };

static bool idle_long_enough(struct region_info *ri, size_t ci, void *ctx) {
  const struct idle_age *a = ctx;
  return a->age == 0 || a->gc_no - ri->chunk_freed_at[ci] >= a->age;
}

size_t arena_decommit_idle(unsigned long gc_no, unsigned long age) {
  struct idle_age a = { gc_no, age };
  return decommit_free_chunks(idle_long_enough, &a);
}

static bool beyond_kept(struct region_info *ri, size_t ci, void *ctx) {
  (void)ri, (void)ci;
  size_t *left_to_keep = ctx;
  if (*left_to_keep == 0) return true;
  (*left_to_keep)--;
  return false;
}

/* Decommit committed free chunks beyond the first keep_chunks of them in
   address order (best fit breaks ties by address, so those are reused
   first), whatever their age. */
size_t arena_decommit_surplus(size_t keep_chunks) {
  size_t committed_free = 0;
  for_each_free_chunk(count_committed, &committed_free);
  if (committed_free <= keep_chunks) return 0;
  return decommit_free_chunks(beyond_kept, &keep_chunks);
}

/* A request for several chunks that no stretch of committed free chunks
   could serve has just committed `fresh` chunks: give back as many of the
   committed free chunks it could not use (the last in address order: the
   first are reused first), so that the footprint does not grow while they
   wait, resident, for the next collection's decommit. Multi-chunk
   objects among scattered free chunks are common in threaded clients: ECL
   and Guile workers each build a vector of 3-4 MB (two chunks) while
   other workers' blocks come and go, and ecl-threads' peak held 4-5 free
   committed chunks (8-10 MiB) that no two-chunk vector could take, beside
   the two it committed (peak RSS 104-111 MiB in those runs against 89-95
   MiB in the others). A one-chunk request never commits while a committed
   free chunk exists. */
static void give_back_unfit_chunks(size_t fresh) {
  size_t committed_free = 0;
  for_each_free_chunk(count_committed, &committed_free);
  if (committed_free) arena_decommit_surplus(committed_free > fresh ? committed_free - fresh : 0);
}

size_t arena_committed_bytes(void) { return committed_bytes; }

size_t arena_unmapped_bytes(void) { return returned_bytes; }

void arena_note_discarded(size_t bytes) {
  committed_bytes -= bytes;
  returned_bytes += bytes;
  discarded_bytes += bytes;
}

void arena_note_recommitted(size_t bytes) {
  committed_bytes += bytes;
  returned_bytes -= bytes;
  discarded_bytes -= bytes;
}

size_t arena_reserved_bytes(void) { return reserved_bytes; }

bool arena_contains(uintptr_t w) {
  if (w >> ADDRESS_BITS) return false;
  struct block *blocks = pt_table[w >> REGION_SHIFT];
  return blocks && pt_is_heap_array(blocks);   /* not a static-only slot */
}
