/* unit_reciprocal.c: object index by reciprocal multiplication (internal.h,
 * heap.c). For every small size class (1..128 granules) and every byte
 * offset of a 4 KiB block, ((off * reciprocal_of(size)) >> 32) == off / size,
 * and small_object_start() returns the object start, or NULL exactly for the
 * tail waste past nobjs * size. Then the same on real blocks: descriptors
 * made by the heap carry the right size, count and reciprocal, and GC_base
 * agrees with division for every address of a block of each class. */
#include "internal.h"
#include "unit_check.h"

/* A block-aligned address that is never dereferenced: small_object_start
   only does arithmetic on it. */
#define FAKE_BLOCK ((uintptr_t)0x123456789000ull)

static void check_class_arithmetic(unsigned granules) {
  uint32_t size = granules * (uint32_t)GRANULE_BYTES;
  struct block b;
  memset(&b, 0, sizeof b);
  b.state = BLOCK_SMALL;
  b.granules = (uint16_t)granules;
  b.obj_bytes = size;
  b.nobjs = (uint16_t)(BLOCK_BYTES / size);
  b.recip = reciprocal_of(size);
  uint32_t used = (uint32_t)b.nobjs * size;   /* tail waste starts here */

  for (uint32_t off = 0; off < BLOCK_BYTES; off++) {
    unsigned idx = (unsigned)(((uint64_t)off * b.recip) >> 32);
    EXPECT_EQ(idx, off / size);
    if (idx != off / size)
      fprintf(stderr, "  (granules %u, size %u, offset %u, recip %u)\n", granules, size, off, b.recip);

    unsigned i = 0xdeadu;
    char *start = small_object_start(&b, FAKE_BLOCK + off, &i);
    if (off >= used) {
      EXPECT(start == NULL, "size %u offset %u (tail waste from %u): got %p", size, off, used,
             (void *)start);
    } else {
      EXPECT((uintptr_t)start == FAKE_BLOCK + (uintptr_t)(off / size) * size,
             "size %u offset %u: start %p, expected %p", size, off, (void *)start,
             (void *)(FAKE_BLOCK + (uintptr_t)(off / size) * size));
      EXPECT(i == off / size, "size %u offset %u: index %u, expected %u", size, off, i,
             off / size);
    }
  }
}

/* The reciprocal trick holds for any object size up to a block, not only for
   granule multiples (a custom size class must not break it silently). Size 1
   is left out: its reciprocal, 2^32, does not fit the 32-bit field, and no
   size class is below one granule. */
static void check_every_byte_size(void) {
  for (uint32_t size = 2; size <= BLOCK_BYTES; size++) {
    uint64_t r = reciprocal_of(size);
    for (uint32_t off = 0; off < BLOCK_BYTES; off++) {
      uint32_t idx = (uint32_t)((off * r) >> 32);
      if (idx != off / size) {
        EXPECT_EQ(idx, off / size);
        fprintf(stderr, "  (size %u, offset %u)\n", size, off);
        break;
      }
    }
  }
}

/* Real blocks: allocate one object of each class and look at its block. */
static void check_real_blocks(void) {
  for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++) {
    size_t request = g * GRANULE_BYTES - 1;   /* the extra byte makes it g granules */
    void *kinds[2] = { GC_malloc(request), GC_malloc_atomic(request) };
    for (int k = 0; k < 2; k++) {
      char *p = kinds[k];
      REQUIRE(p != NULL, "allocation of %zu bytes failed", request);
      struct block *b = pt_block_of((uintptr_t)p);
      REQUIRE(b != NULL, "no descriptor for %p", (void *)p);
      EXPECT_EQ(b->state, BLOCK_SMALL);
      EXPECT_EQ(b->granules, g);
      EXPECT_EQ(b->obj_bytes, g * GRANULE_BYTES);
      EXPECT_EQ(b->nobjs, BLOCK_BYTES / (g * GRANULE_BYTES));
      EXPECT_EQ(b->recip, reciprocal_of(g * GRANULE_BYTES));
      EXPECT_EQ(b->kind, k == 0 ? KIND_NORMAL : KIND_PTRFREE);
      EXPECT_EQ(GC_size(p), g * GRANULE_BYTES);

      char *base = block_addr(b);
      EXPECT_PTR_EQ(base, (char *)((uintptr_t)p & ~(uintptr_t)(BLOCK_BYTES - 1)));
      size_t size = g * GRANULE_BYTES, used = (BLOCK_BYTES / size) * size;
      for (size_t off = 0; off < BLOCK_BYTES; off++) {
        void *expect = off < used ? base + off / size * size : NULL;
        void *got = GC_base(base + off);
        if (got != expect) {
          EXPECT_PTR_EQ(got, expect);
          fprintf(stderr, "  (GC_base, granules %u, offset %zu)\n", g, off);
          break;
        }
      }
    }
  }
}

int main(void) {
  for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++) check_class_arithmetic(g);
  NOTE("size classes 1..%u: index and object start checked at every offset", MAX_SMALL_GRANULES);
  check_every_byte_size();
  NOTE("object sizes 2..%zu bytes: reciprocal index checked at every offset", BLOCK_BYTES);
  GC_init();
  check_real_blocks();
  NOTE("real blocks of every class: descriptor fields and GC_base checked");
  return unit_finish("unit_reciprocal");
}
