/* generational_markproc.c: in generational mode, an old object whose kind
 * has a client mark procedure must be traced again by every minor
 * collection, written or not: a mark procedure may read memory outside the
 * heap, whose writes no dirty page records. Guile 2.2's thread objects
 * mark their VM stacks (mmap'd) that way, and the stacks change while the
 * thread objects are never written; bibop's minor collections freed young
 * objects only a VM stack held (guile-parmap on Guile 2.2: wrong vector
 * lengths, crashes).
 *
 * One holder object of a kind with a mark procedure is made old by major
 * collections; its mark procedure pushes every pointer of a malloc'd table
 * (not in the heap, not a root). Each round stores fresh chains of young
 * objects in that table only, then allocates garbage until minor
 * collections have run, then checks every chain: a node freed while the
 * table held it is reused by later chains and fails the check. bibop only
 * (bibop.h generation statistics; run with BIBOP_GENERATIONAL=1).
 */
#include <gc.h>
#include <gc/gc_mark.h>
#include <bibop.h>
#include <stdlib.h>

#include "check.h"

#define TABLE 512        /* chains the malloc'd table holds */
#define CHAIN 8          /* nodes per chain */
#define ROUNDS 300
#define HOLDER_MAGIC ((GC_word)0x484f4c4445523132ULL)

struct node {
  GC_word id, check;
  struct node *next;
};

static void **table;     /* malloc'd: what the holder's mark procedure reads */
static GC_word next_id = 1;

static GC_word checksum(GC_word id) { return id * 0x9e3779b97f4a7c15ULL ^ 0x5bd1e995; }

static struct GC_ms_entry *mark_holder(GC_word *addr, struct GC_ms_entry *msp,
                                       struct GC_ms_entry *msl, GC_word env) {
  (void)env;
  if (addr[0] != HOLDER_MAGIC) return msp;   /* a cleared free slot */
  void **t = (void **)addr[1];
  for (int i = 0; i < TABLE; i++) msp = GC_MARK_AND_PUSH(t[i], msp, msl, (void **)addr + 1);
  return msp;
}

static struct node *make_chain(GC_word first_id) {
  struct node *head = NULL;
  for (int k = CHAIN - 1; k >= 0; k--) {
    struct node *n = GC_MALLOC(sizeof *n);
    CHECK(n != NULL);
    n->id = first_id + (GC_word)k;
    n->check = checksum(n->id);
    n->next = head;
    head = n;
  }
  return head;
}

static void check_chain(const struct node *n, GC_word first_id, int round, int slot) {
  for (int k = 0; k < CHAIN; k++, n = n->next) {
    CHECKF(n != NULL, "round %d, slot %d: chain cut at node %d", round, slot, k);
    CHECKF(n->id == first_id + (GC_word)k && n->check == checksum(n->id),
           "round %d, slot %d: node %d was freed and reused (id %lu, expected %lu)",
           round, slot, k, (unsigned long)n->id, (unsigned long)(first_id + (GC_word)k));
  }
}

static NOINLINE void churn(size_t bytes) {
  for (size_t done = 0; done < bytes; done += 64) {
    void *volatile p = GC_MALLOC(64);
    (void)p;
  }
}

int main(void) {
  GC_INIT();
  GC_enable_incremental();
  int kind = (int)GC_new_kind(GC_new_free_list(), GC_MAKE_PROC(GC_new_proc(mark_holder), 0), 0, 1);
  table = calloc(TABLE, sizeof *table);
  GC_word *first_ids = calloc(TABLE, sizeof *first_ids);
  CHECK(table != NULL && first_ids != NULL);
  GC_word *holder = GC_generic_malloc(2 * sizeof(GC_word), kind);
  CHECK(holder != NULL);
  holder[0] = HOLDER_MAGIC;
  holder[1] = (GC_word)table;
  static GC_word *volatile root;   /* the holder's only reference */
  root = holder;
  holder = NULL;
  GC_gcollect();
  GC_gcollect();                   /* the holder is old */

  struct bibop_generation_stats before, after;
  bibop_get_generation_stats(&before);
  CHECKF(before.enabled, "generational mode is off (run with BIBOP_GENERATIONAL=1)");
  for (int round = 0; round < ROUNDS; round++) {
    for (int i = 0; i < TABLE; i++) {
      first_ids[i] = next_id;
      next_id += CHAIN;
      table[i] = make_chain(first_ids[i]);   /* held by the table alone */
    }
    churn((size_t)1 << 20);        /* minor collections run in here */
    for (int i = 0; i < TABLE; i++) check_chain(table[i], first_ids[i], round, i);
  }
  bibop_get_generation_stats(&after);
  unsigned long minors = after.minor_collections - before.minor_collections;
  printf("%d rounds, %lu minor and %lu major collections; every chain the table held intact\n",
         ROUNDS, minors, after.major_collections - before.major_collections);
  CHECKF(minors >= ROUNDS / 4, "only %lu minor collections ran: the test tests nothing", minors);
  CHECK(root[0] == HOLDER_MAGIC);
  return 0;
}
