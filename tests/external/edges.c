/* edges.c: two edge cases of the external-memory API.
 * - precise: with the calling thread in precise mode (its stack is not
 *   scanned), bibop_malloc_external must not collect between allocating
 *   the object and returning it: a collection there would find the object
 *   unreachable and run its release function before the caller has it.
 *   Each call reports 64 MiB, so every call makes a collection due.
 * - saturate: live external bytes saturate at SIZE_MAX instead of
 *   wrapping, and retracting more than is live leaves 0. */
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

int main(void) {
  GC_INIT();
  GC_disable();             /* the saturated counter would make every report collect */
  test_saturate();
  GC_enable();
  test_precise();
  return e_finish("edges");
}
