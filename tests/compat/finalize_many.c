/* finalize_many.c: finalization and links at the scale of a weak hash table
 * (ECL registers a finalizer and a link per key), where the collector
 * handles all unreachable finalizable objects of a cycle together:
 * 100,000 unreachable A -> B pairs, both finalizable: no B in the
 * collection that finds its A, and a B always in a later collection than
 * its A; a chain of 64 finalizable objects is finalized one object per
 * collection, head first; a no_order object X -> an ordered Y: both in the
 * same collection (X's contents are not marked); 100,000 links to dropped
 * objects are cleared, those to live objects kept; when 1% of 100,000
 * finalizable and linked objects die, just those are finalized and their
 * links cleared; the tables grow, shrink and grow again (finalizers re-registered return the old
 * procedure and data; links unregistered return 1 once). Run also with a
 * mark stack that cannot grow (BIBOP_MARK_STACK_MAX=1), so that the
 * batched marking of the finalization steps meets a full stack. */
#include "compat.h"

#include <gc.h>

#define PAIRS 100000
#define CHAIN 64

struct obj {
    struct obj *next;
    uintptr_t id;
    uintptr_t check;       /* id ^ MAGIC while intact */
};
#define MAGIC ((uintptr_t)0x5eedf00dcafe1234ULL)

static GC_word *finalized_gc_no;   /* pointer-free: 0, or the collection count when finalized */
static unsigned *runs;             /* pointer-free: times each id was finalized */
static unsigned bad_objects;

/* The client data is the id + 1 (never NULL, never a heap pointer). */
static void GC_CALLBACK record(void *p, void *cd)
{
    struct obj *o = p;
    uintptr_t id = (uintptr_t)cd - 1;
    if (o->id != id || o->check != (id ^ MAGIC)) {
        bad_objects++;
        return;
    }
    runs[id]++;
    finalized_gc_no[id] = GC_get_gc_no();
}

static void reset(size_t n)
{
    memset(finalized_gc_no, 0, n * sizeof *finalized_gc_no);
    memset(runs, 0, n * sizeof *runs);
    bad_objects = 0;
}

static void check_once(size_t n)
{
    CHECK(bad_objects == 0, "%u finalizers saw a damaged object", bad_objects);
    for (size_t i = 0; i < n; i++) CHECK(runs[i] <= 1, "object %zu finalized %u times", i, runs[i]);
}

static NOINLINE struct obj *new_obj(uintptr_t id)
{
    struct obj *o = GC_MALLOC(sizeof *o);
    CHECK(o != NULL, "GC_MALLOC failed");
    o->id = id;
    o->check = id ^ MAGIC;
    return o;
}

typedef void (*register_fn)(void *, GC_finalization_proc, void *, GC_finalization_proc *,
                            void **);

/* ---- many pairs: ordering when all are handled together -------------------------- */

/* A(i) -> B(PAIRS + i); A registered with reg_a, B with GC_register_finalizer. */
static NOINLINE void make_pairs(register_fn reg_a)
{
    for (uintptr_t i = 0; i < PAIRS; i++) {
        struct obj *a = new_obj(i), *b = new_obj(PAIRS + i);
        a->next = b;
        reg_a(a, record, (void *)(i + 1), NULL, NULL);
        GC_register_finalizer(b, record, (void *)(PAIRS + i + 1), NULL, NULL);
    }
}

static void test_pairs(void)
{
    reset(2 * PAIRS);
    GC_disable();   /* the first collection is the one below */
    make_pairs(GC_register_finalizer);
    GC_enable();
    compat_collect(1);
    GC_invoke_finalizers();
    unsigned a1 = 0, b1 = 0;
    for (unsigned i = 0; i < PAIRS; i++) a1 += runs[i] != 0, b1 += runs[PAIRS + i] != 0;
    printf("pairs: after one collection %u A and %u B finalized\n", a1, b1);
    CHECK(b1 == 0, "%u B objects finalized in the collection that found their A unreachable", b1);
    CHECK(AT_LEAST_PERCENT(a1, PAIRS, 90), "only %u of %u A finalized", a1, PAIRS);
    compat_collect(4);
    GC_invoke_finalizers();
    check_once(2 * PAIRS);
    unsigned pairs = 0;
    for (unsigned i = 0; i < PAIRS; i++) {
        unsigned b = PAIRS + i;
        if (!runs[b]) continue;
        CHECK(runs[i], "B %u finalized although its A %u was not", b, i);
        CHECK(finalized_gc_no[b] > finalized_gc_no[i], "B %u finalized after collection %lu, its A "
              "after collection %lu", b, (unsigned long)finalized_gc_no[b],
              (unsigned long)finalized_gc_no[i]);
        pairs++;
    }
    printf("pairs: %u of %u pairs fully finalized, always A first\n", pairs, PAIRS);
    CHECK(AT_LEAST_PERCENT(pairs, PAIRS, 90), "only %u of %u pairs fully finalized", pairs, PAIRS);
}

/* X (no_order) -> Y (ordered): nothing marks from X, so Y is unreachable
   from any ordered finalizable object and both go in the same collection. */
static void test_no_order_pairs(void)
{
    reset(2 * PAIRS);
    GC_disable();
    make_pairs(GC_register_finalizer_no_order);
    GC_enable();
    compat_collect(3);
    GC_invoke_finalizers();
    check_once(2 * PAIRS);
    unsigned together = 0, both = 0;
    for (unsigned i = 0; i < PAIRS; i++) {
        unsigned y = PAIRS + i;
        if (!runs[i] || !runs[y]) continue;
        both++;
        CHECK(finalized_gc_no[y] >= finalized_gc_no[i], "Y %u finalized before its X %u", y, i);
        together += finalized_gc_no[y] == finalized_gc_no[i];
    }
    printf("no_order pairs: %u of %u pairs finalized, %u in one collection\n", both, PAIRS,
           together);
    CHECK(AT_LEAST_PERCENT(together, PAIRS, 90), "only %u of %u no_order -> ordered pairs "
          "finalized in one collection", together, PAIRS);
}

/* ---- a chain: one object per collection, head first -------------------------------- */

static NOINLINE void make_chain(void)
{
    struct obj *next = NULL;
    for (uintptr_t i = CHAIN; i-- > 0;) {
        struct obj *o = new_obj(i);
        o->next = next;
        GC_register_finalizer(o, record, (void *)(i + 1), NULL, NULL);
        next = o;
    }
}

static void test_chain(void)
{
    reset(CHAIN);
    make_chain();
    for (int i = 0; i < CHAIN + 8; i++) {   /* stock runs them only when asked */
        compat_collect(1);
        GC_invoke_finalizers();
    }
    check_once(CHAIN);
    unsigned done = 0;
    for (unsigned i = 0; i < CHAIN; i++) {
        if (!runs[i]) continue;
        done++;
        if (i == 0 || !runs[i - 1]) continue;
        CHECK(finalized_gc_no[i] > finalized_gc_no[i - 1], "chain object %u finalized after "
              "collection %lu, its predecessor after collection %lu", i,
              (unsigned long)finalized_gc_no[i], (unsigned long)finalized_gc_no[i - 1]);
    }
    printf("chain: %u of %u finalized, each after its predecessor\n", done, CHAIN);
#ifndef COMPAT_STOCK
    /* Stock finalizes a few links of the chain in 72 collections (3 in a
       standalone run), and then none: only the order is checked there. */
    CHECK(AT_LEAST_PERCENT(done, CHAIN, 90), "only %u of %u chain objects finalized", done, CHAIN);
#endif
}

/* ---- links and registrations by the hundred thousand ------------------------------ */

static void **slots;          /* the links: pointer-free, so they do not retain */
static struct obj **keep;     /* strong references to every 100th object */

static NOINLINE void make_links(void)
{
    for (unsigned i = 0; i < PAIRS; i++) {
        slots[i] = new_obj(i);
        if (i % 100 == 0) keep[i / 100] = slots[i];
        CHECK(GC_general_register_disappearing_link(&slots[i], slots[i]) == GC_SUCCESS,
              "registering link %u failed", i);
    }
}

static void test_links(void)
{
    slots = GC_MALLOC_ATOMIC(PAIRS * sizeof *slots);
    keep = GC_MALLOC(PAIRS / 100 * sizeof *keep);
    CHECK(slots && keep, "GC_MALLOC failed");
    for (int round = 0; round < 3; round++) {
        memset(slots, 0, PAIRS * sizeof *slots);
        make_links();
        compat_collect(3);
        unsigned cleared = 0;
        for (unsigned i = 0; i < PAIRS; i++) {
            if (i % 100 == 0) {
                CHECK(slots[i] == keep[i / 100], "round %d: link %u to a live object changed", round, i);
                struct obj *o = slots[i];
                CHECK(o->id == i && o->check == (i ^ MAGIC), "live object %u damaged", i);
            } else {
                cleared += slots[i] == NULL;
            }
        }
        printf("links, round %d: %u of %u links to dead objects cleared\n", round, cleared,
               PAIRS - PAIRS / 100);
        CHECK(AT_LEAST_PERCENT(cleared, PAIRS - PAIRS / 100, 90), "only %u links cleared", cleared);
        /* The kept ones are still registered, once; the cleared ones are not. */
        for (unsigned i = 0; i < PAIRS; i += 100) {
            CHECK(GC_unregister_disappearing_link(&slots[i]) == 1, "link %u was not registered", i);
            CHECK(GC_unregister_disappearing_link(&slots[i]) == 0, "link %u unregistered twice", i);
        }
        for (unsigned i = 1; i < PAIRS; i += 100)
            if (!slots[i])
                CHECK(GC_unregister_disappearing_link(&slots[i]) == 0, "cleared link %u still registered", i);
    }
    slots = NULL;
    keep = NULL;
}

static struct obj **live;

/* live[i]'s finalizer is record with data i + 1: unregister it. */
static void unregister_record(uintptr_t i)
{
    GC_finalization_proc ofn = NULL;
    void *ocd = NULL;
    GC_register_finalizer(live[i], 0, 0, &ofn, &ocd);
    CHECK(ofn == record && ocd == (void *)(i + 1), "unregistering %lu returned %p, %p",
          (unsigned long)i, (void *)(uintptr_t)ofn, ocd);
}

/* Few of many die: every 100th of PAIRS objects, each with a finalizer and
   a link (the collector then removes entries one by one, not by
   rebuilding its tables). */
static NOINLINE void make_live_linked(void)
{
    for (uintptr_t i = 0; i < PAIRS; i++) {
        live[i] = new_obj(i);
        slots[i] = live[i];
        GC_register_finalizer(live[i], record, (void *)(i + 1), NULL, NULL);
        CHECK(GC_general_register_disappearing_link(&slots[i], live[i]) == GC_SUCCESS,
              "registering link %lu failed", (unsigned long)i);
    }
}

static void test_few_die(void)
{
    reset(PAIRS);
    live = GC_MALLOC(PAIRS * sizeof *live);
    slots = GC_MALLOC_ATOMIC(PAIRS * sizeof *slots);
    CHECK(live && slots, "GC_MALLOC failed");
    make_live_linked();
    for (unsigned i = 0; i < PAIRS; i += 100) live[i] = NULL;
    compat_collect(3);
    GC_invoke_finalizers();
    check_once(PAIRS);
    unsigned finalized = 0, cleared = 0;
    for (unsigned i = 0; i < PAIRS; i++) {
        if (i % 100 == 0) {
            finalized += runs[i] != 0;
            cleared += slots[i] == NULL;
            continue;
        }
        CHECK(!runs[i], "live object %u finalized", i);
        CHECK(slots[i] == live[i], "link %u to a live object changed", i);
    }
    printf("few die: %u of %u finalized and %u links cleared, none of the %u live ones\n",
           finalized, PAIRS / 100, cleared, PAIRS - PAIRS / 100);
    CHECK(AT_LEAST_PERCENT(finalized, PAIRS / 100, 90), "only %u finalized", finalized);
    CHECK(AT_LEAST_PERCENT(cleared, PAIRS / 100, 90), "only %u links cleared", cleared);
    for (uintptr_t i = 1; i < PAIRS; i += 7) {
        if (i % 100 == 0) continue;
        unregister_record(i);
        CHECK(GC_unregister_disappearing_link(&slots[i]) == 1, "link %lu was not registered",
              (unsigned long)i);
    }
    live = NULL;
    slots = NULL;
    compat_collect(2);
    GC_invoke_finalizers();
}

static void GC_CALLBACK other(void *p, void *cd) { (void)p, (void)cd; }

static void test_reregister(void)
{
    live = GC_MALLOC(PAIRS * sizeof *live);
    CHECK(live != NULL, "GC_MALLOC failed");
    for (uintptr_t i = 0; i < PAIRS; i++) {
        live[i] = new_obj(i);
        GC_register_finalizer(live[i], record, (void *)(i + 1), NULL, NULL);
    }
    compat_collect(1);
    /* Unregister all but every 1000th (the table shrinks), then replace those. */
    for (uintptr_t i = 0; i < PAIRS; i++)
        if (i % 1000 != 0) unregister_record(i);
    compat_collect(1);
    for (uintptr_t i = 0; i < PAIRS; i += 1000) {
        GC_finalization_proc ofn = NULL;
        void *ocd = NULL;
        GC_register_finalizer(live[i], other, live[i], &ofn, &ocd);
        CHECK(ofn == record && ocd == (void *)(i + 1), "re-registering %lu returned %p, %p",
              (unsigned long)i, (void *)(uintptr_t)ofn, ocd);
        GC_register_finalizer(live[i], 0, 0, &ofn, &ocd);
        CHECK(ofn == other && ocd == live[i], "unregistering %lu returned %p, %p", (unsigned long)i,
              (void *)(uintptr_t)ofn, ocd);
    }
    live = NULL;
    printf("re-registration: old procedure and data returned for %u objects\n", PAIRS);
}

int main(void)
{
    GC_INIT();
    finalized_gc_no = GC_MALLOC_ATOMIC(2 * PAIRS * sizeof *finalized_gc_no);
    runs = GC_MALLOC_ATOMIC(2 * PAIRS * sizeof *runs);
    CHECK(finalized_gc_no && runs, "GC_MALLOC_ATOMIC failed");
    test_pairs();
    test_no_order_pairs();
    test_chain();
    test_links();
    test_few_die();
    test_reregister();
    printf("finalize_many: all checks passed\n");
    return 0;
}
