/* unit_mark.c: the marker (mark.c). Mark stack overflow recovery: a "comb"
 * (a list of 2 KiB nodes, each holding 254 leaf pointers before the next
 * pointer, so a LIFO mark stack keeps most of each node's leaves pending
 * while it follows the list; run with the prefetch FIFO off) of 4,000
 * nodes needs about a million entries in one collection, far more than the
 * initial 65,536; the test sees the mark stack grow (the process's mapped
 * size) and every object survive intact.
 * Also a 1,000,000-pointer array of objects pointing to objects and a
 * 2,000,000-element list. "Intact" is checked after a further round of
 * allocation of the same sizes, which would reuse (and zero) any slot freed
 * by mistake. Then, driving the marker directly from one root word, the
 * exact number of objects marked for each structure. Descriptors: a NORMAL
 * object is scanned whole (a pointer in its last word keeps the target
 * alive, for small, large and multi-block objects), a PTRFREE object is
 * never scanned (targets referenced only from atomic objects are reclaimed:
 * exactly so from one root, and in bulk through the public API). */
#include "internal.h"
#include "unit_check.h"

#include <fcntl.h>
#include <unistd.h>

/* ---- roots: this program's .bss, scanned by the collector ------------------ */

#define COMB_LEAVES 254
struct comb { uint64_t *leaf[COMB_LEAVES]; struct comb *next; };   /* 2040 bytes */
_Static_assert(sizeof(struct comb) == 2040, "comb node: one 2 KiB slot, next in its last word");
struct pair { uint64_t *grandchild; uint64_t a, b; };       /* 24 bytes */
struct node { struct node *next; uint64_t payload; };     /* 16 bytes */

#define COMB_NODES 4000
#define ARRAY_LEN 1000000
#define LIST_LEN 2000000

static struct comb *comb_root;
static struct pair **array_root;
static struct node *list_root;

/* ---- helpers ----------------------------------------------------------------- */

/* The process's mapped size in KiB, read without malloc. */
static long vm_size_kib(void) {
  char buf[4096];
  int fd = open("/proc/self/status", O_RDONLY);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char *p = strstr(buf, "VmSize:");
  return p ? strtol(p + 7, NULL, 10) : -1;
}

/* Mark bit of the object at p, read from its block descriptor. */
static bool is_marked(const void *p) {
  struct block *b = pt_block_of((uintptr_t)p);
  if (!b) return false;
  if (b->state == BLOCK_SMALL) {
    unsigned i = 0;
    if (small_object_start(b, (uintptr_t)p, &i) != p) return false;
    return (b->u.mark[i / 64] >> (i % 64)) & 1;
  }
  if (b->state == BLOCK_LARGE) return b->u.large.marked != 0;
  return false;
}

/* Allocation of the sizes used here, filled with non-zero bytes: any slot
   that was freed while still reachable is handed out, zeroed and filled. */
static __attribute__((noinline)) void churn(size_t per_size) {
  static const size_t sizes[] = { 8, 16, 24, 40, 48, 2040 };
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (size_t i = 0; i < per_size; i++) {
      char *p = GC_malloc(sizes[s]);
      REQUIRE(p != NULL, "churn allocation failed");
      memset(p, 0xee, sizes[s]);
    }
}

/* ---- builders (noinline: no stray pointers survive in our frames) ----------- */

static __attribute__((noinline)) void build_comb(uint64_t seed) {
  struct comb *head = NULL;
  for (long i = COMB_NODES - 1; i >= 0; i--) {
    struct comb *c = GC_malloc(sizeof *c);
    REQUIRE(c != NULL, "allocation failed");
    for (int k = 0; k < COMB_LEAVES; k++) {
      uint64_t *leaf = GC_malloc(sizeof(uint64_t));
      REQUIRE(leaf != NULL, "allocation failed");
      *leaf = unit_payload(seed, (uint64_t)i * 256 + k);
      c->leaf[k] = leaf;
    }
    c->next = head;
    head = c;
  }
  comb_root = head;
}

static __attribute__((noinline)) size_t check_comb(uint64_t seed) {
  size_t bad = 0, n = 0;
  for (struct comb *c = comb_root; c; c = c->next, n++)
    for (int k = 0; k < COMB_LEAVES; k++)
      if (*c->leaf[k] != unit_payload(seed, (uint64_t)n * 256 + k)) {
        if (!bad) fprintf(stderr, "comb node %zu leaf %d: %#" PRIx64 "\n", n, k, *c->leaf[k]);
        bad++;
      }
  EXPECT_EQ(n, COMB_NODES);
  return bad;
}

static __attribute__((noinline)) void build_array(uint64_t seed) {
  struct pair **arr = GC_malloc(ARRAY_LEN * sizeof *arr);
  REQUIRE(arr != NULL, "allocation of the array failed");
  for (size_t i = 0; i < ARRAY_LEN; i++) {
    struct pair *p = GC_malloc(sizeof *p);
    uint64_t *g = GC_malloc(40);
    REQUIRE(p && g, "allocation failed");
    for (int k = 0; k < 5; k++) g[k] = unit_payload(seed, i * 8 + k);
    p->grandchild = g;
    p->a = unit_payload(seed, i * 8 + 5);
    p->b = unit_payload(seed, i * 8 + 6);
    arr[i] = p;
  }
  array_root = arr;
}

static __attribute__((noinline)) size_t check_array(uint64_t seed) {
  size_t bad = 0;
  for (size_t i = 0; i < ARRAY_LEN; i++) {
    struct pair *p = array_root[i];
    bool ok = p && p->a == unit_payload(seed, i * 8 + 5) && p->b == unit_payload(seed, i * 8 + 6);
    for (int k = 0; ok && k < 5; k++) ok = p->grandchild[k] == unit_payload(seed, i * 8 + k);
    if (!ok) {
      if (!bad) fprintf(stderr, "array element %zu (%p) damaged\n", i, (void *)p);
      bad++;
    }
  }
  return bad;
}

static __attribute__((noinline)) void build_list(uint64_t seed) {
  struct node *head = NULL;
  for (long i = LIST_LEN - 1; i >= 0; i--) {
    struct node *n = GC_malloc(sizeof *n);
    REQUIRE(n != NULL, "allocation failed");
    n->payload = unit_payload(seed, (uint64_t)i);
    n->next = head;
    head = n;
  }
  list_root = head;
}

static __attribute__((noinline)) size_t check_list(uint64_t seed) {
  size_t bad = 0, i = 0;
  for (struct node *n = list_root; n; n = n->next, i++)
    if (n->payload != unit_payload(seed, i)) {
      if (!bad) fprintf(stderr, "list node %zu: %#" PRIx64 "\n", i, n->payload);
      bad++;
    }
  EXPECT_EQ(i, LIST_LEN);
  return bad;
}

/* ---- overflow through the public API ----------------------------------------- */

static void check_overflow_public(void) {
  /* Build without collecting, so that the first marking of the whole comb is
     the collection below and the stack still has its initial size. */
  GC_disable();
  build_comb(11);
  GC_enable();
  unit_scrub_stack();
  long vm0 = vm_size_kib();
  GC_gcollect();
  long vm1 = vm_size_kib();
  NOTE("comb of %d nodes collected: mapped size %ld KiB -> %ld KiB", COMB_NODES, vm0, vm1);
  /* A million pending entries do not fit 65,536: the stack must have
     grown (1 MiB -> at least 2 MiB of metadata mappings). */
  EXPECT(vm1 - vm0 >= 1024, "the mark stack did not grow (mapped size %ld -> %ld KiB): did "
         "the collection overflow at all?", vm0, vm1);
  churn(COMB_NODES * COMB_LEAVES / 4);
  GC_gcollect();
  EXPECT_EQ(check_comb(11), 0);

  build_array(22);
  build_list(33);
  unit_scrub_stack();
  GC_gcollect();
  churn(ARRAY_LEN);
  GC_gcollect();
  churn(ARRAY_LEN);
  EXPECT_EQ(check_comb(11), 0);
  EXPECT_EQ(check_array(22), 0);
  EXPECT_EQ(check_list(33), 0);
  NOTE("comb, 1M array and 2M list intact after collections and churn");
}

/* ---- the marker driven from one root word ----------------------------------- */

typedef size_t (*walk_fn)(void);

static size_t unmarked_comb(void) {
  size_t bad = 0;
  for (struct comb *c = comb_root; c; c = c->next) {
    bad += !is_marked(c);
    for (int k = 0; k < COMB_LEAVES; k++) bad += !is_marked(c->leaf[k]);
  }
  return bad;
}

static size_t unmarked_array(void) {
  size_t bad = !is_marked(array_root);
  for (size_t i = 0; i < ARRAY_LEN; i++)
    bad += !is_marked(array_root[i]) + !is_marked(array_root[i]->grandchild);
  return bad;
}

static size_t unmarked_list(void) {
  size_t bad = 0;
  for (struct node *n = list_root; n; n = n->next) bad += !is_marked(n);
  return bad;
}

/* Clear the marks, mark from the one word at *root, and report how many
   objects were marked and how many of `walk`'s objects were not; then a full
   collection puts the collector's state right again. */
static unsigned long mark_from_root(void *const *root, walk_fn walk, size_t *unmarked) {
  LOCK();
  alloc_before_mark();
  mark_clear_all();
  mark_range(root, root + 1);
  mark_finish();
  unsigned long marked = gc.marked_objects;
  *unmarked = walk ? walk() : 0;
  gc_collect_locked("unit_mark: restore");
  UNLOCK();
  return marked;
}

static void check_exact_marking(void) {
  size_t unmarked;
  unsigned long n = mark_from_root((void *const *)&comb_root, unmarked_comb, &unmarked);
  EXPECT_EQ(n, COMB_NODES * (COMB_LEAVES + 1UL));
  EXPECT_EQ(unmarked, 0);
  n = mark_from_root((void *const *)&array_root, unmarked_array, &unmarked);
  EXPECT_EQ(n, 1 + 2UL * ARRAY_LEN);
  EXPECT_EQ(unmarked, 0);
  n = mark_from_root((void *const *)&list_root, unmarked_list, &unmarked);
  EXPECT_EQ(n, LIST_LEN);
  EXPECT_EQ(unmarked, 0);
  EXPECT_EQ(check_comb(11), 0);
  EXPECT_EQ(check_array(22), 0);
  EXPECT_EQ(check_list(33), 0);
  NOTE("direct marking from one root: exact counts for comb, array and list");
  comb_root = NULL;
  array_root = NULL;
  list_root = NULL;
}

/* ---- descriptors: NORMAL scanned whole, PTRFREE never ---------------------- */

static void *holder_root;   /* one holder at a time, for the exact checks */

static const size_t holder_sizes[] = { 24, 2040, 2047, 2048, 4000, 4096, 10000, 100000, 1 << 20 };
#define N_HOLDER_SIZES (sizeof holder_sizes / sizeof *holder_sizes)

/* Offset of the last whole word the client may write in an object of lb. */
static size_t last_word(size_t lb) { return (lb & ~(size_t)7) - 8; }

static void check_descriptors_exact(void) {
  for (size_t s = 0; s < N_HOLDER_SIZES; s++) {
    size_t lb = holder_sizes[s];
    for (int atomic = 0; atomic < 2; atomic++) {
      char *h = atomic ? GC_malloc_atomic(lb) : GC_malloc(lb);
      uint64_t *target = GC_malloc(32);
      REQUIRE(h && target, "allocation failed");
      if (atomic) memset(h, 0, lb);
      target[0] = unit_payload(5, s);
      memcpy(h + last_word(lb), &target, sizeof target);
      holder_root = h;
      size_t unused;
      unsigned long n = mark_from_root(&holder_root, NULL, &unused);
      EXPECT(n == (atomic ? 1UL : 2UL), "%s holder of %zu bytes with a pointer at offset %zu: "
             "%lu objects marked from it, expected %d", atomic ? "PTRFREE" : "NORMAL", lb,
             last_word(lb), n, atomic ? 1 : 2);
      holder_root = NULL;
    }
  }
  NOTE("descriptors from one root: NORMAL scanned to the last word, PTRFREE not scanned");
}

#define N_HOLDERS 2000
static void *holders[N_HOLDERS];   /* .bss root: the holders themselves stay live */

static __attribute__((noinline)) void fill_holders(size_t lb, bool atomic, uint64_t seed) {
  for (size_t i = 0; i < N_HOLDERS; i++) {
    char *h = atomic ? GC_malloc_atomic(lb) : GC_malloc(lb);
    uint64_t *target = GC_malloc(48);
    REQUIRE(h && target, "allocation failed");
    if (atomic) memset(h, 0, lb);
    for (int k = 0; k < 6; k++) target[k] = unit_payload(seed, i * 8 + k);
    memcpy(h + last_word(lb), &target, sizeof target);   /* the only reference */
    holders[i] = h;
  }
}

/* Targets still allocated with their payload intact. A reclaimed target's
   memory may have been handed out again, so "still an object" is not
   enough: the object there must be the target, payload and all. */
static __attribute__((noinline)) size_t count_live_targets(size_t lb, uint64_t seed) {
  size_t live = 0;
  for (size_t i = 0; i < N_HOLDERS; i++) {
    uint64_t *target;
    memcpy(&target, (char *)holders[i] + last_word(lb), sizeof target);
    if (bibop_classify(target) != BIBOP_ADDR_HEAP_OBJECT || GC_base(target) != target) continue;
    bool ok = true;
    for (int k = 0; k < 6; k++) ok &= target[k] == unit_payload(seed, i * 8 + k);
    live += ok;
  }
  return live;
}

static void check_descriptors_bulk(void) {
  for (size_t s = 0; s < N_HOLDER_SIZES; s++) {
    size_t lb = holder_sizes[s];
    if (lb > 100000) continue;   /* 2000 MiB of holders is not needed to make the point */
    for (int atomic = 0; atomic < 2; atomic++) {
      uint64_t seed = 1000 + s * 2 + atomic;
      GC_disable();   /* the collection below is the first to see them */
      fill_holders(lb, atomic, seed);
      GC_enable();
      unit_scrub_stack();
      GC_gcollect();
      if (atomic) {
        /* A few may be pinned by stale words on the stack or in registers. */
        size_t live = count_live_targets(lb, seed);
        EXPECT(live <= N_HOLDERS / 20, "%zu of %d targets referenced only from PTRFREE "
               "objects of %zu bytes were retained", live, N_HOLDERS, lb);
      } else {
        churn(20000);   /* would hand out (and zero) any target freed by mistake */
        size_t live = count_live_targets(lb, seed);
        EXPECT(live == N_HOLDERS, "NORMAL holders of %zu bytes, pointer in the last word: "
               "%zu of %d targets live and intact", lb, live, N_HOLDERS);
      }
      memset(holders, 0, sizeof holders);
    }
  }
  NOTE("descriptors in bulk: targets of NORMAL holders kept, of PTRFREE holders reclaimed");
}

int main(void) {
  /* The comb overflows a LIFO stack: a node's leaves are pushed before its
     next pointer is followed. The prefetch FIFO delays every candidate by
     a few dozen words, so the next pointer is followed only after the
     node's leaves have been scanned and the stack stays small; overflow is
     exercised with the FIFO off (bibop reads this at init). */
  setenv("BIBOP_PREFETCH", "0", 1);
  /* The stack grows in place up to this many entries; beyond, entries are
     dropped and recovered by rescanning: the path under test here. */
  setenv("BIBOP_MARK_STACK_MAX", "65536", 1);
  GC_init();
  check_overflow_public();
  check_exact_marking();
  check_descriptors_exact();
  check_descriptors_bulk();
  return unit_finish("unit_mark");
}
