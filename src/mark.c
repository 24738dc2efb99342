/*
 * mark.c: the marker. An explicit mark stack of {start, descriptor} entries
 * in bdwgc's layout and descriptor encoding (GC_DS_LENGTH, GC_DS_BITMAP; the
 * other two tags arrive with custom kinds). No recursion: long ranges are
 * scanned a chunk at a time with the rest pushed back. A full stack doubles
 * in place; when it cannot (a client mark procedure holds pointers into it,
 * it is a volunteer's, memory is refused, the size limit is reached) an
 * entry is dropped and a flag set; marking then finishes, the stack grows,
 * and every marked object is scanned again until nothing was dropped
 * (dropped entries are always of objects already marked, so nothing
 * reachable is lost).
 * Prefetching in two stages (candidate FIFO for descriptors, scan-ahead
 * FIFO for objects) and per-marker statistics: see "Marking speed" in
 * docs/ARCHITECTURE.md.
 * Invariant 1: a candidate word is dereferenced only if the page table and
 * the block descriptor say it is inside an object of a committed heap block.
 * Each marker (the collecting thread's, and the helpers of markers.c) has
 * its own stack, FIFO and counters; with several markers, only the
 * collecting thread's sets small objects' mark bits, the others claim in
 * bits of their own (claim_small), and work is shared through markers.c's
 * pool.
 * Runs with the world stopped and the allocation lock held.
 */
#include "internal.h"

#include <string.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))

#define MARK_STACK_INITIAL_ENTRIES ((size_t)1 << 16)   /* 1 MiB */
#define MARK_STACK_MAX_ENTRIES ((size_t)1 << 28)   /* 4 GiB: beyond, overflow recovery */
/* Growth in place stops here (BIBOP_MARK_STACK_MAX entries at init: tests
   set it low to exercise overflow recovery). */
static size_t mark_stack_max = MARK_STACK_MAX_ENTRIES;
#define SCAN_CHUNK_BYTES 4096   /* long ranges are scanned this much at a time */
#define SHARE_CHECK_INTERVAL 64 /* entries scanned between looks at idle markers */
#define CHAINS_MAX 3            /* chains followed together without the queues */
#define CHAINS_SCATTERED_ENTRIES 65536 /* entries through the queues after scattered chains */

struct marker main_marker;      /* the collecting thread's; roots are pushed here */
/* The marker this thread is draining for: client mark procedures reach it
   through GC_mark_and_push. */
static __thread struct marker *current_marker __attribute__((tls_model("initial-exec")));

bool marker_init_stack(struct marker *m, size_t entries) {
  if (!m->fifo && !(m->fifo = meta_alloc(PREFETCH_FIFO_MAX * sizeof *m->fifo))) return false;
  struct mark_entry *s = meta_alloc(entries * sizeof *s);
  if (!s) return false;
  if (m->base) meta_free(m->base, m->capacity * sizeof *m->base);
  m->base = s;
  m->capacity = entries;
  m->limit = s + entries;
  m->top = s - 1;
  return true;
}

static void read_mark_settings(void);
static void choose_rescan_filter(void);

/* An offset from an object's start that marks it when interior pointers
   are off (GC_register_displacement; lock held). */
void mark_register_displacement(size_t offset) {
  gc.valid_offsets[offset] = 1;
}

void mark_init(void) {
  main_marker.writes_bits = true;
  if (!marker_init_stack(&main_marker, MARK_STACK_INITIAL_ENTRIES))
    gc_abort("bibop: cannot allocate the mark stack");
  read_mark_settings();
  choose_rescan_filter();
}

/* The stack is full: double it in place, which costs a copy instead of the
   rescan of every marked object that overflow recovery would. Not while a
   client mark procedure runs (it holds pointers into the stack), nor when
   memory is refused: then the caller drops its entry (overflow). */
static __attribute__((noinline)) struct mark_entry *grow_stack(struct marker *m,
                                                               struct mark_entry *top) {
  if (m->in_mark_proc || m->fixed_stack || m->capacity >= mark_stack_max) return top;
  struct mark_entry *old = m->base;
  size_t used = (size_t)(top + 1 - old), old_capacity = m->capacity;
  struct mark_entry *s = meta_alloc(2 * old_capacity * sizeof *s);
  if (!s) return top;
  memcpy(s, old, used * sizeof *s);
  m->base = s;
  m->capacity = 2 * old_capacity;
  m->limit = s + m->capacity;
  meta_free(old, old_capacity * sizeof *old);
  m->stats.stack_growths++;
  return s + used - 1;
}

static inline struct mark_entry *push(struct marker *m, struct mark_entry *top, char *start,
                                      GC_word descr) {
  if (UNLIKELY(top + 1 >= m->limit)) {
    top = grow_stack(m, top);
    if (top + 1 >= m->limit) {
      m->overflowed = true;
      return top;
    }
  }
  top++;
  top->start = start;
  top->descr = descr;
  return top;
}

/* A kind's descriptor for an object of `bytes`. A fixed template (not
   growing with the object) is cut to the object's size, so a descriptor
   longer than a small object can never make the marker read past it. */
static inline GC_word descriptor_of(unsigned kind, size_t bytes) {
  const struct kind *k = &gc.kinds[kind];
  if (LIKELY(k->add_size)) return k->descr + bytes;
  GC_word d = k->descr;
  size_t words = bytes / sizeof(GC_word);
  switch (d & GC_DS_TAGS) {
    case GC_DS_LENGTH:
      return d > bytes ? bytes : d;
    case GC_DS_BITMAP:
      if (words < 8 * sizeof(GC_word)) d &= ~(~(GC_word)0 >> words) | GC_DS_TAGS;
      return d;
    default:
      return d;
  }
}

/* Set a mark bit; true if this marker set it. With several markers the bit
   is set with an atomic OR, read first so marked objects cost no atomic
   (large objects only: small ones use claim_small). */
static inline bool set_mark_bit(uint64_t *word, uint64_t bit, bool parallel) {
  if (*word & bit) return false;
  if (parallel) return !(__atomic_fetch_or(word, bit, __ATOMIC_RELAXED) & bit);
  *word |= bit;
  return true;
}

/* During a parallel phase: the markers other than the collector's, and
   whether they set their bits with atomic ORs (more than one of them) or
   plain stores (one: the only writer of block_others_bits). */
static int phase_other_markers;
static pthread_t phase_collector;   /* the collecting thread: it writes mark bits */

/* Set bit `bit` of word i of b's other markers' bits; true if this call set
   it. The block records that it has bits for the fold. */
static inline bool set_others_bit(struct block *b, unsigned word, uint64_t bit) {
  uint64_t *w = block_others_bits(b) + word;
  uint64_t seen = __atomic_load_n(w, __ATOMIC_RELAXED);
  if (seen & bit) return false;
  if (phase_other_markers > 1) {
    if (__atomic_fetch_or(w, bit, __ATOMIC_RELAXED) & bit) return false;
  } else {
    __atomic_store_n(w, seen | bit, __ATOMIC_RELAXED);
  }
  if (!__atomic_load_n(&b->others_marked, __ATOMIC_RELAXED))
    __atomic_store_n(&b->others_marked, 1, __ATOMIC_RELAXED);
  return true;
}

/* Claim object i of small block b for marking; true if marker m is the
   first to. Alone, the marker sets the mark bit. With several markers, the
   collecting thread's marker (writes_bits) still sets mark bits, with plain
   stores: it is the only writer of small blocks' bit words during the
   phase, so no update is lost. Every other marker claims the object in a
   second set of bits, block_others_bits, after testing the mark bit: with
   plain stores when it is the only other marker of the phase (GC_MARKERS=2,
   as on 2-CPU machines), with atomic ORs when there are more. The bit
   writer tests those bits too once a block has any (others_marked), so an
   object is scanned twice only when both claim it at the same moment
   (harmless). The fold (mark_fold_share) ORs them into the mark bits when
   the phase ends, before anything else reads them.
   Measured (docs/BENCHMARKS.md, "Session 6"): an atomic OR on the shared
   bit word stalled the parallel marker for about 40% of its time (perf,
   bench/mt_gcbench.c); owning blocks by compare-and-swap (one per block
   and phase, then plain bit stores by the owner) made bench/pause.c's
   2-marker pause 33.7 -> 37.9 ms; a single bit writer, with the fold
   shared by all markers, took 7% off mt_gcbench's time with 2 and with 4
   threads and left the 200 MiB pause where it was. Until session 12 the
   other markers claimed in mark bytes, one per possible object (256 per
   block): any number of markers could store them without an atomic
   instruction, but the pages they touched stayed resident, 1/16 of the
   blocks marked in parallel (ecl-list: 11.8 MiB of descriptors and bytes
   resident with 2 markers, 3.3 MiB with one); the bits take 32 bytes a
   block, 1/128. */
static ALWAYS_INLINE bool claim_small(struct marker *m, struct block *b, unsigned i, bool parallel) {
  uint64_t *word = &b->u.mark[i >> 6], bit = (uint64_t)1 << (i & 63);
  if (!parallel) {
    if (*word & bit) return false;
    *word |= bit;
    return true;
  }
  uint64_t bits = __atomic_load_n(word, __ATOMIC_RELAXED);
  if (bits & bit) return false;
  if (m->writes_bits) {
    if (UNLIKELY(__atomic_load_n(&b->others_marked, __ATOMIC_RELAXED)) &&
        (__atomic_load_n(block_others_bits(b) + (i >> 6), __ATOMIC_RELAXED) & bit))
      return false;
    __atomic_store_n(word, bits | bit, __ATOMIC_RELAXED);
    return true;
  }
  return set_others_bit(b, i >> 6, bit);
}

/* Fold one block's other markers' bits into its mark bits and clear them. */
static void fold_block(struct block *b) {
  uint64_t *others = block_others_bits(b);
  for (unsigned w = 0; w < MARK_WORDS; w++) {
    b->u.mark[w] |= others[w];
    others[w] = 0;
  }
  b->others_marked = 0;
}

/* When a parallel phase ends, every block's other markers' bits are ORed
   into its mark bits and cleared, so they are all zero again. Every marker of the phase takes
   a share once no marker has work left (markers.c), FOLD_CHUNKS chunks at a
   time from a shared count, walking descriptors in address order; the
   collector waits for all of them before anything reads the bits. On
   bench/pause.c's 200 MiB heap the fold was 1.2 ms of a 33 ms 2-marker
   pause when the collector did it alone. */
#define FOLD_CHUNKS 4
static unsigned long fold_next;    /* next chunk to fold (atomic) */
static unsigned long fold_chunks;  /* heap regions x chunks per region, fixed for the phase */

void mark_fold_prepare(int other_markers) {
  phase_other_markers = other_markers;
  phase_collector = pthread_self();
  fold_next = 0;
  fold_chunks = pt_heap_region_count() * CHUNKS_PER_REGION;
}

void mark_fold_share(void) {
  for (;;) {
    unsigned long c = __atomic_fetch_add(&fold_next, FOLD_CHUNKS, __ATOMIC_RELAXED);
    if (c >= fold_chunks) return;
    unsigned long end = c + FOLD_CHUNKS < fold_chunks ? c + FOLD_CHUNKS : fold_chunks;
    for (; c < end; c++) {
      struct block *blocks = pt_heap_region(c / CHUNKS_PER_REGION);
      size_t chunk = c % CHUNKS_PER_REGION;
      /* Only chunks the heap hands out as runs hold small blocks (a free
         committed chunk's dropped descriptors read as zero pages). */
      if (!pt_region_info(blocks)->chunk_in_runs[chunk]) continue;
      if (pt_region_lent(blocks)) continue;   /* inside a huge object: its own are unused */
      struct block *b = blocks + chunk * BLOCKS_PER_CHUNK;
      if (heap_chunk_inside_large_object(b)) continue;   /* no small block: 2 reads, not 512 */
      for (size_t k = 0; k < BLOCKS_PER_CHUNK; k++, b++)
        if (b->state == BLOCK_SMALL && b->others_marked) fold_block(b);
    }
  }
}

/* The loop's configuration, fixed for a whole drain and compiled into it:
   each combination is a separate copy of the loop (runners[] below), so the
   hot path tests none of them. */
enum { MODE_PARALLEL = 1, MODE_PREFETCH = 2, MODE_HASH = 4, MODE_BYTE_PREFETCH = 8, MODE_COUNT = 16 };

/* Prefetching, in two stages (both off with BIBOP_PREFETCH=0):
   - candidates that pass the page table wait in a FIFO (in the marker)
     while their descriptor line, which holds the mark bits, is fetched:
     they enter until it holds prefetch_size, then leave, oldest first,
     until prefetch_low remain (BIBOP_PREFETCH, BIBOP_PREFETCH_LOW);
   - entries popped from the mark stack wait in a second, local FIFO of
     scan_ahead entries while the object's first line is fetched
     (BIBOP_PREFETCH_SCAN). An object is pushed long before it is popped
     (the stack is LIFO), so prefetching it when it is marked would be
     too early.
   Defaults measured with bench/markheap.c, bench/pause.c and GCBench
   (docs/BENCHMARKS.md, "Session 3"). */
#define PREFETCH_DEFAULT_SIZE 64
#define PREFETCH_DEFAULT_LOW 48
#define SCAN_AHEAD_MAX 64
#define SCAN_AHEAD_DEFAULT 24   /* 8 cost GCBench 30% more pause; see BENCHMARKS.md */
static unsigned prefetch_size = PREFETCH_DEFAULT_SIZE, prefetch_low = PREFETCH_DEFAULT_LOW;
static unsigned scan_ahead = SCAN_AHEAD_DEFAULT;
/* Prefetching runs only when the committed heap is at least this large
   (BIBOP_PREFETCH_MIN_HEAP, bytes with K/M/G; decided per collection).
   On a heap that the caches and the TLB's reach cover, the FIFOs only add
   instructions (~1 M of guile-interp's 9.7 M per collection). Session 13,
   quiet machine, same-run ratios against the FIFOs always on (3 rounds):
   with a 16 MiB gate guile-weak (4 MiB heap) 0.93 x time / 0.90 x CPU,
   guile-interp (6 MiB) 0.96 / 0.94, ecl-weak (15-20 MiB) 0.94 / 0.89,
   neko-st (20 MiB) 1.00 / 1.00, ecl-clos 0.98 / 1.01. Higher does not
   pay everywhere: bench/pause.c without the FIFOs is faster at 16-24 MiB
   (2.1 against 2.6 ms), even at 32, slower from 40 MiB (7.7 against 6.7
   ms), and a 32 MiB gate cost ecl-clos 6% of its pauses (its objects are
   scattered; its heap grows through 16-32 MiB) though it saved GCBench
   (28 MiB, allocated in the order it is marked) 10%. Until session 13 the
   default was 0 (always), from session 3's GCBench measurements (195 ->
   99 ms of pauses with the FIFOs; the marker has changed since). */
#define PREFETCH_DEFAULT_MIN_HEAP ((size_t)16 << 20)
static size_t prefetch_min_heap = PREFETCH_DEFAULT_MIN_HEAP;
static bool prefetch_active;    /* this collection's choice */
/* Below that heap size the choice is the processor's, so it is tried
   (unless BIBOP_PREFETCH_MIN_HEAP fixes the gate): sessions 1-15 ran on an
   Intel Xeon, where the FIFOs cost small heaps 4-10% (above); sessions
   16-18 on an AMD EPYC whose memory is slower, where bench/pause.c's 8
   and 12 MiB heaps took half the pause with them (3.3-5.6 against
   9.7-11.9 ms, 7.9-8.2 against 14.2-15.5; session 18, 3 alternating
   runs). So a trial (trial.c) alternates the two over full collections
   below the gate and keeps the one whose marking took less CPU time
   (every marker's: the world is stopped) per word scanned. */
static bool prefetch_gate_fixed;   /* BIBOP_PREFETCH_MIN_HEAP given */
static struct trial prefetch_trial = TRIAL_INIT("prefetching", "marking", os_process_cpu_ns);

/* Whether this collection, full or minor, below the gate, prefetches. */
static bool small_heap_prefetch(bool minor) {
  if (prefetch_gate_fixed) return false;
  if (minor) return prefetch_trial.choice;
  prefetch_trial.below_bytes = prefetch_min_heap;
  return trial_arm(&prefetch_trial);
}

/* With several markers on a heap far larger than the caches, a candidate
   entering the FIFO also has the line of its block's other markers' bits
   prefetched (a marker other than the collector's claims there). Measured
   with the mark bytes these bits replaced (session 6; the byte's line was
   guessed from the address): on bench/pause.c's 200 MiB heap the 2-marker
   pause fell 31.1 -> 28.3 ms; on the 20 MiB heap of bench/mt_gcbench.c
   the extra prefetch cost 5% of the pause, hence the threshold
   (BIBOP_PREFETCH_BYTES_MIN_HEAP, bytes with K/M/G, per collection). */
#define PREFETCH_BYTES_DEFAULT_MIN_HEAP ((size_t)64 << 20)
static size_t prefetch_bytes_min_heap = PREFETCH_BYTES_DEFAULT_MIN_HEAP;
static bool prefetch_bytes_active;

/* What one drain keeps in its own frame, so that the compiler holds it in
   registers instead of reloading globals and marker fields at every
   candidate: the page table's bounds (fixed while marking: the heap does
   not grow with the world stopped) as an address range, the FIFO's indices
   and sizes. The range [heap_lo, heap_lo + heap_span) is exactly the
   table's used slots (pt_bounds), so testing a word against it takes a
   subtraction and a comparison, the slot's shift only for the words inside:
   two instructions fewer per word than the slot test (callgrind, session
   16: Macaulay2 scans 254 M words per run, 163 M of them outside). */
struct drain {
  uintptr_t heap_lo, heap_span;
  struct prefetch_slot *fifo;       /* the marker's ring of PREFETCH_FIFO_MAX slots */
  unsigned fifo_head, fifo_count;   /* empty when the drain ends */
  unsigned fifo_size, fifo_low;     /* prefetch_size, prefetch_low */
  bool chains_scattered;            /* several chains go through the queues (follow_chain) */
};

static inline struct drain drain_begin(const struct marker *m) {
  uint64_t bounds = __atomic_load_n(&pt_bounds, __ATOMIC_RELAXED);
  return (struct drain){ .heap_lo = (uintptr_t)(uint32_t)bounds << REGION_SHIFT,
                         .heap_span = (uintptr_t)(bounds >> 32) << REGION_SHIFT,
                         .fifo = m->fifo, .fifo_size = prefetch_size, .fifo_low = prefetch_low };
}

static ALWAYS_INLINE struct block *lookup(uintptr_t w, unsigned mode, const struct drain *d) {
  if (mode & MODE_HASH) return pagehash_block_of(w);
  if (w - d->heap_lo >= d->heap_span) return NULL;
  return pt_block_in_table(w);
}

/* mark_resolved's large objects: out of line, as each copy of the mark
   loop inlines mark_resolved at every candidate site (~20 of them): 36 KiB
   less text; GCBench's marking took 0.3% fewer instructions. */
static __attribute__((noinline, cold)) struct mark_entry *mark_large(struct marker *m,
                                                               struct mark_entry *top,
                                                               uintptr_t w, struct block *b,
                                                               bool parallel) {
  unsigned state = b->state;
  struct block *h = state == BLOCK_LARGE ? b : b->head;
  if (h->state != BLOCK_LARGE) { m->stats.cand_free++; return top; }
  if (h->u.large.marked) { m->stats.cand_object++; return top; }
  char *start = block_addr(h);
  size_t displacement = w - (uintptr_t)start;
  if (displacement && !GC_all_interior_pointers && !m->any_interior &&
      !gc.kinds[h->kind].any_interior &&
      (displacement >= BLOCK_BYTES || !gc.valid_offsets[displacement])) {
    m->stats.cand_free++;
    return top;
  }
  m->stats.cand_object++;
  if (!set_mark_bit(&h->u.large.marked, 1, parallel)) return top;
  m->marked++;
  m->stats.marked_bytes += h->u.large.bytes;
  if (!gc.kinds[h->kind].pointer_free)
    top = push(m, top, start, descriptor_of(h->kind, h->u.large.bytes));
  return top;
}

/* Mark the object w points into, b being the descriptor of w's page; push
   the object if it holds pointers. Counts how w was classified. */
static ALWAYS_INLINE struct mark_entry *mark_resolved(struct marker *m, struct mark_entry *top,
                                                      uintptr_t w, struct block *b, bool parallel) {
  unsigned state = b->state;
  if (state == BLOCK_SMALL) {
    uintptr_t off = w & (BLOCK_BYTES - 1);
    unsigned i = (unsigned)((off * (uint64_t)b->recip) >> 32);
    size_t displacement = off - (size_t)i * b->obj_bytes;
    unsigned flags = b->kind_flags;
    if (i >= b->nobjs ||
        (displacement && !GC_all_interior_pointers && !gc.valid_offsets[displacement] &&
         !m->any_interior && !(flags & BLOCK_KIND_ANY_INTERIOR))) {
      m->stats.cand_free++;
      return top;
    }
    m->stats.cand_object++;
    if (flags & BLOCK_KIND_UNCOLLECTABLE) return top;      /* live ones are roots; free slots stay free */
    if (!claim_small(m, b, i, parallel)) return top;
    m->marked++;
    m->stats.marked_bytes += b->obj_bytes;
    if (!(flags & BLOCK_KIND_POINTER_FREE))
      top = push(m, top, (char *)(w - displacement),
                 (flags & BLOCK_KIND_LENGTH_DESCR) ? b->obj_bytes : descriptor_of(b->kind, b->obj_bytes));
    return top;
  }
  if (state == BLOCK_LARGE || state == BLOCK_LARGE_TAIL) return mark_large(m, top, w, b, parallel);
  if (state == BLOCK_FREE) m->stats.cand_free++;
  return top;                               /* UNUSED: counted as not ours */
}

/* The oldest FIFO entry leaves and is marked (its lines should be in cache). */
static ALWAYS_INLINE struct mark_entry *fifo_take(struct marker *m, struct mark_entry *top,
                                                  unsigned mode, struct drain *d) {
  struct prefetch_slot s = d->fifo[d->fifo_head];
  d->fifo_head = (d->fifo_head + 1) & (PREFETCH_FIFO_MAX - 1);
  d->fifo_count--;
  return mark_resolved(m, top, s.word, s.desc, mode & MODE_PARALLEL);
}

static ALWAYS_INLINE struct mark_entry *fifo_flush(struct marker *m, struct mark_entry *top,
                                                   unsigned mode, struct drain *d) {
  while (d->fifo_count) top = fifo_take(m, top, mode, d);
  return top;
}

/* One candidate word (already counted in stats.candidates). A word the page
   table does not know, or a static page, costs no load beyond the table. */
static ALWAYS_INLINE struct mark_entry *consider(struct marker *m, struct mark_entry *top,
                                                 uintptr_t w, unsigned mode, struct drain *d) {
  struct block *b = lookup(w, mode, d);
  if (!b) return top;
  if (UNLIKELY(pt_is_static_desc(b))) {
    if (pt_static_page(b)) m->stats.cand_static++;
    return top;
  }
  if (!(mode & MODE_PREFETCH)) return mark_resolved(m, top, w, b, mode & MODE_PARALLEL);
  if (!(mode & MODE_PARALLEL) || m->writes_bits) {
    __builtin_prefetch(b, 1);          /* mark bits: will be written */
  } else {
    __builtin_prefetch(b, 0);          /* only read: the line stays shared */
    if (mode & MODE_BYTE_PREFETCH)     /* the other markers' bits: see above */
      __builtin_prefetch(block_others_bits(b), 1);
  }
  d->fifo[(d->fifo_head + d->fifo_count) & (PREFETCH_FIFO_MAX - 1)] = (struct prefetch_slot){ w, b };
  if (++d->fifo_count >= d->fifo_size)
    while (d->fifo_count > d->fifo_low) top = fifo_take(m, top, mode, d);
  return top;
}

/* A candidate outside the loop (mark procedures, single words): no FIFO. */
static struct mark_entry *mark_candidate(struct marker *m, struct mark_entry *top, uintptr_t w) {
  m->stats.candidates++;
  struct drain d = drain_begin(m);
  if (pagehash_enabled) return consider(m, top, w, (m->parallel ? MODE_PARALLEL : 0) | MODE_HASH, &d);
  return consider(m, top, w, m->parallel ? MODE_PARALLEL : 0, &d);
}

static ALWAYS_INLINE struct mark_entry *scan_words(struct marker *m, struct mark_entry *top,
                                                   char *lo, char *hi, unsigned mode,
                                                   struct drain *d) {
  if (hi < lo + sizeof(uintptr_t)) return top;
  size_t n = (size_t)(hi - lo) / sizeof(uintptr_t);
  m->stats.candidates += n;
  const uintptr_t *p = (const uintptr_t *)lo;
  for (size_t i = 0; i < n; i++) top = consider(m, top, p[i], mode, d);
  return top;
}

/* Scan one entry, possibly pushing the rest of a long range back first. */
static ALWAYS_INLINE struct mark_entry *scan_entry(struct marker *m, struct mark_entry *top,
                                                   char *start, GC_word descr, unsigned mode,
                                                   struct drain *d);
static struct mark_entry *scan_indirect(struct marker *m, struct mark_entry *top, char *start,
                                        GC_word descr);

static ALWAYS_INLINE struct mark_entry *scan_entry(struct marker *m, struct mark_entry *top,
                                                   char *start, GC_word descr, unsigned mode,
                                                   struct drain *d) {
  switch (descr & GC_DS_TAGS) {
    case GC_DS_LENGTH: {
      size_t len = descr;
      if (len > SCAN_CHUNK_BYTES) {
        top = push(m, top, start + SCAN_CHUNK_BYTES, len - SCAN_CHUNK_BYTES);
        len = SCAN_CHUNK_BYTES;
      }
      return scan_words(m, top, start, start + len, mode, d);
    }
    case GC_DS_BITMAP: {
      GC_word bits = descr & ~(GC_word)GC_DS_TAGS;
      m->stats.candidates += (uint64_t)bits_set(bits);
      uintptr_t *p = (uintptr_t *)start;
      for (; bits; bits <<= 1, p++)
        if ((GC_signed_word)bits < 0) top = consider(m, top, *p, mode, d);
      return top;
    }
    default:
      return scan_indirect(m, top, start, descr);
  }
}

/* Procedures and per-object descriptors: rare, out of line, no FIFO. */
static struct mark_entry *scan_indirect(struct marker *m, struct mark_entry *top, char *start,
                                        GC_word descr) {
  if ((descr & GC_DS_TAGS) == GC_DS_PROC) {
    unsigned index = (unsigned)(descr >> GC_DS_TAG_BITS) & ((1u << GC_LOG_MAX_MARK_PROCS) - 1);
    GC_word env = descr >> (GC_DS_TAG_BITS + GC_LOG_MAX_MARK_PROCS);
    GC_mark_proc proc = mark_procs[index];
    if (!proc) return top;
    bool nested = m->in_mark_proc;
    m->in_mark_proc = true;
    top = (struct mark_entry *)proc((GC_word *)start, (struct GC_ms_entry *)top,
                                    (struct GC_ms_entry *)m->limit, env);
    m->in_mark_proc = nested;
    return top;
  }
  /* GC_DS_PER_OBJECT */
  GC_signed_word where = (GC_signed_word)(descr & ~(GC_word)GC_DS_TAGS);
  GC_word real;
  size_t limit;
  if (where >= 0) {
    /* the descriptor is inside the object: scan nothing beyond it */
    real = *(GC_word *)(start + where);
    limit = (size_t)where;
  } else {
    char *type = *(char **)start;
    if (!type) return top;                    /* not initialised yet */
    real = *(GC_word *)(type - where - GC_INDIR_PER_OBJ_BIAS);
    limit = object_size(start);
  }
  switch (real & GC_DS_TAGS) {
    case GC_DS_LENGTH:
      if (real > limit) real = limit;
      break;
    case GC_DS_BITMAP:
      if (limit / sizeof(GC_word) < 8 * sizeof(GC_word))
        real &= ~(~(GC_word)0 >> (limit / sizeof(GC_word))) | GC_DS_TAGS;
      break;
    case GC_DS_PROC:
      break;
    default:
      return top;                             /* no descriptor chains */
  }
  unsigned mode = (m->parallel ? MODE_PARALLEL : 0) | (pagehash_enabled ? MODE_HASH : 0);
  struct drain d = drain_begin(m);
  return scan_entry(m, top, start, real, mode, &d);
}

/* The copies of the mark loop for the page-hash test mode (BIBOP_PAGEHASH,
   pagehash.c) sit together in a section of their own: no program runs them
   otherwise, and the kernel maps a library's text 64 KiB around each page
   fault, so copies mixed in with those that run stay resident for nothing.
   Until session 21 every copy but two shared a section "seldom run", kept
   apart for small heaps; since prefetching and helpers are tried on small
   heaps too (trial.c), guile-weak ran four of those copies, and all of the
   library's text was resident (101 pages at its end; 85 with only the
   page-hash copies apart). The section's name does not begin with ".text",
   so the linker places it after all of .text, at the end of the code
   segment, rather than among the copies that run ("text.*" sections
   follow their object file; ".text.unlikely.*" would go first, in the
   window the PLT keeps resident). Session 22, with the out-of-line paths
   below (text 402 -> 318 KiB): 57 of the segment's 71 pages resident in
   guile-weak, against 66 of 82. */
#define PAGE_HASH_COPY __attribute__((section("bibop_page_hash_mode_text")))

/* Chains. A marker with one entry in hand (stack, FIFO and scan-ahead
   queue together) is following a single chain, typically a linked list:
   each object leads to one more, whose address is known only once the
   current object is read, so the queues have nothing to overlap and only
   cost instructions, more than the cell's own marking (callgrind, 16-byte
   cells: 170 instructions per cell with them, 105 without). The same holds
   for two or three chains in hand: the queues cost 192 instructions per
   cell of two lists, and the processor overlaps the chains' loads by
   itself when their steps follow each other in the same loop. So with at
   most CHAINS_MAX entries in hand, they go back on the stack and are
   followed together without either queue, one object of each in turn,
   until one leads to no other or to several (then run() takes over again).
   Each step prefetches the next cells of the chains that follow it, so
   that their misses overlap. Measured with bench/lists.c (16-byte cells,
   GC_MARKERS=1, loaded 2-core VM, same runs): two lists of 2 M cells
   34 -> 19 ms a collection (115 instructions per cell), interleaved
   34 -> 19, three 50 -> 27; one list 97 instructions per cell (103 before
   the short-range step below); guile-list's marking with one marker
   7.10 -> 4.52 G instructions, ecl-list's 5.42 -> 3.36 G.
   Not with scattered cells (each step a cache miss): there the queues,
   which prefetch every popped entry and candidate, overlapped more misses
   (bench/lists.c -s, two and three lists: 10-40% slower without them).
   A window of SHARE_CHECK_INTERVAL steps in which most chains moved more
   than CHAIN_WINDOW_NEAR_BYTES sends several chains back to the queues
   for CHAINS_SCATTERED_ENTRIES entries (guile-list: no such window in
   140,000; ecl-list: one in 127,000).
   Session 10's first version followed several chains one at a time, the
   others waiting on the stack, and was slower than the queues by 15-25%
   with interleaved cells (the queues advanced them together); a loop over
   a variable number of chains (up to four, entries copied to an array)
   was no faster than the queues: each count has its own loop.
   Out of line (one copy per mode, as run()), so that its few variables
   stay in registers: inside run() the queues' indices crowded them out
   (30 more instructions per list cell). With two or three chains, a
   hungry marker is given one at the end of each window; one chain cannot
   be split. */

/* Anything but a short range, met while following chains: out of line,
   so that each copy of follow_chain (seven steps inlined) does not carry
   seven copies of scan_entry: they made each 20-25 KiB of text (now 7-9),
   a fifth of the library's. Cold: the call is rare, and so marked the
   chain loop keeps its registers (callgrind, bench/lists.c with two
   lists: follow_chain_0 335.8 M instructions before, 344.0 M out of line,
   340.1 M cold). */
static __attribute__((noinline, cold)) struct mark_entry *
chain_scan_entry(struct marker *m, struct mark_entry *top, struct mark_entry e, unsigned mode,
                 struct drain *d) {
  if (mode & MODE_PARALLEL) return scan_entry(m, top, e.start, e.descr, MODE_PARALLEL, d);
  return scan_entry(m, top, e.start, e.descr, 0, d);
}
static __attribute__((noinline, cold)) PAGE_HASH_COPY struct mark_entry *
chain_scan_entry_hash(struct marker *m, struct mark_entry *top, struct mark_entry e,
                      unsigned mode, struct drain *d) {
  if (mode & MODE_PARALLEL) return scan_entry(m, top, e.start, e.descr, MODE_HASH | MODE_PARALLEL, d);
  return scan_entry(m, top, e.start, e.descr, MODE_HASH, d);
}

/* One object of a chain: a short range (the usual list cell) scanned
   without scan_entry's checks for long ranges. */
static ALWAYS_INLINE struct mark_entry *chain_step(struct marker *m, struct mark_entry *top,
                                                   struct mark_entry e, const unsigned mode,
                                                   struct drain *d) {
  if (UNLIKELY((e.descr & GC_DS_TAGS) != GC_DS_LENGTH || e.descr > SCAN_CHUNK_BYTES))
    return (mode & MODE_HASH) ? chain_scan_entry_hash(m, top, e, mode, d)
                              : chain_scan_entry(m, top, e, mode, d);
  const uintptr_t *p = (const uintptr_t *)e.start;
  const uintptr_t *end = p + e.descr / sizeof(uintptr_t);
  m->stats.candidates += e.descr / sizeof(uintptr_t);
  for (; p < end; p++) top = consider(m, top, *p, mode, d);
  return top;
}

/* One chain for a hungry marker (markers_share gives the older half of
   the stack). */
static struct mark_entry *share_chains(struct marker *m, struct mark_entry *top) {
  if (top > m->base && markers_hungry()) {
    m->top = top;
    markers_share(m);
    top = m->top;
  }
  return top;
}

/* Scattered chains: over a window of SHARE_CHECK_INTERVAL steps, a chain
   whose cells lie in allocation order moves a few KiB (64 steps of 16- to
   64-byte cells); one whose cells are spread over the heap jumps further.
   Measured by the distance alone, with no cost per step. */
#define CHAIN_WINDOW_NEAR_BYTES ((uintptr_t)SHARE_CHECK_INTERVAL * 256)
static inline unsigned far_window(const char *from, const char *to) {
  uintptr_t d = from < to ? (uintptr_t)(to - from) : (uintptr_t)(from - to);
  return d > CHAIN_WINDOW_NEAR_BYTES;
}

/* The end of a window of several chains: true if most of them jumped
   (scattered cells: back to the queues, see above); otherwise a chain
   for a hungry marker. */
static ALWAYS_INLINE bool chains_window_end(struct marker *m, struct mark_entry **top,
                                            unsigned far, unsigned held, const unsigned mode) {
  if (far * 2 > held) return true;
  if (mode & MODE_PARALLEL) *top = share_chains(m, *top);
  return false;
}

static ALWAYS_INLINE struct mark_entry *follow_chain(struct marker *m, struct mark_entry *top,
                                                     struct drain *in_run, const unsigned mode) {
  struct drain d = *in_run;              /* bounds only: no FIFO without MODE_PREFETCH */
  /* Fixed: CHAINS_MAX entries and one step's pushes (at most a
     SCAN_CHUNK_BYTES range's words) never make a stack grow. */
  struct mark_entry *const base = m->base;
  for (;;) {
    while (top == base) {
      struct mark_entry e = *top--;
      top = chain_step(m, top, e, mode, &d);
    }
    if (d.chains_scattered) return top;
    unsigned window = SHARE_CHECK_INTERVAL;
    if (top == base + 1) {
      char *a0 = base[0].start, *b0 = base[1].start;
      do {
        struct mark_entry a = base[0], b = base[1];
        __builtin_prefetch(b.start);
        top = chain_step(m, base - 1, a, mode, &d);
        __builtin_prefetch(base[0].start);
        top = chain_step(m, top, b, mode, &d);
        if (--window == 0 && top == base + 1) {
          window = SHARE_CHECK_INTERVAL;
          unsigned far = far_window(a0, base[0].start) + far_window(b0, base[1].start);
          if (chains_window_end(m, &top, far, 2, mode)) {
            in_run->chains_scattered = true;
            return top;
          }
          a0 = base[0].start;
          b0 = base[1].start;
        }
      } while (top == base + 1);
      continue;
    }
    if (top != base + 2) return top;
    char *a0 = base[0].start, *b0 = base[1].start, *c0 = base[2].start;
    do {
      struct mark_entry a = base[0], b = base[1], c = base[2];
      __builtin_prefetch(b.start);
      __builtin_prefetch(c.start);
      top = chain_step(m, base - 1, a, mode, &d);
      __builtin_prefetch(base[0].start);
      top = chain_step(m, top, b, mode, &d);
      __builtin_prefetch(base[1].start);
      top = chain_step(m, top, c, mode, &d);
      if (--window == 0 && top == base + 2) {
        window = SHARE_CHECK_INTERVAL;
        unsigned far = far_window(a0, base[0].start) + far_window(b0, base[1].start) +
                       far_window(c0, base[2].start);
        if (chains_window_end(m, &top, far, 3, mode)) {
          in_run->chains_scattered = true;
          return top;
        }
        a0 = base[0].start;
        b0 = base[1].start;
        c0 = base[2].start;
      }
    } while (top == base + 2);
  }
}

typedef struct mark_entry *chain_follower(struct marker *, struct mark_entry *, struct drain *);
static __attribute__((noinline)) struct mark_entry *
follow_chain_0(struct marker *m, struct mark_entry *top, struct drain *d) {
  return follow_chain(m, top, d, 0);
}
static __attribute__((noinline)) struct mark_entry *
follow_chain_1(struct marker *m, struct mark_entry *top, struct drain *d) {
  return follow_chain(m, top, d, MODE_PARALLEL);
}
static __attribute__((noinline)) PAGE_HASH_COPY struct mark_entry *
follow_chain_4(struct marker *m, struct mark_entry *top, struct drain *d) {
  return follow_chain(m, top, d, MODE_HASH);
}
static __attribute__((noinline)) PAGE_HASH_COPY struct mark_entry *
follow_chain_5(struct marker *m, struct mark_entry *top, struct drain *d) {
  return follow_chain(m, top, d, MODE_HASH | MODE_PARALLEL);
}
/* The copy for a mode of run(): its parallel and hash bits. */
static inline chain_follower *chain_follower_for(unsigned mode) {
  static chain_follower *const followers[] = { follow_chain_0, follow_chain_1,
                                               follow_chain_4, follow_chain_5 };
  return followers[((mode & MODE_HASH) ? 2 : 0) | ((mode & MODE_PARALLEL) ? 1 : 0)];
}

/* The scan-ahead queue's entries (popped from the stack, not yet scanned)
   back on the stack, oldest first. */
static ALWAYS_INLINE struct mark_entry *requeue_ahead(struct marker *m, struct mark_entry *top,
                                                      const struct mark_entry *ahead,
                                                      unsigned *head, unsigned *count) {
  for (; *count; (*count)--, *head = (*head + 1) & (SCAN_AHEAD_MAX - 1))
    top = push(m, top, ahead[*head].start, ahead[*head].descr);
  return top;
}

/* The marking loop: scan the top entry, whose candidates go through the
   prefetch FIFO; when the stack runs dry, let the FIFO's entries out (each
   may push an object). With [lo, hi) given instead, scan those root words
   and empty the FIFO, so that the marker's any_interior applies to them. */
static ALWAYS_INLINE void run(struct marker *m, char *lo, char *hi, const unsigned mode) {
  current_marker = m;
  struct mark_entry *top = m->top;
  struct drain d = drain_begin(m);
  if (lo) {
    top = scan_words(m, top, lo, hi, mode, &d);
    m->top = fifo_flush(m, top, mode, &d);
    return;
  }
  const unsigned ahead_max = scan_ahead;
  unsigned until_share_check = SHARE_CHECK_INTERVAL;
  unsigned chains_scattered_for = CHAINS_SCATTERED_ENTRIES;
  struct mark_entry ahead[SCAN_AHEAD_MAX];     /* popped, prefetched, not yet scanned */
  unsigned ahead_head = 0, ahead_count = 0;
  for (;;) {
    struct mark_entry e;
    if (mode & MODE_PREFETCH) {
      /* The stack's depth alone is tested first: the full test, made for
         every popped entry, was 6% of Macaulay2's marking instructions. */
      if (top - m->base < CHAINS_MAX &&
          (size_t)(top + 1 - m->base) + ahead_count + d.fifo_count <=
          (d.chains_scattered ? 1 : CHAINS_MAX)) {
        /* A chain (see above): what is in hand back on the stack. */
        top = requeue_ahead(m, top, ahead, &ahead_head, &ahead_count);
        top = fifo_flush(m, top, mode, &d);
        if (top < m->base) break;
        top = chain_follower_for(mode)(m, top, &d);
        continue;
      }
      while (ahead_count < ahead_max) {
        if (top < m->base) {
          /* The stack is empty: let candidates out of the FIFO to keep
             the scan-ahead queue full. Otherwise, with fewer chains of
             objects in hand than the FIFO holds (a marker working on a
             few dozen linked lists), the FIFO keeps most of them waiting
             and the rest are scanned one cache miss at a time: with two
             markers a heap of lists took 27.4 instead of 23.3 ms
             (bench/pause.c's lists, docs/BENCHMARKS.md "Session 6"). */
          if (!d.fifo_count) break;
          top = fifo_take(m, top, mode, &d);
          continue;
        }
        e = *top--;
        __builtin_prefetch(e.start);
        ahead[(ahead_head + ahead_count++) & (SCAN_AHEAD_MAX - 1)] = e;
      }
      if (!ahead_count) goto stack_empty;
      e = ahead[ahead_head];
      ahead_head = (ahead_head + 1) & (SCAN_AHEAD_MAX - 1);
      ahead_count--;
    } else {
      if (top < m->base) goto stack_empty;
      e = *top--;
    }
    top = scan_entry(m, top, e.start, e.descr, mode, &d);
    if ((mode & MODE_PREFETCH) && UNLIKELY(d.chains_scattered) && --chains_scattered_for == 0) {
      d.chains_scattered = false;
      chains_scattered_for = CHAINS_SCATTERED_ENTRIES;
    }
    if ((mode & MODE_PARALLEL) && --until_share_check == 0) {
      until_share_check = SHARE_CHECK_INTERVAL;
      if (markers_hungry() &&
          (top - m->base > 2 || (top - m->base + 1) + ahead_count + d.fifo_count >= 2)) {
        /* A marker following a few chains (lists) holds them in the
           scan-ahead queue and the candidate FIFO, its stack nearly
           empty: back on the stack they go, so that half can be shared.
           Otherwise the other markers of guile-parmap marked nothing in
           most collections. The FIFO counts too: with two chains in hand,
           one waits in the scan-ahead queue while the other's next cell
           waits in the FIFO, the stack is empty, and until session 12 such
           a marker never shared (bench/lists.c, two lists of 3 M cells,
           GC_MARKERS=2: the other marker marked none of them; guile-list's
           GC #23 left the helper a sixth of 6 M cells).
           Only then: with a stack to share from, the queues stay (putting
           them back each time cost mt_gcbench's 4 threads 9% more CPU). */
        if (top - m->base <= 2) {
          top = requeue_ahead(m, top, ahead, &ahead_head, &ahead_count);
          top = fifo_flush(m, top, mode, &d);
        }
        m->top = top;
        markers_share(m);
        top = m->top;
      }
    }
    continue;
  stack_empty:
    if (!d.fifo_count) break;
    top = fifo_take(m, top, mode, &d);
  }
  m->top = top;
}

static void read_mark_settings(void) {
  long v;
  if (os_env_long("BIBOP_PREFETCH", &v)) {
    prefetch_size = v <= 0 ? 0 : v > PREFETCH_FIFO_MAX ? PREFETCH_FIFO_MAX : (unsigned)v;
    prefetch_low = prefetch_size - prefetch_size / 4;
  }
  if (os_env_long("BIBOP_PREFETCH_LOW", &v) && v >= 0) prefetch_low = (unsigned)v;
  if (prefetch_size && prefetch_low >= prefetch_size) prefetch_low = prefetch_size - 1;
  if (os_env_long("BIBOP_PREFETCH_SCAN", &v) && v >= 1)
    scan_ahead = v > SCAN_AHEAD_MAX ? SCAN_AHEAD_MAX : (unsigned)v;
  size_t bytes;
  if (os_env_size("BIBOP_MARK_STACK_MAX", &bytes) && bytes > 0) mark_stack_max = bytes;
  if (os_env_size("BIBOP_PREFETCH_MIN_HEAP", &bytes)) {
    prefetch_min_heap = bytes;
    prefetch_gate_fixed = true;
  }
  if (os_env_size("BIBOP_PREFETCH_BYTES_MIN_HEAP", &bytes)) prefetch_bytes_min_heap = bytes;
}

static void run_0(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 0); }
static void run_1(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 1); }
static void run_2(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 2); }
static void run_3(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 3); }
static PAGE_HASH_COPY void run_4(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 4); }
static PAGE_HASH_COPY void run_5(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 5); }
static PAGE_HASH_COPY void run_6(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 6); }
static PAGE_HASH_COPY void run_7(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 7); }
static void run_11(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 11); }
static PAGE_HASH_COPY void run_15(struct marker *m, char *lo, char *hi) { run(m, lo, hi, 15); }
/* MODE_BYTE_PREFETCH only with MODE_PARALLEL and MODE_PREFETCH (marker_run). */
static void (*const runners[MODE_COUNT])(struct marker *, char *, char *) = {
  run_0, run_1, run_2, run_3, run_4, run_5, run_6, run_7,
  NULL, NULL, NULL, run_11, NULL, NULL, NULL, run_15 };

static void marker_run(struct marker *m, char *lo, char *hi) {
  unsigned mode = (m->parallel ? MODE_PARALLEL : 0) | (prefetch_active ? MODE_PREFETCH : 0) |
                  (pagehash_enabled ? MODE_HASH : 0);
  if (prefetch_bytes_active && (mode & MODE_PARALLEL) && (mode & MODE_PREFETCH)) mode |= MODE_BYTE_PREFETCH;
  runners[mode](m, lo, hi);
}

void marker_drain(struct marker *m) { marker_run(m, NULL, NULL); }

void mark_drain(void) { marker_drain(&main_marker); }

bool mark_word(uintptr_t w) {
  unsigned long before = main_marker.marked;
  main_marker.top = mark_candidate(&main_marker, main_marker.top, w);
  return main_marker.marked != before;
}

void mark_push_range(const void *lo, const void *hi) {
  uintptr_t a = ((uintptr_t)lo + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
  uintptr_t z = (uintptr_t)hi & ~(uintptr_t)(sizeof(void *) - 1);
  if (z <= a) return;
  main_marker.top = push(&main_marker, main_marker.top, (char *)a, (GC_word)(z - a) & ~(GC_word)GC_DS_TAGS);
}

/* Roots are scanned one piece at a time, so a root range is never the
   entry that gets dropped on overflow. With any_interior, the root words
   themselves (not what they lead to) keep objects by interior pointers
   whatever GC_all_interior_pointers says.
   Alone, the marker drains its stack after each piece. With other markers
   it lets the objects the roots lead to pile up (up to ROOTS_PILE_ENTRIES)
   and drains them with the rest, so that the others can take a share: when
   each of a few threads' stacks holds the head of a long list (ecl-threads,
   guile-parmap), draining after each piece followed one list to its end
   before the next stack was even read, and the others had nothing to do. */
#define ROOTS_PILE_ENTRIES ((size_t)1 << 14)
static void drain_unless_piling(struct marker *m) {
  if (!m->parallel || (size_t)(m->top + 1 - m->base) > ROOTS_PILE_ENTRIES) marker_drain(m);
}

static void mark_root_words(const void *lo, const void *hi, bool any_interior) {
  struct marker *m = &main_marker;
  uintptr_t a = ((uintptr_t)lo + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
  uintptr_t z = (uintptr_t)hi & ~(uintptr_t)(sizeof(void *) - 1);
  while (a < z) {
    uintptr_t piece = z - a > SCAN_CHUNK_BYTES ? a + SCAN_CHUNK_BYTES : z;
    m->any_interior = any_interior;
    marker_run(m, (char *)a, (char *)piece);
    m->any_interior = false;
    drain_unless_piling(m);
    a = piece;
  }
}

void mark_range(const void *lo, const void *hi) { mark_root_words(lo, hi, false); }

/* Boxroot pool cells (boxroot.c): roots, except the free cells, which point
   into their own pool, [own, own + own_bytes), and are skipped. A root to
   the start of an object already marked (the common case once the heap is
   traced) is recognised in a few instructions before the general path. No
   candidate FIFO: the cells are independent of each other, so the processor
   overlaps their descriptor loads by itself, and the FIFO's bookkeeping (or
   a prefetch of the descriptor some cells ahead) cost more than they hid in
   bench/boxroot_scan.c, in creation order and in random order (see
   docs/BENCHMARKS.md). */
#define CELLS_PER_DRAIN 512    /* the stack takes at most this many new entries */

static ALWAYS_INLINE void scan_cells(struct marker *m, uintptr_t *lo, uintptr_t *hi,
                                     uintptr_t own, size_t own_bytes, unsigned mode) {
  struct mark_entry *top = m->top;
  size_t live = 0, seen_marked = 0;
  struct drain d = drain_begin(m);
  for (uintptr_t *p = lo; p < hi; p++) {
    uintptr_t w = *p;
    if (w - own < own_bytes) continue;
    live++;
    struct block *b = lookup(w, mode, &d);
    if (!b) continue;
    if (UNLIKELY(pt_is_static_desc(b))) {
      if (pt_static_page(b)) m->stats.cand_static++;
      continue;
    }
    if (LIKELY(b->state == BLOCK_SMALL)) {
      unsigned i;
      char *start = small_object_start(b, w, &i);
      if (start && ((b->u.mark[i >> 6] >> (i & 63)) & 1) &&
          (start == (char *)w || GC_all_interior_pointers)) {
        seen_marked++;
        continue;
      }
    }
    top = mark_resolved(m, top, w, b, mode & MODE_PARALLEL);
  }
  m->stats.candidates += live;
  m->stats.cand_object += seen_marked;
  m->top = top;
}

void mark_root_cells(void *const *lo, void *const *hi, uintptr_t own, size_t own_bytes) {
  struct marker *m = &main_marker;
  uintptr_t *p = (uintptr_t *)lo, *end = (uintptr_t *)hi;
  while (p < end) {
    uintptr_t *piece = end - p > CELLS_PER_DRAIN ? p + CELLS_PER_DRAIN : end;
    current_marker = m;
    if (pagehash_enabled) {
      if (m->parallel) scan_cells(m, p, piece, own, own_bytes, MODE_HASH | MODE_PARALLEL);
      else scan_cells(m, p, piece, own, own_bytes, MODE_HASH);
    } else {
      if (m->parallel) scan_cells(m, p, piece, own, own_bytes, MODE_PARALLEL);
      else scan_cells(m, p, piece, own, own_bytes, 0);
    }
    marker_drain(m);
    p = piece;
  }
}

/* Stacks and registers: like bdwgc, an interior pointer found there keeps
   its object even with GC_all_interior_pointers off (compilers keep derived
   pointers in registers and frames). */
void mark_range_stack(const void *lo, const void *hi) { mark_root_words(lo, hi, true); }

static uint64_t mark_start_ns;

/* Blocks of free_slots_zero kinds with the objects they held when marking
   began: those left unmarked died in this collection and are zeroed
   (mark_zero_dead_slots), so that a mark procedure reached through a stale
   pointer reads a cleared object, never a dead one's contents (which may
   point to memory its finalizer gave back). */
struct watched_block { struct block *b; uint64_t held[MARK_WORDS]; };
static struct meta_vec watched = { .item_size = sizeof(struct watched_block) };

static void begin_phase(void) {
  trial_collection_begins();
  main_marker.marked = 0;
  memset(&main_marker.stats, 0, sizeof main_marker.stats);
  watched.count = 0;
}

static void end_clearing(bool minor) {
  prefetch_active = prefetch_size && (arena_committed_bytes() >= prefetch_min_heap ||
                                      small_heap_prefetch(minor));
  prefetch_bytes_active = arena_committed_bytes() >= prefetch_bytes_min_heap;
  mark_start_ns = os_now_ns();
}

/* Clear the bits `clear` of block b, watching its objects among them if
   its kind keeps free slots zero. */
static void clear_bits(struct block *b, const uint64_t clear[MARK_WORDS]) {
  if (gc.kinds[b->kind].free_slots_zero) {
    struct watched_block wb = { .b = b };
    for (unsigned w = 0; w < MARK_WORDS; w++) wb.held[w] = b->u.mark[w] & clear[w];
    /* No memory to watch the block: its dead keep their contents,
       which breaks only that promise to mark procedures. */
    (void)meta_vec_push(&watched, &wb);
  }
  for (unsigned w = 0; w < MARK_WORDS; w++) b->u.mark[w] &= ~clear[w];
}

/* Every small block of a collectable kind, found in address order: the
   descriptors of the chunks that hold runs, read one after the other. The
   size classes' lists, followed block to block, waited for each descriptor
   in turn (w3m-dump, a 24 MiB heap: 0.4 of a 2.9 ms collection outside
   marking). */
void mark_clear_all(void) {
  static const uint64_t all[MARK_WORDS] = { [0 ... MARK_WORDS - 1] = ~(uint64_t)0 };
  begin_phase();
  size_t at = 0;
  for (struct block *b; (b = heap_next_small_chunk(&at));)
    for (size_t k = 0; k < BLOCKS_PER_CHUNK; k++, b++)
      if (b->state == BLOCK_SMALL && !(b->kind_flags & BLOCK_KIND_UNCOLLECTABLE)) clear_bits(b, all);
  for (struct block *h = gc.large; h; h = h->next)
    if (!gc.kinds[h->kind].uncollectable) h->u.large.marked = 0;
  end_clearing(false);
}

/* A minor collection (generations.c): old objects keep their marks and are
   not traced again unless written; young ones must be reached anew. Young
   large objects are those allocated since the last collection: they are
   still unmarked. */
void mark_clear_young(void) {
  begin_phase();
  for (size_t i = 0; i < alloc_young_count(); i++) {
    alloc_young_prefetch_ahead(i);
    struct block *b = alloc_young_block(i);
    uint64_t young[MARK_WORDS];
    if (b->state != BLOCK_SMALL || gc.kinds[b->kind].uncollectable || !alloc_young_mask(b, young))
      continue;
    clear_bits(b, young);
  }
  end_clearing(true);
}

/* After marking, before sweep setup (lock held): zero the objects of
   watched blocks that died in this collection. A block left with no object
   is skipped: it goes back to the heap, and a block is zeroed when a
   free_slots_zero kind takes it (heap.c). */
void mark_zero_dead_slots(void) {
  for (size_t n = 0; n < watched.count; n++) {
    struct watched_block *wb = &META_VEC_AT(&watched, struct watched_block, n);
    struct block *b = wb->b;
    uint64_t any = 0;
    for (unsigned w = 0; w < MARK_WORDS; w++) any |= b->u.mark[w];
    if (!any) continue;
    for (unsigned w = 0; w < MARK_WORDS; w++) {
      uint64_t dead = wb->held[w] & ~b->u.mark[w];
      while (dead) {
        unsigned i = w * 64 + (unsigned)__builtin_ctzll(dead);
        dead &= dead - 1;
        memset(block_addr(b) + (size_t)i * b->obj_bytes, 0, b->obj_bytes);
      }
    }
  }
  watched.count = 0;
}

/* Push every live object of one small block (its set bits). */
static void push_block_only(struct block *b) {
  struct marker *m = &main_marker;
  char *base = block_addr(b);
  GC_word descr = descriptor_of(b->kind, b->obj_bytes);
  for (unsigned w = 0; w < MARK_WORDS; w++) {
    uint64_t bits = b->u.mark[w];
    while (bits) {
      unsigned i = w * 64 + (unsigned)__builtin_ctzll(bits);
      bits &= bits - 1;
      m->top = push(m, m->top, base + (size_t)i * b->obj_bytes, descr);
    }
  }
}

/* Objects pushed as roots (uncollectable ones, old ones to rescan): alone,
   the marker drains after each block (at most 256 entries wait); with
   other markers they pile up as root words do (mark_root_words). Draining
   a block at a time, a marker gave half of each block's entries to a
   hungry helper, a lock, a copy and a wake-up for a few hundred
   nanoseconds of marking: bench/boxroot_scan.c's 1,000,000 uncollectable
   roots cost 64 ns of CPU (32 of wall) a root with two markers against 20
   with one; piled, 16 (8 of wall), stock libgc1 20 (session 22). */
static void push_block_objects(struct block *b) {
  push_block_only(b);
  drain_unless_piling(&main_marker);
}

static void push_large_only(struct block *h) {
  main_marker.top = push(&main_marker, main_marker.top, block_addr(h),
                         descriptor_of(h->kind, h->u.large.bytes));
}

static void push_large_object(struct block *h) {
  push_large_only(h);
  drain_unless_piling(&main_marker);
}

void mark_rescan_old(struct block *b) {
  if (gc.kinds[b->kind].pointer_free) return;
  if (b->state == BLOCK_SMALL) push_block_only(b);
  else if (b->state == BLOCK_LARGE && b->u.large.marked) push_large_only(b);
}

/* May word w lead the marker to an object it has not marked? A superset:
   any word into an unmarked slot or large object (young, or free), whatever
   the displacement rules would say of it. */
static inline bool may_reach_unmarked(struct block *t, uintptr_t w) {
  switch (t->state) {
    case BLOCK_SMALL: {
      unsigned i = (unsigned)(((w & (BLOCK_BYTES - 1)) * (uint64_t)t->recip) >> 32);
      return i < t->nobjs && !((t->u.mark[i >> 6] >> (i & 63)) & 1);
    }
    case BLOCK_LARGE:
      return !t->u.large.marked;
    case BLOCK_LARGE_TAIL:
      return t->head->state == BLOCK_LARGE && !t->head->u.large.marked;
    default:
      return false;
  }
}

/* The words of a block's candidates that the page table knows, with their
   descriptors (prefetched while the block's objects are read). Static:
   12 KiB would be a lot on the stack of whichever thread collects, and
   only the collecting thread filters, with the world stopped. */
struct rescan_word { struct block *t; uintptr_t w; unsigned obj; };
static struct rescan_word rescan_words[BLOCK_BYTES / sizeof(uintptr_t)];

/* Which of words[0, count) lie in the page table's used slots (count <=
   64): bit k for words[k]. Most words of a written page are data, small
   integers or pointers out of the heap; this test, made for every word
   before anything else, takes no branch. With AVX2, four words at a time:
   genheap's minor collections (1 GiB, 2,600 written pages of 64-byte
   objects) found and rescanned their written pages in 7.7 ms against 8.6
   by the median (session 20: the three ways alternating collection by
   collection in 6 runs; the branchless one-word loop alone: 8.6). */
static inline uint64_t words_in_table(const uintptr_t *words, size_t count, uint64_t bounds) {
  uintptr_t first_slot = (uint32_t)bounds, slots = bounds >> 32;
  uint64_t in_table = 0;
  for (size_t k = 0; k < count; k++)
    in_table |= (uint64_t)((words[k] >> REGION_SHIFT) - first_slot < slots) << k;
  return in_table;
}

#if defined(__x86_64__)
#include <immintrin.h>
#define WIDE_TARGET __attribute__((target("avx2")))
/* A word's slot minus the first used one, as a signed number (slots fit 36
   bits, the first one 32), is in [0, slots). */
WIDE_TARGET static inline uint64_t words_in_table_wide(const uintptr_t *words, size_t count,
                                                        uint64_t bounds) {
  __m256i first_slot = _mm256_set1_epi64x((long long)(uint32_t)bounds);
  __m256i slots = _mm256_set1_epi64x((long long)(bounds >> 32));
  __m256i minus_one = _mm256_set1_epi64x(-1);
  uint64_t in_table = 0;
  size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    __m256i w = _mm256_loadu_si256((const __m256i *)(words + k));
    __m256i slot = _mm256_sub_epi64(_mm256_srli_epi64(w, REGION_SHIFT), first_slot);
    __m256i in = _mm256_and_si256(_mm256_cmpgt_epi64(slot, minus_one),
                                  _mm256_cmpgt_epi64(slots, slot));
    in_table |= (uint64_t)(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(in)) << k;
  }
  return in_table | (k < count ? words_in_table(words + k, count - k, bounds) << k : 0);
}
static bool cpu_has_wide(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
#else
#define WIDE_TARGET
static inline uint64_t words_in_table_wide(const uintptr_t *words, size_t count, uint64_t bounds) {
  return words_in_table(words, count, bounds);
}
static bool cpu_has_wide(void) { return false; }
#endif
static bool rescan_wide;   /* AVX2 at hand, and BIBOP_SIMD is not 0 */

static void choose_rescan_filter(void) {
  long v;
  rescan_wide = cpu_has_wide() && !(os_env_long("BIBOP_SIMD", &v) && v == 0);
}

/* Fill words[] from the candidates of block b (see above); their count. */
static ALWAYS_INLINE size_t filter_candidates(struct block *b, const uint64_t candidates[MARK_WORDS],
                                              struct rescan_word *words, const bool wide) {
  size_t n = 0, per_object = b->obj_bytes / sizeof(uintptr_t);
  char *base = block_addr(b);
  uint64_t bounds = __atomic_load_n(&pt_bounds, __ATOMIC_RELAXED);   /* fixed: the world is stopped */
  for (unsigned w = 0; w < MARK_WORDS; w++)
    for (uint64_t bits = candidates[w]; bits; bits &= bits - 1) {
      unsigned i = w * 64 + (unsigned)__builtin_ctzll(bits);
      const uintptr_t *p = (const uintptr_t *)(base + (size_t)i * b->obj_bytes);
      for (size_t at = 0; at < per_object; at += 64) {
        size_t count = per_object - at < 64 ? per_object - at : 64;
        uint64_t in = wide ? words_in_table_wide(p + at, count, bounds)
                           : words_in_table(p + at, count, bounds);
        for (; in; in &= in - 1) {
          uintptr_t v = p[at + (size_t)__builtin_ctzll(in)];
          struct block *t = pt_block_in_table(v);
          if (!t || pt_is_static_desc(t) || !pt_may_hold_young(t)) continue;
          __builtin_prefetch(t);
          words[n++] = (struct rescan_word){ t, v, i };
        }
      }
    }
  return n;
}

static size_t filter_candidates_narrow(struct block *b, const uint64_t candidates[MARK_WORDS],
                                       struct rescan_word *words) {
  return filter_candidates(b, candidates, words, false);
}

WIDE_TARGET static size_t filter_candidates_wide(struct block *b,
                                                 const uint64_t candidates[MARK_WORDS],
                                                 struct rescan_word *words) {
  return filter_candidates(b, candidates, words, true);
}

bool mark_rescan_filtered(struct block *b, const uint64_t candidates[MARK_WORDS],
                          uint64_t found[MARK_WORDS]) {
  for (unsigned w = 0; w < MARK_WORDS; w++) found[w] = 0;
  if (!(b->kind_flags & BLOCK_KIND_LENGTH_DESCR)) return false;
  if (b->kind_flags & BLOCK_KIND_POINTER_FREE) return true;
  struct rescan_word *words = rescan_words;
  char *base = block_addr(b);
  size_t n = rescan_wide ? filter_candidates_wide(b, candidates, words)
                         : filter_candidates_narrow(b, candidates, words);
  for (size_t k = 0; k < n; k++) {
    unsigned i = words[k].obj;
    if (!((found[i >> 6] >> (i & 63)) & 1) && may_reach_unmarked(words[k].t, words[k].w))
      found[i >> 6] |= (uint64_t)1 << (i & 63);
  }
  struct marker *m = &main_marker;
  for (unsigned w = 0; w < MARK_WORDS; w++)
    for (uint64_t bits = found[w]; bits; bits &= bits - 1) {
      unsigned i = w * 64 + (unsigned)__builtin_ctzll(bits);
      m->top = push(m, m->top, base + (size_t)i * b->obj_bytes, b->obj_bytes);
    }
  return true;
}

/* Push the objects of every pointerful kind that `which` selects. */
static void push_objects_of(bool (*which)(const struct kind *k, bool marked)) {
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    if (gc.kinds[k].pointer_free || !which(&gc.kinds[k], true)) continue;
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) push_block_objects(b);
  }
  for (struct block *h = gc.large; h; h = h->next)
    if (!gc.kinds[h->kind].pointer_free && which(&gc.kinds[h->kind], h->u.large.marked))
      push_large_object(h);
}

static bool is_uncollectable(const struct kind *k, bool marked) { (void)marked; return k->uncollectable; }
static bool is_marked(const struct kind *k, bool marked) { (void)k; return marked; }

void mark_uncollectable_roots(void) { push_objects_of(is_uncollectable); }

/* A minor collection rescans the old objects of kinds traced by their
   contents (a client mark procedure, a per-object descriptor) whether
   their pages were written or not: a mark procedure may read memory
   outside the heap, whose writes no dirty bit records. Guile 2.2's thread
   objects mark their threads' VM stacks (mmap'd) through one, and the
   stacks change while the thread objects do not: young objects only a VM
   stack held were freed (client_guile22 in generational mode: wrong
   vector lengths, crashes). Guile 3.0 keeps the VM registers inside the
   thread object, which is written often enough that this went unseen. */
static bool is_old_traced_by_contents(const struct kind *k, bool marked) {
  return k->free_slots_zero && marked;
}

void mark_rescan_traced_by_contents(void) {
  for (unsigned k = 0; k < gc.n_kinds; k++)
    if (gc.kinds[k].free_slots_zero) {   /* most programs define no such kind: no walk */
      push_objects_of(is_old_traced_by_contents);
      return;
    }
}

/* Overflow recovery, on this thread alone: every marked object is scanned
   again; the stack grows if memory allows (recovery works at any size, only
   slower). */
void mark_recover_overflow(void) {
  while (main_marker.overflowed || markers_overflowed()) {
    main_marker.overflowed = false;
    main_marker.stats.overflows++;
    main_marker.parallel = false;
    (void)marker_init_stack(&main_marker, main_marker.capacity * 2);
    push_objects_of(is_marked);
  }
}

void mark_stats_add(struct mark_stats *sum, struct mark_stats *one) {
  sum->marked_bytes += one->marked_bytes;
  sum->candidates += one->candidates;
  sum->cand_free += one->cand_free;
  sum->cand_static += one->cand_static;
  sum->cand_object += one->cand_object;
  sum->stack_growths += one->stack_growths;
  sum->overflows += one->overflows;
  memset(one, 0, sizeof *one);
}

/* The phase's statistics: every marker's counters summed (markers_add_stats
   resets the helpers'; the main marker's are reset at the next start). */
/* The collecting thread's marked bytes when mark_finish summed the
   statistics: finalization marks more on its marker after that. */
static uint64_t main_marked_bytes_at_finish;

size_t mark_marked_bytes(void) {
  return (size_t)(gc.mark_stats.marked_bytes + main_marker.stats.marked_bytes -
                  main_marked_bytes_at_finish);
}

void mark_finish(void) {
  markers_finish_phase(&main_marker);
  markers_count_phase();   /* the fold of the others' bits is done: markers_finish_phase */
  mark_recover_overflow();
  gc.marked_objects = main_marker.marked + markers_marked_objects();
  struct mark_stats *s = &gc.mark_stats;
  memset(s, 0, sizeof *s);
  mark_stats_add(s, &main_marker.stats);
  main_marked_bytes_at_finish = main_marker.stats.marked_bytes;
  markers_add_stats(s);
  s->marked_objects = gc.marked_objects;
  s->cand_not_ours = s->candidates - s->cand_free - s->cand_static - s->cand_object;
  s->mark_ns = os_now_ns() - mark_start_ns;
  trial_end(&prefetch_trial, s->candidates);
  markers_trial_end(s->candidates);
}

/* ---- object-level marking for finalization (serial, after mark_finish) ---- */

/* The mark bit of the object starting at obj; NULL bit pointer if obj is
   not an object start of the heap. */
static uint64_t *mark_bit_of(const void *obj, uint64_t *bit, struct block **blk) {
  struct block *b = pt_block_of((uintptr_t)obj);
  if (!b) return NULL;
  *blk = b;
  if (b->state == BLOCK_SMALL) {
    unsigned i = 0;
    if (small_object_start(b, (uintptr_t)obj, &i) != obj) return NULL;
    *bit = (uint64_t)1 << (i & 63);
    return &b->u.mark[i >> 6];
  }
  if (b->state == BLOCK_LARGE && block_addr(b) == obj) {
    *bit = 1;
    return &b->u.large.marked;
  }
  return NULL;
}

bool mark_is_marked(const void *obj) {
  uint64_t bit;
  struct block *b;
  uint64_t *word = mark_bit_of(obj, &bit, &b);
  if (!word) return false;
  if (*word & bit) return true;
  /* During a parallel phase (a client mark procedure asking) */
  if (b->state != BLOCK_SMALL || !__atomic_load_n(&b->others_marked, __ATOMIC_RELAXED)) return false;
  return (__atomic_load_n(block_others_bits(b) + (word - b->u.mark), __ATOMIC_RELAXED) & bit) != 0;
}

/* Set or clear obj's mark bit without scanning it. */
void mark_set_bit(const void *obj, bool on) {
  uint64_t bit;
  struct block *b;
  uint64_t *word = mark_bit_of(obj, &bit, &b);
  if (!word) return;
  /* Client code may call this while markers run in parallel (a mark
     procedure, GC_push_other_roots). Then only the collecting thread
     writes small blocks' mark bits, with plain stores (claim_small): on
     that thread the mark goes there, on another marker's thread in the
     other markers' bits, as that marker's claims do. A clear during a
     phase may lose to the bit writer's store and keep the object: the
     safe way. */
  if (on && b->state == BLOCK_SMALL && main_marker.parallel) {
    if (pthread_equal(pthread_self(), phase_collector)) *word |= bit;
    else (void)set_others_bit(b, (unsigned)(word - b->u.mark), bit);
    return;
  }
  if (on) __atomic_fetch_or(word, bit, __ATOMIC_RELAXED);
  else __atomic_fetch_and(word, ~bit, __ATOMIC_RELAXED);
}

/* Push obj's contents, not obj itself, for the caller's mark_drain. obj
   may be unmarked, so its entry must never be the one overflow drops
   (recovery rescans only marked objects): a full stack is drained first. */
void mark_push_contents(const void *obj) {
  struct block *b = pt_block_of((uintptr_t)obj);
  if (!b || gc.kinds[b->kind].pointer_free) return;
  if (main_marker.top + 1 >= main_marker.limit) marker_drain(&main_marker);
  size_t bytes = b->state == BLOCK_SMALL ? b->obj_bytes : b->u.large.bytes;
  main_marker.top = push(&main_marker, main_marker.top, (char *)obj, descriptor_of(b->kind, bytes));
}

/* Mark everything reachable from obj's contents, not obj itself. */
void mark_from_contents(const void *obj) {
  mark_push_contents(obj);
  marker_drain(&main_marker);
}

/* ---- statistics (bibop.h) --------------------------------------------------- */

static double ns_per_object(const struct mark_stats *s) {
  return s->marked_objects ? (double)s->mark_ns / (double)s->marked_objects : 0.0;
}

BIBOP_API void bibop_get_mark_stats(struct bibop_mark_stats *out) {
  gc_ensure_init();
  LOCK();
  const struct mark_stats *s = &gc.mark_stats;
  *out = (struct bibop_mark_stats){
    .gc_no = (unsigned long)GC_gc_no,
    .marked_objects = s->marked_objects, .marked_bytes = s->marked_bytes,
    .candidates = s->candidates, .cand_not_ours = s->cand_not_ours,
    .cand_free = s->cand_free, .cand_static = s->cand_static, .cand_object = s->cand_object,
    .mark_ns = s->mark_ns, .ns_per_object = ns_per_object(s),
    .heap_bytes = arena_committed_bytes(),
  };
  UNLOCK();
  out->huge_page_bytes = pt_heap_huge_page_bytes();
}

/* The marking part of the GC_PRINT_STATS line (collect.c). */
void mark_print_stats(FILE *out) {
  const struct mark_stats *s = &gc.mark_stats;
  fprintf(out,
          "bibop: mark: %llu objects, %llu KiB, %.3f ms, %.1f ns/object; roots %zu KiB; candidates %llu: "
          "not ours %llu, free %llu, static %llu, object %llu; huge pages %zu KiB\n",
          (unsigned long long)s->marked_objects, (unsigned long long)(s->marked_bytes >> 10),
          s->mark_ns / 1e6, ns_per_object(s), gc.root_bytes >> 10, (unsigned long long)s->candidates,
          (unsigned long long)s->cand_not_ours, (unsigned long long)s->cand_free,
          (unsigned long long)s->cand_static, (unsigned long long)s->cand_object,
          pt_heap_huge_page_bytes() >> 10);
}

/* ---- gc_mark.h: what client mark procedures and root pushers call ---------- */

void marker_signal_overflow(void) {
  if (current_marker) current_marker->overflowed = true;
}

GC_API struct GC_ms_entry *GC_mark_and_push(void *obj, struct GC_ms_entry *msp,
                                            struct GC_ms_entry *msl, void **src) {
  (void)src;
  (void)msl;   /* the marker's own limit is the same one */
  struct marker *m = current_marker;
  if (!m) return msp;
  return (struct GC_ms_entry *)mark_candidate(m, (struct mark_entry *)msp, (uintptr_t)obj);
}

GC_API int GC_is_marked(const void *p) {
  void *base = object_base((void *)p);
  return base && mark_is_marked(base);
}

GC_API void GC_set_mark_bit(const void *p) {
  void *base = object_base((void *)p);
  if (base) mark_set_bit(base, true);
}

GC_API void GC_clear_mark_bit(const void *p) {
  void *base = object_base((void *)p);
  if (base) mark_set_bit(base, false);
}

/* ignore_self finalization: like mark_from_contents, but words pointing into
   obj itself are skipped (a path back through other objects still counts).
   Kinds scanned by procedure cannot be filtered word by word: for those the
   object counts as marked while its contents are traced. */
void mark_from_contents_except_self(const void *obj) {
  struct block *b = pt_block_of((uintptr_t)obj);
  if (!b || gc.kinds[b->kind].pointer_free) return;
  size_t bytes = b->state == BLOCK_SMALL ? b->obj_bytes : b->u.large.bytes;
  GC_word d = descriptor_of(b->kind, bytes);
  if ((d & GC_DS_TAGS) != GC_DS_LENGTH) {
    marker_drain(&main_marker);   /* what others pushed must not meet obj marked */
    mark_set_bit(obj, true);
    mark_from_contents(obj);
    mark_set_bit(obj, false);
    return;
  }
  const uintptr_t lo = (uintptr_t)obj, hi = lo + bytes;
  const uintptr_t *w = obj;
  /* mark_candidate marks before it pushes: one drain at the end is safe. */
  for (size_t i = 0; i < d / sizeof(uintptr_t); i++) {
    if (w[i] >= lo && w[i] < hi) continue;
    main_marker.top = mark_candidate(&main_marker, main_marker.top, w[i]);
  }
  marker_drain(&main_marker);
}
