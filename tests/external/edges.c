/* edges.c: two edge cases of the external-memory API.
 * - precise: with the calling thread in precise mode (its stack is not
 *   scanned), bibop_malloc_external must not collect between allocating
 *   the object and returning it: a collection there would find the object
 *   unreachable and run its release function before the caller has it.
 *   Each call reports 64 MiB, so every call makes a collection due.
 * - saturate: live external bytes saturate at SIZE_MAX instead of
 *   wrapping, and retracting more than is live leaves 0.
 * - resize_max: resizing an object's external bytes to SIZE_MAX succeeds,
 *   and so do later resizes (SIZE_MAX once collided with the "not an
 *   external object" answer: the next resize returned -1 yet changed it).
 * - due_saturates: heap bytes plus a SIZE_MAX external report make a
 *   collection due at once (the sum once wrapped to a small number). */
#include "ecommon.h"

#include <stdint.h>
#include <string.h>

#define CALLS 20

static void *volatile released_last;
static int releases;

static void release(void *obj, void *cd) {
  (void)cd;
  released_last = obj;
  releases++;
}

static void test_precise(void) {
  REQUIRE(bibop_set_precise_stack(1) == 0, "bibop_set_precise_stack(1) on a registered thread");
  int early = 0;
  for (int i = 0; i < CALLS; i++) {
    void *o = bibop_malloc_external(32, (size_t)64 << 20, release, NULL);
    REQUIRE(o != NULL, "bibop_malloc_external returned NULL");
    if (released_last == o) early++;
  }
  bibop_set_precise_stack(0);
  CHECK(early == 0, "precise: %d of %d objects were released before bibop_malloc_external returned",
        early, CALLS);
  GC_gcollect();
  GC_invoke_finalizers();
  CHECK(releases > 0, "precise: no object was ever released (the test would prove nothing)");
}

static void test_saturate(void) {
  size_t before = ext_live();
  bibop_alloc_external(100);
  bibop_alloc_external(SIZE_MAX);
  CHECK(ext_live() == SIZE_MAX, "saturate: live external bytes %zu after adding SIZE_MAX, expected SIZE_MAX",
        ext_live());
  bibop_free_external(SIZE_MAX);
  CHECK(ext_live() == 0, "saturate: live external bytes %zu after retracting SIZE_MAX", ext_live());
  (void)before;
}

static void test_resize_max(void) {
  void *o = bibop_malloc_external(32, 100, release, NULL);
  REQUIRE(o != NULL, "resize_max: bibop_malloc_external returned NULL");
  int to_max = bibop_resize_external(o, SIZE_MAX);
  int back = bibop_resize_external(o, 1000);
  int to_zero = bibop_resize_external(o, 0);
  CHECK(to_max == 0 && back == 0 && to_zero == 0,
        "resize_max: resizes to SIZE_MAX, 1000, 0 returned %d, %d, %d (expected 0, 0, 0)",
        to_max, back, to_zero);
  static int not_an_object;
  int unknown = bibop_resize_external(&not_an_object, 10);
  CHECK(unknown == -1, "resize_max: resizing a non-object returned %d, expected -1", unknown);
  GC_reachable_here(o);
  bibop_free_external(SIZE_MAX);   /* the saturated total cannot be taken back exactly */
}

static void test_due_saturates(void) {
  GC_gcollect();               /* nothing allocated or reported since */
  void *volatile small = GC_malloc(64);
  REQUIRE(small != NULL, "due_saturates: GC_malloc(64) returned NULL");
  GC_word before = GC_get_gc_no();
  bibop_alloc_external(SIZE_MAX);
  GC_word after = GC_get_gc_no();
  CHECK(after > before, "due_saturates: reporting SIZE_MAX external bytes after a small "
        "allocation ran no collection (gc_no %lu before and after)", (unsigned long)before);
  bibop_free_external(SIZE_MAX);
  GC_gcollect();               /* pacing from the live heap again */
}

int main(void) {
  GC_INIT();
  GC_disable();             /* the saturated counter would make every report collect */
  test_saturate();
  test_resize_max();
  GC_enable();
  test_precise();
  test_due_saturates();
  return e_finish("edges");
}
