/* unit_alloc.c: the allocator (alloc.c). GC_size for every request 0..2048
 * is the granule-rounded size with the extra byte of interior-pointer mode,
 * ((lb + 1 + 15) / 16) * 16 (bdwgc's answer), for NORMAL and PTRFREE, and
 * bdwgc's answer for uncollectable objects (which bdwgc gives no extra
 * byte); objects never overlap and lie inside heap blocks of the right
 * state; memory is zeroed even when a freed slot is reused (after a
 * collection and after GC_free); GC_free'd slots are reused, so that a
 * malloc/free loop with the collector disabled stays bounded;
 * GC_malloc_uncollectable objects survive with no references, and their
 * slots are reused only after GC_free. Address bookkeeping lives in malloc
 * memory, which the collector does not scan. */
#include "internal.h"
#include "unit_check.h"

static size_t expected_size(size_t lb) {
  size_t g = (lb + 1 + GRANULE_BYTES - 1) / GRANULE_BYTES;
  return (g ? g : 1) * GRANULE_BYTES;
}

/* bdwgc 8.2.2 (measured with Debian's libgc1): a small uncollectable object
   needs no extra byte, as it is never collected, so lb - 1 is allocated. */
static size_t expected_uncollectable_size(size_t lb) {
  if (lb != 0 && lb <= MAX_SMALL_BYTES - 1) return expected_size(lb - 1);
  return expected_size(lb);
}

static void check_sizes(void) {
  for (size_t lb = 0; lb <= 2048; lb++) {
    void *p = GC_malloc(lb), *q = GC_malloc_atomic(lb);
    REQUIRE(p && q, "allocation of %zu bytes failed", lb);
    EXPECT(GC_size(p) == expected_size(lb), "GC_size(GC_malloc(%zu)) = %zu, expected %zu", lb,
           GC_size(p), expected_size(lb));
    EXPECT(GC_size(q) == expected_size(lb), "GC_size(GC_malloc_atomic(%zu)) = %zu, expected %zu",
           lb, GC_size(q), expected_size(lb));
    EXPECT_PTR_EQ(GC_base(p), p);
    if (lb > 0) EXPECT_PTR_EQ(GC_base((char *)p + lb - 1), p);
  }
  size_t mismatches = 0, first_bad = 0, got = 0;
  for (size_t lb = 0; lb <= 2048; lb++) {
    void *u = GC_malloc_uncollectable(lb);
    REQUIRE(u != NULL, "GC_malloc_uncollectable(%zu) failed", lb);
    if (GC_size(u) != expected_uncollectable_size(lb) && mismatches++ == 0) {
      first_bad = lb;
      got = GC_size(u);
    }
    GC_free(u);
  }
  EXPECT(mismatches == 0, "GC_size(GC_malloc_uncollectable(lb)) differs from bdwgc's for %zu "
         "sizes in 0..2048; first lb = %zu: %zu, bdwgc answers %zu", mismatches, first_bad, got,
         expected_uncollectable_size(first_bad));
  NOTE("GC_size checked for every request 0..2048");
}

/* ---- disjointness ------------------------------------------------------------- */

#define N_OBJS 30000
static void *objs[N_OBJS];   /* .bss root: keeps them live */
static size_t objs_lb[N_OBJS];

struct span { uintptr_t lo, hi; size_t i; };

static int span_cmp(const void *a, const void *b) {
  uintptr_t x = ((const struct span *)a)->lo, y = ((const struct span *)b)->lo;
  return x < y ? -1 : x > y;
}

static void check_object_in_blocks(void *p, size_t lb) {
  struct block *b = pt_block_of((uintptr_t)p);
  REQUIRE(b != NULL, "object %p (%zu bytes) not in the heap", p, lb);
  size_t size = GC_size(p);
  EXPECT(size >= lb + 1, "object %p: GC_size %zu for a request of %zu", p, size, lb);
  EXPECT_PTR_EQ(GC_base(p), p);
  if (b->state == BLOCK_SMALL) {
    EXPECT(((uintptr_t)p & (BLOCK_BYTES - 1)) + size <= BLOCK_BYTES,
           "small object %p of %zu bytes crosses its block", p, size);
    unsigned i = 0;
    EXPECT(small_object_start(b, (uintptr_t)p, &i) == p, "%p is not a slot start", p);
    EXPECT((b->u.mark[i / 64] >> (i % 64)) & 1, "live object %p has its slot bit clear", p);
  } else {
    EXPECT(b->state == BLOCK_LARGE, "object %p of %zu bytes: block state %u", p, lb, b->state);
    EXPECT_PTR_EQ(block_addr(b), p);
    for (uintptr_t a = (uintptr_t)p + BLOCK_BYTES; a < (uintptr_t)p + size; a += BLOCK_BYTES) {
      struct block *t = pt_block_of(a);
      if (!t || t->state != BLOCK_LARGE_TAIL || t->head != b) {
        EXPECT(t && t->state == BLOCK_LARGE_TAIL && t->head == b,
               "block %#" PRIxPTR " of large object %p: state %u", a, p, t ? t->state : 99);
        break;
      }
    }
  }
}

static size_t random_request(unit_rng_t *r) {
  uint64_t x = unit_below(r, 100);
  if (x < 70) return unit_below(r, 257);
  if (x < 95) return unit_below(r, 2049);
  return 2049 + unit_below(r, 30000);
}

static void fill_object(size_t i) {
  uint64_t *w = objs[i];
  for (size_t k = 0; k < objs_lb[i] / 8; k++) w[k] = unit_payload(i, k);
}

static bool object_intact(size_t i) {
  uint64_t *w = objs[i];
  for (size_t k = 0; k < objs_lb[i] / 8; k++)
    if (w[k] != unit_payload(i, k)) return false;
  return true;
}

static void check_disjoint(unit_rng_t *r) {
  for (int round = 0; round < 3; round++) {
    /* Replace a random half (all of them the first time), collect, go on. */
    for (size_t i = 0; i < N_OBJS; i++) {
      if (round > 0 && unit_below(r, 2)) continue;
      objs_lb[i] = random_request(r);
      objs[i] = unit_below(r, 3) ? GC_malloc(objs_lb[i]) : GC_malloc_atomic(objs_lb[i]);
      REQUIRE(objs[i] != NULL, "allocation of %zu bytes failed", objs_lb[i]);
      fill_object(i);
    }
    GC_gcollect();
    struct span *sp = malloc(N_OBJS * sizeof *sp);
    REQUIRE(sp != NULL, "malloc failed");
    for (size_t i = 0; i < N_OBJS; i++) {
      check_object_in_blocks(objs[i], objs_lb[i]);
      sp[i] = (struct span){ (uintptr_t)objs[i], (uintptr_t)objs[i] + GC_size(objs[i]), i };
    }
    qsort(sp, N_OBJS, sizeof *sp, span_cmp);
    size_t overlaps = 0, damaged = 0;
    for (size_t i = 1; i < N_OBJS; i++)
      if (sp[i].lo < sp[i - 1].hi && overlaps++ < 5)
        fprintf(stderr, "objects %#" PRIxPTR "+%zu and %#" PRIxPTR "+%zu overlap\n",
                sp[i - 1].lo, (size_t)(sp[i - 1].hi - sp[i - 1].lo), sp[i].lo,
                (size_t)(sp[i].hi - sp[i].lo));
    for (size_t i = 0; i < N_OBJS; i++) damaged += !object_intact(i);
    EXPECT(overlaps == 0, "round %d: %zu overlapping pairs among %d objects", round, overlaps,
           N_OBJS);
    EXPECT(damaged == 0, "round %d: %zu of %d live objects lost their contents", round, damaged,
           N_OBJS);
    free(sp);
  }
  memset(objs, 0, sizeof objs);
  NOTE("%d live objects of random sizes: disjoint, inside their blocks, intact", N_OBJS);
}

/* ---- zeroing and reuse -------------------------------------------------------- */

static int addr_cmp(const void *a, const void *b) {
  uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
  return x < y ? -1 : x > y;
}

/* Sorted copy of n addresses, for membership tests. */
struct addr_set { uintptr_t *a; size_t n; };

static bool in_set(const struct addr_set *s, const void *p) {
  uintptr_t k = (uintptr_t)p;
  return bsearch(&k, s->a, s->n, sizeof k, addr_cmp) != NULL;
}

/* Allocate n objects of lb bytes with alloc, fill them with 0xff and keep
   their addresses only in malloc memory. */
static __attribute__((noinline)) struct addr_set dirty_objects(void *(*alloc)(size_t), size_t lb,
                                                               size_t n) {
  struct addr_set s = { malloc(n * sizeof(uintptr_t)), n };
  REQUIRE(s.a != NULL, "malloc failed");
  for (size_t i = 0; i < n; i++) {
    char *p = alloc(lb);
    REQUIRE(p != NULL, "allocation of %zu bytes failed", lb);
    memset(p, 0xff, GC_size(p));
    s.a[i] = (uintptr_t)p;
  }
  qsort(s.a, n, sizeof *s.a, addr_cmp);
  return s;
}

static __attribute__((noinline)) void free_all(const struct addr_set *s) {
  for (size_t i = 0; i < s->n; i++) GC_free((void *)s->a[i]);
}

/* Allocate until half of the old addresses were handed out again (or up to
   `cap` objects); every object must be zero. Returns how many were reused.
   The objects are GC_free'd at the end (uncollectable ones would stay). */
static __attribute__((noinline)) size_t count_reused_zeroed(void *(*alloc)(size_t), size_t lb,
                                                            size_t cap,
                                                            const struct addr_set *old,
                                                            const char *what) {
  size_t reused = 0, dirty = 0, made = 0;
  void **made_objs = malloc(cap * sizeof *made_objs);
  REQUIRE(made_objs != NULL, "malloc failed");
  for (; made < cap && reused < old->n / 2; made++) {
    unsigned char *p = alloc(lb);
    REQUIRE(p != NULL, "allocation of %zu bytes failed", lb);
    made_objs[made] = p;
    reused += in_set(old, p);
    size_t size = GC_size(p);
    for (size_t k = 0; k < size; k++)
      if (p[k]) {
        if (dirty++ < 3)
          fprintf(stderr, "%s: %zu-byte object %p has byte %zu = %#x\n", what, lb, (void *)p, k,
                  p[k]);
        break;
      }
  }
  EXPECT(dirty == 0, "%s, %zu bytes: %zu of %zu objects not zeroed", what, lb, dirty, made);
  for (size_t i = 0; i < made; i++) GC_free(made_objs[i]);
  free(made_objs);
  return reused;
}

static void *malloc_uncollectable(size_t lb) { return GC_malloc_uncollectable(lb); }
static void *malloc_normal(size_t lb) { return GC_malloc(lb); }

static void check_zeroing(void) {
  static const size_t sizes[] = { 0, 8, 24, 100, 500, 1000, 2000, 2047, 2048, 5000, 70000 };
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    size_t lb = sizes[s], n = lb > 4096 ? 200 : 3000;
    /* Reuse after a collection: the new objects take the class's free slots
       first, then fresh blocks, which come from those the collection gave
       back. With the collector off, nothing else frees memory meanwhile. */
    GC_disable();   /* else they would be collected, and reused, while being made */
    struct addr_set old = dirty_objects(malloc_normal, lb, n);
    GC_enable();
    unit_scrub_stack();
    GC_gcollect();
    GC_disable();
    size_t reused = count_reused_zeroed(malloc_normal, lb, 40 * n, &old, "after a collection");
    GC_enable();
    EXPECT(reused >= n / 2, "after a collection, only %zu of %zu old %zu-byte slots were "
           "handed out again", reused, n, lb);
    free(old.a);
    /* Reuse after GC_free, no collection in between. */
    GC_disable();
    old = dirty_objects(malloc_normal, lb, n);
    free_all(&old);
    reused = count_reused_zeroed(malloc_normal, lb, 2 * n, &old, "after GC_free");
    GC_enable();
    EXPECT(reused >= n / 2, "after GC_free, only %zu of %zu freed %zu-byte slots were handed "
           "out again", reused, n, lb);
    free(old.a);
    /* Uncollectable objects are zeroed too. */
    old = dirty_objects(malloc_uncollectable, lb, n);
    free_all(&old);
    reused = count_reused_zeroed(malloc_uncollectable, lb, 2 * n, &old,
                                 "uncollectable after GC_free");
    EXPECT(reused >= n / 2, "after GC_free, only %zu of %zu freed uncollectable %zu-byte slots "
           "were handed out again", reused, n, lb);
    free(old.a);
    GC_gcollect();
  }
  NOTE("new objects zeroed when reusing memory, after collections and GC_free");
}

/* With the collector off, only GC_free can make room: loops stay bounded. */
static void check_free_reuse_bounded(void) {
  GC_gcollect();
  GC_disable();
  size_t blocks0 = heap_blocks_in_use();
  for (int i = 0; i < 1000000; i++) {
    void *p = GC_malloc(40);
    REQUIRE(p != NULL, "allocation failed");
    GC_free(p);
  }
  size_t blocks1 = heap_blocks_in_use();
  EXPECT(blocks1 <= blocks0 + 4, "a million GC_malloc(40)/GC_free with the collector disabled: "
         "blocks in use %zu -> %zu", blocks0, blocks1);
  void *batch[2000];
  for (int round = 0; round < 300; round++) {
    for (int i = 0; i < 2000; i++) batch[i] = GC_malloc_atomic(100 + (i % 3) * 16);
    for (int i = 0; i < 2000; i++) GC_free(batch[i]);
  }
  size_t blocks2 = heap_blocks_in_use();
  /* 2000 objects of 112..144 bytes fit in under 80 blocks. */
  EXPECT(blocks2 <= blocks1 + 160, "300 rounds of 2000 GC_malloc_atomic + GC_free with the "
         "collector disabled: blocks in use %zu -> %zu", blocks1, blocks2);
  for (int i = 0; i < 2000; i++) {
    void *p = GC_malloc(100000);
    REQUIRE(p != NULL, "allocation failed");
    GC_free(p);
  }
  size_t blocks3 = heap_blocks_in_use();
  EXPECT(blocks3 <= blocks2 + 25, "2000 GC_malloc(100000) + GC_free with the collector disabled: "
         "blocks in use %zu -> %zu", blocks2, blocks3);
  memset(batch, 0, sizeof batch);
  GC_enable();
  NOTE("GC_free'd memory reused with the collector disabled: blocks %zu -> %zu -> %zu -> %zu",
       blocks0, blocks1, blocks2, blocks3);
}

/* ---- uncollectable objects --------------------------------------------------- */

#define N_UNCOLL 4000

static __attribute__((noinline)) struct addr_set make_uncollectable(size_t lb) {
  struct addr_set s = { malloc(N_UNCOLL * sizeof(uintptr_t)), N_UNCOLL };
  REQUIRE(s.a != NULL, "malloc failed");
  for (size_t i = 0; i < N_UNCOLL; i++) {
    uint64_t *p = GC_malloc_uncollectable(lb);
    REQUIRE(p != NULL, "allocation failed");
    s.a[i] = (uintptr_t)p;
  }
  qsort(s.a, N_UNCOLL, sizeof *s.a, addr_cmp);
  for (size_t i = 0; i < N_UNCOLL; i++) {
    uint64_t *p = (uint64_t *)s.a[i];
    for (size_t k = 0; k < lb / 8; k++) p[k] = unit_payload(s.a[i], k);
  }
  return s;
}

static size_t count_damaged(const struct addr_set *s, size_t lb) {
  size_t bad = 0;
  for (size_t i = 0; i < s->n; i++) {
    uint64_t *p = (uint64_t *)s->a[i];
    bool ok = GC_base(p) == p && bibop_classify(p) == BIBOP_ADDR_HEAP_OBJECT;
    for (size_t k = 0; ok && k < lb / 8; k++) ok = p[k] == unit_payload(s->a[i], k);
    bad += !ok;
  }
  return bad;
}

/* Allocations of lb bytes of several kinds: none may land on an old slot. */
static __attribute__((noinline)) size_t churn_hits(size_t lb, const struct addr_set *old,
                                                   size_t n) {
  size_t hits = 0;
  for (size_t i = 0; i < n; i++) {
    void *a = GC_malloc_uncollectable(lb), *b = GC_malloc(lb), *c = GC_malloc_atomic(lb);
    hits += in_set(old, a) + in_set(old, b) + in_set(old, c);
    GC_free(a);
  }
  return hits;
}

static void check_uncollectable(void) {
  static const size_t sizes[] = { 40, 200, 2000, 10000 };
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    size_t lb = sizes[s];
    struct addr_set old = make_uncollectable(lb);
    unit_scrub_stack();
    size_t hits = 0;
    for (int round = 0; round < 3; round++) {
      GC_gcollect();
      hits += churn_hits(lb, &old, lb > 4096 ? 300 : 5000);
    }
    GC_gcollect();
    EXPECT(hits == 0, "%zu allocations of %zu bytes landed on live uncollectable objects", hits,
           lb);
    size_t damaged = count_damaged(&old, lb);
    EXPECT(damaged == 0, "%zu of %d unreferenced uncollectable objects of %zu bytes lost or "
           "damaged", damaged, N_UNCOLL, lb);
    /* After GC_free their slots are available again. */
    free_all(&old);
    size_t reused = 0;
    uintptr_t *fresh = malloc(N_UNCOLL * sizeof *fresh);
    REQUIRE(fresh != NULL, "malloc failed");
    for (size_t i = 0; i < N_UNCOLL; i++) {
      void *p = GC_malloc_uncollectable(lb);
      reused += in_set(&old, p);
      fresh[i] = (uintptr_t)p;
    }
    for (size_t i = 0; i < N_UNCOLL; i++) GC_free((void *)fresh[i]);
    free(fresh);
    EXPECT(reused >= N_UNCOLL / 2, "after GC_free of %d uncollectable objects of %zu bytes, only "
           "%zu new ones reused their slots", N_UNCOLL, lb, reused);
    free(old.a);
  }
  NOTE("uncollectable objects survive unreferenced; slots reused only after GC_free");
}

int main(void) {
  unit_rng_t rng = unit_rng(31337);
  GC_init();
  REQUIRE(GC_all_interior_pointers == 1 && gc.extra_bytes == 1,
          "interior pointers must be on (GC_all_interior_pointers %d)", GC_all_interior_pointers);
  /* First, while the heap is young: then the memory a collection frees is
     what the next allocations get, so the zeroing check sees dirty memory
     for sure (on a fragmented heap other free chunks may come first). */
  check_zeroing();
  check_sizes();
  check_disjoint(&rng);
  check_free_reuse_bounded();
  check_uncollectable();
  return unit_finish("unit_alloc");
}
