/* unit_dirty.c: dirty-page tracking (dirty.c) over memory reserved and
 * committed the way the arena does it (os_reserve, os_commit with THP
 * advice, os_decommit). With the uffd-wp-async backend: pages written by
 * plain stores, memcpy, read(2) and several threads are reported dirty,
 * pages not written are reported clean, collecting re-protects (the next
 * cycle sees only new writes), coarser units cover the pages they hold,
 * never-touched and decommitted-then-recommitted memory is tracked, a
 * decommitted chunk inside a range is clean, a child of fork sees every
 * page dirty (it does not inherit the registration), an unregistered
 * range (never registered, or unregistered) is all dirty, empty pages are
 * neither reported nor protected (one fault per first write), and a writer racing with collections
 * never has a write lost, and the fault-cost probe leaves the range's
 * tracking as it was. With "none" (BIBOP_DIRTY=0, or a kernel without
 * the facilities): every unit is reported dirty. Exits 77 (CTest skip)
 * when the kernel lacks the facilities and none was asked for. */
#include "internal.h"
#include "unit_check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNIT_SKIP 77
#define PAGE 4096u
#define RANGE_CHUNKS 3
#define RANGE_BYTES (RANGE_CHUNKS * CHUNK_BYTES)
#define RANGE_PAGES (RANGE_BYTES / PAGE)
#define BITMAP_WORDS (RANGE_PAGES / 64)

static char *range;          /* RANGE_CHUNKS chunks, registered */
static uint64_t bits[BITMAP_WORDS];

static bool bit(const uint64_t *bm, size_t i) { return (bm[i / 64] >> (i % 64)) & 1; }

/* Collect at page granularity and check the dirty pages are exactly want
   (a sorted list, n of them). */
static void expect_dirty_pages(const size_t *want, size_t n, const char *what) {
  size_t count = dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits);
  EXPECT_EQ(count, n);
  size_t k = 0;
  for (size_t p = 0; p < RANGE_PAGES; p++) {
    bool wanted = k < n && want[k] == p;
    if (wanted) k++;
    EXPECT(bit(bits, p) == wanted, "%s: page %zu reported %s", what, p,
           bit(bits, p) ? "dirty, was not written" : "clean, was written");
  }
}

static void write_page(size_t p, char v) { range[p * PAGE + (p * 7 % PAGE)] = v; }

static void test_plain_stores(void) {
  for (size_t p = 0; p < RANGE_PAGES; p++) write_page(p, 1);   /* populate all */
  REQUIRE(dirty_protect(range, RANGE_BYTES), "dirty_protect failed");
  expect_dirty_pages(NULL, 0, "after protect, nothing written");
  static const size_t some[] = { 0, 3, 17, 511, 512, 1000, RANGE_PAGES - 1 };
  for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) write_page(some[i], 2);
  expect_dirty_pages(some, sizeof some / sizeof some[0], "plain stores");
  expect_dirty_pages(NULL, 0, "second collect, nothing written since the first");
  static const size_t next[] = { 5, 512 };
  write_page(5, 3);
  write_page(512, 3);
  expect_dirty_pages(next, 2, "next cycle");
  NOTE("plain stores and re-protection across cycles: done");
}

static void test_coarse_units(void) {
  write_page(700, 4);   /* chunk 1 */
  uint64_t chunk_bits[1];
  size_t n = dirty_collect(range, RANGE_BYTES, CHUNK_SHIFT, chunk_bits);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(chunk_bits[0], 2);
  /* Units of 64 KiB: page 700 is unit 43. */
  uint64_t wide[RANGE_PAGES / 16 / 64] = { 0 };
  write_page(700, 5);
  write_page(703, 5);
  n = dirty_collect(range, RANGE_BYTES, 16, wide);
  EXPECT_EQ(n, 1);
  EXPECT(bit(wide, 700 / 16) && wide[0] == (uint64_t)1 << 43, "64 KiB units: %#llx",
         (unsigned long long)wide[0]);
  NOTE("coarser units: done");
}

static void test_memcpy(void) {
  static char src[3 * PAGE];
  memset(src, 0x5a, sizeof src);
  /* From the last 100 bytes of page 100 through the first bytes of 102. */
  memcpy(range + 100 * PAGE + PAGE - 100, src, PAGE + 200);
  static const size_t want[] = { 100, 101, 102 };
  expect_dirty_pages(want, 3, "memcpy");
  NOTE("memcpy: done");
}

/* The kernel writes these pages (copy to user memory inside read(2)). */
static void test_read_syscall(void) {
  int fds[2];
  REQUIRE(pipe(fds) == 0, "pipe");
  char msg[64];
  memset(msg, 'r', sizeof msg);
  REQUIRE(write(fds[1], msg, sizeof msg) == (ssize_t)sizeof msg, "write to pipe");
  REQUIRE(read(fds[0], range + 200 * PAGE + 10, sizeof msg) == (ssize_t)sizeof msg, "read");
  close(fds[0]);
  close(fds[1]);
  EXPECT_EQ(range[200 * PAGE + 10], 'r');
  static const size_t want[] = { 200 };
  expect_dirty_pages(want, 1, "read(2) into the range");
  NOTE("read(2): done");
}

#define THREADS 4
#define PAGES_PER_THREAD 37

static void *store_pages(void *arg) {
  size_t t = (size_t)arg;
  for (size_t i = 0; i < PAGES_PER_THREAD; i++) write_page(300 + i * THREADS + t, (char)(t + 1));
  return NULL;
}

static void test_threads(void) {
  pthread_t th[THREADS];
  for (size_t t = 0; t < THREADS; t++)
    REQUIRE(pthread_create(&th[t], NULL, store_pages, (void *)t) == 0, "pthread_create");
  for (size_t t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  size_t want[THREADS * PAGES_PER_THREAD];
  for (size_t i = 0; i < THREADS * PAGES_PER_THREAD; i++) want[i] = 300 + i;
  expect_dirty_pages(want, THREADS * PAGES_PER_THREAD, "stores from several threads");
  NOTE("threads: done");
}

/* A chunk committed but never touched, then protected; a chunk
   decommitted and committed again. Written pages must be seen in both. */
static void test_unpopulated_and_decommit(void) {
  char *chunk2 = range + 2 * CHUNK_BYTES;
  size_t first = 2 * BLOCKS_PER_CHUNK;
  os_decommit(chunk2, CHUNK_BYTES);
  REQUIRE(os_commit(chunk2, CHUNK_BYTES, true), "os_commit");
  REQUIRE(dirty_protect(range, RANGE_BYTES), "dirty_protect failed");
  expect_dirty_pages(NULL, 0, "a decommitted chunk committed again, protected");
  write_page(first + 9, 1);
  size_t want[] = { first + 9 };
  expect_dirty_pages(want, 1, "first write to a page of a recommitted chunk");
  /* Decommit after protection: the chunk's contents are dropped. */
  write_page(first + 10, 1);
  os_decommit(chunk2, CHUNK_BYTES);
  REQUIRE(os_commit(chunk2, CHUNK_BYTES, true), "os_commit");
  write_page(first + 11, 1);
  size_t n = dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits);
  EXPECT(bit(bits, first + 11), "write after decommit and recommit not seen");
  NOTE("decommit after protect: %zu dirty pages reported (page %zu, written then dropped, %s)", n,
       first + 10, bit(bits, first + 10) ? "dirty" : "clean");
  NOTE("unpopulated and decommitted memory: done");
}

/* A chunk decommitted (emptied, PROT_NONE) inside the range: its emptied
   pages lost their protection with their contents, so the kernel may
   report them written once (conservative); pages elsewhere stay exact,
   and the next cycle is exact everywhere. */
static void test_decommitted_inside_range(void) {
  char *chunk2 = range + 2 * CHUNK_BYTES;
  size_t first = 2 * BLOCKS_PER_CHUNK;
  dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits);
  os_decommit(chunk2, CHUNK_BYTES);
  write_page(42, 6);
  size_t n = dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits);
  EXPECT(bit(bits, 42), "page 42 written, reported clean");
  size_t emptied = 0;
  for (size_t p = 0; p < RANGE_PAGES; p++) {
    if (p >= first && p < first + BLOCKS_PER_CHUNK) emptied += bit(bits, p);
    else EXPECT(bit(bits, p) == (p == 42), "page %zu reported dirty, was not written", p);
  }
  EXPECT_EQ(n, emptied + 1);
  write_page(43, 6);
  static const size_t want[] = { 43 };
  expect_dirty_pages(want, 1, "the cycle after a decommit inside the range");
  REQUIRE(os_commit(chunk2, CHUNK_BYTES, true), "os_commit");
  NOTE("decommitted chunk inside the range: %zu of its pages reported once; done", emptied);
}

/* A child of fork does not inherit the registration (no fork events are
   asked for), and the descriptors it inherits still speak of the parent's
   memory: there, everything must be reported dirty, and nothing the child
   does may take a dirty page from the parent (page 77, written before the
   fork, must still be reported to the parent). */
static void test_fork_child_all_dirty(void) {
  dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits);
  write_page(77, 7);
  fflush(NULL);
  pid_t pid = fork();
  REQUIRE(pid >= 0, "fork");
  if (pid == 0) {
    size_t n = dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits);
    bool ok = n == RANGE_PAGES && dirty_protect(range, RANGE_BYTES);
    if (!ok) fprintf(stderr, "child of fork: %zu of %u pages reported dirty\n", n, (unsigned)RANGE_PAGES);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid");
  EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
         "child of fork: not every page reported dirty (status %#x)", status);
  static const size_t want[] = { 77, 78 };
  write_page(78, 7);
  expect_dirty_pages(want, 2, "parent after fork");
  NOTE("fork: done");
}

static void test_unregistered_is_all_dirty(void) {
  char *other = os_reserve(CHUNK_BYTES, CHUNK_BYTES, NULL);
  REQUIRE(other && os_commit(other, CHUNK_BYTES, false), "os_reserve");
  uint64_t bm[BLOCKS_PER_CHUNK / 64];
  size_t n = dirty_collect(other, CHUNK_BYTES, BLOCK_SHIFT, bm);
  EXPECT_EQ(n, BLOCKS_PER_CHUNK);
  for (size_t i = 0; i < BLOCKS_PER_CHUNK / 64; i++) EXPECT_EQ(bm[i], ~(uint64_t)0);
  os_unmap(other, CHUNK_BYTES);
  NOTE("unregistered range reported all dirty: done");
}

/* Fresh pages of a registered chunk that only a collection has protected
   (as generations.c leaves heap regions): an empty page is never reported
   written nor protected, so the first write to one costs one fault, not
   two, and is reported at the next collection. */
static long minor_faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

#define FRESH_PAGES 64
static void test_fresh_pages_unprotected(void) {
  char *fresh = os_reserve(CHUNK_BYTES, CHUNK_BYTES, NULL);
  REQUIRE(fresh && dirty_register(fresh, CHUNK_BYTES) && os_commit(fresh, CHUNK_BYTES, false),
          "a fresh registered chunk");
  uint64_t bm[BLOCKS_PER_CHUNK / 64];
  fresh[0] = 1;   /* one page populated: its page table exists */
  EXPECT_EQ(dirty_collect(fresh, CHUNK_BYTES, BLOCK_SHIFT, bm), 1);
  EXPECT_EQ(bm[0], 1);
  long before = minor_faults();
  for (size_t p = 1; p <= FRESH_PAGES; p++) fresh[p * PAGE] = 2;
  long faults = minor_faults() - before;
  EXPECT(faults <= FRESH_PAGES + FRESH_PAGES / 4,
         "%ld faults for first writes to %u fresh pages (two per page: protected while empty)", faults,
         FRESH_PAGES);
  EXPECT_EQ(dirty_collect(fresh, CHUNK_BYTES, BLOCK_SHIFT, bm), FRESH_PAGES);
  EXPECT_EQ(bm[0], ~(uint64_t)1);
  EXPECT_EQ(bm[1], 1);
  os_unmap(fresh, CHUNK_BYTES);
  NOTE("fresh pages: %ld faults for %u first writes; done", faults, FRESH_PAGES);
}

/* A writer bumps counters in pages chosen at random while the main thread
   collects, then snapshots the pages. A page that differs between
   snapshots i and i+1 was written after collection i ended and before
   snapshot i+1 read it, so collection i+1 or i+2 must report it. */
#define RACE_PAGES 256
#define RACE_ROUNDS 200
static atomic_bool race_stop;
static atomic_size_t race_writes;
static uint64_t race_snap[RACE_ROUNDS][RACE_PAGES];
static uint64_t race_seen[RACE_ROUNDS + 2][RACE_PAGES / 64];

static void *race_writer(void *arg) {
  unit_rng_t *rng = arg;
  while (!atomic_load_explicit(&race_stop, memory_order_relaxed)) {
    size_t p = unit_below(rng, RACE_PAGES);
    volatile uint64_t *w = (volatile uint64_t *)(range + p * PAGE);
    *w = *w + 1;
    atomic_fetch_add_explicit(&race_writes, 1, memory_order_relaxed);
  }
  return NULL;
}

static void test_racing_writer(void) {
  unit_rng_t rng = unit_rng(17);
  atomic_store(&race_stop, false);
  pthread_t th;
  REQUIRE(pthread_create(&th, NULL, race_writer, &rng) == 0, "pthread_create");
  for (size_t i = 0; i < RACE_ROUNDS + 2; i++) {
    /* Let the writer make some progress each round (it may share a CPU). */
    size_t before = atomic_load(&race_writes);
    while (i < RACE_ROUNDS && atomic_load(&race_writes) < before + 16) sched_yield();
    dirty_collect(range, RACE_PAGES * PAGE, BLOCK_SHIFT, race_seen[i]);
    if (i < RACE_ROUNDS)
      for (size_t p = 0; p < RACE_PAGES; p++) race_snap[i][p] = *(volatile uint64_t *)(range + p * PAGE);
    if (i == RACE_ROUNDS - 1) {
      atomic_store(&race_stop, true);
      pthread_join(th, NULL);
    }
  }
  size_t changed = 0, lost = 0;
  for (size_t i = 0; i + 1 < RACE_ROUNDS; i++)
    for (size_t p = 0; p < RACE_PAGES; p++) {
      if (race_snap[i][p] == race_snap[i + 1][p]) continue;
      changed++;
      if (!bit(race_seen[i + 1], p) && !bit(race_seen[i + 2], p)) lost++;
    }
  EXPECT_EQ(lost, 0);
  NOTE("racing writer: %zu page changes between snapshots, %zu not reported", changed, lost);
}

/* Unregistered, the range is no longer tracked: all of it dirty. */
static void test_unregister(void) {
  dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits);
  dirty_unregister(range, RANGE_BYTES);
  EXPECT_EQ(dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits), RANGE_PAGES);
  NOTE("unregister: done");
}

/* The fault-cost probe (used by generational mode's fallback judge)
   registers, protects and unmaps a scratch range of its own: tracking of
   other ranges goes on unchanged, and the price is measured once (a
   nonzero value, the same at every call). */
static void test_fault_probe(void) {
  dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits);
  uint64_t ns = dirty_write_fault_ns();
  EXPECT(ns > 0, "a backend was found: the probe measured a price");
  EXPECT_EQ(dirty_write_fault_ns(), ns);
  write_page(5, 9);
  const size_t want[] = { 5 };
  expect_dirty_pages(want, 1, "a store after the probe");
  NOTE("fault probe: a store to a protected page costs %llu ns here", (unsigned long long)ns);
}

static void test_none_backend(void) {
  EXPECT_EQ(dirty_write_fault_ns(), 0);
  size_t n = dirty_collect(range, RANGE_BYTES, BLOCK_SHIFT, bits);
  EXPECT_EQ(n, RANGE_PAGES);
  for (size_t i = 0; i < BITMAP_WORDS; i++) EXPECT_EQ(bits[i], ~(uint64_t)0);
  uint64_t chunk_bits[1];
  EXPECT_EQ(dirty_collect(range, RANGE_BYTES, CHUNK_SHIFT, chunk_bits), RANGE_CHUNKS);
  EXPECT_EQ(chunk_bits[0], (1u << RANGE_CHUNKS) - 1);
  NOTE("none: every unit reported dirty");
}

int main(void) {
  enum dirty_backend backend = dirty_init();
  NOTE("dirty-page backend: %s", dirty_backend_name());
  range = os_reserve(RANGE_BYTES, CHUNK_BYTES, NULL);
  REQUIRE(range != NULL, "os_reserve");
  /* As the arena would: register the reservation, then commit. */
  REQUIRE(dirty_register(range, RANGE_BYTES), "dirty_register of a PROT_NONE reservation failed");
  REQUIRE(os_commit(range, RANGE_BYTES, true), "os_commit");
  if (backend == DIRTY_BACKEND_NONE) {
    test_none_backend();
    long forced;
    if (unit_failures_ == 0 && !(os_env_long("BIBOP_DIRTY", &forced) && forced == 0)) {
      printf("unit_dirty: no uffd-wp-async support in this kernel; precise checks skipped\n");
      return UNIT_SKIP;
    }
    return unit_finish("unit_dirty");
  }
  test_plain_stores();
  test_coarse_units();
  test_memcpy();
  test_read_syscall();
  test_threads();
  test_unpopulated_and_decommit();
  test_decommitted_inside_range();
  test_fork_child_all_dirty();
  test_unregistered_is_all_dirty();
  test_fresh_pages_unprotected();
  test_racing_writer();
  test_fault_probe();
  test_unregister();
  return unit_finish("unit_dirty");
}
