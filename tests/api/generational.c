/* generational.c: old -> young pointer torture for generational mode
 * (issue #17). Old objects (survivors of several collections) receive
 * pointers to new chains of young objects through plain stores, memcpy,
 * read(2) from a pipe straight into the heap, appends to chains that have
 * themselves become old, stores right before the allocation that triggers
 * a collection, and from several threads at once, while garbage churn runs
 * thousands of minor collections. Every chain reachable from the old
 * objects is checked (each node's id, its place in its chain, a checksum
 * of its id): an object freed while reachable is reused by later chains and
 * fails the check. Then, single-threaded, the cases of the rescan's
 * remembered objects (pages written only in the cycle before the last
 * collection): an old object that shares its young target with another
 * one, which loses it, and an object of age 1 given a young pointer, then
 * left alone once old; an old object given a chain in a cycle whose
 * survivors all become old at once, then left alone; and old and young
 * objects in one block, each given a chain; old objects in sparse blocks
 * the allocator is filling; young large objects whose
 * only pointers an old object holds. bibop only (bibop.h statistics;
 * stock's incremental mode makes read(2) into a protected heap page fail).
 * Usage: api_generational [rounds]. */
#define GC_THREADS
#include <gc.h>
#include <bibop.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define THREADS 3
#define OLD_PER_THREAD 1024
#define SLOTS 6
#define CHAIN_MAX 12   /* ids are reserved CHAIN_MAX at a time per chain */

struct node {
  uint64_t id, check;
  struct node *next;
  uint64_t payload[3];   /* 48 bytes */
};

struct old {
  struct node *slot[SLOTS];
  uint64_t filler[10];   /* 128 bytes */
};

static struct old **olds;   /* the old objects, in the heap; this root keeps them */
/* What each slot must hold: its head's id and its length (plain numbers,
   never heap addresses, so this root retains nothing). */
static uint64_t expect_id[THREADS * OLD_PER_THREAD][SLOTS];
static uint8_t expect_len[THREADS * OLD_PER_THREAD][SLOTS];
static uint64_t next_id = 1;
static pthread_mutex_t id_lock = PTHREAD_MUTEX_INITIALIZER;
static long rounds = 20000;

static uint64_t hash(uint64_t x) {
  x ^= x >> 31; x *= 0x7fb5d329728ea185ULL; x ^= x >> 27; x *= 0x81dadef4bc2dd44dULL;
  return x ^ (x >> 33);
}

static uint64_t take_ids(void) {
  pthread_mutex_lock(&id_lock);
  uint64_t id = next_id;
  next_id += CHAIN_MAX;
  pthread_mutex_unlock(&id_lock);
  return id;
}

static struct node *new_node(uint64_t id) {
  struct node *n = GC_MALLOC(sizeof *n);
  CHECK(n != NULL);
  n->id = id;
  n->check = hash(id);
  n->payload[0] = ~id;
  return n;
}

/* A chain of len nodes with ids first .. first + len - 1. */
static struct node *new_chain(uint64_t first, unsigned len) {
  struct node *head = NULL;
  for (unsigned k = len; k-- > 0;) {
    struct node *n = new_node(first + k);
    n->next = head;
    head = n;
  }
  return head;
}

static void verify_slot(size_t i, unsigned j) {
  struct node *n = olds[i]->slot[j];
  uint64_t id = expect_id[i][j];
  unsigned len = expect_len[i][j];
  for (unsigned k = 0; k < len; k++, n = n->next) {
    CHECKF(n != NULL, "old %zu slot %u: chain ends at %u of %u", i, j, k, len);
    CHECKF(n->id == id + k && n->check == hash(n->id) && n->payload[0] == ~n->id,
           "old %zu slot %u node %u: id %llu (expected %llu), check ok %d", i, j, k,
           (unsigned long long)n->id, (unsigned long long)(id + k), n->check == hash(n->id));
  }
  CHECKF(n == NULL, "old %zu slot %u: chain longer than %u", i, j, len);
}

struct rng { uint64_t s; };
static uint64_t rnd(struct rng *r) { r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL; return r->s >> 17; }

/* Allocate garbage until a collection has run. */
static void until_collection(void) {
  GC_word before = GC_get_gc_no();
  for (int k = 0; k < 1000000 && GC_get_gc_no() == before; k++) (void)new_node(0);
}

struct worker { unsigned t; int pipe[2]; };

static void store_one(struct worker *w, struct rng *r) {
  size_t i = w->t * OLD_PER_THREAD + rnd(r) % OLD_PER_THREAD;
  unsigned j = (unsigned)(rnd(r) % SLOTS);
  unsigned how = (unsigned)(rnd(r) % 6);
  struct old *o = olds[i];
  if (how == 5 && expect_len[i][j] > 0 && expect_len[i][j] < CHAIN_MAX) {
    /* Append to a chain whose nodes are probably old by now. */
    struct node *tail = o->slot[j];
    while (tail->next) tail = tail->next;
    tail->next = new_node(expect_id[i][j] + expect_len[i][j]);
    expect_len[i][j]++;
    return;
  }
  unsigned len = 1 + (unsigned)(rnd(r) % 4);
  uint64_t id = take_ids();
  struct node *chain = new_chain(id, len);
  switch (how) {
    case 0: case 5: o->slot[j] = chain; break;
    case 1: memcpy(&o->slot[j], &chain, sizeof chain); break;
    case 2:   /* the kernel writes the pointer into the heap */
      CHECK(write(w->pipe[1], &chain, sizeof chain) == (ssize_t)sizeof chain);
      CHECK(read(w->pipe[0], &o->slot[j], sizeof chain) == (ssize_t)sizeof chain);
      break;
    case 3: o->slot[j] = chain; until_collection(); break;   /* store, then collect */
    case 4: {   /* through a young object that becomes the only path */
      struct node *front = new_node(id);
      *front = *chain;
      front->next = chain->next;
      o->slot[j] = front;
      break;
    }
  }
  expect_id[i][j] = id;
  expect_len[i][j] = (uint8_t)len;
}

static void *work(void *arg) {
  struct worker *w = arg;
  struct rng r = { 0x9e3779b97f4a7c15ULL * (w->t + 1) + check_seed_ };
  CHECK(pipe(w->pipe) == 0);
  for (long n = 0; n < rounds; n++) {
    store_one(w, &r);
    for (int k = 0; k < 8; k++) (void)new_node(0);   /* churn */
    if (n % 5000 == 0)
      for (unsigned v = 0; v < 64; v++)
        verify_slot(w->t * OLD_PER_THREAD + rnd(&r) % OLD_PER_THREAD, (unsigned)(rnd(&r) % SLOTS));
  }
  close(w->pipe[0]);
  close(w->pipe[1]);
  return NULL;
}

/* ---- the remembered objects of written pages ---------------------------- */

/* Holders are two to a 4 KiB page (a size class nothing else here uses);
   only the first of each pair is written, the second pads its page, so
   a holder's page is written exactly when the test writes the holder. */
struct holder {
  struct node *chain;
  struct holder *held;
  char pad[1984];
};
#define SCENARIOS 150
#define HOLDERS_PER_SCENARIO 3
static struct holder *holders[SCENARIOS * HOLDERS_PER_SCENARIO * 2];  /* root */
static struct holder *young_holders[SCENARIOS * 2];                     /* root */

static unsigned long minors(void) {
  struct bibop_generation_stats s;
  bibop_get_generation_stats(&s);
  return s.minor_collections;
}

/* Allocated in a frame of its own: no copy of the chain's address stays
   in the caller's frame or registers (that would keep it alive whatever
   the collector knows). */
static __attribute__((noinline)) void give_chain(struct node **a, struct node **b, uint64_t id) {
  struct node *chain = new_chain(id, 3);
  *a = chain;
  if (b) *b = chain;
}

static __attribute__((noinline)) void scrub_stack(void) {
  volatile char junk[4096];
  for (size_t i = 0; i < sizeof junk; i++) junk[i] = 0;
}

static void collect_by_allocation(void) {
  scrub_stack();
  until_collection();
}

static void check_chain(struct node *n, uint64_t id, const char *what, int scenario) {
  for (unsigned k = 0; k < 3; k++, n = n->next)
    CHECKF(n != NULL && n->id == id + k && n->check == hash(id + k),
           "%s, scenario %d: node %u of its young chain was freed", what, scenario, k);
}

/* A: old a and b both take a new chain; next cycle a lets go of it and b,
   whose page is not written again, is the only path (its page written
   only in the cycle before). B: a new holder y, referenced from old p,
   takes a new chain in the next cycle, when y is of age 1; old after that
   collection, y is not written again. Returns 1 if each scenario ran on
   minor collections only. */
static int remembered_scenario(int i) {
  struct holder *a = holders[2 * (i * HOLDERS_PER_SCENARIO)];
  struct holder *b = holders[2 * (i * HOLDERS_PER_SCENARIO + 1)];
  struct holder *p = holders[2 * (i * HOLDERS_PER_SCENARIO + 2)];
  unsigned long before = minors();
  uint64_t id_a = take_ids(), id_b = take_ids();

  young_holders[2 * i] = GC_MALLOC(sizeof(struct holder));        /* y, and its page's pad */
  young_holders[2 * i + 1] = GC_MALLOC(sizeof(struct holder));
  CHECK(young_holders[2 * i] && young_holders[2 * i + 1]);
  p->held = young_holders[2 * i];
  give_chain(&a->chain, &b->chain, id_a);
  collect_by_allocation();                    /* chain of age 1; y of age 1 */
  a->chain = NULL;
  give_chain(&p->held->chain, NULL, id_b);
  collect_by_allocation();                    /* b remembered; y old now */
  collect_by_allocation();                    /* y remembered */
  collect_by_allocation();                    /* freed memory reused */
  for (int k = 0; k < 2000; k++) (void)new_node(0);
  check_chain(b->chain, id_a, "A: an old object sharing its young target", i);
  CHECK(p->held == young_holders[2 * i]);
  check_chain(p->held->chain, id_b, "B: a holder given a young pointer at age 1", i);
  return minors() - before == 4;
}

static void remembered_scenarios(void) {
  for (size_t i = 0; i < sizeof holders / sizeof holders[0]; i++) {
    holders[i] = GC_MALLOC(sizeof(struct holder));
    CHECK(holders[i] != NULL);
  }
  GC_gcollect();
  GC_gcollect();   /* the holders are old now */
  int all_minor = 0;
  for (int i = 0; i < SCENARIOS; i++) all_minor += remembered_scenario(i);
  printf("remembered objects: %d of %d scenarios on minor collections only\n", all_minor, SCENARIOS);
  CHECKF(all_minor >= SCENARIOS / 4, "only %d scenarios ran on minor collections", all_minor);
}

/* ---- survivors made old at once ------------------------------------------ */

/* C: kept nodes survive one collection, then their second: most objects
   of age 1 survive, so the collection makes every survivor old at once
   (generations.c, gen_choose_promotion), among them a new chain old h
   took in that cycle. h's page is not written again, and the next minor
   collection rescans only pages written in its own cycle: the chain,
   old now, must still be there. Returns 1 if the scenario ran on minor
   collections only. */
#define KEPT_NODES 4096   /* 192 KiB: over the 64 KiB measured at least */
static struct node **kept;   /* root */

static int promoted_scenario(int i) {
  struct holder *h = holders[2 * (i * HOLDERS_PER_SCENARIO)];
  unsigned long before = minors();
  uint64_t id = take_ids();
  for (int k = 0; k < KEPT_NODES; k++) kept[k] = new_node(0);
  collect_by_allocation();   /* the kept nodes of age 1 */
  give_chain(&h->chain, NULL, id);
  collect_by_allocation();   /* the kept nodes and the chain old */
  for (int k = 0; k < KEPT_NODES; k++) kept[k] = NULL;
  collect_by_allocation();   /* h's page not written in this cycle */
  collect_by_allocation();   /* freed memory reused */
  for (int k = 0; k < 2000; k++) (void)new_node(0);
  check_chain(h->chain, id, "C: an old object given a chain in a cycle whose survivors became old", i);
  return minors() - before == 4;
}

static void promoted_scenarios(void) {
  kept = GC_MALLOC(KEPT_NODES * sizeof *kept);
  CHECK(kept != NULL);
  int all_minor = 0;
  for (int i = 0; i < SCENARIOS; i++) all_minor += promoted_scenario(i);
  printf("survivors made old: %d of %d scenarios on minor collections only\n", all_minor, SCENARIOS);
  CHECKF(all_minor >= SCENARIOS / 4, "only %d scenarios ran on minor collections", all_minor);
}

/* ---- old objects in blocks that also hold young ones -------------------- */

/* D: a page of four 1 KiB records (a size class nothing else here uses)
   whose second and fourth died in a major collection takes two new records
   in their slots (nothing else of the class has free slots), so its block
   holds old objects and young ones at once, and is written whenever its
   young records are (generations.c protects again only the written blocks
   that hold old objects; a block allocated into since the last collection
   may still hold old ones). An old record then takes a young chain, so
   does a young one, and minor collections follow: both chains must stay.
   Each scenario starts with the major collection that frees the last
   one's records, so blocks whose old objects all died are filled again.
   Returns 1 if the scenario ran on minor collections only. */
struct record {
  struct node *chain;
  char pad[1000];
};
#define MIXED_RECORDS 512   /* 128 pages */
#define MIXED_SCENARIOS 20
static struct record *volatile mixed[MIXED_RECORDS];   /* root; volatile: its stores of NULL
                                                          must happen before GC_gcollect */
static uint64_t mixed_ids[MIXED_RECORDS];

static int mixed_scenario(int i) {
  for (int k = 0; k < MIXED_RECORDS; k++) {
    mixed[k] = GC_MALLOC(sizeof(struct record));
    CHECK(mixed[k] != NULL);
  }
  GC_gcollect();
  GC_gcollect();   /* the records are old now */
  for (int k = 1; k < MIXED_RECORDS; k += 2) mixed[k] = NULL;
  GC_gcollect();   /* their slots free, in blocks that keep old records */
  unsigned shared = 0;
  for (int k = 1; k < MIXED_RECORDS; k += 2) {
    mixed[k] = GC_MALLOC(sizeof(struct record));
    CHECK(mixed[k] != NULL);
    bool beside_old = false;
    for (int j = 0; j < MIXED_RECORDS && !beside_old; j += 2)
      beside_old = ((uintptr_t)mixed[k] >> 12) == ((uintptr_t)mixed[j] >> 12);
    shared += beside_old;
  }
  CHECKF(shared >= MIXED_RECORDS / 4, "scenario %d: only %u young records share a page with an "
         "old one", i, shared);
  unsigned long before = minors();
  collect_by_allocation();   /* the young records of age 1 */
  for (int k = 0; k < MIXED_RECORDS; k++) {
    mixed_ids[k] = take_ids();
    give_chain(&mixed[k]->chain, NULL, mixed_ids[k]);
  }
  collect_by_allocation();
  collect_by_allocation();
  collect_by_allocation();   /* freed memory reused */
  for (int k = 0; k < 2000; k++) (void)new_node(0);
  for (int k = 0; k < MIXED_RECORDS; k++)
    check_chain(mixed[k]->chain, mixed_ids[k],
                k % 2 ? "D: a young record beside an old one" : "D: an old record beside young ones", i);
  return minors() - before == 4;
}

static void mixed_scenarios(void) {
  int all_minor = 0;
  for (int i = 0; i < MIXED_SCENARIOS; i++) all_minor += mixed_scenario(i);
  printf("old and young in one block: %d of %d scenarios on minor collections only\n", all_minor,
         MIXED_SCENARIOS);
  CHECKF(all_minor >= MIXED_SCENARIOS / 4, "only %d scenarios ran on minor collections", all_minor);
}

/* ---- sparse old blocks the allocator fills -------------------------------- */

/* F: a page of eight 512-byte records (a size class nothing else here
   uses) keeps two old records after a major collection; garbage records
   fill its other slots, so the collection after that leaves the block
   unprotected (generations.c: sparse old objects the allocator is filling)
   and the stores that give the old records young chains take no write
   fault. Garbage records go on filling the block while minor collections
   follow: each must rescan the old records (an unprotected block written
   at two collections in a row is otherwise taken for young-only). Returns
   1 if the scenario ran on minor collections only. */
struct slab { struct node *chain; char pad[504]; };
#define SPARSE_RECORDS 1024   /* 128 pages */
#define SPARSE_SCENARIOS 20
static struct slab *volatile sparse[SPARSE_RECORDS];   /* root */
static uint64_t sparse_ids[SPARSE_RECORDS];

/* Garbage records until a collection has run. */
static __attribute__((noinline)) void fill_with_slabs(void) {
  scrub_stack();
  GC_word before = GC_get_gc_no();
  while (GC_get_gc_no() == before) {
    struct slab *junk = GC_MALLOC(sizeof(struct slab));
    CHECK(junk != NULL);
    junk->chain = (struct node *)(uintptr_t)0x5a5a5a5a;
  }
}

static int sparse_scenario(int i) {
  for (int k = 0; k < SPARSE_RECORDS; k++) {
    sparse[k] = GC_MALLOC(sizeof(struct slab));
    CHECK(sparse[k] != NULL);
  }
  GC_gcollect();
  GC_gcollect();   /* the records are old now */
  for (int k = 0; k < SPARSE_RECORDS; k++)
    if (k % 8 > 1) sparse[k] = NULL;
  GC_gcollect();   /* six slots of eight free, in blocks that keep two old records */
  unsigned long before = minors();
  fill_with_slabs();   /* written: this collection leaves the blocks unprotected */
  for (int k = 0; k < SPARSE_RECORDS; k += 8)
    for (int j = k; j < k + 2; j++) {
      sparse_ids[j] = take_ids();
      give_chain(&sparse[j]->chain, NULL, sparse_ids[j]);
    }
  fill_with_slabs();
  fill_with_slabs();
  collect_by_allocation();
  for (int k = 0; k < 2000; k++) (void)new_node(0);   /* freed memory reused */
  for (int k = 0; k < SPARSE_RECORDS; k += 8)
    for (int j = k; j < k + 2; j++)
      check_chain(sparse[j]->chain, sparse_ids[j], "F: an old record in a sparse block", i);
  for (int k = 0; k < SPARSE_RECORDS; k++) sparse[k] = NULL;
  return minors() - before == 4;
}

static void sparse_scenarios(void) {
  int all_minor = 0;
  for (int i = 0; i < SPARSE_SCENARIOS; i++) all_minor += sparse_scenario(i);
  printf("old records in sparse blocks being filled: %d of %d scenarios on minor collections only\n",
         all_minor, SPARSE_SCENARIOS);
  CHECKF(all_minor >= SPARSE_SCENARIOS / 4, "only %d scenarios ran on minor collections", all_minor);
}

/* ---- young large objects ------------------------------------------------ */

/* E: an old holder takes the only pointers to new large objects (one
   block, several blocks, more than a 2 MiB chunk), into their middle when
   interior pointers are recognised (their tail blocks, not their first,
   then lead to them); minor collections follow, then new large objects of
   the same sizes, written all over, take any memory freed. Each object
   must keep its words. A minor collection's rescan judges an old object's
   words without the descriptors of blocks that hold no young object
   (generations.c): the large objects allocated since the last collection
   must count as young there. Returns 1 if the scenario ran on minor
   collections only until the first collection after the objects were
   allocated. */
#define LARGE_SIZES 3
static const size_t large_sizes[LARGE_SIZES] = { 6000, 70000, (size_t)3 << 20 };
static char **large_holder;   /* root; old */

static void fill_large(char *p, size_t bytes, uint64_t id) {
  for (size_t off = 0; off + sizeof(uint64_t) <= bytes; off += 512)
    *(uint64_t *)(p + off) = hash(id + off);
}

/* In a frame of its own (see give_chain). */
static __attribute__((noinline)) void give_large(char **slot, size_t bytes, uint64_t id) {
  char *p = GC_MALLOC(bytes);
  CHECK(p != NULL);
  fill_large(p, bytes, id);
  *slot = GC_get_all_interior_pointers() ? p + bytes / 2 : p;
}

static int large_scenario(int i) {
  GC_word gc_before = GC_get_gc_no();
  unsigned long before = minors();
  uint64_t ids[LARGE_SIZES];
  for (int k = 0; k < LARGE_SIZES; k++) {
    ids[k] = take_ids();
    give_large(&large_holder[k], large_sizes[k], ids[k]);
  }
  collect_by_allocation();
  /* Young objects meet minor collections only: every one since the first
     object was allocated was minor. */
  int minor_only = GC_get_gc_no() - gc_before == minors() - before;
  collect_by_allocation();
  collect_by_allocation();
  for (int k = 0; k < LARGE_SIZES; k++) {   /* freed memory reused */
    char *junk = GC_MALLOC(large_sizes[k]);
    CHECK(junk != NULL);
    memset(junk, 0x5a, large_sizes[k]);
  }
  for (int k = 0; k < LARGE_SIZES; k++) {
    char *p = large_holder[k] - (GC_get_all_interior_pointers() ? large_sizes[k] / 2 : 0);
    for (size_t off = 0; off + sizeof(uint64_t) <= large_sizes[k]; off += 512)
      CHECKF(*(uint64_t *)(p + off) == hash(ids[k] + off),
             "E: scenario %d: the young large object of %zu bytes was freed", i, large_sizes[k]);
  }
  for (int k = 0; k < LARGE_SIZES; k++) large_holder[k] = NULL;
  return minor_only;
}

static void large_scenarios(void) {
  large_holder = GC_MALLOC(LARGE_SIZES * sizeof *large_holder);
  CHECK(large_holder != NULL);
  GC_gcollect();
  GC_gcollect();   /* the holder is old now */
  int all_minor = 0;
  for (int i = 0; i < SCENARIOS; i++) all_minor += large_scenario(i);
  printf("young large objects: %d of %d scenarios on minor collections only\n", all_minor, SCENARIOS);
  CHECKF(all_minor >= SCENARIOS / 4, "only %d scenarios ran on minor collections", all_minor);
}

int main(int argc, char **argv) {
  if (argc > 1) rounds = atol(argv[1]);
  check_seed_ = 12345;
  GC_INIT();
  GC_enable_incremental();
  GC_allow_register_threads();
  olds = GC_MALLOC(THREADS * OLD_PER_THREAD * sizeof *olds);
  CHECK(olds != NULL);
  for (size_t i = 0; i < THREADS * OLD_PER_THREAD; i++) {
    olds[i] = GC_MALLOC(sizeof **olds);
    CHECK(olds[i] != NULL);
  }
  GC_gcollect();
  GC_gcollect();   /* the old objects are old now */
  CHECK(GC_is_incremental_mode());

  remembered_scenarios();
  promoted_scenarios();
  mixed_scenarios();
  large_scenarios();
  sparse_scenarios();

  pthread_t tid[THREADS];
  struct worker w[THREADS];
  for (unsigned t = 0; t < THREADS; t++) {
    w[t].t = t;
    CHECK(pthread_create(&tid[t], NULL, work, &w[t]) == 0);
  }
  for (unsigned t = 0; t < THREADS; t++) CHECK(pthread_join(tid[t], NULL) == 0);

  for (size_t i = 0; i < THREADS * OLD_PER_THREAD; i++)
    for (unsigned j = 0; j < SLOTS; j++) verify_slot(i, j);
  GC_gcollect();   /* a major collection finds the same */
  for (size_t i = 0; i < THREADS * OLD_PER_THREAD; i++)
    for (unsigned j = 0; j < SLOTS; j++) verify_slot(i, j);

  struct bibop_generation_stats s;
  bibop_get_generation_stats(&s);
  printf("backend %s: %lu minor and %lu major collections, last minor rescanned %zu blocks\n",
         s.dirty_backend, s.minor_collections, s.major_collections, s.last_dirty_blocks);
  CHECKF(s.enabled, "generational mode is off");
  CHECKF(s.minor_collections >= 20, "only %lu minor collections", s.minor_collections);
  printf("ok\n");
  return 0;
}
