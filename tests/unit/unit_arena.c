/* unit_arena.c: the large-pages arena (arena.c). Runs of 2 MiB chunks come
 * out 2 MiB-aligned, inside regions the page table knows, writable at both
 * ends; best fit (the smallest free run that fits is used); freed runs
 * coalesce by address (a request of the combined size is served at the same
 * address with no new reservation); free committed chunks are used before
 * any is committed; the fresh/dirty flag is honest; runs
 * longer than a region and a 1 GiB GC_malloc_atomic work; decommitting
 * idle chunks with age 0 gives committed memory back; a request whose
 * reservation fails halfway (descriptor arrays refused under RLIMIT_AS)
 * leaves no region, mapping or count behind. Direct calls run under the
 * allocation lock, after GC_init. */
#include "internal.h"
#include "unit_check.h"

#include <sys/resource.h>
#include <unistd.h>

#define MAX_HELD 4096

static char *held[MAX_HELD];   /* chunks taken to empty the arena's free runs */
static size_t n_held;

static size_t reserved_bytes(void) { return arena_reserved_bytes(); }

static bool chunk_committed(uintptr_t chunk) {
  struct region_info *ri = pt_region_info(pt_table[chunk >> REGION_SHIFT]);
  return ri->chunk_committed[(chunk >> CHUNK_SHIFT) & (CHUNKS_PER_REGION - 1)] != 0;
}

/* A run fresh from the arena: aligned, known to the page table at every
   chunk, descriptors untouched (the arena knows nothing of blocks), and
   readable/writable at both ends. */
static void check_run(char *p, size_t n, bool fresh, const char *what) {
  REQUIRE(p != NULL, "%s: arena_alloc_chunks(%zu) returned NULL", what, n);
  EXPECT(((uintptr_t)p & (CHUNK_BYTES - 1)) == 0, "%s: run %p not 2 MiB-aligned", what, (void *)p);
  char *end = p + n * CHUNK_BYTES;
  for (char *c = p; c < end; c += CHUNK_BYTES) {
    EXPECT(arena_contains((uintptr_t)c) && arena_contains((uintptr_t)c + CHUNK_BYTES - 1),
           "%s: chunk %p of run %p outside the arena's regions", what, (void *)c, (void *)p);
    struct block *b = pt_block_of((uintptr_t)c);
    REQUIRE(b != NULL, "%s: no descriptor for chunk %p", what, (void *)c);
    EXPECT_PTR_EQ(block_addr(b), c);
    EXPECT_PTR_EQ(block_addr(pt_block_of((uintptr_t)c + CHUNK_BYTES - 1)),
                  c + CHUNK_BYTES - BLOCK_BYTES);
    EXPECT(b->state == BLOCK_UNUSED, "%s: chunk %p handed out with block state %u", what,
           (void *)c, b->state);
    EXPECT(chunk_committed((uintptr_t)c), "%s: chunk %p not marked committed", what, (void *)c);
    if (fresh) {
      EXPECT(c[0] == 0 && c[CHUNK_BYTES - 1] == 0, "%s: fresh chunk %p not zero", what,
             (void *)c);
    }
  }
  p[0] = 1;
  end[-1] = 2;
  EXPECT(p[0] == 1 && end[-1] == 2, "%s: run %p not writable", what, (void *)p);
}

static char *take(size_t n, const char *what) {
  bool fresh = false;
  char *p = arena_alloc_chunks(n, &fresh);
  check_run(p, n, fresh, what);
  return p;
}

static void check_basic_runs(void) {
  static const size_t sizes[] = { 1, 2, 3, 7, 64, 1, 5 };
  char *runs[7];
  bool fresh;
  EXPECT_PTR_EQ(arena_alloc_chunks(0, &fresh), NULL);
  for (int i = 0; i < 7; i++) runs[i] = take(sizes[i], "basic");
  for (int i = 0; i < 7; i++)
    for (int j = 0; j < 7; j++) {
      if (i == j) continue;
      bool disjoint = runs[i] + sizes[i] * CHUNK_BYTES <= runs[j] ||
                      runs[j] + sizes[j] * CHUNK_BYTES <= runs[i];
      EXPECT(disjoint, "runs %p (%zu chunks) and %p (%zu chunks) overlap", (void *)runs[i],
             sizes[i], (void *)runs[j], sizes[j]);
    }
  for (int i = 0; i < 7; i++) arena_free_chunks(runs[i], sizes[i]);
}

/* Take single chunks until the arena has to reserve a new region: then it
   had no free run left, and its only free run is that region minus the
   chunk just taken. Returns the new region's base. */
static char *empty_the_arena(void) {
  size_t before = reserved_bytes();
  for (;;) {
    REQUIRE(n_held < MAX_HELD, "the arena never reserved a new region after %zu chunks", n_held);
    char *c = take(1, "drain");
    held[n_held++] = c;
    if (reserved_bytes() != before) {
      EXPECT_EQ(reserved_bytes() - before, REGION_BYTES);
      EXPECT(((uintptr_t)c & (REGION_BYTES - 1)) == 0,
             "first chunk of a new reservation %p is not its region's base", (void *)c);
      return c;
    }
  }
}

#define AT(base, k) ((base) + (size_t)(k) * CHUNK_BYTES)

static void check_best_fit_and_coalescing(void) {
  char *r = empty_the_arena();   /* free runs now: [r+1, r+128) only */
  size_t reserved = reserved_bytes();
  NOTE("arena emptied after %zu chunks; fresh region at %p", n_held, (void *)r);

  char *a = take(3, "A"), *b = take(1, "B"), *c = take(5, "C"), *d = take(1, "D");
  EXPECT_PTR_EQ(a, AT(r, 1));
  EXPECT_PTR_EQ(b, AT(r, 4));
  EXPECT_PTR_EQ(c, AT(r, 5));
  EXPECT_PTR_EQ(d, AT(r, 10));
  arena_free_chunks(a, 3);
  arena_free_chunks(c, 5);
  /* Free runs: 3 at r+1, 5 at r+5, 117 at r+11. */
  char *x = take(3, "best fit 3");
  EXPECT(x == AT(r, 1), "a request of 3 chunks got %p, not the 3-chunk run %p", (void *)x,
         (void *)AT(r, 1));
  char *y = take(4, "best fit 4");
  EXPECT(y == AT(r, 5), "a request of 4 chunks got %p, not the 5-chunk run %p", (void *)y,
         (void *)AT(r, 5));
  char *z = take(1, "best fit 1");
  EXPECT(z == AT(r, 9), "a request of 1 chunk got %p, not the 1-chunk leftover %p", (void *)z,
         (void *)AT(r, 9));
  EXPECT_EQ(reserved_bytes(), reserved);

  /* x (3) and b (1) are adjacent: freed, they must serve a request of 4
     together (else it would come from the long run at r+11). */
  arena_free_chunks(x, 3);
  arena_free_chunks(b, 1);
  char *xb = take(4, "coalesced 3+1");
  EXPECT(xb == AT(r, 1), "after freeing adjacent runs of 3 and 1 at %p, a request of 4 got %p",
         (void *)AT(r, 1), (void *)xb);
  /* Now free everything around in an order that joins on both sides. */
  arena_free_chunks(z, 1);    /* isolated: y and d are taken */
  arena_free_chunks(xb, 4);   /* joins nothing (y at r+5 taken) */
  arena_free_chunks(y, 4);    /* joins xb before and z after */
  arena_free_chunks(d, 1);    /* joins [r+1, r+10) before and [r+11, r+128) after */
  char *all = take(CHUNKS_PER_REGION - 1, "coalesced region");
  EXPECT(all == AT(r, 1), "after freeing every run, a request of %zu chunks got %p, not %p",
         CHUNKS_PER_REGION - 1, (void *)all, (void *)AT(r, 1));
  EXPECT_EQ(reserved_bytes(), reserved);
  arena_free_chunks(all, CHUNKS_PER_REGION - 1);
}

/* Dirty chunks say so; decommitted ones come back zeroed and fresh. */
static void check_dirty_and_decommit(void) {
  char *p = take(4, "dirty");
  memset(p, 0x77, 4096);
  memset(p + 4 * CHUNK_BYTES - 4096, 0x77, 4096);
  arena_free_chunks(p, 4);
  bool fresh = true;
  char *q = arena_alloc_chunks(4, &fresh);
  EXPECT_PTR_EQ(q, p);   /* the free runs are as before: best fit picks it again */
  EXPECT(!fresh, "chunks just written and freed were reported fresh");
  if (q == p) EXPECT(q[0] == 0x77, "contents of a reused committed chunk changed: %d", q[0]);
  arena_free_chunks(q, 4);

  size_t committed = arena_committed_bytes();
  EXPECT(arena_decommit_idle(GC_gc_no, 1u << 30) == 0,
         "chunks free for fewer collections than the age were decommitted");
  EXPECT_EQ(arena_committed_bytes(), committed);
  size_t released = arena_decommit_idle(GC_gc_no, 0);
  NOTE("decommit with age 0 released %zu MiB", released >> 20);
  EXPECT(released >= 4 * CHUNK_BYTES, "released only %zu bytes", released);
  EXPECT_EQ(arena_committed_bytes(), committed - released);
  for (size_t k = 0; k < 4; k++)
    EXPECT(!chunk_committed((uintptr_t)AT(p, k)), "chunk %p still committed", (void *)AT(p, k));
  EXPECT_EQ(arena_decommit_idle(GC_gc_no, 0), 0);   /* nothing left to give back */

  fresh = false;
  q = arena_alloc_chunks(4, &fresh);
  EXPECT_PTR_EQ(q, p);
  EXPECT(fresh, "decommitted chunks handed out again were not reported fresh");
  check_run(q, 4, fresh, "after decommit");
  if (q == p) {
    /* check_run wrote q[0]; look just after it. */
    EXPECT(q[1] == 0 && q[4095] == 0 && q[4 * CHUNK_BYTES - 4096] == 0,
           "decommitted memory did not come back zeroed: %d %d %d", q[1], q[4095],
           q[4 * CHUNK_BYTES - 4096]);
  }
  EXPECT_EQ(arena_committed_bytes(), committed - released + 4 * CHUNK_BYTES);
  arena_free_chunks(q, 4);
}

/* Committed free chunks are handed out before any chunk is committed: a
   request that a free committed stretch can serve never grows the
   committed heap, even when a shorter uncommitted run would fit it better
   (the old best fit over runs alone took the unused tail of a region and
   left a heap expanded by GC_expand_hp a third larger than asked). */
static void check_committed_first(void) {
  char *r = empty_the_arena();   /* free runs now: [r+1, r+128), uncommitted */
  char *wide = take(100, "committed stretch");
  char *fence = take(1, "fence");   /* keeps the two free runs apart */
  EXPECT_PTR_EQ(wide, AT(r, 1));
  EXPECT_PTR_EQ(fence, AT(r, 101));
  arena_free_chunks(wide, 100);
  /* Free runs: 100 committed chunks at r+1, 26 uncommitted at r+102. */
  size_t committed = arena_committed_bytes();
  static const size_t sizes[] = { 1, 5, 20 };
  char *got[3];
  for (int i = 0; i < 3; i++) {
    got[i] = take(sizes[i], "committed first");
    EXPECT(got[i] >= AT(r, 1) && got[i] + sizes[i] * CHUNK_BYTES <= AT(r, 101),
           "a request of %zu chunks got %p, outside the free committed chunks [%p, %p)",
           sizes[i], (void *)got[i], (void *)AT(r, 1), (void *)AT(r, 101));
    EXPECT(arena_committed_bytes() == committed,
           "a request of %zu chunks committed %zu MiB while 100 committed chunks were free",
           sizes[i], (arena_committed_bytes() - committed) >> 20);
  }
  /* Best fit among committed stretches: 5 chunks freed in the middle of
     the stretch serve a request of 5 before the longer rest does. */
  arena_free_chunks(got[1], 5);
  char *again = take(5, "best committed fit");
  EXPECT_PTR_EQ(again, got[1]);
  /* A request no committed stretch fits commits new chunks, best fit. */
  char *beyond = take(90, "beyond the committed stretches");
  EXPECT(arena_committed_bytes() > committed, "a request of 90 chunks committed nothing");
  arena_free_chunks(beyond, 90);
  arena_free_chunks(again, 5);
  arena_free_chunks(got[0], 1);
  arena_free_chunks(got[2], 20);
  arena_free_chunks(fence, 1);
}

/* A run longer than a region: 150 chunks = 300 MiB. */
static void check_long_run(void) {
  size_t n = 150;
  char *p = take(n, "300 MiB");
  /* Write the last and first byte of every region the run crosses. */
  for (uintptr_t a = (uintptr_t)p; a < (uintptr_t)p + n * CHUNK_BYTES;
       a = (a & ~(uintptr_t)(REGION_BYTES - 1)) + REGION_BYTES) {
    char *c = (char *)a;
    *c = 3;
    EXPECT(pt_block_of(a) != NULL, "no descriptor for %p", (void *)c);
  }
  for (uintptr_t a = ((uintptr_t)p & ~(uintptr_t)(REGION_BYTES - 1)) + REGION_BYTES;
       a < (uintptr_t)p + n * CHUNK_BYTES; a += REGION_BYTES) {
    ((char *)a)[-1] = 4;
    EXPECT(((char *)a)[-1] == 4 && *(char *)a == 3, "region boundary %p", (void *)a);
  }
  arena_free_chunks(p, n);
}

static void check_public_giant(void) {
  size_t gib = (size_t)1 << 30;
  LOCK();
  size_t committed0 = arena_committed_bytes();
  UNLOCK();
  char *p = GC_malloc_atomic(gib);
  REQUIRE(p != NULL, "GC_malloc_atomic(1 GiB) failed");
  p[0] = 'a';
  p[gib / 2] = 'm';
  p[gib - 1] = 'z';
  EXPECT(p[0] == 'a' && p[gib / 2] == 'm' && p[gib - 1] == 'z', "1 GiB object not writable");
  EXPECT(GC_size(p) >= gib, "GC_size = %zu", GC_size(p));
  EXPECT_PTR_EQ(GC_base(p + gib - 1), p);
  struct block *h = pt_block_of((uintptr_t)p), *t = pt_block_of((uintptr_t)p + gib - 1);
  REQUIRE(h && t, "no descriptors for the 1 GiB object");
  EXPECT_EQ(h->state, BLOCK_LARGE);
  EXPECT_EQ(t->state, BLOCK_LARGE_TAIL);
  EXPECT_PTR_EQ(t->head, h);
  /* Every tail, across every region boundary, finds the head. */
  size_t bad_tails = 0;
  for (uintptr_t a = (uintptr_t)p + BLOCK_BYTES; a < (uintptr_t)p + gib; a += BLOCK_BYTES) {
    struct block *b = pt_block_of(a);
    if (!b || b->state != BLOCK_LARGE_TAIL || b->head != h) bad_tails++;
  }
  EXPECT(bad_tails == 0, "%zu blocks of the 1 GiB object do not point to its head", bad_tails);
  for (uintptr_t a = ((uintptr_t)p & ~(uintptr_t)(REGION_BYTES - 1)) + REGION_BYTES;
       a < (uintptr_t)p + gib; a += REGION_BYTES) {
    EXPECT_PTR_EQ(GC_base((void *)a), p);
    EXPECT_PTR_EQ(GC_base((void *)(a - 1)), p);
  }

  /* A pointerful one too, scanned and zeroed: 300 MiB. */
  size_t big = (size_t)300 << 20;
  char *q = GC_malloc(big);
  REQUIRE(q != NULL, "GC_malloc(300 MiB) failed");
  EXPECT(q[0] == 0 && q[big / 2] == 0 && q[big - 1] == 0, "300 MiB object not zeroed");
  q[0] = q[big - 1] = 1;
  GC_gcollect();   /* both live (on our stack): scanning 300 MiB must work */
  EXPECT(p[0] == 'a' && p[gib - 1] == 'z' && q[big - 1] == 1, "giant objects changed by a GC");

  LOCK();
  size_t committed1 = arena_committed_bytes();
  UNLOCK();
  EXPECT(committed1 >= gib + big, "committed %zu bytes with %zu bytes of objects live",
         committed1, gib + big);
  size_t uncommitted = 0;
  for (uintptr_t c = (uintptr_t)p; c < (uintptr_t)p + gib; c += CHUNK_BYTES)
    if (!chunk_committed(c)) uncommitted++;
  EXPECT(uncommitted == 0, "%zu chunks of the live 1 GiB object read uncommitted", uncommitted);
  GC_free(p);
  GC_free(q);
  GC_gcollect_and_unmap();
  LOCK();
  size_t committed2 = arena_committed_bytes();
  UNLOCK();
  NOTE("committed: %zu MiB before, %zu MiB with the giants, %zu MiB after free and unmap",
       committed0 >> 20, committed1 >> 20, committed2 >> 20);
  EXPECT(committed2 + gib + big <= committed1, "only %zu bytes decommitted after freeing %zu",
         committed1 - committed2, gib + big);
}

static size_t map_count(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  REQUIRE(f != NULL, "cannot read /proc/self/maps");
  size_t lines = 0;
  int c;
  while ((c = getc(f)) != EOF) lines += c == '\n';
  fclose(f);
  return lines;
}

static size_t address_space_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  REQUIRE(f != NULL, "cannot read /proc/self/statm");
  unsigned long pages = 0;
  REQUIRE(fscanf(f, "%lu", &pages) == 1, "cannot parse /proc/self/statm");
  fclose(f);
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* 64 regions of address space fit under the limit, but only about half of
   their descriptor arrays (6 MiB each, 14 MiB while being aligned): the
   request fails, and must take back every region and array it made. */
static void check_failed_reservation(void) {
  const size_t nregions = 64, arrays_allowed = 32;
  size_t reserved0 = arena_reserved_bytes(), committed0 = arena_committed_bytes();
  size_t regions0 = pt_heap_region_count(), maps0 = map_count();
  struct rlimit old;
  REQUIRE(getrlimit(RLIMIT_AS, &old) == 0, "getrlimit");
  struct rlimit tight = old;
  tight.rlim_cur = address_space_bytes() + nregions * REGION_BYTES +
                   arrays_allowed * (DESCRIPTOR_ARRAY_BYTES + OTHERS_BITS_PER_REGION + REGION_INFO_BYTES);
  if (old.rlim_cur != RLIM_INFINITY && tight.rlim_cur > old.rlim_cur) {
    NOTE("failed reservation: RLIMIT_AS already below what the check needs; skipped");
    return;
  }
  REQUIRE(setrlimit(RLIMIT_AS, &tight) == 0, "setrlimit");
  bool fresh;
  char *p = arena_alloc_chunks(nregions * CHUNKS_PER_REGION, &fresh);
  REQUIRE(setrlimit(RLIMIT_AS, &old) == 0, "setrlimit back");
  size_t maps1 = map_count();
  NOTE("failed reservation: %s; regions %zu -> %zu, mappings %zu -> %zu",
       p ? "served" : "refused", regions0, pt_heap_region_count(), maps0, maps1);
  if (p) {   /* the limit let everything through: nothing to check */
    arena_free_chunks(p, nregions * CHUNKS_PER_REGION);
    return;
  }
  EXPECT_EQ(arena_reserved_bytes(), reserved0);
  EXPECT_EQ(arena_committed_bytes(), committed0);
  EXPECT_EQ(pt_heap_region_count(), regions0);
  EXPECT(maps1 <= maps0 + 4, "a failed request left %zu more mappings", maps1 - maps0);
  char *after = take(1, "after a failed reservation");
  arena_free_chunks(after, 1);
}

int main(void) {
  GC_init();
  LOCK();
  check_basic_runs();
  check_best_fit_and_coalescing();
  check_dirty_and_decommit();
  check_committed_first();
  check_long_run();
  check_failed_reservation();
  for (size_t i = 0; i < n_held; i++) arena_free_chunks(held[i], 1);
  n_held = 0;
  UNLOCK();
  NOTE("arena: alignment, best fit, coalescing, dirty/fresh, decommit and long runs checked");
  check_public_giant();
  return unit_finish("unit_arena");
}
