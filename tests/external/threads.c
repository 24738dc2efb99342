/*
 * threads.c: external accounting under concurrency (compiled with
 * -DGC_THREADS: pthread_create is GC_pthread_create, threads registered).
 *
 * NTHREADS threads each run STEPS random steps over their own SLOTS slots
 * (static data, so roots): make a handle (bibop_malloc_external owning
 * 1 B..256 KiB of malloc'd memory; sometimes pointing at another of the
 * thread's handles, so that handles die in chains, in whatever order the
 * no-order finalizers run), drop one, drop a batch, grow or shrink one
 * (realloc + bibop_resize_external), report and retract a detached
 * buffer (bibop_alloc_external / bibop_free_external), or allocate plain
 * garbage. Collections come from the reports and from the heap, on any
 * thread.
 *
 * Our own count, `outstanding`, is malloc'd-but-not-freed bytes of the
 * handles plus the detached buffers (atomics). Checks:
 *   - during the run (sampled by every thread): bibop's live external
 *     bytes never exceed everything ever reported (a negative count would
 *     wrap to ~2^64) - "never goes negative";
 *   - bibop_resize_external returns 0 for every live handle;
 *   - every release runs on a live object (bibop_classify says
 *     HEAP_OBJECT), with its client data, exactly once (a flag in the
 *     handle);
 *   - once the threads are joined: bibop's live external bytes == our
 *     outstanding count exactly (no drift: nothing leaked, nothing
 *     retracted twice; releases that have not run yet count in both);
 *   - after dropping everything (but a 1 MiB "keeper" handle made first, so
 *     that an undercount cannot hide behind the clamp at 0) and collecting
 *     several times: the same equality, and that is what is still
 *     reachable: the keeper plus at most a few handles kept by stale stack
 *     words; then the keeper is dropped too and the equality checked again.
 *
 * usage: external_threads serialized | free | selfcheck-drift
 *   serialized  GC_set_finalize_on_demand(1); every SYNC steps the threads
 *               meet at a barrier and one of them runs GC_invoke_finalizers
 *               while the others wait: collections, reports, retractions
 *               and resizes are concurrent, releases are not concurrent
 *               with collections. (external.threads)
 *   free        releases run wherever the collector runs them, concurrently
 *               with other threads' collections. FAILS on bibop (0f8ef62 to
 *               5c70f7e): GC_invoke_finalizers (finalize.c) pops an entry off
 *               the queue, unlocks, and only then reads the object's address
 *               from the entry; a collection by another thread in that
 *               window sees the object nowhere (off the queue, not yet in a
 *               register), frees it, and the release then runs on a freed -
 *               possibly reallocated - object: "release ran on a freed
 *               object", "released twice", and accounting drift (another
 *               handle's buffer freed, the object's bytes retracted twice).
 *               Registered only with -DBIBOP_EXTERNAL_KNOWN_BUGS=ON.
 *   selfcheck-drift  serialized, but every release also calls
 *               bibop_free_external(1) - a double retraction - and the
 *               final equality must FAIL.
 */
#define _POSIX_C_SOURCE 200809L   /* pthread_barrier_t */
#include "ecommon.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define NTHREADS 4
#define SLOTS 64
#define STEPS 20000
#define MAX_BYTES (256u << 10)
#define SYNC 256          /* serialized: steps between finalization rounds */

struct handle {
  void *buf;
  size_t size;
  struct handle *next;         /* another handle: chains die together */
  _Atomic int released;
  unsigned magic;
};
#define MAGIC 0x5eedf00du

static struct handle *slots[NTHREADS][SLOTS];   /* static data: roots */
static _Atomic size_t outstanding;               /* bytes malloc'd, not freed */
static _Atomic size_t ever_reported;             /* all bytes ever reported */
static _Atomic long live_handles, made, released_count, double_release, bad_release;
static _Atomic long resize_refused, freed_release;
static _Atomic long bad_live_sample;
static _Atomic size_t worst_sample;
static int selfcheck_drift, serialized;
static struct handle *volatile keeper;           /* static data: a root (volatile: the
                                                    compiler must keep the store) */
static pthread_barrier_t barrier;

static void release(void *obj, void *cd) {
  struct handle *h = obj;
  if (bibop_classify(obj) != BIBOP_ADDR_HEAP_OBJECT) atomic_fetch_add(&freed_release, 1);
  if (cd != (void *)&slots || h->magic != MAGIC) {
    atomic_fetch_add(&bad_release, 1);
    return;
  }
  if (atomic_exchange(&h->released, 1)) {
    atomic_fetch_add(&double_release, 1);
    return;
  }
  free(h->buf);
  atomic_fetch_sub(&outstanding, h->size);
  h->buf = NULL;
  atomic_fetch_sub(&live_handles, 1);
  atomic_fetch_add(&released_count, 1);
  if (selfcheck_drift) bibop_free_external(1);
}

static uint64_t next_rand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void sample(void) {
  size_t live = ext_live(), ever = atomic_load(&ever_reported);
  /* ever_reported is bumped before each report, so live <= ever always. */
  if (live > ever) {
    atomic_fetch_add(&bad_live_sample, 1);
    size_t w = atomic_load(&worst_sample);
    while (live > w && !atomic_compare_exchange_weak(&worst_sample, &w, live)) {}
  }
}

static struct handle *make_n(size_t n, struct handle *next) {
  void *buf = malloc(n);
  REQUIRE(buf, "malloc(%zu) failed", n);
  memset(buf, 0x5a, n < 64 ? n : 64);
  atomic_fetch_add(&outstanding, n);
  atomic_fetch_add(&ever_reported, n);
  struct handle *h = bibop_malloc_external(sizeof *h, n, release, (void *)&slots);
  REQUIRE(h, "bibop_malloc_external failed");
  h->buf = buf;
  h->size = n;
  h->next = next;
  h->magic = MAGIC;
  atomic_fetch_add(&live_handles, 1);
  atomic_fetch_add(&made, 1);
  return h;
}

static struct handle *make(uint64_t *rng, struct handle *next) {
  return make_n(1 + (size_t)(next_rand(rng) % MAX_BYTES), next);
}

static void resize(struct handle *h, uint64_t *rng) {
  size_t n = 1 + (size_t)(next_rand(rng) % MAX_BYTES);
  void *b = realloc(h->buf, n);
  REQUIRE(b, "realloc(%zu) failed", n);
  size_t old = h->size;
  if (n > old) {
    atomic_fetch_add(&outstanding, n - old);
    atomic_fetch_add(&ever_reported, n - old);
  } else {
    atomic_fetch_sub(&outstanding, old - n);
  }
  h->buf = b;
  h->size = n;
  if (bibop_resize_external(h, n) != 0) atomic_fetch_add(&resize_refused, 1);
}

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(t + 1);
  struct handle **mine = slots[t];
  for (int step = 0; step < STEPS; step++) {
    int s = (int)(next_rand(&rng) % SLOTS);
    unsigned op = (unsigned)(next_rand(&rng) % 100);
    if (op < 45) {                               /* make (maybe chained) */
      struct handle *other = mine[next_rand(&rng) % SLOTS];
      mine[s] = make(&rng, (next_rand(&rng) & 1) ? other : NULL);
    } else if (op < 65) {                        /* drop one */
      mine[s] = NULL;
    } else if (op < 67) {                        /* drop a batch */
      for (int k = 0; k < SLOTS; k += 2) mine[(s + k) % SLOTS] = NULL;
    } else if (op < 87) {                        /* grow or shrink */
      if (mine[s]) resize(mine[s], &rng);
    } else if (op < 95) {                        /* detached report/retract */
      size_t n = 1 + (size_t)(next_rand(&rng) % MAX_BYTES);
      void *b = malloc(n);
      REQUIRE(b, "malloc failed");
      atomic_fetch_add(&outstanding, n);
      atomic_fetch_add(&ever_reported, n);
      bibop_alloc_external(n);
      sample();
      free(b);
      atomic_fetch_sub(&outstanding, n);
      bibop_free_external(n);
    } else {                                     /* plain garbage */
      for (int k = 0; k < 16; k++) (void)GC_malloc(64 + 32 * k);
    }
    if ((step & 63) == 0) sample();
    if (serialized && step % SYNC == SYNC - 1) {
      /* All threads here: no collection can run while thread 0 finalizes. */
      pthread_barrier_wait(&barrier);
      if (t == 0) GC_invoke_finalizers();
      pthread_barrier_wait(&barrier);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *name;
  if (argc == 2 && !strcmp(argv[1], "serialized")) serialized = 1, name = "external.threads";
  else if (argc == 2 && !strcmp(argv[1], "free")) name = "external.threads_free";
  else if (argc == 2 && !strcmp(argv[1], "selfcheck-drift"))
    serialized = selfcheck_drift = 1, name = "external.selfcheck_drift";
  else {
    fprintf(stderr, "usage: %s serialized | free | selfcheck-drift\n", argv[0]);
    return 2;
  }
  GC_INIT();
  if (serialized) GC_set_finalize_on_demand(1);
  REQUIRE(pthread_barrier_init(&barrier, NULL, NTHREADS) == 0, "pthread_barrier_init");
  REQUIRE(ext_live() == 0, "live external %zu at start", ext_live());
  keeper = make_n((size_t)1 << 20, NULL);
  unsigned long gc0 = (unsigned long)GC_get_gc_no();

  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++)
    REQUIRE(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  unsigned long gcs = (unsigned long)GC_get_gc_no() - gc0;

  size_t live_before = ext_live(), out_before = atomic_load(&outstanding);
  memset(slots, 0, sizeof slots);
  for (int k = 0; k < 6; k++) {
    GC_gcollect();
    GC_invoke_finalizers();
  }
  size_t live = ext_live(), out = atomic_load(&outstanding);
  long still = atomic_load(&live_handles) - 1;   /* besides the keeper */

  printf("%s: %d threads x %d steps: %ld handles made, %ld released, %lu collections during the run\n",
         argv[1], NTHREADS, STEPS, atomic_load(&made), atomic_load(&released_count), gcs);
  printf("  at join: live external %zu, outstanding %zu; after dropping all but the keeper "
         "(1 MiB) and 6 collections: live external %zu, outstanding %zu, %ld other handles "
         "still reachable\n", live_before, out_before, live, out, still);

  CHECK(live_before == out_before, "at join: bibop live external %zu != outstanding %zu "
        "(difference %lld)", live_before, out_before, (long long)live_before - (long long)out_before);
  CHECK(atomic_load(&bad_live_sample) == 0,
        "%ld samples saw live external above everything ever reported (worst %zu): "
        "the count went negative", atomic_load(&bad_live_sample), atomic_load(&worst_sample));
  CHECK(atomic_load(&resize_refused) == 0, "bibop_resize_external refused %ld live handles",
        atomic_load(&resize_refused));
  CHECK(atomic_load(&freed_release) == 0,
        "%ld releases ran on a freed object (bibop_classify not HEAP_OBJECT)",
        atomic_load(&freed_release));
  CHECK(atomic_load(&double_release) == 0, "%ld handles released twice", atomic_load(&double_release));
  CHECK(atomic_load(&bad_release) == 0, "%ld releases with a bad object or client data",
        atomic_load(&bad_release));
  CHECK(live == out, "after dropping everything: bibop live external %zu != outstanding %zu "
        "(difference %lld)", live, out, (long long)live - (long long)out);
  CHECK(out >= ((size_t)1 << 20), "the keeper's 1 MiB is gone: outstanding %zu", out);
  CHECK(still <= 4, "%ld handles still unreleased after dropping everything", still);
  CHECK(atomic_load(&made) - atomic_load(&released_count) == still + 1,
        "made %ld - released %ld != live %ld", atomic_load(&made),
        atomic_load(&released_count), still + 1);

  keeper = NULL;
  for (int k = 0; k < 3; k++) {
    GC_gcollect();
    GC_invoke_finalizers();
  }
  live = ext_live();
  out = atomic_load(&outstanding);
  printf("  keeper dropped, 3 more collections: live external %zu, outstanding %zu\n", live, out);
  CHECK(live == out, "after dropping the keeper: bibop live external %zu != outstanding %zu",
        live, out);
  return e_finish(name);
}
