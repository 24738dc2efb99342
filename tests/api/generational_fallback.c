/* generational_fallback.c: generational mode's fallback to full
 * collections (generations.c, invariant 5), with its verdict fixed by
 * BIBOP_GENERATIONAL_FALLBACK so that the test checks behaviour, not time.
 * An old heap of linked records (4 MiB) stays live while short-lived
 * garbage drives a few hundred collections by allocation pacing.
 *   api_generational_fallback lost   (BIBOP_GENERATIONAL_FALLBACK=2): the
 *     old heap is never written, so by time alone tracking would pay; the
 *     forced verdict must still end tracking (generational mode reported
 *     off, no minor collection for a while), then the mode must try again
 *     (on again, minor collections again).
 *   api_generational_fallback kept   (BIBOP_GENERATIONAL_FALLBACK=0): a
 *     word of every old page is written in every cycle, so by time alone
 *     the faults would lose; tracking must stay on throughout, and most
 *     collections must be minor.
 * Either way the old records must be intact at the end. bibop only
 * (bibop.h statistics). */
#include <gc.h>
#include <bibop.h>
#include <stdbool.h>

#include "check.h"

#define OLD_RECORDS (64 * 1024)    /* 64 bytes each: 4 MiB */
#define COLLECTIONS 300            /* watched, after the old heap is old */
#define PAGE 4096

struct record {
  struct record *next;
  uint64_t id, check;
  uint64_t payload[5];
};

static uint64_t hash(uint64_t x) {
  x ^= x >> 31; x *= 0x7fb5d329728ea185ULL; x ^= x >> 27; x *= 0x81dadef4bc2dd44dULL;
  return x ^ (x >> 33);
}

static struct record **old;   /* the old records, in one heap array */

static void build_old(void) {
  old = GC_MALLOC(OLD_RECORDS * sizeof *old);
  CHECK(old != NULL);
  for (uint64_t i = 0; i < OLD_RECORDS; i++) {
    struct record *r = GC_MALLOC(sizeof *r);
    CHECK(r != NULL);
    r->id = i;
    r->check = hash(i);
    r->next = i ? old[i - 1] : NULL;
    old[i] = r;
  }
}

static void check_old(void) {
  for (uint64_t i = 0; i < OLD_RECORDS; i++) {
    CHECKF(old[i]->id == i && old[i]->check == hash(i), "record %llu damaged\n",
           (unsigned long long)i);
    CHECK(old[i]->next == (i ? old[i - 1] : NULL));
  }
}

/* One store into every page holding old records (the payload only). */
static void write_old_pages(uint64_t round) {
  uintptr_t last_page = 0;
  for (uint64_t i = 0; i < OLD_RECORDS; i++) {
    uintptr_t page = (uintptr_t)old[i] / PAGE;
    if (page == last_page) continue;
    last_page = page;
    old[i]->payload[0] = round;
  }
}

static struct bibop_generation_stats stats(void) {
  struct bibop_generation_stats s;
  bibop_get_generation_stats(&s);
  return s;
}

int main(int argc, char **argv) {
  CHECKF(argc == 2 && (!strcmp(argv[1], "lost") || !strcmp(argv[1], "kept")),
         "usage: api_generational_fallback lost|kept\n");
  bool lost = !strcmp(argv[1], "lost");
  GC_INIT();
  /* Cycles of a fifteenth of the old heap: few blocks written per cycle
     against a full mark of the old heap, so that by time alone tracking
     pays clearly when the old heap is left alone (and the fault estimate
     of the code before this test counted each as a fault). */
  GC_set_free_space_divisor(30);
  GC_enable_incremental();
  build_old();
  GC_gcollect();   /* a major collection: the records survive it */

  void *volatile sink;
  unsigned long last_gc = GC_get_gc_no(), seen = 0, off_collections = 0, minors_while_off = 0;
  unsigned long minors_at_start = stats().minor_collections, minors_when_off = 0;
  bool was_off = false, back_on = false, on = true;
  while (seen < COLLECTIONS) {
    sink = GC_MALLOC(48);   /* garbage at once */
    CHECK(sink != NULL);
    if (GC_get_gc_no() == last_gc) continue;
    last_gc = GC_get_gc_no();
    seen++;
    struct bibop_generation_stats s = stats();
    if (!s.enabled) {
      if (on) minors_when_off = s.minor_collections;   /* tracking just stopped */
      was_off = true;
      off_collections++;
      minors_while_off += s.minor_collections - minors_when_off;
      minors_when_off = s.minor_collections;
    } else if (was_off) {
      back_on = true;
    }
    on = s.enabled;
    if (!lost) write_old_pages(seen);
  }
  struct bibop_generation_stats s = stats();
  unsigned long minors = s.minor_collections - minors_at_start;
  printf("%s: %lu collections, %lu minor; %lu collections with tracking off (%lu minor then); "
         "tracking back on: %s; backend %s\n", argv[1], seen, minors, off_collections,
         minors_while_off, back_on ? "yes" : "no", s.dirty_backend);
  if (lost) {
    CHECKF(was_off, "tracking never stopped\n");
    CHECKF(off_collections >= 8, "tracking off for %lu collections only\n", off_collections);
    CHECKF(minors_while_off == 0, "%lu minor collections while tracking was off\n", minors_while_off);
    CHECKF(back_on && s.minor_collections > minors_at_start, "the mode never tried again\n");
  } else {
    CHECKF(!was_off, "tracking stopped for %lu collections\n", off_collections);
    CHECKF(minors * 2 > seen, "only %lu of %lu collections minor\n", minors, seen);
  }
  check_old();
  return 0;
}
