/* disclaim.c: the disclaim interface (gc_disclaim.h).
 *   finalized: GC_finalized_malloc objects (GC_base one word before the
 *     client's pointer) have their closure run with the client's pointer and
 *     data, never while reachable, at most once, once unreachable (most of
 *     them: conservative retention);
 *   resurrect: a client kind whose disclaim procedure answers 1 twice, then
 *     0: the object is offered three times, intact each time, its slot never
 *     handed out meanwhile, and never again after;
 *   unconditional: with mark_from_all, what an unreachable object references
 *     (two levels down) is marked and intact inside its procedure; without it,
 *     the referents are not marked (bibop only, the control that the check
 *     can fail: on stock a block of unmarked objects may be gone already);
 *   churn: 100,000 finalized objects, every 100th kept: kept ones never
 *     finalized, none twice, most others once, each with its own contents;
 *   free: GC_free'd finalized objects never run their closure (nor do the
 *     reachable objects that reuse their slots; once dropped, they do).
 * Stock bdwgc calls procedures from its lazy sweep, up to a collection
 * later than bibop (which calls them all before GC_gcollect returns), and
 * bibop keeps the window of slots its allocation cursor holds until the
 * cursor moves on: checks that something happens allocate fillers and
 * collect until it does, up to a bound.
 * Procedures run with the allocation lock held: they only record. */
#include "compat.h"

#include <gc.h>
#include <gc/gc_disclaim.h>
#include <gc/gc_mark.h>

#define MAX_ROUNDS 12   /* collections to wait for lazily swept procedures */

static const char *failure;   /* first problem seen inside a procedure */
static void fail_inside(const char *what)
{
    if (!failure) failure = what;
}

/* ---- finalized objects: payload { id, ~id, ... } -------------------------- */

#define N_FINALIZED 2000
#define N_CHURN 100000
#define CHURN_KEEP_EVERY 100

static unsigned char calls[N_CHURN + 1];   /* closure runs per id; the last: fillers */
static int closure_tag;                /* the closures' client data points here */

static void GC_CALLBACK count_finalized(void *obj, void *cd)
{
    uintptr_t *p = obj;
    if (cd != &closure_tag) { fail_inside("closure got the wrong client data"); return; }
    if (p[1] != ~p[0] || p[0] > N_CHURN) { fail_inside("finalized object damaged"); return; }
    if (calls[p[0]] < 255) calls[p[0]]++;
}

static const struct GC_finalizer_closure counting_closure = { count_finalized, &closure_tag };

static NOINLINE uintptr_t *new_finalized(uintptr_t id, size_t bytes)
{
    uintptr_t *p = GC_finalized_malloc(bytes, &counting_closure);
    CHECK(p != NULL, "GC_finalized_malloc(%zu) failed", bytes);
    CHECK((uintptr_t)p % sizeof(void *) == 0, "misaligned %p", (void *)p);
    CHECK((char *)GC_base(p) == (char *)p - sizeof(void *),
          "GC_base %p of %p is not one word before", GC_base(p), (void *)p);
    CHECK(GC_size(GC_base(p)) >= bytes + sizeof(void *), "GC_size %zu for %zu bytes",
          GC_size(GC_base(p)), bytes);
    for (size_t i = 2; i < bytes / sizeof *p; i++) CHECK(p[i] == 0, "not zeroed at word %zu", i);
    p[0] = id;
    p[1] = ~id;
    return p;
}

/* Dropped finalized objects of every size the tests use, all with the id
   FILLER_ID (never counted): allocation cursors move on. */
#define FILLER_ID N_CHURN
static NOINLINE void allocate_fillers_finalized(void)
{
    for (int i = 0; i < 1000; i++) (void)new_finalized(FILLER_ID, 16 + (i % 5) * 24);
    for (int i = 0; i < 300; i++) (void)new_finalized(FILLER_ID, 16 + (i % 3) * 16);
}

/* Fillers, then one collection. */
static void collect_once(void)
{
    allocate_fillers_finalized();
    compat_collect(1);
}

static unsigned count_calls(unsigned first, unsigned n, unsigned step, unsigned *twice)
{
    unsigned ran = 0;
    *twice = 0;
    for (unsigned i = first; i < first + n; i += step) {
        ran += calls[i] != 0;
        *twice += calls[i] > 1;
    }
    return ran;
}

static uintptr_t **kept_finalized;   /* GC_MALLOC'd: keeps its objects reachable */

static NOINLINE void allocate_finalized(void)
{
    kept_finalized = GC_MALLOC(N_FINALIZED / 2 * sizeof *kept_finalized);
    CHECK(kept_finalized != NULL, "GC_MALLOC failed");
    for (unsigned i = 0; i < N_FINALIZED; i++) {
        uintptr_t *p = new_finalized(i, 16 + (i % 5) * 24);
        if (i % 2 == 0) kept_finalized[i / 2] = p;
    }
}

static void test_finalized(void)
{
    memset(calls, 0, sizeof calls);
    allocate_finalized();
    unsigned twice, ran = 0;
    for (int r = 0; r < MAX_ROUNDS && !AT_LEAST_PERCENT(ran, N_FINALIZED / 2, 90); r++) {
        collect_once();
        unsigned kept_ran = count_calls(0, N_FINALIZED, 2, &twice);
        CHECK(kept_ran == 0, "%u reachable finalized objects were finalized", kept_ran);
        ran = count_calls(1, N_FINALIZED - 1, 2, &twice);
        CHECK(twice == 0, "%u objects finalized twice", twice);
    }
    CHECK(failure == NULL, "%s", failure);
    CHECK(AT_LEAST_PERCENT(ran, N_FINALIZED / 2, 90),
          "only %u of %u unreachable finalized objects finalized", ran, N_FINALIZED / 2);
    for (unsigned i = 0; i < N_FINALIZED / 2; i++) {
        uintptr_t *p = kept_finalized[i];
        CHECK(p[0] == 2 * i && p[1] == ~(uintptr_t)(2 * i), "kept object %u damaged", i);
    }
    printf("finalized: %u of %u unreachable objects finalized once, 0 of %u reachable ones\n",
           ran, N_FINALIZED / 2, N_FINALIZED / 2);

    kept_finalized = NULL;
    unsigned all = 0;
    for (int r = 0; r < MAX_ROUNDS && !AT_LEAST_PERCENT(all, N_FINALIZED, 90); r++) {
        collect_once();
        all = count_calls(0, N_FINALIZED, 1, &twice);
        CHECK(twice == 0, "%u objects finalized twice after dropping the rest", twice);
    }
    CHECK(AT_LEAST_PERCENT(all, N_FINALIZED, 90), "only %u of %u finalized after dropping all",
          all, N_FINALIZED);
    printf("finalized: after dropping the rest, %u of %u finalized, none twice\n", all,
           N_FINALIZED);
}

/* ---- resurrection ------------------------------------------------------------------ */

#define RESURRECT_MAGIC ((uintptr_t)0x5ca1ab1edeadbeefULL)
#define RESURRECT_WORDS 6
static int resurrect_kind;
static unsigned resurrect_calls;
static uintptr_t hidden_resurrected;   /* ~address: not a pointer to the collector */

static int GC_CALLBACK resurrect_twice(void *obj)
{
    uintptr_t *p = obj;
    if ((uintptr_t)p != ~hidden_resurrected) return 0;   /* a filler object */
    for (unsigned i = 0; i < RESURRECT_WORDS; i++)
        if (p[i] != RESURRECT_MAGIC + i) fail_inside("resurrected object damaged");
    return ++resurrect_calls < 3;
}

static NOINLINE uintptr_t *new_resurrect_object(void)
{
    uintptr_t *p = GC_generic_malloc(RESURRECT_WORDS * sizeof *p, resurrect_kind);
    CHECK(p != NULL, "GC_generic_malloc failed");
    return p;
}

static NOINLINE void make_resurrected(void)
{
    uintptr_t *p = new_resurrect_object();
    for (unsigned i = 0; i < RESURRECT_WORDS; i++) p[i] = RESURRECT_MAGIC + i;
    hidden_resurrected = ~(uintptr_t)p;
}

/* Allocate objects of the kind: none may be the kept one. */
static NOINLINE void allocate_fillers(void)
{
    for (int i = 0; i < 2000; i++) {
        uintptr_t *q = new_resurrect_object();
        CHECK((uintptr_t)q != ~hidden_resurrected,
              "the slot of a resurrected object was handed out (call %u)", resurrect_calls);
    }
}

static void test_resurrect(void)
{
    resurrect_kind = (int)GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 1);
    GC_register_disclaim_proc(resurrect_kind, resurrect_twice, 0);
    make_resurrected();
    int r = 0;
    for (; r < 3 * MAX_ROUNDS && resurrect_calls < 3; r++) {
        allocate_fillers();
        compat_collect(1);
        CHECK(failure == NULL, "%s", failure);
    }
    CHECK(resurrect_calls == 3, "procedure answered 1, 1, 0 but was called %u times in %d collections",
          resurrect_calls, r);
    compat_collect(4);
    CHECK(resurrect_calls == 3, "called again (%u calls) after answering 0", resurrect_calls);
    printf("resurrect: kept intact twice, reclaimed at the third call (%d collections)\n", r);
}

/* ---- mark_from_all ----------------------------------------------------------------- */

#define N_PARENTS 200
#define CHILD_MAGIC ((uintptr_t)0xc41dc41dc41dULL)
#define GRANDCHILD_MAGIC ((uintptr_t)0x96a7d96a7dULL)

struct parent { uintptr_t magic; uintptr_t *child; };   /* child: { magic, grandchild } */

static int parent_kind;
static UNUSED int control_kind;   /* the bibop-only control below */
static unsigned parent_calls, parents_with_marked_children, parents_with_intact_children;
static unsigned control_calls, control_marked_children;

static int child_marked(const uintptr_t *child)
{
    return child && GC_is_marked(child) && GC_is_marked((void *)child[1]);
}

static int GC_CALLBACK check_parent(void *obj)
{
    struct parent *p = obj;
    if (p->magic != CHILD_MAGIC) return 0;
    parent_calls++;
    parents_with_marked_children += child_marked(p->child);
    const uintptr_t *c = p->child, *g = (const uintptr_t *)c[1];
    parents_with_intact_children += c[0] == CHILD_MAGIC && g[0] == GRANDCHILD_MAGIC;
    return 0;
}

static UNUSED int GC_CALLBACK check_control(void *obj)
{
    struct parent *p = obj;
    if (p->magic != CHILD_MAGIC) return 0;
    control_calls++;
    control_marked_children += child_marked(p->child);
    return 0;
}

static NOINLINE void make_parents(int kind)
{
    for (int i = 0; i < N_PARENTS; i++) {
        struct parent *p = GC_generic_malloc(sizeof *p, kind);
        uintptr_t *c = GC_MALLOC(2 * sizeof *c), *g = GC_MALLOC_ATOMIC(sizeof *g);
        CHECK(p && c && g, "allocation failed");
        *g = GRANDCHILD_MAGIC;
        c[0] = CHILD_MAGIC;
        c[1] = (uintptr_t)g;
        p->child = c;
        p->magic = CHILD_MAGIC;
    }
}

/* A new kind with proc, N_PARENTS dropped parents of it, collections until
   most are disclaimed (*calls counts them). Returns the kind. */
static int disclaim_parents(GC_disclaim_proc proc, int mark_from_all, const unsigned *calls)
{
    int kind = (int)GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 1);
    GC_register_disclaim_proc(kind, proc, mark_from_all);
    make_parents(kind);
    for (int r = 0; r < MAX_ROUNDS && !AT_LEAST_PERCENT(*calls, N_PARENTS, 90); r++)
        compat_collect(1);
    CHECK(AT_LEAST_PERCENT(*calls, N_PARENTS, 90), "only %u of %u parents disclaimed (%s)",
          *calls, N_PARENTS, mark_from_all ? "mark_from_all" : "control");
    return kind;
}

static void test_unconditional(void)
{
    parent_kind = disclaim_parents(check_parent, 1, &parent_calls);
    CHECK(parents_with_marked_children == parent_calls,
          "only %u of %u disclaimed parents found their child and grandchild marked",
          parents_with_marked_children, parent_calls);
    CHECK(parents_with_intact_children == parent_calls,
          "only %u of %u disclaimed parents found their child and grandchild intact",
          parents_with_intact_children, parent_calls);
    printf("unconditional: %u parents disclaimed, referents marked and intact in all\n",
           parent_calls);
#ifndef COMPAT_STOCK
    control_kind = disclaim_parents(check_control, 0, &control_calls);
    CHECK(control_marked_children * 2 < control_calls,
          "without mark_from_all %u of %u children were marked: the check above cannot fail",
          control_marked_children, control_calls);
    printf("unconditional: control without mark_from_all: %u of %u children marked\n",
           control_marked_children, control_calls);
#endif
}

/* ---- churn -------------------------------------------------------------------------- */

static uintptr_t **churn_kept;

static NOINLINE void churn(void)
{
    churn_kept = GC_MALLOC(N_CHURN / CHURN_KEEP_EVERY * sizeof *churn_kept);
    CHECK(churn_kept != NULL, "GC_MALLOC failed");
    for (unsigned i = 0; i < N_CHURN; i++) {
        uintptr_t *p = new_finalized(i, 16 + (i % 3) * 16);
        if (i % CHURN_KEEP_EVERY == 0) churn_kept[i / CHURN_KEEP_EVERY] = p;
    }
}

static void test_churn(void)
{
    memset(calls, 0, sizeof calls);
    churn();
    unsigned twice, ran = 0, dropped = N_CHURN - N_CHURN / CHURN_KEEP_EVERY;
    for (int r = 0; r < MAX_ROUNDS && !AT_LEAST_PERCENT(ran, dropped, 95); r++) {
        collect_once();
        ran = count_calls(0, N_CHURN, 1, &twice);
        CHECK(twice == 0, "%u objects finalized twice", twice);
        unsigned kept_ran = count_calls(0, N_CHURN, CHURN_KEEP_EVERY, &twice);
        CHECK(kept_ran == 0, "%u reachable objects finalized", kept_ran);
    }
    CHECK(failure == NULL, "%s", failure);
    CHECK(AT_LEAST_PERCENT(ran, dropped, 95), "only %u of %u dropped objects finalized", ran,
          dropped);
    for (unsigned i = 0; i < N_CHURN / CHURN_KEEP_EVERY; i++) {
        uintptr_t id = (uintptr_t)i * CHURN_KEEP_EVERY, *p = churn_kept[i];
        CHECK(p[0] == id && p[1] == ~id, "kept object %lu damaged", (unsigned long)id);
    }
    printf("churn: %u objects, %u of %u dropped ones finalized once, none of the %u kept\n",
           N_CHURN, ran, dropped, N_CHURN / CHURN_KEEP_EVERY);
    /* Dropping the kept ones finalizes them too (and none twice). */
    churn_kept = NULL;
    unsigned kept_ran = 0;
    for (int r = 0; r < MAX_ROUNDS && !AT_LEAST_PERCENT(kept_ran, N_CHURN / CHURN_KEEP_EVERY, 90);
         r++) {
        collect_once();
        kept_ran = count_calls(0, N_CHURN, CHURN_KEEP_EVERY, &twice);
        CHECK(twice == 0, "%u objects finalized twice after dropping the kept ones", twice);
    }
    CHECK(AT_LEAST_PERCENT(kept_ran, N_CHURN / CHURN_KEEP_EVERY, 90),
          "only %u of %u formerly kept objects finalized", kept_ran, N_CHURN / CHURN_KEEP_EVERY);
    compat_collect(2);   /* stock: let the lazy sweep finish before test_free */
}

/* ---- GC_free --------------------------------------------------------------------------- */

#define N_FREED 300
static uintptr_t **reused;

static NOINLINE void allocate_and_free(void)
{
    for (unsigned i = 0; i < N_FREED; i++) GC_free(GC_base(new_finalized(i, 32)));
}

static NOINLINE void allocate_reused(void)
{
    reused = GC_MALLOC(N_FREED * sizeof *reused);
    CHECK(reused != NULL, "GC_MALLOC failed");
    for (unsigned i = 0; i < N_FREED; i++) reused[i] = new_finalized(N_FREED + i, 32);
}

static void test_free(void)
{
    memset(calls, 0, sizeof calls);
    allocate_and_free();
    compat_collect(4);
    unsigned twice, ran = count_calls(0, N_FREED, 1, &twice);
    CHECK(ran == 0, "%u explicitly freed objects were finalized", ran);
    allocate_reused();
    compat_collect(4);
    ran = count_calls(0, 2 * N_FREED, 1, &twice);
    CHECK(ran == 0, "%u objects finalized after reusing freed slots", ran);
    reused = NULL;
    for (int r = 0; r < MAX_ROUNDS && !AT_LEAST_PERCENT(ran, N_FREED, 90); r++) {
        collect_once();
        ran = count_calls(N_FREED, N_FREED, 1, &twice);
    }
    CHECK(AT_LEAST_PERCENT(ran, N_FREED, 90), "only %u of %u dropped objects finalized", ran,
          N_FREED);
    CHECK(count_calls(0, N_FREED, 1, &twice) == 0, "freed objects finalized late");
    CHECK(failure == NULL, "%s", failure);
    printf("free: 0 of %u freed objects finalized; %u of %u dropped ones were\n", N_FREED, ran,
           N_FREED);
}

int main(void)
{
    GC_INIT();
    GC_init_finalized_malloc();
    GC_init_finalized_malloc();   /* idempotent */
    test_finalized();
    test_resurrect();
    test_unconditional();
    test_churn();
    test_free();
    printf("disclaim: all checks passed\n");
    return 0;
}
