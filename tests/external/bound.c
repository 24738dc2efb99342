/*
 * bound.c: the deterministic bound of paper 002's failure, on bibop.
 *
 * A loop makes 10,000 handles, each a small GC object owning 1 MiB of
 * malloc'd memory that its release (finalizer) frees, and keeps only the
 * last WINDOW of them (a ring in static data): every new handle drops the
 * oldest. At most WINDOW + 1 handles are ever reachable (the ring and the
 * handle being made), so the largest live set is (WINDOW + 1) MiB; the bound
 * is 3 x that.
 *
 *   accounting   handles made with bibop_malloc_external(.., 1 MiB, release):
 *                after every report (every handle made), bibop's live
 *                external bytes and our own count of malloc'd-but-not-freed
 *                bytes are both <= the bound, and equal (finalizers run
 *                synchronously in this single-threaded program, and the
 *                collector retracts an object's bytes right after its
 *                release). After dropping everything and collecting, 0.
 *   unaccounted  the same loop with GC_malloc + GC_register_finalizer_no_order
 *                and no report: the collector sees 16-byte handles only, so
 *                collections come every >= 64 KiB of handles (bibop's
 *                minimum pacing, >= 4096 handles): the malloc'd-not-freed
 *                count must exceed the bound (deterministically, after
 *                3 x (WINDOW + 1) + 1 handles unless a collection comes
 *                earlier, which the pacing rules out). The loop stops at
 *                10 x the bound to spare the machine, and the test then
 *                checks that an explicit collection does release the
 *                handles (the failure is pacing, not a leak).
 *   selfcheck-zero  the accounting loop reporting 0 bytes per handle: must
 *                FAIL the bound (shows the accounting assertion can fail).
 *
 * usage: external_bound accounting | unaccounted | selfcheck-zero
 */
#include "ecommon.h"

#include <string.h>

#define N_HANDLES 10000
#define MIB ((size_t)1 << 20)
#define WINDOW 16

struct handle {
  void *buf;
  size_t size;
};

/* Static data: a root. Volatile, or the compiler may drop stores that are
   never read back. */
static struct handle *volatile ring[WINDOW];
static size_t outstanding;            /* malloc'd and not yet freed */
static size_t releases;

static void release(void *obj, void *cd) {
  (void)cd;
  struct handle *h = obj;
  free(h->buf);
  h->buf = NULL;
  outstanding -= h->size;
  releases++;
}

enum mode { ACCOUNTING, UNACCOUNTED, SELFCHECK_ZERO };

static struct handle *make(enum mode m) {
  char *buf = malloc(MIB);
  REQUIRE(buf, "malloc(1 MiB) failed");
  buf[0] = 1;
  buf[MIB - 1] = 1;
  outstanding += MIB;
  struct handle *h;
  if (m == UNACCOUNTED) {
    h = GC_malloc(sizeof *h);
    REQUIRE(h, "GC_malloc failed");
    GC_register_finalizer_no_order(h, release, NULL, NULL, NULL);
  } else {
    h = bibop_malloc_external(sizeof *h, m == ACCOUNTING ? MIB : 0, release, NULL);
    REQUIRE(h, "bibop_malloc_external failed");
  }
  h->buf = buf;
  h->size = MIB;
  return h;
}

int main(int argc, char **argv) {
  enum mode m;
  if (argc == 2 && !strcmp(argv[1], "accounting")) m = ACCOUNTING;
  else if (argc == 2 && !strcmp(argv[1], "unaccounted")) m = UNACCOUNTED;
  else if (argc == 2 && !strcmp(argv[1], "selfcheck-zero")) m = SELFCHECK_ZERO;
  else {
    fprintf(stderr, "usage: %s accounting | unaccounted | selfcheck-zero\n", argv[0]);
    return 2;
  }
  GC_INIT();

  const size_t largest_live = (WINDOW + 1) * MIB;
  const size_t bound = 3 * largest_live;
  const size_t give_up = 10 * bound;   /* never let a failing run eat the machine */
  size_t max_out = 0, max_live = 0;
  long exceeded_at = -1, iterations = 0;
  unsigned long gc_at_exceed = 0, gc0 = (unsigned long)GC_get_gc_no();

  for (long i = 0; i < N_HANDLES; i++) {
    ring[i % WINDOW] = make(m);       /* drops the handle made WINDOW ago */
    iterations = i + 1;
    for (int k = 0; k < WINDOW; k++)   /* reachable handles are never released */
      if (ring[k] && !ring[k]->buf) {
        CHECK(0, "handle in ring slot %d released while reachable (after handle %ld)", k, i);
        ring[k] = NULL;
      }
    size_t live = ext_live();
    if (outstanding > max_out) max_out = outstanding;
    if (live > max_live) max_live = live;
    if (m != UNACCOUNTED) {
      CHECK(outstanding <= bound,
            "bound: after handle %ld, %zu MiB malloc'd and not freed > bound %zu MiB",
            i, outstanding / MIB, bound / MIB);
      CHECK(live <= bound, "bound: after handle %ld, bibop live external %zu MiB > bound %zu MiB",
            i, live / MIB, bound / MIB);
      if (m == ACCOUNTING)
        CHECK(live == outstanding,
              "after handle %ld, bibop live external %zu bytes != malloc'd-not-freed %zu bytes",
              i, live, outstanding);
      if (e_failures > 20) break;
    } else {
      CHECK(live == 0, "unaccounted: bibop live external %zu bytes, nothing was reported", live);
      if (outstanding > bound && exceeded_at < 0) {
        exceeded_at = i;
        gc_at_exceed = (unsigned long)GC_get_gc_no() - gc0;
      }
    }
    if (outstanding >= give_up) break;
  }
  unsigned long gcs = (unsigned long)GC_get_gc_no() - gc0;
  printf("%s: %ld handles of 1 MiB, window %d, largest live set %zu MiB, bound %zu MiB\n",
         argv[1], iterations, WINDOW, largest_live / MIB, bound / MIB);
  printf("  peak malloc'd-not-freed %zu MiB, peak bibop live external %zu MiB, "
         "%lu collections, %zu releases\n",
         max_out / MIB, max_live / MIB, gcs, releases);

  if (m == UNACCOUNTED) {
    CHECK(exceeded_at >= 0,
          "unaccounted: the bound was never exceeded (peak %zu MiB <= %zu MiB): "
          "the paper's failure did not show", max_out / MIB, bound / MIB);
    if (exceeded_at >= 0)
      printf("  bound exceeded at handle %ld after %lu collections; stopped at %zu MiB (%s)\n",
             exceeded_at, gc_at_exceed, outstanding / MIB,
             outstanding >= give_up ? "10 x the bound" : "end of loop");
  }

  /* Drop everything; collections must release it all (a few handles may be
     kept by stale words on the stack: conservative scanning). */
  for (int k = 0; k < WINDOW; k++) ring[k] = NULL;
  for (int k = 0; k < 4; k++) {
    GC_gcollect();
    GC_invoke_finalizers();
  }
  size_t live = ext_live();
  printf("  after dropping all and 4 collections: malloc'd-not-freed %zu bytes, live external %zu bytes\n",
         outstanding, live);
  CHECK(outstanding <= 2 * MIB, "after dropping all: %zu bytes still malloc'd (> 2 handles)",
        outstanding);
  if (m == ACCOUNTING)
    CHECK(live == outstanding, "after dropping all: live external %zu != malloc'd-not-freed %zu",
          live, outstanding);
  if (m == UNACCOUNTED) CHECK(live == 0, "unaccounted: live external %zu, expected 0", live);
  return e_finish(m == ACCOUNTING ? "external.bound" : m == UNACCOUNTED ? "external.unaccounted"
                                                                        : "external.selfcheck_zero");
}
