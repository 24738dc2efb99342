/* unit_pagetable.c: the one-level page table and the registered ranges
 * (pagetable.c, api.c). pt_block_of is NULL for NULL, low addresses,
 * addresses at or above 2^48 and stack/static/malloc memory; heap objects
 * have descriptors saying SMALL / LARGE / LARGE_TAIL whose block_addr is the
 * 4 KiB-aligned address; bibop_classify answers HEAP_OBJECT for objects and
 * interior pointers, HEAP_FREE for freed and never-allocated slots, tail
 * waste and freed large objects, and UNKNOWN for anything not ours; range registration and its error cases; and a static range in this
 * program's .bss is never scanned: objects referenced only from it are
 * reclaimed (counted over many objects, with a control run unregistered). */
#include "internal.h"
#include "unit_check.h"

#include <errno.h>

static int some_static = 42;
static char area[64 * 1024];   /* .bss, for registration cases */

#define ROUNDS 40
#define PER_ROUND 4096
#define OBJ_BYTES 1000
static void *holder[ROUNDS * PER_ROUND];   /* .bss: registered static below */

static const char *class_name(bibop_addr_class c) {
  switch (c) {
    case BIBOP_ADDR_UNKNOWN: return "UNKNOWN";
    case BIBOP_ADDR_HEAP_OBJECT: return "HEAP_OBJECT";
    case BIBOP_ADDR_HEAP_FREE: return "HEAP_FREE";
    case BIBOP_ADDR_STATIC: return "STATIC";
    case BIBOP_ADDR_FOREIGN: return "FOREIGN";
  }
  return "?";
}

#define EXPECT_CLASS(addr, want)                                                      \
  do {                                                                                \
    const void *a_ = (const void *)(addr);                                            \
    bibop_addr_class got_ = bibop_classify(a_);                                       \
    EXPECT(got_ == (want), "bibop_classify(%p) = %s, expected %s", a_,                \
           class_name(got_), class_name(want));                                       \
  } while (0)

/* Addresses that are not ours, whatever the heap looks like. */
static void check_foreign_addresses(const char *when) {
  int local = 0;
  char *small = malloc(64), *big = malloc(16 << 20);   /* brk and mmap */
  REQUIRE(small && big, "malloc failed");
  uintptr_t words[] = {
    0, 1, 8, 4095, 4096, 0x10000, 0xfffffff,
    (uintptr_t)1 << 48, ((uintptr_t)1 << 48) + 4096, ((uintptr_t)1 << 48) | 0x12345678,
    (uintptr_t)1 << 52, (uintptr_t)1 << 63, 0xffff800000000000ull, 0xffffffffff600000ull,
    UINTPTR_MAX, UINTPTR_MAX - 4095,
    (uintptr_t)&local, (uintptr_t)&some_static, (uintptr_t)area, (uintptr_t)holder,
    (uintptr_t)small, (uintptr_t)big, (uintptr_t)big + (8 << 20), (uintptr_t)&check_foreign_addresses,
  };
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    struct block *b = pt_block_of(words[i]);
    EXPECT(b == NULL, "%s: pt_block_of(%#" PRIxPTR ") = %p, expected NULL", when, words[i],
           (void *)b);
    if (gc.initialized) EXPECT_CLASS(words[i], BIBOP_ADDR_UNKNOWN);
  }
  free(small);
  free(big);
}

/* The descriptor of every 4 KiB of [p, p + bytes) says what it should. */
static void check_object_blocks(char *p, size_t bytes) {
  struct block *first = pt_block_of((uintptr_t)p);
  REQUIRE(first != NULL, "heap object %p has no descriptor", (void *)p);
  bool large = first->state == BLOCK_LARGE;
  EXPECT(first->state == BLOCK_SMALL || large, "object %p (%zu bytes): state %u", (void *)p,
         bytes, first->state);
  uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(BLOCK_BYTES - 1);
  for (uintptr_t a = lo; a < (uintptr_t)p + bytes; a += BLOCK_BYTES) {
    struct block *b = pt_block_of(a);
    REQUIRE(b != NULL, "no descriptor for %#" PRIxPTR " inside object %p", a, (void *)p);
    EXPECT((uintptr_t)block_addr(b) == a, "block_addr(pt_block_of(%#" PRIxPTR ")) = %p", a,
           (void *)block_addr(b));
    /* Any address inside the block maps to the same descriptor. */
    EXPECT_PTR_EQ(pt_block_of(a + BLOCK_BYTES - 1), b);
    EXPECT_PTR_EQ(pt_block_of(a + 123), b);
    if (a == lo) continue;
    EXPECT(b->state == BLOCK_LARGE_TAIL, "block %#" PRIxPTR " of large object %p: state %u", a,
           (void *)p, b->state);
    EXPECT(b->head == first, "block %#" PRIxPTR " of large object %p: head %p, expected %p", a,
           (void *)p, (void *)b->head, (void *)first);
  }
  if (large) {
    EXPECT(first->u.large.bytes >= bytes, "large %p: %zu bytes recorded, %zu asked",
           (void *)p, first->u.large.bytes, bytes);
    EXPECT_EQ(first->u.large.nblocks, (first->u.large.bytes + BLOCK_BYTES - 1) / BLOCK_BYTES);
  }
  /* Interior pointers, first and last byte. */
  EXPECT_CLASS(p, BIBOP_ADDR_HEAP_OBJECT);
  EXPECT_CLASS(p + bytes / 2, BIBOP_ADDR_HEAP_OBJECT);
  EXPECT_CLASS(p + bytes - 1, BIBOP_ADDR_HEAP_OBJECT);
}

static void check_heap_objects(void) {
  static const size_t sizes[] = { 0, 1, 15, 16, 100, 1000, 2047, 2048, 4095, 5000, 100000,
                                  (size_t)3 << 20, (size_t)5 << 20 };
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    char *p = GC_malloc(sizes[i]);
    char *q = GC_malloc_atomic(sizes[i]);
    REQUIRE(p && q, "allocation of %zu bytes failed", sizes[i]);
    size_t n = sizes[i] ? sizes[i] : 1;
    memset(p, 0x5a, n);
    memset(q, 0xa5, n);
    check_object_blocks(p, n);
    check_object_blocks(q, n);
    EXPECT(GC_size(p) >= n, "GC_size(%p) = %zu < %zu", (void *)p, GC_size(p), n);
  }

  /* A small object: its slot reads free once it is GC_free'd. */
  char *s = GC_malloc(47);          /* 47 + the extra byte: 48-byte objects */
  char *neighbour = GC_malloc(47);
  REQUIRE(s && neighbour, "allocation failed");
  EXPECT_EQ(GC_size(s), 48);
  EXPECT_CLASS(s + 10, BIBOP_ADDR_HEAP_OBJECT);
  GC_free(s);
  EXPECT_CLASS(s, BIBOP_ADDR_HEAP_FREE);
  EXPECT_CLASS(s + 10, BIBOP_ADDR_HEAP_FREE);
  EXPECT_CLASS(neighbour, BIBOP_ADDR_HEAP_OBJECT);

  /* Tail waste of a block of 48-byte objects (85 objects, 16 bytes left). */
  struct block *b = pt_block_of((uintptr_t)neighbour);
  REQUIRE(b && b->state == BLOCK_SMALL, "48-byte object not in a small block");
  EXPECT_CLASS(block_addr(b) + BLOCK_BYTES - 1, BIBOP_ADDR_HEAP_FREE);

  /* bibop.h: a slot that an allocation cursor has claimed (the rest of the
     first 64-slot window of a fresh size class) reads HEAP_OBJECT until the
     window is used up or a collection finds it unreachable; a slot beyond
     the window reads HEAP_FREE. */
  char *lone = GC_malloc_atomic(200);   /* 208-byte slots: a class not used above */
  REQUIRE(lone != NULL, "allocation failed");
  EXPECT_EQ(GC_size(lone), 208);
  EXPECT_CLASS(lone, BIBOP_ADDR_HEAP_OBJECT);
  EXPECT_CLASS(lone + 208, BIBOP_ADDR_HEAP_OBJECT);     /* claimed by the cursor */
  EXPECT_CLASS(lone + 5 * 208 + 17, BIBOP_ADDR_HEAP_OBJECT);
  struct block *lb = pt_block_of((uintptr_t)lone);
  REQUIRE(lb && lb->nobjs == 19, "208-byte block does not hold 19 slots");
  EXPECT_CLASS(block_addr(lb) + 19 * 208, BIBOP_ADDR_HEAP_FREE);  /* tail waste */

  /* A freed large object: its blocks read free (the chunk may even have gone
     back to the arena), never as an object. */
  char *big = GC_malloc(200000);
  REQUIRE(big != NULL, "allocation failed");
  EXPECT_CLASS(big + 150000, BIBOP_ADDR_HEAP_OBJECT);
  GC_free(big);
  EXPECT_CLASS(big, BIBOP_ADDR_HEAP_FREE);
  EXPECT_CLASS(big + 150000, BIBOP_ADDR_HEAP_FREE);
}

/* Random words: UNKNOWN exactly when outside our regions; never a fault. */
static void check_random_words(void) {
  unit_rng_t r = unit_rng(20261122);
  char *obj = GC_malloc(64);
  uintptr_t region = (uintptr_t)obj & ~(uintptr_t)(REGION_BYTES - 1);
  size_t in_heap = 0;
  for (int i = 0; i < 300000; i++) {
    uintptr_t w;
    switch (i % 3) {
      case 0: w = unit_next(&r); break;                                   /* any word */
      case 1: w = unit_next(&r) & (((uintptr_t)1 << 47) - 1); break;      /* user space */
      default: w = region + unit_below(&r, REGION_BYTES); break;          /* our region */
    }
    bool ours = arena_contains(w);
    struct block *b = pt_block_of(w);
    EXPECT(ours == (b != NULL), "word %#" PRIxPTR ": arena_contains %d, pt_block_of %p", w,
           ours, (void *)b);
    bibop_addr_class c = bibop_classify((void *)w);
    if (ours) {
      in_heap++;
      EXPECT(c == BIBOP_ADDR_HEAP_OBJECT || c == BIBOP_ADDR_HEAP_FREE,
             "word %#" PRIxPTR " in our region classified %s", w, class_name(c));
      EXPECT((uintptr_t)block_addr(b) == (w & ~(uintptr_t)(BLOCK_BYTES - 1)),
             "word %#" PRIxPTR ": block_addr %p", w, (void *)block_addr(b));
    } else {
      EXPECT(c == BIBOP_ADDR_UNKNOWN, "word %#" PRIxPTR " outside the heap classified %s", w,
             class_name(c));
    }
  }
  EXPECT_GE(in_heap, 100000);
}

static void expect_fail(int rc, int want_errno, const char *what) {
  int e = errno;
  EXPECT(rc == -1 && e == want_errno, "%s: returned %d errno %d (%s), expected -1 errno %d",
         what, rc, e, strerror(e), want_errno);
}

static void check_registration(void) {
  char *obj = GC_malloc(64);
  REQUIRE(obj != NULL, "allocation failed");
  uintptr_t region = (uintptr_t)obj & ~(uintptr_t)(REGION_BYTES - 1);
  char *mem = malloc(8192);
  REQUIRE(mem != NULL, "malloc failed");

  errno = 0;
  expect_fail(bibop_register_static(area, 0), EINVAL, "empty static range");
  expect_fail(bibop_register_foreign(mem, 0), EINVAL, "empty foreign range");
  expect_fail(bibop_register_static((void *)(UINTPTR_MAX - 100), 1000), EINVAL,
              "range wrapping around the address space");
  expect_fail(bibop_register_static(obj, 16), EINVAL, "static range on a heap object");
  expect_fail(bibop_register_foreign(obj + 8, 1), EINVAL, "foreign range inside a heap object");
  expect_fail(bibop_register_foreign((void *)(region - 4096), 4097), EINVAL,
              "range ending one byte into a heap region");
  expect_fail(bibop_register_static((void *)(region + REGION_BYTES - 1), 2), EINVAL,
              "range starting in the last byte of a heap region");
  expect_fail(bibop_register_foreign((void *)4096, ((size_t)1 << 47) - 8192), EINVAL,
              "range spanning the whole user address space, heap included");
  if (!arena_contains(region - 1)) {
    /* Touching the heap's first region is not overlapping it. */
    EXPECT_EQ(bibop_register_foreign((void *)(region - 4096), 4096), 0);
    EXPECT_CLASS(region - 1, BIBOP_ADDR_FOREIGN);
    EXPECT(bibop_classify((void *)region) != BIBOP_ADDR_FOREIGN, "region base %#" PRIxPTR
           " classified FOREIGN", region);
    EXPECT_EQ(bibop_unregister_range((void *)(region - 4096)), 0);
  }

  EXPECT_EQ(bibop_register_static(area, 4096), 0);
  EXPECT_CLASS(area, BIBOP_ADDR_STATIC);
  EXPECT_CLASS(area + 4095, BIBOP_ADDR_STATIC);
  EXPECT_CLASS(area + 4096, BIBOP_ADDR_UNKNOWN);
  errno = 0;
  expect_fail(bibop_register_static(area, 4096), EINVAL, "the same range twice");
  expect_fail(bibop_register_static(area + 100, 10), EINVAL, "range inside a registered one");
  expect_fail(bibop_register_foreign(area + 4000, 200), EINVAL, "range overlapping the end");
  expect_fail(bibop_register_foreign((void *)((uintptr_t)area - 16), 17), EINVAL, "range overlapping the start");
  expect_fail(bibop_register_foreign((void *)((uintptr_t)area - 16), 8192), EINVAL, "range covering a registered one");
  /* Adjacent ranges do not overlap. */
  EXPECT_EQ(bibop_register_foreign(area + 4096, 4096), 0);
  EXPECT_EQ(bibop_register_foreign(mem, 8192), 0);
  EXPECT_CLASS(area + 4095, BIBOP_ADDR_STATIC);
  EXPECT_CLASS(area + 4096, BIBOP_ADDR_FOREIGN);
  EXPECT_CLASS(area + 8191, BIBOP_ADDR_FOREIGN);
  EXPECT_CLASS(area + 8192, BIBOP_ADDR_UNKNOWN);
  EXPECT_CLASS(mem + 5000, BIBOP_ADDR_FOREIGN);
  EXPECT_CLASS(mem + 8192, BIBOP_ADDR_UNKNOWN);
  /* A foreign range beyond the 48-bit space: never in the page table. */
  void *far = (void *)((uintptr_t)1 << 50);
  EXPECT_EQ(bibop_register_foreign(far, 4096), 0);
  EXPECT_CLASS((char *)far + 10, BIBOP_ADDR_FOREIGN);
  EXPECT_PTR_EQ(pt_block_of((uintptr_t)far + 10), NULL);

  /* Unregistering: by exact start only. */
  errno = 0;
  expect_fail(bibop_unregister_range(area + 1), ENOENT, "unregister inside a range");
  expect_fail(bibop_unregister_range(area + 2 * 4096), ENOENT, "unregister an unknown start");
  expect_fail(bibop_unregister_range(NULL), ENOENT, "unregister NULL");
  expect_fail(bibop_unregister_range(obj), ENOENT, "unregister a heap object");
  EXPECT_EQ(bibop_unregister_range(area + 4096), 0);
  EXPECT_CLASS(area + 4096, BIBOP_ADDR_UNKNOWN);
  EXPECT_CLASS(area + 4095, BIBOP_ADDR_STATIC);
  expect_fail(bibop_unregister_range(area + 4096), ENOENT, "unregister twice");
  EXPECT_EQ(bibop_unregister_range(area), 0);
  EXPECT_EQ(bibop_unregister_range(mem), 0);
  EXPECT_EQ(bibop_unregister_range(far), 0);
  EXPECT_CLASS(area, BIBOP_ADDR_UNKNOWN);
  EXPECT_CLASS(mem, BIBOP_ADDR_UNKNOWN);
  /* Gone means gone: the range can be registered again. */
  EXPECT_EQ(bibop_register_foreign(area, 8192), 0);
  EXPECT_CLASS(area + 5000, BIBOP_ADDR_FOREIGN);
  EXPECT_EQ(bibop_unregister_range(area), 0);
  free(mem);
}

/* Fill holder[first .. first+n) with fresh objects carrying a payload; the
   only references are left in holder (and nothing of them on our stack). */
static __attribute__((noinline)) void fill_holder(size_t first, size_t n, uint64_t seed) {
  for (size_t i = first; i < first + n; i++) {
    uint64_t *o = GC_malloc(OBJ_BYTES);
    REQUIRE(o != NULL, "allocation failed");
    o[0] = unit_payload(seed, i);
    o[OBJ_BYTES / 8 - 1] = unit_payload(seed, ~i);
    holder[i] = o;
  }
}

static __attribute__((noinline)) size_t count_live(size_t first, size_t n) {
  size_t live = 0;
  for (size_t i = first; i < first + n; i++)
    if (bibop_classify(holder[i]) == BIBOP_ADDR_HEAP_OBJECT) live++;
  return live;
}

static __attribute__((noinline)) size_t count_intact(size_t first, size_t n, uint64_t seed) {
  size_t ok = 0;
  for (size_t i = first; i < first + n; i++) {
    uint64_t *o = holder[i];
    if (o[0] == unit_payload(seed, i) && o[OBJ_BYTES / 8 - 1] == unit_payload(seed, ~i)) ok++;
  }
  return ok;
}

static void check_static_range_not_scanned(void) {
  REQUIRE(bibop_register_static(holder, sizeof holder) == 0, "registering holder: errno %d",
          errno);
  EXPECT_CLASS(&holder[7], BIBOP_ADDR_STATIC);
  EXPECT_CLASS(&holder[ROUNDS * PER_ROUND - 1], BIBOP_ADDR_STATIC);

  /* Each round keeps its objects in a fresh part of holder: were holder
     scanned, all ROUNDS * PER_ROUND * ~1 KiB = 160 MiB would stay live. */
  size_t retained_total = 0;
  for (int r = 0; r < ROUNDS; r++) {
    fill_holder((size_t)r * PER_ROUND, PER_ROUND, 1000 + r);
    unit_scrub_stack();
    GC_gcollect();
    retained_total += count_live((size_t)r * PER_ROUND, PER_ROUND);
  }
  size_t total = (size_t)ROUNDS * PER_ROUND;
  NOTE("static range: %zu of %zu objects referenced only from it were retained",
       retained_total, total);
  EXPECT(retained_total <= total / 20, "%zu of %zu objects retained by a static range",
         retained_total, total);
  size_t heap = GC_get_heap_size();
  EXPECT(heap < ((size_t)64 << 20), "heap grew to %zu bytes", heap);
  EXPECT_CLASS(&holder[7], BIBOP_ADDR_STATIC);

  /* Control: the same holder, unregistered, is an ordinary root. */
  EXPECT_EQ(bibop_unregister_range(holder), 0);
  EXPECT_CLASS(&holder[7], BIBOP_ADDR_UNKNOWN);
  fill_holder(0, PER_ROUND, 7);
  unit_scrub_stack();
  GC_gcollect();
  GC_gcollect();
  EXPECT_EQ(count_live(0, PER_ROUND), PER_ROUND);
  /* Churn, so that wrongly freed slots would be handed out and zeroed. */
  for (int i = 0; i < 20000; i++) (void)GC_malloc(OBJ_BYTES);
  EXPECT_EQ(count_intact(0, PER_ROUND, 7), PER_ROUND);
  memset(holder, 0, sizeof holder);
}

int main(void) {
  check_foreign_addresses("before GC_init");
  GC_init();
  check_foreign_addresses("after GC_init");
  check_heap_objects();
  check_foreign_addresses("with a heap");
  NOTE("page table: foreign addresses and heap objects checked");
  check_random_words();
  NOTE("page table: random words checked");
  check_registration();
  NOTE("registered ranges: classification and error cases checked");
  check_static_range_not_scanned();
  return unit_finish("unit_pagetable");
}
