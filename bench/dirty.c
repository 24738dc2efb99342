/* dirty.c: the costs that decide how generational collection tracks
 * written heap pages (issue #17), measured through src/dirty.c on memory
 * reserved and committed the way the arena does it:
 *   - protect: write-protecting a populated range (huge pages, 4 KiB pages)
 *     and an unpopulated one (markers for every page; the page-table
 *     memory it costs, VmPTE);
 *   - scan: dirty_collect over the range with 0, 0.1, 1 and 10% of its
 *     pages written (spread evenly), which also re-protects them;
 *   - fault: a first store to a protected page (4 KiB pages; a protected
 *     huge page, which the kernel splits; a second page of a split huge
 *     page; a never-touched protected page) beside the same store with
 *     no protection;
 *   - THP: AnonHugePages of the range after each step of a cycle, and
 *     random reads over the range while huge pages map it and after
 *     protection split them (the same memory: only the mapping differs).
 * Prints one line "dirty <name> <median> <unit> (min .. max, n)" per cost
 * and "thp <step> <KiB>" lines; run-dirty.sh adds the machine's details.
 * usage: dirty [-m MiB (1024)] [-r rounds (9)]. Exits 2 if the kernel has
 * no backend (nothing to measure). Links libbibop statically for the
 * internal functions. */
#define _GNU_SOURCE
#include "internal.h"
#include "bench_gc.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u
#define MAX_ROUNDS 101

static size_t range_bytes = (size_t)1 << 30;
static int rounds = 9;

struct samples { const char *name, *unit; double v[MAX_ROUNDS]; int n; };

#define SAMPLES(name_, unit_) { .name = name_, .unit = unit_ }

static void add(struct samples *s, double v) { if (s->n < MAX_ROUNDS) s->v[s->n++] = v; }

static int cmp_double(const void *x, const void *y) {
  double p = *(const double *)x, q = *(const double *)y;
  return p < q ? -1 : p > q;
}

static void report(struct samples *s) {
  if (!s->n) return;
  qsort(s->v, (size_t)s->n, sizeof s->v[0], cmp_double);
  printf("dirty %-28s %10.3f %s (min %.3f .. max %.3f, n %d)\n", s->name, s->v[s->n / 2], s->unit,
         s->v[0], s->v[s->n - 1], s->n);
}

static double now_ns(void) { return (double)bench_clock_ns(CLOCK_MONOTONIC); }

/* Sum of a field of /proc/self/smaps (kB) over the mappings inside [lo, hi),
   or of /proc/self/status when lo == hi == 0. */
static long smaps_kib(const char *field, uintptr_t lo, uintptr_t hi) {
  FILE *f = fopen(lo == hi ? "/proc/self/status" : "/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  size_t flen = strlen(field);
  bool inside = lo == hi;
  long total = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    if (lo != hi && sscanf(line, "%lx-%lx ", &a, &b) == 2) { inside = a >= lo && b <= hi; continue; }
    if (inside && strncmp(line, field, flen) == 0 && line[flen] == ':') total += atol(line + flen + 1);
  }
  fclose(f);
  return total;
}

static char *map_range(bool huge, bool populate) {
  char *p = os_reserve(range_bytes, CHUNK_BYTES, NULL);
  if (!p || !dirty_register(p, range_bytes) || !os_commit(p, range_bytes, huge)) {
    fprintf(stderr, "dirty: cannot map and register %zu bytes\n", range_bytes);
    exit(1);
  }
  if (populate)
    for (size_t off = 0; off < range_bytes; off += PAGE) p[off] = 1;
  return p;
}

static size_t pages(void) { return range_bytes / PAGE; }

/* Every stride-th page, starting at a page that changes with the round. */
static size_t write_spread(char *p, size_t stride, size_t first) {
  size_t n = 0;
  for (size_t pg = first % stride; pg < pages(); pg += stride, n++) p[pg * PAGE + 8] = 2;
  return n;
}

static uint64_t *bitmap;

static struct samples protect_huge = SAMPLES("protect_populated_thp", "ms"),
                      protect_small = SAMPLES("protect_populated_4k", "ms"),
                      protect_empty = SAMPLES("protect_unpopulated", "ms"),
                      pte_empty = SAMPLES("pagetables_for_markers", "KiB"),
                      scan[2][4] = {
                        { SAMPLES("scan_4k_0%", "ms"), SAMPLES("scan_4k_0.1%", "ms"), SAMPLES("scan_4k_1%", "ms"),
                          SAMPLES("scan_4k_10%", "ms") },
                        { SAMPLES("scan_thp_0%", "ms"), SAMPLES("scan_thp_0.1%", "ms"), SAMPLES("scan_thp_1%", "ms"),
                          SAMPLES("scan_thp_10%", "ms") } },
                      fault_plain = SAMPLES("store_unprotected_4k", "ns"),
                      fault_small = SAMPLES("fault_protected_4k", "ns"),
                      fault_huge = SAMPLES("fault_protected_thp_split", "ns"),
                      fault_after_split = SAMPLES("fault_split_thp_2nd_page", "ns"),
                      read_thp = SAMPLES("random_read_thp_mapped", "ns"),
                      read_split = SAMPLES("random_read_after_split", "ns"),
                      fault_fresh_plain = SAMPLES("first_touch_unprotected", "ns"),
                      fault_fresh_marker = SAMPLES("first_touch_protected", "ns");

static const size_t strides[4] = { 0, 1000, 100, 10 };   /* 0%, 0.1%, 1%, 10% */

static void measure_scans(char *p, int thp, int round) {
  for (int k = 0; k < 4; k++) {
    dirty_collect(p, range_bytes, BLOCK_SHIFT, bitmap);   /* start clean */
    size_t written = strides[k] ? write_spread(p, strides[k], (size_t)round * 7 + 3) : 0;
    double t0 = now_ns();
    size_t found = dirty_collect(p, range_bytes, BLOCK_SHIFT, bitmap);
    double t1 = now_ns();
    /* With THP a written huge page is reported whole only before the
       split; after the first cycle, pages are reported one by one. */
    if (found < written) {
      fprintf(stderr, "dirty: %zu pages written, %zu reported\n", written, found);
      exit(1);
    }
    add(&scan[thp][k], (t1 - t0) / 1e6);
  }
}

/* Time `count` first stores, one per page at the given stride from first;
   ns per store. */
static double time_stores(char *p, size_t first, size_t stride, size_t count) {
  double t0 = now_ns();
  for (size_t i = 0; i < count; i++) ((volatile char *)p)[(first + i * stride) * PAGE + 16] = 3;
  return (now_ns() - t0) / (double)count;
}

/* ns per 8-byte read at random places in the range (independent reads,
   so the processor overlaps their misses): what the mutator pays for its
   TLB misses once huge pages are split. */
#define RANDOM_READS 2000000
static double time_random_reads(const char *p, uint64_t seed) {
  uint64_t x = seed | 1, sum = 0;
  size_t words = range_bytes / sizeof(uint64_t);
  double t0 = now_ns();
  for (int i = 0; i < RANDOM_READS; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    sum += ((const volatile uint64_t *)p)[x % words];
  }
  double t = (now_ns() - t0) / RANDOM_READS;
  if (sum == 42) printf("(unlikely sum)\n");
  return t;
}

static void one_round(int round) {
  const size_t per_chunk = CHUNK_BYTES / PAGE;
  const size_t chunks = range_bytes / CHUNK_BYTES;
  uintptr_t lo, hi;

  /* Huge pages: protect, THP across a cycle, split faults, scans. */
  char *p = map_range(true, true);
  lo = (uintptr_t)p, hi = lo + range_bytes;
  long thp0 = smaps_kib("AnonHugePages", lo, hi);
  add(&read_thp, time_random_reads(p, (uint64_t)round + 11));
  double t0 = now_ns();
  dirty_protect(p, range_bytes);
  add(&protect_huge, (now_ns() - t0) / 1e6);
  long thp1 = smaps_kib("AnonHugePages", lo, hi);
  add(&fault_huge, time_stores(p, 0, per_chunk, chunks));           /* page 0 of each */
  long thp2 = smaps_kib("AnonHugePages", lo, hi);
  add(&fault_after_split, time_stores(p, 1, per_chunk, chunks));    /* page 1 of each */
  dirty_collect(p, range_bytes, BLOCK_SHIFT, bitmap);
  long thp3 = smaps_kib("AnonHugePages", lo, hi);
  add(&read_split, time_random_reads(p, (uint64_t)round + 11));
  if (round == 0)
    printf("thp populated %ld KiB, protected %ld, one store in every huge page %ld, collected %ld;"
           " Rss %ld KiB\n", thp0, thp1, thp2, thp3, smaps_kib("Rss", lo, hi));
  os_unmap(p, range_bytes);
  p = map_range(true, true);
  dirty_protect(p, range_bytes);
  measure_scans(p, 1, round);
  if (round == 0)
    printf("thp after the scans (10%% of pages written last) %ld KiB\n",
           smaps_kib("AnonHugePages", (uintptr_t)p, (uintptr_t)p + range_bytes));
  os_unmap(p, range_bytes);

  /* 4 KiB pages: protect, faults, scans. */
  p = map_range(false, true);
  add(&fault_plain, time_stores(p, 5, 61, pages() / 61));
  t0 = now_ns();
  dirty_protect(p, range_bytes);
  add(&protect_small, (now_ns() - t0) / 1e6);
  add(&fault_small, time_stores(p, 5, 61, pages() / 61));
  measure_scans(p, 0, round);
  os_unmap(p, range_bytes);

  /* Never touched: markers for every page, and the first touch. */
  p = map_range(false, false);
  add(&fault_fresh_plain, time_stores(p, 5, 61, pages() / 61));
  os_unmap(p, range_bytes);
  p = map_range(false, false);
  long pte0 = smaps_kib("VmPTE", 0, 0);
  t0 = now_ns();
  dirty_protect(p, range_bytes);
  add(&protect_empty, (now_ns() - t0) / 1e6);
  add(&pte_empty, (double)(smaps_kib("VmPTE", 0, 0) - pte0));
  add(&fault_fresh_marker, time_stores(p, 5, 61, pages() / 61));
  os_unmap(p, range_bytes);

  /* THP on first touch after protecting an unpopulated range with huge
     page advice: the markers need page tables, so no huge page can map. */
  if (round == 0) {
    p = map_range(true, false);
    dirty_protect(p, range_bytes);
    for (size_t off = 0; off < range_bytes; off += PAGE) p[off] = 1;
    printf("thp first touch after protecting it unpopulated %ld KiB\n",
           smaps_kib("AnonHugePages", (uintptr_t)p, (uintptr_t)p + range_bytes));
    os_unmap(p, range_bytes);
    p = map_range(true, false);
    for (size_t off = 0; off < range_bytes; off += PAGE) p[off] = 1;
    printf("thp first touch unprotected %ld KiB\n",
           smaps_kib("AnonHugePages", (uintptr_t)p, (uintptr_t)p + range_bytes));
    os_unmap(p, range_bytes);
  }
}

/* What decommitting does to protection (facts, printed once): after
   MADV_DONTNEED of a protected range, does a read (which maps the zero
   page) count as a write? Yes means the kernel dropped the range's
   markers with its pages, so the range is unprotected until the next
   scan of it. And after the arena's decommit and commit with huge page
   advice, how many pages does one store make dirty (512: a huge page was
   mapped, or every emptied page counts as written)? And does decommit
   give huge pages back to a range whose markers had kept them away? */
static void probe_decommit(void) {
  char *p = map_range(false, true);
  dirty_protect(p, 2 * CHUNK_BYTES);
  os_discard(p, CHUNK_BYTES);
  volatile char sink = p[3 * PAGE] + p[CHUNK_BYTES + 3 * PAGE];
  (void)sink;
  dirty_collect(p, 2 * CHUNK_BYTES, BLOCK_SHIFT, bitmap);
  bool dropped = (bitmap[0] >> 3) & 1, kept_clean = !((bitmap[8] >> 3) & 1);
  printf("fact read after MADV_DONTNEED of a protected page counts as written: %s"
         " (a read of a protected page not discarded: %s)\n",
         dropped ? "yes, markers dropped" : "no, markers kept", kept_clean ? "clean" : "written");
  os_unmap(p, range_bytes);
  p = map_range(true, true);
  dirty_protect(p, 2 * CHUNK_BYTES);
  os_decommit(p, CHUNK_BYTES);
  os_commit(p, CHUNK_BYTES, true);
  p[5 * PAGE] = 1;
  size_t n = dirty_collect(p, 2 * CHUNK_BYTES, BLOCK_SHIFT, bitmap);
  printf("fact one store after decommit and commit with huge page advice: %zu pages dirty,"
         " AnonHugePages of the whole range %ld KiB of %zu\n", n,
         smaps_kib("AnonHugePages", (uintptr_t)p, (uintptr_t)p + range_bytes), range_bytes >> 10);
  os_unmap(p, range_bytes);
  /* Markers need page tables, which keep huge pages away: does the
     arena's decommit (MADV_DONTNEED) free them? */
  p = map_range(true, false);
  dirty_protect(p, range_bytes);
  for (size_t off = 0; off < range_bytes; off += PAGE) p[off] = 1;
  long before = smaps_kib("AnonHugePages", (uintptr_t)p, (uintptr_t)p + range_bytes);
  os_decommit(p, range_bytes);
  os_commit(p, range_bytes, true);
  for (size_t off = 0; off < range_bytes; off += PAGE) p[off] = 1;
  printf("fact protected unpopulated, touched: AnonHugePages %ld KiB; after decommit, commit and"
         " touch: %ld KiB\n", before, smaps_kib("AnonHugePages", (uintptr_t)p, (uintptr_t)p + range_bytes));
  os_unmap(p, range_bytes);
}

int main(int argc, char **argv) {
  int c;
  while ((c = getopt(argc, argv, "m:r:")) != -1) {
    if (c == 'm') range_bytes = (size_t)strtoul(optarg, NULL, 10) << 20;
    else if (c == 'r') rounds = atoi(optarg);
    else { fprintf(stderr, "usage: %s [-m MiB] [-r rounds]\n", argv[0]); return 2; }
  }
  if (range_bytes < CHUNK_BYTES || range_bytes % CHUNK_BYTES || rounds < 1 || rounds > MAX_ROUNDS) {
    fprintf(stderr, "dirty: -m a multiple of 2, -r 1..%d\n", MAX_ROUNDS);
    return 2;
  }
  printf("backend %s, range %zu MiB, %d rounds\n", dirty_backend_name(), range_bytes >> 20, rounds);
  if (dirty_init() == DIRTY_BACKEND_NONE) return 2;
  bitmap = calloc(pages() / 64 + 1, sizeof *bitmap);
  if (!bitmap) return 1;
  probe_decommit();
  for (int r = 0; r < rounds; r++) one_round(r);
  report(&protect_huge);
  report(&protect_small);
  report(&protect_empty);
  report(&pte_empty);
  for (int thp = 0; thp < 2; thp++)
    for (int k = 0; k < 4; k++) report(&scan[thp][k]);
  report(&fault_plain);
  report(&fault_small);
  report(&fault_huge);
  report(&fault_after_split);
  report(&read_thp);
  report(&read_split);
  report(&fault_fresh_plain);
  report(&fault_fresh_marker);
  return 0;
}
