/*
 * disclaim.c: disclaim procedures and finalized allocation (gc_disclaim.h).
 *
 * A kind may have a disclaim procedure: it is called on every object of the
 * kind found unreachable by a collection, before the object's slot can be
 * reused; a nonzero answer keeps the object (marked) for one more cycle.
 * With mark_unconditionally, the contents of unreachable objects of the kind
 * are marked as if they were live, so everything they reference is intact
 * when their procedure runs (an object reachable from another one of the
 * kind therefore waits a cycle, and a cycle through such objects is never
 * reclaimed, as in bdwgc). GC_finalized_malloc is a kind of this sort whose
 * objects carry their closure, tagged with the low bit, in their first word.
 *
 * Mark bits are allocation bits (internal.h), so after marking a dead object
 * and a free slot look alike: the allocation bits of every small block of a
 * kind with a procedure are saved before the marks are cleared (minus the
 * slots cursors have not handed out), and "dead" is saved-and-unmarked.
 * The phases, all in gc_collect_locked, under the allocation lock:
 *   disclaim_snapshot              before mark_clear_all
 *   disclaim_mark_unconditionally  after marking, before finalization
 *   disclaim_find_dead             after finalization and alloc_after_mark
 *   disclaim_sweep                 world restarted, before sweep_setup
 * alloc_after_mark keeps every slot of a window an allocation cursor still
 * claims (a thread may be handing them out: GC_generic_malloc_many), so a
 * dead object there is disclaimed in a later cycle, once its cursor has
 * moved on; until then its slot is not reused either.
 * Unlike bdwgc, which calls procedures from its lazy sweep, bibop calls all
 * of a cycle's procedures eagerly in disclaim_sweep: when the collection
 * returns, every object it found dead has been disclaimed, and lazy
 * sweeping never meets an undisclaimed dead object. Like bdwgc, procedures
 * run with the allocation lock held (other threads keep running): they must
 * not allocate or call collector functions that take the lock. Explicitly
 * freed objects are never disclaimed (their bits are clear at the
 * snapshot). Nothing is disclaimed in leak-finding mode.
 */
#include "internal.h"
#include "gc/gc_disclaim.h"

#include <string.h>

#define CLOSURE_TAG ((GC_word)1)   /* low bit of a finalized object's first word */

struct disclaim_kind {
  GC_disclaim_proc proc;
  bool mark_unconditionally;
};

/* Saved allocation bits of one small block; after disclaim_find_dead, its
   dead objects. */
struct disclaim_row {
  struct block *b;
  uint64_t bits[MARK_WORDS];
};

static struct disclaim_kind disclaim_kinds[MAX_KINDS];   /* under the lock */
static unsigned disclaim_kind_count;                    /* kinds with a proc */
static struct meta_vec rows = { .item_size = sizeof(struct disclaim_row) };
static int finalized_kind = -1;                         /* GC_finalized_malloc's */

static bool disclaim_active(void) {
  return disclaim_kind_count != 0 && !GC_find_leak;
}

static const struct disclaim_kind *disclaim_of(unsigned kind) {
  const struct disclaim_kind *d = &disclaim_kinds[kind];
  return d->proc && !gc.kinds[kind].uncollectable ? d : NULL;
}

void disclaim_snapshot(void) {
  rows.count = 0;
  if (!disclaim_active()) return;
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    if (!disclaim_of(k)) continue;
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) {
        struct disclaim_row row = { .b = b };
        memcpy(row.bits, b->u.mark, sizeof row.bits);
        alloc_unclaimed_bits(b, row.bits);
        /* Without its row a block's dead objects would be freed silently. */
        if (!meta_vec_push(&rows, &row)) gc_abort("bibop: no memory for disclaim bookkeeping");
      }
  }
}

static char *object_at(const struct block *b, unsigned i) {
  return block_addr(b) + (size_t)i * b->obj_bytes;
}

/* Saved and unmarked: dead, until something marks it. */
static uint64_t unmarked(const struct disclaim_row *row, unsigned w) {
  return row->bits[w] & ~row->b->u.mark[w];
}

/* What the dead objects reach is the same in any order, so their contents
   are pushed and drained in batches, not one drain per object (the stack
   stays short; mark_push_contents drains first when it is full). */
#define PUSHES_PER_DRAIN 256

void disclaim_mark_unconditionally(void) {
  if (!disclaim_active()) return;
  unsigned pushed = 0;
  for (size_t r = 0; r < rows.count; r++) {
    const struct disclaim_row *row = &META_VEC_AT(&rows, struct disclaim_row, r);
    if (!disclaim_kinds[row->b->kind].mark_unconditionally) continue;
    for (unsigned w = 0; w < MARK_WORDS; w++)
      for (uint64_t dead = unmarked(row, w); dead; dead &= dead - 1) {
        mark_push_contents(object_at(row->b, w * 64 + (unsigned)__builtin_ctzll(dead)));
        if (++pushed == PUSHES_PER_DRAIN) mark_drain(), pushed = 0;
      }
  }
  for (struct block *h = gc.large; h; h = h->next) {
    const struct disclaim_kind *d = disclaim_of(h->kind);
    if (d && d->mark_unconditionally && !h->u.large.marked) mark_push_contents(block_addr(h));
  }
  mark_drain();
  mark_recover_overflow();
}

void disclaim_find_dead(void) {
  if (!disclaim_active()) return;
  for (size_t r = 0; r < rows.count; r++) {
    struct disclaim_row *row = &META_VEC_AT(&rows, struct disclaim_row, r);
    for (unsigned w = 0; w < MARK_WORDS; w++) row->bits[w] = unmarked(row, w);
  }
}

void disclaim_sweep(void) {
  if (!disclaim_active()) return;
  for (size_t r = 0; r < rows.count; r++) {
    const struct disclaim_row *row = &META_VEC_AT(&rows, struct disclaim_row, r);
    struct block *b = row->b;
    GC_disclaim_proc proc = disclaim_kinds[b->kind].proc;
    for (unsigned w = 0; w < MARK_WORDS; w++)
      for (uint64_t dead = row->bits[w]; dead; dead &= dead - 1) {
        void *obj = object_at(b, w * 64 + (unsigned)__builtin_ctzll(dead));
        if (proc(obj)) mark_set_bit(obj, true);   /* kept: allocated one more cycle */
      }
  }
  for (struct block *h = gc.large; h; h = h->next) {
    const struct disclaim_kind *d = disclaim_of(h->kind);
    if (d && !h->u.large.marked && d->proc(block_addr(h))) h->u.large.marked = 1;
  }
  rows.count = 0;
}

GC_API void GC_register_disclaim_proc(int kind, GC_disclaim_proc proc, int mark_from_all) {
  gc_ensure_init();
  LOCK();
  if (kind < 0 || (unsigned)kind >= gc.n_kinds) {
    UNLOCK();
    gc_warn("GC Warning: GC_register_disclaim_proc of unknown kind %ld ignored\n", (GC_word)kind);
    return;
  }
  struct disclaim_kind *d = &disclaim_kinds[kind];
  disclaim_kind_count += (proc != NULL) - (d->proc != NULL);   /* NULL: no procedure */
  d->proc = proc;
  d->mark_unconditionally = mark_from_all != 0;
  UNLOCK();
}

/* ---- GC_finalized_malloc ------------------------------------------------------ */

/* The closure runs once: the tag is cleared before the call, and the object
   is freed by this same collection. */
static int GC_CALLBACK finalized_disclaim(void *obj) {
  GC_word *first = obj;
  GC_word tagged = *first;
  if (!(tagged & CLOSURE_TAG)) return 0;   /* allocated without a closure */
  *first = 0;
  const struct GC_finalizer_closure *fc = (const void *)(tagged & ~CLOSURE_TAG);
  if (fc && fc->proc) fc->proc(first + 1, fc->cd);   /* allocated with a NULL closure */
  return 0;
}

GC_API void GC_init_finalized_malloc(void) {
  gc_ensure_init();
  LOCK();
  bool done = finalized_kind >= 0;
  UNLOCK();
  if (done) return;
  /* The client's pointer is one word into the object, and a closure
     pointer carries its tag: both displacements keep objects alive
     without all interior pointers. */
  mark_register_displacement(sizeof(GC_word));
  mark_register_displacement(CLOSURE_TAG);
  LOCK();
  if (finalized_kind < 0) {
    unsigned k = GC_new_kind_inner(GC_new_free_list_inner(), GC_DS_LENGTH, 1, 1);
    disclaim_kinds[k] = (struct disclaim_kind){ .proc = finalized_disclaim,
                                                .mark_unconditionally = true };
    disclaim_kind_count++;
    __atomic_store_n(&finalized_kind, (int)k, __ATOMIC_RELEASE);
  }
  UNLOCK();
}

GC_API void *GC_finalized_malloc(size_t lb, const struct GC_finalizer_closure *fc) {
  int kind = __atomic_load_n(&finalized_kind, __ATOMIC_ACQUIRE);
  if (kind < 0) {
    GC_init_finalized_malloc();   /* bdwgc requires the call first; be lenient */
    kind = finalized_kind;
  }
  if (lb > SIZE_MAX - sizeof(GC_word)) return alloc_out_of_memory(lb);
  GC_word *p = alloc_generic(lb + sizeof(GC_word), kind);
  if (!p) return NULL;
  __atomic_store_n(p, (GC_word)fc | CLOSURE_TAG, __ATOMIC_RELEASE);
  return p + 1;
}
