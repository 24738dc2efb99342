/* unit_markstats.c: the marker's statistics (bibop_get_mark_stats) on a
 * known heap, in whatever marking mode the environment selects (CTest runs
 * it with the prefetch FIFO on and off, through the hash page table, and
 * with one or two markers). The heap is one list of LIST_LEN nodes, all
 * live, each holding its next pointer, an immediate and a pointer into a
 * registered static area. Checks: every object built is marked and nothing
 * else (marked objects and bytes exact), each candidate is classified
 * exactly once (the four classes sum to the total), each node's static
 * pointer is counted as static and each next pointer as an object, time is
 * measured; after the static range is unregistered no word counts as static
 * and the node pointers into it count as not ours. Also the page table's
 * view of the static area (classified static, not a heap pointer). */
#include "internal.h"
#include "unit_check.h"

#define LIST_LEN 100000
#define STATIC_BYTES ((size_t)1 << 20)

struct node { struct node *next; uintptr_t immediate; const char *in_static; uintptr_t pad; };

static struct node *list_root;
static char static_area[STATIC_BYTES] __attribute__((aligned(4096)));

static __attribute__((noinline)) void build_list(void) {
  for (size_t i = 0; i < LIST_LEN; i++) {
    struct node *n = GC_MALLOC(sizeof *n);
    REQUIRE(n, "allocation %zu failed", i);
    n->next = list_root;
    n->immediate = i * 2 + 1;
    n->in_static = static_area + (i * 64) % STATIC_BYTES;
    list_root = n;
  }
}

static __attribute__((noinline)) void cut_list(size_t keep) {
  struct node *n = list_root;
  for (size_t i = 1; i < keep; i++) n = n->next;
  n->next = NULL;
}

static void expect_consistent(const struct bibop_mark_stats *s) {
  EXPECT_EQ(s->gc_no, GC_get_gc_no());
  EXPECT_EQ(s->candidates, s->cand_not_ours + s->cand_free + s->cand_static + s->cand_object);
  EXPECT_GE(s->cand_object, s->marked_objects);
  EXPECT_GT(s->mark_ns, 0);
  EXPECT(s->ns_per_object > 0, "ns per object %f", s->ns_per_object);
  EXPECT_LE(s->huge_page_bytes, s->heap_bytes);
  EXPECT_GT(s->heap_bytes, 0);
}

int main(void) {
  GC_init();
  GC_start_mark_threads();   /* parallel marking when GC_MARKERS allows it */
  REQUIRE(bibop_register_static(static_area, STATIC_BYTES) == 0, "register static");
  EXPECT_EQ(bibop_classify(static_area + 100), BIBOP_ADDR_STATIC);
  EXPECT_EQ(GC_is_heap_ptr(static_area + 100), 0);
  EXPECT_PTR_EQ(GC_base(static_area + 100), NULL);

  build_list();
  unit_scrub_stack();
  GC_gcollect();
  struct bibop_mark_stats s;
  bibop_get_mark_stats(&s);
  NOTE("markers %d, pagehash %d: %llu objects, %llu bytes, candidates %llu (not ours %llu, "
       "free %llu, static %llu, object %llu), %.1f ns/object, huge pages %zu of %zu bytes",
       GC_parallel + 1, (int)pagehash_enabled, s.marked_objects, s.marked_bytes, s.candidates,
       s.cand_not_ours, s.cand_free, s.cand_static, s.cand_object, s.ns_per_object,
       s.huge_page_bytes, s.heap_bytes);
  expect_consistent(&s);
  EXPECT_EQ(s.marked_objects, LIST_LEN);
  EXPECT_EQ(s.marked_bytes, (unsigned long long)LIST_LEN * GC_size(list_root));
  EXPECT_GE(s.cand_static, LIST_LEN);
  EXPECT_GE(s.cand_object, LIST_LEN);   /* LIST_LEN - 1 next pointers and the root */
  /* Each node: 4 words, of which next and in_static are never "not ours". */
  EXPECT_GE(s.candidates, 4ull * LIST_LEN);
  EXPECT_GE(s.cand_not_ours, 2ull * LIST_LEN - 1);

  /* The same heap, the static range forgotten: its pointers are not ours. */
  REQUIRE(bibop_unregister_range(static_area) == 0, "unregister static");
  EXPECT_EQ(bibop_classify(static_area + 100), BIBOP_ADDR_UNKNOWN);
  unsigned long long static_before = s.cand_static, not_ours_before = s.cand_not_ours;
  GC_gcollect();
  bibop_get_mark_stats(&s);
  NOTE("unregistered: static %llu, not ours %llu", s.cand_static, s.cand_not_ours);
  expect_consistent(&s);
  EXPECT_EQ(s.marked_objects, LIST_LEN);
  EXPECT_EQ(s.cand_static, 0);
  EXPECT_GE(s.cand_not_ours, not_ours_before + static_before);

  /* Half the list dropped: the count follows (a stale word left in a
     register or stack slot may keep the tail of the dropped half). */
  cut_list(LIST_LEN / 2);
  unit_scrub_stack();
  GC_gcollect();
  bibop_get_mark_stats(&s);
  NOTE("half dropped: %llu objects marked", s.marked_objects);
  expect_consistent(&s);
  EXPECT_GE(s.marked_objects, LIST_LEN / 2);
  EXPECT_LT(s.marked_objects, LIST_LEN);
  return unit_finish("unit_markstats");
}
