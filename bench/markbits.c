/*
 * markbits.c: micro-benchmark of the marker's metadata access, to choose
 * between mark BITS (bibop today) and mark BYTES, and between plain and
 * atomic primitives for parallel marking.  Standalone: no library needed.
 *
 * WHAT IS MODELLED.  A heap of B blocks of 4 KiB; only the block metadata is
 * allocated (the objects themselves are never touched by this part of the
 * marker).  Each block is SMALL with one size class (1..128 granules of 16
 * bytes, drawn from a fixed mix weighted towards small objects, or one class
 * for every block with -c).  Three metadata layouts:
 *   bits    64-byte descriptors, as bibop's struct block: header fields
 *           (state, kind, granules, nobjs, n_marks, obj_bytes, recip) and a
 *           4 x 64-bit mark bitmap, one bit per object slot, in one line;
 *   inline  descriptors of 64 + 256 bytes: the same 64-byte header followed
 *           by 256 mark bytes (one per 16-byte granule), 5 lines;
 *   side    64-byte descriptors plus a separate side table of 256 mark bytes
 *           per block.
 * The mark byte of object slot i is byte i * granules (one byte per granule,
 * the object's first granule), or byte i with -i slot.
 *
 * THE OPERATION, per candidate (a heap offset = object start), as bibop's
 * mark_candidate does it after the page-table lookup: find the descriptor
 * (offset >> 12), read state, nobjs and the reciprocal, compute the slot
 * index i = ((offset & 4095) * recip) >> 32, then TEST-THEN-SET the mark
 * and, when newly marked, increment the block's 16-bit n_marks:
 *   plain   bits: if (w & bit) no; w |= bit; n_marks++
 *           bytes: if (m) no; m = 1; n_marks++
 *   atomic  bits: if (w & bit) no; if (__atomic_fetch_or(&w, bit) & bit) no;
 *                 __atomic_fetch_add(&n_marks, 1)          (bibop's parallel path)
 *           bytes: if (m) no; __atomic_store_n(&m, 1, relaxed) (a plain byte
 *                 store: no read-modify-write); __atomic_fetch_add(&n_marks, 1)
 * (all atomics relaxed).  Atomic variants run with 1 thread and with 2
 * threads marking the two halves of the stream concurrently.  With 2
 * threads a byte store cannot tell two markers apart: both may see 0 and
 * both claim the object (it would be pushed and scanned twice, and n_marks
 * counts it twice).  These double claims are counted and reported (dup=).
 *
 * THE CANDIDATE STREAM, generated before any timing: every object slot of
 * the heap is live with probability L (-l, default 0.5), up to about M live
 * objects (-m, default 2^20: the probability becomes M / slots); each live
 * object appears k times, k geometric with mean 1.5 (P(k) = 2/3 * (1/3)^(k-1)),
 * so about a third of the candidates find the mark already set.  Two orders:
 * address (the stream sorted by address, repeats adjacent) and random (the
 * same stream shuffled: worst-case locality).
 *
 * HOW IT IS TIMED.  For each order, R rounds (-r, default 7); every round
 * runs each of the 9 configurations (3 layouts x {plain 1 thread, atomic 1
 * thread, atomic 2 threads}) once, in a rotating order, so that machine
 * noise spreads over all of them.  A run times only the marking loop
 * (CLOCK_MONOTONIC; with 2 threads, from the earlier start to the later
 * end, the threads released by a barrier).  Between runs, untimed, the mark
 * state is checked and cleared (as a collection clears it before marking).
 * Figure: ns per candidate = time / candidates, median over the R runs.
 * Each run also reads CLOCK_THREAD_CPUTIME_ID around the loop (with 2
 * threads, the larger of the two): on a loaded machine that CPU time per
 * candidate leaves out the time the marker was not running.
 * Metadata is mmap'd with 4 KiB pages as bibop's descriptor arrays are
 * (-H asks for transparent huge pages with MADV_HUGEPAGE).
 *
 * SELF-CHECK, after every run: every block's mark state must equal the
 * expected set of live objects (bytes outside object starts must be 0), the
 * number of distinct marked objects must equal the number generated, each
 * n_marks must equal its block's marks (for bytes with 2 threads: at least,
 * and the excess must equal the double claims), the number of "newly
 * marked" answers must equal the distinct count (plus double claims), and a
 * checksum of the mark state (as a bitmap, whatever the layout) must equal
 * the expected one, hence agree across layouts.  Any failure: a message on
 * stderr, exit 1, and no figure at all.
 *
 * Output (stdout), one line per order and configuration:
 *   markbits heap_mib=H blocks=B slots=S distinct=D candidates=N index=X
 *     order=O repr=R prim=P threads=T ns=MEDIAN min=MIN max=MAX cpu=CPU dup=K
 *     meta_bytes=F checksum=C
 * (cpu = median CPU ns per candidate, dup = double claims summed over the
 * runs, meta_bytes = the layout's metadata footprint for the whole heap).
 *
 * usage: markbits [-h heap_MiB (64)] [-r runs (7)] [-l live_fraction (0.5)]
 *                 [-m max_live (1048576)] [-s seed] [-c granules] [-i granule|slot]
 *                 [-o both|address|random] [-H]
 * Run it with bench/run-markbits.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BLOCK_SHIFT 12
#define BLOCK_BYTES (1u << BLOCK_SHIFT)
#define GRANULE_BYTES 16u
#define MAX_SLOTS (BLOCK_BYTES / GRANULE_BYTES)   /* 256 */
#define MARK_WORDS (MAX_SLOTS / 64)               /* 4 */
#define STATE_SMALL 2
#define MAX_RUNS 101

/* ---- the three layouts --------------------------------------------------- */

/* bits: bibop's struct block, field for field (the union holds the marks). */
struct desc_bits {
  uint8_t state;
  uint8_t kind;
  uint16_t granules;
  uint16_t nobjs;
  uint16_t n_marks;
  uint32_t obj_bytes;
  uint32_t recip;
  uint64_t mark[MARK_WORDS];
  void *head;
  void *next;
};
_Static_assert(sizeof(struct desc_bits) == 64, "bits descriptor is one line");

/* The 64-byte header of the byte layouts: the same fields; where the mark
   words were, bibop's union keeps its other members (large, run), and the
   byte stride of the mark array (granules, or 1 with -i slot). */
struct desc_hdr {
  uint8_t state;
  uint8_t kind;
  uint16_t granules;
  uint16_t nobjs;
  uint16_t n_marks;
  uint32_t obj_bytes;
  uint32_t recip;
  uint16_t byte_stride;
  uint8_t union_rest[30];
  void *head;
  void *next;
};
_Static_assert(sizeof(struct desc_hdr) == 64, "byte-layout header is one line");

struct desc_inline {
  struct desc_hdr h;
  uint8_t mark[MAX_SLOTS];
};
_Static_assert(sizeof(struct desc_inline) == 320, "inline descriptor is 64 + 256 bytes");

enum repr { R_BITS, R_INLINE, R_SIDE, N_REPR };
static const char *const repr_name[N_REPR] = {"bits", "inline", "side"};

struct heap {
  size_t nblocks;
  struct desc_bits *bits;
  struct desc_inline *inl;
  struct desc_hdr *hdr;      /* side: headers */
  uint8_t *side;             /* side: 256 mark bytes per block */
};

/* ---- the marking loops --------------------------------------------------- */

/* Each returns the number of "newly marked" answers.  The header checks are
   bibop's (state must be SMALL, the index must be below nobjs); they never
   fail here, but their loads and branches are part of the cost. */

static __attribute__((noinline)) size_t mark_bits_plain(struct heap *h, const uint32_t *s, size_t n) {
  struct desc_bits *const d0 = h->bits;
  size_t newly = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t a = s[k];
    struct desc_bits *d = &d0[a >> BLOCK_SHIFT];
    if (d->state != STATE_SMALL) continue;
    unsigned i = (unsigned)(((uint64_t)(a & (BLOCK_BYTES - 1)) * d->recip) >> 32);
    if (i >= d->nobjs) continue;
    uint64_t *w = &d->mark[i >> 6], bit = (uint64_t)1 << (i & 63);
    if (*w & bit) continue;
    *w |= bit;
    d->n_marks++;
    newly++;
  }
  return newly;
}

static __attribute__((noinline)) size_t mark_bits_atomic(struct heap *h, const uint32_t *s, size_t n) {
  struct desc_bits *const d0 = h->bits;
  size_t newly = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t a = s[k];
    struct desc_bits *d = &d0[a >> BLOCK_SHIFT];
    if (d->state != STATE_SMALL) continue;
    unsigned i = (unsigned)(((uint64_t)(a & (BLOCK_BYTES - 1)) * d->recip) >> 32);
    if (i >= d->nobjs) continue;
    uint64_t *w = &d->mark[i >> 6], bit = (uint64_t)1 << (i & 63);
    if (__atomic_load_n(w, __ATOMIC_RELAXED) & bit) continue;
    if (__atomic_fetch_or(w, bit, __ATOMIC_RELAXED) & bit) continue;
    __atomic_fetch_add(&d->n_marks, 1, __ATOMIC_RELAXED);
    newly++;
  }
  return newly;
}

/* The byte layouts: HDR(a) is the header, MARKS(a, d) the block's mark bytes
   (the arrays' bases are loaded once, as the bits loop's is). */
#define BYTE_LOOPS(NAME, HDR, MARKS)                                                          \
  static __attribute__((noinline)) size_t mark_##NAME##_plain(struct heap *h,                 \
                                                              const uint32_t *s, size_t n) {  \
    struct desc_inline *const inl = h->inl;                                                   \
    struct desc_hdr *const hdr = h->hdr;                                                      \
    uint8_t *const side = h->side;                                                            \
    (void)inl, (void)hdr, (void)side;                                                         \
    size_t newly = 0;                                                                         \
    for (size_t k = 0; k < n; k++) {                                                          \
      uint32_t a = s[k];                                                                      \
      struct desc_hdr *d = HDR(a);                                                            \
      if (d->state != STATE_SMALL) continue;                                                  \
      unsigned i = (unsigned)(((uint64_t)(a & (BLOCK_BYTES - 1)) * d->recip) >> 32);          \
      if (i >= d->nobjs) continue;                                                            \
      uint8_t *m = MARKS(a, d) + i * d->byte_stride;                                          \
      if (*m) continue;                                                                       \
      *m = 1;                                                                                 \
      d->n_marks++;                                                                           \
      newly++;                                                                                \
    }                                                                                         \
    return newly;                                                                             \
  }                                                                                           \
  static __attribute__((noinline)) size_t mark_##NAME##_atomic(struct heap *h,                \
                                                               const uint32_t *s, size_t n) { \
    struct desc_inline *const inl = h->inl;                                                   \
    struct desc_hdr *const hdr = h->hdr;                                                      \
    uint8_t *const side = h->side;                                                            \
    (void)inl, (void)hdr, (void)side;                                                         \
    size_t newly = 0;                                                                         \
    for (size_t k = 0; k < n; k++) {                                                          \
      uint32_t a = s[k];                                                                      \
      struct desc_hdr *d = HDR(a);                                                            \
      if (d->state != STATE_SMALL) continue;                                                  \
      unsigned i = (unsigned)(((uint64_t)(a & (BLOCK_BYTES - 1)) * d->recip) >> 32);          \
      if (i >= d->nobjs) continue;                                                            \
      uint8_t *m = MARKS(a, d) + i * d->byte_stride;                                          \
      if (__atomic_load_n(m, __ATOMIC_RELAXED)) continue;                                     \
      __atomic_store_n(m, 1, __ATOMIC_RELAXED);                                               \
      __atomic_fetch_add(&d->n_marks, 1, __ATOMIC_RELAXED);                                   \
      newly++;                                                                                \
    }                                                                                         \
    return newly;                                                                             \
  }

#define INLINE_HDR(a) (&inl[(a) >> BLOCK_SHIFT].h)
#define INLINE_MARKS(a, d) (((struct desc_inline *)(d))->mark)
#define SIDE_HDR(a) (&hdr[(a) >> BLOCK_SHIFT])
#define SIDE_MARKS(a, d) (side + ((size_t)((a) >> BLOCK_SHIFT) << 8))
BYTE_LOOPS(inline, INLINE_HDR, INLINE_MARKS)
BYTE_LOOPS(side, SIDE_HDR, SIDE_MARKS)

typedef size_t (*mark_fn)(struct heap *, const uint32_t *, size_t);
static const mark_fn mark_fns[N_REPR][2] = {
    {mark_bits_plain, mark_bits_atomic},
    {mark_inline_plain, mark_inline_atomic},
    {mark_side_plain, mark_side_atomic},
};

/* ---- utilities ----------------------------------------------------------- */

static uint64_t rng_state;
static inline uint64_t rnd(void) {   /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}
/* Uniform in [0, n), n < 2^32. */
static inline uint32_t rnd_below(uint32_t n) { return (uint32_t)(((rnd() >> 32) * n) >> 32); }

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static uint64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

static bool use_huge;
static void *map_zeroed(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    fprintf(stderr, "markbits: mmap of %zu bytes: %s\n", bytes, strerror(errno));
    exit(1);
  }
  if (use_huge) (void)madvise(p, bytes, MADV_HUGEPAGE);
  memset(p, 0, bytes);   /* fault every page in now, not while timing */
  return p;
}

static void *xrealloc(void *p, size_t bytes) {
  p = realloc(p, bytes);
  if (!p) {
    fprintf(stderr, "markbits: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static inline uint64_t mix64(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdu;
}

/* ---- expected state and checking ----------------------------------------- */

static uint64_t *expected;     /* MARK_WORDS per block: the live objects */
static size_t n_distinct;
static uint64_t expected_sum;

static uint64_t checksum_block(uint64_t h, size_t b, const uint64_t *w) {
  if (!(w[0] | w[1] | w[2] | w[3])) return h;
  h = mix64(h, b);
  for (unsigned j = 0; j < MARK_WORDS; j++) h = mix64(h, w[j]);
  return h;
}

/* Check the state left by one run of (r, threads) that answered `newly`,
   then clear it.  Returns false (with a message) on any discrepancy; *dup
   gets the double claims. */
static bool check_and_clear(struct heap *h, enum repr r, bool may_dup, size_t newly, size_t *dup) {
  size_t distinct = 0, excess = 0;
  uint64_t sum = 0;
  bool ok = true;
  for (size_t b = 0; b < h->nblocks && ok; b++) {
    uint64_t w[MARK_WORDS] = {0, 0, 0, 0};
    unsigned nm;
    if (r == R_BITS) {
      struct desc_bits *d = &h->bits[b];
      memcpy(w, d->mark, sizeof w);
      nm = d->n_marks;
      memset(d->mark, 0, sizeof d->mark);
      d->n_marks = 0;
    } else {
      struct desc_hdr *d = r == R_INLINE ? &h->inl[b].h : &h->hdr[b];
      uint8_t *m = r == R_INLINE ? h->inl[b].mark : h->side + (b << 8);
      unsigned stride = d->byte_stride;
      for (unsigned j = 0; j < MAX_SLOTS; j++) {
        if (j % 8 == 0) {   /* skip 8 clear bytes at a time */
          uint64_t eight;
          memcpy(&eight, m + j, 8);
          if (!eight) { j += 7; continue; }
        }
        if (!m[j]) continue;
        if (m[j] != 1 || j % stride || j / stride >= d->nobjs) {
          fprintf(stderr, "markbits: %s: block %zu: stray mark byte %u = %u\n", repr_name[r], b,
                  j, m[j]);
          ok = false;
          break;
        }
        unsigned i = j / stride;
        w[i >> 6] |= (uint64_t)1 << (i & 63);
      }
      nm = d->n_marks;
      memset(m, 0, MAX_SLOTS);
      d->n_marks = 0;
    }
    unsigned pop = 0;
    for (unsigned j = 0; j < MARK_WORDS; j++) {
      pop += (unsigned)__builtin_popcountll(w[j]);
      if (w[j] != expected[b * MARK_WORDS + j]) ok = false;
    }
    if (!ok) {
      fprintf(stderr, "markbits: %s: block %zu: mark state differs from the expected one\n",
              repr_name[r], b);
      break;
    }
    if (nm != pop && !(may_dup && nm > pop)) {
      fprintf(stderr, "markbits: %s: block %zu: n_marks %u for %u marks\n", repr_name[r], b, nm,
              pop);
      ok = false;
      break;
    }
    excess += nm - pop;
    distinct += pop;
    sum = checksum_block(sum, b, w);
  }
  if (!ok) return false;
  if (distinct != n_distinct || sum != expected_sum) {
    fprintf(stderr, "markbits: %s: %zu distinct marked (expected %zu), checksum %016" PRIx64
            " (expected %016" PRIx64 ")\n", repr_name[r], distinct, n_distinct, sum, expected_sum);
    return false;
  }
  if (newly != distinct + excess || (!may_dup && excess)) {
    fprintf(stderr, "markbits: %s: %zu newly-marked answers for %zu objects (n_marks excess %zu)\n",
            repr_name[r], newly, distinct, excess);
    return false;
  }
  *dup = excess;
  return true;
}

/* ---- timed runs ------------------------------------------------------------ */

struct job {
  mark_fn fn;
  struct heap *h;
  const uint32_t *s;
  size_t n, newly;
  uint64_t t0, t1, cpu;   /* wall-clock start and end, CPU time used */
  pthread_barrier_t *bar;
};

static void *job_run(void *arg) {
  struct job *j = arg;
  if (j->bar) pthread_barrier_wait(j->bar);
  uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  j->t0 = now_ns();
  j->newly = j->fn(j->h, j->s, j->n);
  j->t1 = now_ns();
  j->cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
  return NULL;
}

/* One run; returns elapsed ns, *newly the newly-marked answers, *cpu the
   CPU time of the thread that used more. */
static uint64_t timed_run(struct heap *h, mark_fn fn, int threads, const uint32_t *s, size_t n,
                          size_t *newly, uint64_t *cpu) {
  if (threads == 1) {
    struct job j = {fn, h, s, n, 0, 0, 0, 0, NULL};
    job_run(&j);
    *newly = j.newly;
    *cpu = j.cpu;
    return j.t1 - j.t0;
  }
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, 2);
  size_t half = n / 2;
  struct job j[2] = {{fn, h, s, half, 0, 0, 0, 0, &bar},
                     {fn, h, s + half, n - half, 0, 0, 0, 0, &bar}};
  pthread_t t;
  if (pthread_create(&t, NULL, job_run, &j[1]) != 0) {
    fprintf(stderr, "markbits: pthread_create failed\n");
    exit(1);
  }
  job_run(&j[0]);
  pthread_join(t, NULL);
  pthread_barrier_destroy(&bar);
  *newly = j[0].newly + j[1].newly;
  *cpu = j[0].cpu > j[1].cpu ? j[0].cpu : j[1].cpu;
  uint64_t t0 = j[0].t0 < j[1].t0 ? j[0].t0 : j[1].t0;
  uint64_t t1 = j[0].t1 > j[1].t1 ? j[0].t1 : j[1].t1;
  return t1 - t0;
}

/* ---- main ---------------------------------------------------------------- */

struct config { enum repr r; int atomic, threads; };
#define N_CONFIGS 9
static const struct config configs[N_CONFIGS] = {
    {R_BITS, 0, 1},   {R_BITS, 1, 1},   {R_BITS, 1, 2},
    {R_INLINE, 0, 1}, {R_INLINE, 1, 1}, {R_INLINE, 1, 2},
    {R_SIDE, 0, 1},   {R_SIDE, 1, 1},   {R_SIDE, 1, 2},
};

/* Block size classes (granules) and their weights, in blocks: mostly small
   objects, as in a typical functional-language or C heap. */
static const struct { unsigned granules, weight; } class_mix[] = {
    {1, 25}, {2, 25}, {3, 10}, {4, 15}, {6, 5}, {8, 8}, {16, 5}, {32, 4}, {64, 2}, {128, 1},
};

static void usage(void) {
  fprintf(stderr,
          "usage: markbits [-h heap_MiB] [-r runs] [-l live_fraction] [-m max_live] [-s seed]\n"
          "                [-c granules] [-i granule|slot] [-o both|address|random] [-H]\n");
  exit(2);
}

int main(int argc, char **argv) {
  unsigned long heap_mib = 64, runs = 7, max_live = 1ul << 20, fixed_granules = 0;
  double live = 0.5;
  uint64_t seed = 12345;
  bool per_slot = false, do_addr = true, do_rand = true;
  int opt;
  while ((opt = getopt(argc, argv, "h:r:l:m:s:c:i:o:H")) != -1) {
    char *end = NULL;
    switch (opt) {
      case 'h': heap_mib = strtoul(optarg, &end, 10); break;
      case 'r': runs = strtoul(optarg, &end, 10); break;
      case 'l': live = strtod(optarg, &end); break;
      case 'm': max_live = strtoul(optarg, &end, 10); break;
      case 's': seed = strtoull(optarg, &end, 10); break;
      case 'c': fixed_granules = strtoul(optarg, &end, 10); break;
      case 'i':
        if (!strcmp(optarg, "slot")) per_slot = true;
        else if (strcmp(optarg, "granule")) usage();
        break;
      case 'o':
        do_addr = !strcmp(optarg, "both") || !strcmp(optarg, "address");
        do_rand = !strcmp(optarg, "both") || !strcmp(optarg, "random");
        if (!do_addr && !do_rand) usage();
        break;
      case 'H': use_huge = true; break;
      default: usage();
    }
    if (end && *end) usage();
  }
  if (optind != argc || heap_mib < 1 || heap_mib > 4095 || runs < 1 || runs > MAX_RUNS ||
      !(live > 0 && live <= 1) || max_live < 1 ||
      (fixed_granules && (fixed_granules > 128 || MAX_SLOTS / fixed_granules < 1)))
    usage();
  rng_state = seed;

  /* The heap's blocks and their size classes. */
  struct heap heap = {0};
  heap.nblocks = (size_t)heap_mib << (20 - BLOCK_SHIFT);
  size_t nb = heap.nblocks;
  heap.bits = map_zeroed(nb * sizeof(struct desc_bits));
  heap.inl = map_zeroed(nb * sizeof(struct desc_inline));
  heap.hdr = map_zeroed(nb * sizeof(struct desc_hdr));
  heap.side = map_zeroed(nb * MAX_SLOTS);
  expected = map_zeroed(nb * MARK_WORDS * sizeof(uint64_t));
  unsigned total_weight = 0;
  for (size_t c = 0; c < sizeof class_mix / sizeof class_mix[0]; c++)
    total_weight += class_mix[c].weight;
  size_t slots = 0;
  for (size_t b = 0; b < nb; b++) {
    unsigned g = (unsigned)fixed_granules;
    if (!g) {
      unsigned x = rnd_below(total_weight);
      size_t c = 0;
      while (x >= class_mix[c].weight) x -= class_mix[c++].weight;
      g = class_mix[c].granules;
    }
    uint32_t bytes = g * GRANULE_BYTES;
    uint16_t nobjs = (uint16_t)(BLOCK_BYTES / bytes);
    uint32_t recip = (uint32_t)((((uint64_t)1 << 32) + bytes - 1) / bytes);
    struct desc_hdr hd = {.state = STATE_SMALL, .kind = 1, .granules = (uint16_t)g,
                          .nobjs = nobjs, .obj_bytes = bytes, .recip = recip,
                          .byte_stride = (uint16_t)(per_slot ? 1 : g)};
    struct desc_bits *db = &heap.bits[b];
    db->state = hd.state; db->kind = hd.kind; db->granules = hd.granules;
    db->nobjs = hd.nobjs; db->obj_bytes = hd.obj_bytes; db->recip = hd.recip;
    heap.inl[b].h = hd;
    heap.hdr[b] = hd;
    slots += nobjs;
  }

  /* The live objects and the candidate stream in address order. */
  double p = live;
  if (p * (double)slots > (double)max_live) p = (double)max_live / (double)slots;
  uint64_t threshold = p >= 1 ? UINT64_MAX : (uint64_t)(p * 18446744073709551616.0);
  size_t cap = (size_t)(p * (double)slots * 1.6) + 1024, n = 0;
  uint32_t *addr_order = xrealloc(NULL, cap * sizeof *addr_order);
  for (size_t b = 0; b < nb; b++) {
    const struct desc_bits *d = &heap.bits[b];
    for (unsigned i = 0; i < d->nobjs; i++) {
      if (rnd() >= threshold) continue;
      expected[b * MARK_WORDS + (i >> 6)] |= (uint64_t)1 << (i & 63);
      n_distinct++;
      uint32_t a = (uint32_t)((b << BLOCK_SHIFT) + i * d->obj_bytes);
      do {
        if (n == cap) addr_order = xrealloc(addr_order, (cap *= 2) * sizeof *addr_order);
        addr_order[n++] = a;
      } while (rnd() % 3 == 0);   /* one more with probability 1/3: mean 1.5 */
    }
  }
  for (size_t b = 0; b < nb; b++) expected_sum = checksum_block(expected_sum, b, &expected[b * MARK_WORDS]);
  if (n < 2 || n > UINT32_MAX) {
    fprintf(stderr, "markbits: %zu candidates: heap too small or too large\n", n);
    return 1;
  }
  uint32_t *rand_order = NULL;
  if (do_rand) {
    rand_order = xrealloc(NULL, n * sizeof *rand_order);
    memcpy(rand_order, addr_order, n * sizeof *rand_order);
    for (size_t k = n - 1; k > 0; k--) {
      size_t j = rnd_below((uint32_t)(k + 1));
      uint32_t t = rand_order[k];
      rand_order[k] = rand_order[j];
      rand_order[j] = t;
    }
  }

  const size_t meta_bytes[N_REPR] = {
      nb * sizeof(struct desc_bits),
      nb * sizeof(struct desc_inline),
      nb * (sizeof(struct desc_hdr) + MAX_SLOTS),
  };

  /* Rounds of all configurations, checked after every run. */
  static double ns[2][N_CONFIGS][MAX_RUNS], cpu_ns[2][N_CONFIGS][MAX_RUNS];
  static size_t dups[2][N_CONFIGS];
  for (int o = 0; o < 2; o++) {
    if (!(o == 0 ? do_addr : do_rand)) continue;
    const uint32_t *s = o == 0 ? addr_order : rand_order;
    for (unsigned long round = 0; round < runs; round++) {
      for (int c0 = 0; c0 < N_CONFIGS; c0++) {
        int c = (c0 + (int)round) % N_CONFIGS;
        const struct config *cf = &configs[c];
        size_t newly = 0, dup = 0;
        uint64_t cpu = 0;
        uint64_t t = timed_run(&heap, mark_fns[cf->r][cf->atomic], cf->threads, s, n, &newly, &cpu);
        if (!check_and_clear(&heap, cf->r, cf->r != R_BITS && cf->threads > 1, newly, &dup)) {
          fprintf(stderr, "markbits: FAILED: heap %lu MiB, %s order, %s %s, %d thread(s)\n",
                  heap_mib, o == 0 ? "address" : "random", repr_name[cf->r],
                  cf->atomic ? "atomic" : "plain", cf->threads);
          return 1;
        }
        ns[o][c][round] = (double)t / (double)n;
        cpu_ns[o][c][round] = (double)cpu / (double)n;
        dups[o][c] += dup;
      }
    }
  }

  for (int o = 0; o < 2; o++) {
    if (!(o == 0 ? do_addr : do_rand)) continue;
    for (int c = 0; c < N_CONFIGS; c++) {
      const struct config *cf = &configs[c];
      double *v = ns[o][c], *u = cpu_ns[o][c];
      qsort(v, runs, sizeof *v, cmp_double);
      qsort(u, runs, sizeof *u, cmp_double);
      double med = runs % 2 ? v[runs / 2] : (v[runs / 2 - 1] + v[runs / 2]) / 2;
      double cpu_med = runs % 2 ? u[runs / 2] : (u[runs / 2 - 1] + u[runs / 2]) / 2;
      printf("markbits heap_mib=%lu blocks=%zu slots=%zu distinct=%zu candidates=%zu index=%s "
             "order=%s repr=%s prim=%s threads=%d ns=%.3f min=%.3f max=%.3f cpu=%.3f dup=%zu "
             "meta_bytes=%zu checksum=%016" PRIx64 "\n",
             heap_mib, nb, slots, n_distinct, n, per_slot ? "slot" : "granule",
             o == 0 ? "address" : "random", repr_name[cf->r], cf->atomic ? "atomic" : "plain",
             cf->threads, med, v[0], v[runs - 1], cpu_med, dups[o][c], meta_bytes[cf->r], expected_sum);
    }
  }
  return 0;
}
