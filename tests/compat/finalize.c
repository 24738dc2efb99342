/* finalize.c: bdwgc finalization semantics. Finalizers run for most of N
 * unreachable objects; A -> B (both finalizable): A is finalized first and B
 * only in a later collection; a two-object cycle is never finalized with
 * GC_register_finalizer but is with GC_register_finalizer_no_order; a
 * self-referencing object is finalized with GC_register_finalizer_ignore_self
 * (and not with GC_register_finalizer); a finalizer that resurrects its
 * object finds it, and what it points to, intact and usable; re-registering
 * returns the old fn/cd, fn = NULL unregisters; GC_set_finalize_on_demand(1)
 * with a notifier: nothing runs on its own, the notifier is called,
 * GC_should_invoke_finalizers() is true and GC_invoke_finalizers() runs them
 * and returns the count; a finalizer that allocates enough to trigger
 * collections is never re-entered (bibop only, see test_no_reentry); client
 * data reachable only from the registration stays alive and intact. */
#include "compat.h"

#include <gc.h>

#define N 1000

/* ---- plain finalization ------------------------------------------------------ */

struct obj {
    struct obj *next;      /* ordering and cycles */
    uintptr_t id;
    uintptr_t check;       /* id ^ CHECK_MAGIC while intact */
    void *payload;
};
#define CHECK_MAGIC ((uintptr_t)0x5eedf00dcafe1234ULL)

static unsigned char finalized[N];   /* times each id was finalized */
static GC_word finalized_gc_no[N];   /* collection count when it was */
static unsigned bad_objects;         /* finalizer saw a damaged object */
static unsigned total_runs;          /* calls of every finalizer of this file */

/* Each sub-test is a generation, carried in the client data with the id: an
   object of an earlier sub-test that a stale pointer kept until now is
   finalized into stale_runs, not into this sub-test's counts. */
static uintptr_t generation;
static unsigned stale_runs;
#define CD(id) ((void *)(uintptr_t)(generation << 20 | (uintptr_t)(id)))

static void GC_CALLBACK count_finalizer(void *p, void *cd)
{
    struct obj *o = p;
    uintptr_t id = (uintptr_t)cd & 0xfffff, gen = (uintptr_t)cd >> 20;
    total_runs++;
    if (id >= N || o->id != id || o->check != (id ^ CHECK_MAGIC)) {
        bad_objects++;
        return;
    }
    if (gen != generation) {
        stale_runs++;
        return;
    }
    finalized[id]++;
    finalized_gc_no[id] = GC_get_gc_no();
}

static void reset_counts(void)
{
    generation++;
    memset(finalized, 0, sizeof finalized);
    memset(finalized_gc_no, 0, sizeof finalized_gc_no);
    bad_objects = 0;
}

static unsigned count_finalized(unsigned from, unsigned to)
{
    unsigned n = 0;
    for (unsigned i = from; i < to; i++) n += finalized[i] != 0;
    return n;
}

static void check_once(void)
{
    CHECK(bad_objects == 0, "%u finalizers saw a damaged object", bad_objects);
    for (unsigned i = 0; i < N; i++)
        CHECK(finalized[i] <= 1, "object %u finalized %u times", i, finalized[i]);
}

static NOINLINE struct obj *new_obj(uintptr_t id)
{
    struct obj *o = GC_MALLOC(sizeof *o);
    CHECK(o != NULL, "GC_MALLOC failed");
    o->id = id;
    o->check = id ^ CHECK_MAGIC;
    return o;
}

typedef void (*register_fn)(void *, GC_finalization_proc, void *, GC_finalization_proc *,
                            void **);

static NOINLINE void make_unreachable_finalizable(unsigned n, register_fn reg)
{
    for (unsigned i = 0; i < n; i++) {
        struct obj *o = new_obj(i);
        reg(o, count_finalizer, CD(i), NULL, NULL);
    }
}

static void test_basic(void)
{
    reset_counts();
    make_unreachable_finalizable(N, GC_register_finalizer);
    compat_collect(4);
    GC_invoke_finalizers();
    check_once();
    unsigned n = count_finalized(0, N);
    printf("basic: %u of %u unreachable objects finalized\n", n, N);
    CHECK(AT_LEAST_PERCENT(n, N, 90), "only %u of %u unreachable objects finalized", n, N);
}

/* A(i) -> B(i+N/2), both finalizable; A is unreachable. */
static NOINLINE void make_chains(void)
{
    for (unsigned i = 0; i < N / 2; i++) {
        struct obj *a = new_obj(i), *b = new_obj(i + N / 2);
        a->next = b;
        GC_register_finalizer(a, count_finalizer, CD(i), NULL, NULL);
        GC_register_finalizer(b, count_finalizer, CD(i + N / 2), NULL, NULL);
    }
}

static void test_ordering(void)
{
    reset_counts();
    GC_disable();   /* so that the first collection is the one below */
    make_chains();
    GC_enable();
    compat_collect(1);
    GC_invoke_finalizers();
    unsigned a1 = count_finalized(0, N / 2), b1 = count_finalized(N / 2, N);
    printf("ordering: after one collection %u A and %u B finalized\n", a1, b1);
    CHECK(b1 == 0, "%u B objects finalized in the collection that found their A unreachable", b1);
    compat_collect(4);
    GC_invoke_finalizers();
    check_once();
    unsigned pairs = 0;
    for (unsigned i = 0; i < N / 2; i++) {
        unsigned b = i + N / 2;
        if (!finalized[b]) continue;
        CHECK(finalized[i], "B %u finalized although its A %u was not", b, i);
        CHECK(finalized_gc_no[b] > finalized_gc_no[i],
              "B %u finalized after collection %lu, its A after collection %lu (not earlier)", b,
              (unsigned long)finalized_gc_no[b], (unsigned long)finalized_gc_no[i]);
        pairs++;
    }
    printf("ordering: %u of %u pairs fully finalized, always A first\n", pairs, N / 2);
    CHECK(AT_LEAST_PERCENT(pairs, N / 2, 90), "only %u of %u A->B pairs fully finalized", pairs,
          N / 2);
}

/* The objects of the never-finalized cases, hidden (in pointer-free memory)
   so that they can be unregistered afterwards: registered, they are kept by
   the collector anyway, and they would cost every later collection (stock
   bdwgc warns about each of them at each collection). */
static GC_hidden_pointer *hidden;

static void unregister_hidden(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        GC_finalization_proc ofn;
        void *ocd;
        GC_register_finalizer(GC_REVEAL_POINTER(hidden[i]), NULL, NULL, &ofn, &ocd);
        CHECK(ofn == count_finalizer, "object %u of a never-finalized case lost its "
              "registration", i);
    }
    hidden = NULL;
}

/* Pairs A <-> B, ids i and i + N/2. */
static NOINLINE void make_cycles(register_fn reg)
{
    for (unsigned i = 0; i < N / 2; i++) {
        struct obj *a = new_obj(i), *b = new_obj(i + N / 2);
        a->next = b;
        b->next = a;
        reg(a, count_finalizer, CD(i), NULL, NULL);
        reg(b, count_finalizer, CD(i + N / 2), NULL, NULL);
        if (hidden) {
            hidden[i] = GC_HIDE_POINTER(a);
            hidden[i + N / 2] = GC_HIDE_POINTER(b);
        }
    }
}

static void test_cycles(void)
{
    reset_counts();
    hidden = GC_MALLOC_ATOMIC(N * sizeof *hidden);
    CHECK(hidden != NULL, "GC_MALLOC_ATOMIC failed");
    make_cycles(GC_register_finalizer);
    compat_collect(4);
    GC_invoke_finalizers();
    check_once();
    unsigned n = count_finalized(0, N);
    printf("cycles: %u of %u objects in ordered finalizable cycles finalized\n", n, N);
    CHECK(n == 0, "%u objects of two-object cycles finalized with GC_register_finalizer", n);
    unregister_hidden(N);

    reset_counts();
    make_cycles(GC_register_finalizer_no_order);
    compat_collect(4);
    GC_invoke_finalizers();
    check_once();
    n = count_finalized(0, N);
    printf("cycles: %u of %u objects in no_order cycles finalized\n", n, N);
    CHECK(AT_LEAST_PERCENT(n, N, 90), "only %u of %u objects of no_order cycles finalized", n, N);
}

static NOINLINE void make_self_loops(register_fn reg)
{
    for (unsigned i = 0; i < N; i++) {
        struct obj *o = new_obj(i);
        o->next = o;
        reg(o, count_finalizer, CD(i), NULL, NULL);
        if (hidden) hidden[i] = GC_HIDE_POINTER(o);
    }
}

static void test_ignore_self(void)
{
    reset_counts();
    hidden = GC_MALLOC_ATOMIC(N * sizeof *hidden);
    CHECK(hidden != NULL, "GC_MALLOC_ATOMIC failed");
    make_self_loops(GC_register_finalizer);
    compat_collect(4);
    GC_invoke_finalizers();
    check_once();
    unsigned n = count_finalized(0, N);
    printf("self: %u of %u self-referencing objects finalized (GC_register_finalizer)\n", n, N);
    CHECK(n == 0, "%u self-referencing objects finalized with GC_register_finalizer", n);
    unregister_hidden(N);

    reset_counts();
    make_self_loops(GC_register_finalizer_ignore_self);
    compat_collect(4);
    GC_invoke_finalizers();
    check_once();
    n = count_finalized(0, N);
    printf("self: %u of %u self-referencing objects finalized (ignore_self)\n", n, N);
    CHECK(AT_LEAST_PERCENT(n, N, 90), "only %u of %u self-referencing objects finalized with "
          "GC_register_finalizer_ignore_self", n, N);
}

/* ---- resurrection ------------------------------------------------------------- */

#define PAYLOAD_WORDS 16
#define NRES 500

static struct obj **resurrected;   /* GC_MALLOC'd array, a root through this global */
static unsigned n_resurrected;

static uintptr_t payload_word(uintptr_t id, unsigned j)
{
    return (id + 1) * 0x9e3779b97f4a7c15ULL ^ (uintptr_t)j * 0x2545F4914F6CDD1DULL;
}

static void GC_CALLBACK resurrect_finalizer(void *p, void *cd)
{
    struct obj *o = p;
    uintptr_t id = (uintptr_t)cd;
    total_runs++;
    if (id >= NRES || o->id != id) {
        bad_objects++;
        return;
    }
    finalized[id]++;
    resurrected[n_resurrected++ % NRES] = o;
}

static NOINLINE void make_resurrectable(void)
{
    for (unsigned i = 0; i < NRES; i++) {
        struct obj *o = new_obj(i);
        uintptr_t *pl = GC_MALLOC(PAYLOAD_WORDS * sizeof(uintptr_t));
        CHECK(pl != NULL, "GC_MALLOC failed");
        for (unsigned j = 0; j < PAYLOAD_WORDS; j++) pl[j] = payload_word(i, j);
        o->payload = pl;
        GC_register_finalizer(o, resurrect_finalizer, (void *)(uintptr_t)i, NULL, NULL);
    }
}

static void check_resurrected(unsigned count, int generation)
{
    for (unsigned k = 0; k < count; k++) {
        struct obj *o = resurrected[k];
        CHECK(o->id < NRES && o->check == (o->id ^ CHECK_MAGIC),
              "resurrected object %u damaged (id %lu) in generation %d", k,
              (unsigned long)o->id, generation);
        uintptr_t *pl = o->payload;
        for (unsigned j = 0; j < PAYLOAD_WORDS; j++)
            CHECK(pl[j] == payload_word(o->id, j) + (uintptr_t)generation,
                  "payload word %u of resurrected object %lu damaged (generation %d)", j,
                  (unsigned long)o->id, generation);
    }
}

static NOINLINE void churn(unsigned objects, size_t bytes)
{
    for (unsigned i = 0; i < objects; i++) {
        uintptr_t *g = GC_MALLOC(bytes);
        CHECK(g != NULL, "GC_MALLOC failed");
        for (size_t j = 0; j < bytes / sizeof *g; j++) g[j] = 0xdeadbeefdeadbeefULL;
    }
}

static void test_resurrection(void)
{
    reset_counts();
    resurrected = GC_MALLOC(NRES * sizeof *resurrected);
    CHECK(resurrected != NULL, "GC_MALLOC failed");
    n_resurrected = 0;
    make_resurrectable();
    compat_collect(4);
    GC_invoke_finalizers();
    CHECK(bad_objects == 0, "%u finalizers saw a damaged object", bad_objects);
    unsigned count = n_resurrected;
    printf("resurrection: %u of %u objects resurrected\n", count, NRES);
    CHECK(AT_LEAST_PERCENT(count, NRES, 90), "only %u of %u objects resurrected", count, NRES);
    check_resurrected(count, 0);
    /* Usable: write to them, allocate over any memory the collector might
       have wrongly freed, collect, and read back. */
    for (unsigned k = 0; k < count; k++) {
        uintptr_t *pl = resurrected[k]->payload;
        for (unsigned j = 0; j < PAYLOAD_WORDS; j++) pl[j] += 1;
    }
    churn(20000, 48);
    churn(20000, 128);
    compat_collect(3);
    GC_invoke_finalizers();
    check_resurrected(count, 1);
    CHECK(n_resurrected == count, "a resurrected object was finalized again (%u, was %u)",
          n_resurrected, count);
    for (unsigned i = 0; i < NRES; i++)
        CHECK(finalized[i] <= 1, "object %u finalized %u times", i, finalized[i]);
    resurrected = NULL;
}

/* ---- registration: old values, unregistering ---------------------------------- */

static void GC_CALLBACK fin_a(void *p, void *cd) { (void)p; (void)cd; total_runs++; }
static void GC_CALLBACK fin_b(void *p, void *cd) { (void)p; (void)cd; total_runs++; }

static NOINLINE void make_unregistered(void)
{
    for (unsigned i = 0; i < N; i++) {
        struct obj *o = new_obj(i);
        GC_finalization_proc ofn = fin_a;
        void *ocd = &ofn;
        GC_register_finalizer(o, count_finalizer, CD(i), &ofn, &ocd);
        CHECK(ofn == NULL && ocd == NULL, "first registration gave back old fn/cd %p/%p",
              (void *)(uintptr_t)ofn, ocd);
        GC_register_finalizer(o, NULL, NULL, &ofn, &ocd);
        CHECK(ofn == count_finalizer && ocd == CD(i),
              "unregistering gave back fn/cd %p/%p", (void *)(uintptr_t)ofn, ocd);
    }
}

static void test_reregister(void)
{
    static int cd1, cd2;
    struct obj *o = new_obj(7);
    GC_finalization_proc ofn;
    void *ocd;
    GC_register_finalizer(o, fin_a, &cd1, &ofn, &ocd);
    CHECK(ofn == NULL && ocd == NULL, "first registration gave back %p/%p",
          (void *)(uintptr_t)ofn, ocd);
    GC_register_finalizer(o, fin_b, &cd2, &ofn, &ocd);
    CHECK(ofn == fin_a && ocd == &cd1, "re-registration gave back %p/%p, expected fin_a/&cd1",
          (void *)(uintptr_t)ofn, ocd);
    GC_register_finalizer_no_order(o, fin_a, &cd1, &ofn, &ocd);
    CHECK(ofn == fin_b && ocd == &cd2, "no_order re-registration gave back %p/%p",
          (void *)(uintptr_t)ofn, ocd);
    GC_register_finalizer(o, NULL, NULL, &ofn, &ocd);
    CHECK(ofn == fin_a && ocd == &cd1, "unregistering gave back %p/%p", (void *)(uintptr_t)ofn,
          ocd);
    GC_register_finalizer(o, NULL, NULL, &ofn, &ocd);
    CHECK(ofn == NULL && ocd == NULL, "unregistering twice gave back %p/%p",
          (void *)(uintptr_t)ofn, ocd);
    o = NULL;

    /* Unregistered objects are never finalized. */
    reset_counts();
    make_unregistered();
    compat_collect(4);
    GC_invoke_finalizers();
    unsigned n = count_finalized(0, N);
    CHECK(n == 0, "%u objects finalized after their finalizer was unregistered", n);
    printf("reregister: old fn/cd given back; %u of %u unregistered objects finalized\n", n, N);
}

/* ---- client data ---------------------------------------------------------------- */

#define NCD 300
#define CD_WORDS 32

static unsigned cd_ok, cd_bad;

static uintptr_t cd_word(uintptr_t id, unsigned j)
{
    return ~((id + 7) * 0xff51afd7ed558ccdULL + j);
}

static void GC_CALLBACK cd_finalizer(void *p, void *cd)
{
    struct obj *o = p;
    uintptr_t *w = cd;
    total_runs++;
    int ok = w[0] == o->id;
    for (unsigned j = 1; j < CD_WORDS && ok; j++) ok = w[j] == cd_word(o->id, j);
    if (ok) cd_ok++;
    else cd_bad++;
}

static struct obj **cd_holders;   /* keeps the objects (not their cd) alive */

static NOINLINE void make_cd_objects(void)
{
    for (unsigned i = 0; i < NCD; i++) {
        struct obj *o = new_obj(i);
        uintptr_t *cd = GC_MALLOC(CD_WORDS * sizeof *cd);
        CHECK(cd != NULL, "GC_MALLOC failed");
        cd[0] = i;
        for (unsigned j = 1; j < CD_WORDS; j++) cd[j] = cd_word(i, j);
        GC_register_finalizer(o, cd_finalizer, cd, NULL, NULL);
        cd_holders[i] = o;
    }
}

static void test_client_data(void)
{
    cd_ok = cd_bad = 0;
    cd_holders = GC_MALLOC(NCD * sizeof *cd_holders);
    CHECK(cd_holders != NULL, "GC_MALLOC failed");
    make_cd_objects();
    /* The cd objects are reachable only from the registrations now: collect
       and allocate over whatever would have been freed. */
    for (int round = 0; round < 3; round++) {
        compat_collect(2);
        churn(20000, 256);
    }
    CHECK(cd_ok + cd_bad == 0, "%u finalizers ran while their objects were reachable",
          cd_ok + cd_bad);
    cd_holders = NULL;
    compat_collect(4);
    GC_invoke_finalizers();
    printf("client data: %u finalizers saw intact client data, %u damaged\n", cd_ok, cd_bad);
    CHECK(cd_bad == 0, "%u finalizers saw damaged client data", cd_bad);
    CHECK(AT_LEAST_PERCENT(cd_ok, NCD, 90), "only %u of %u objects with client data finalized",
          cd_ok, NCD);
}

/* ---- re-entrancy ------------------------------------------------------------------ */

#define NREENTER 200

static int depth, max_depth;
static unsigned reentry_runs;

static void GC_CALLBACK allocating_finalizer(void *p, void *cd)
{
    (void)p;
    (void)cd;
    total_runs++;
    if (++depth > max_depth) max_depth = depth;
    reentry_runs++;
    /* Allocate a few megabytes: several collections happen in here, each
       finding more of the others unreachable. */
    churn(4000, 512);
    depth--;
}

static NOINLINE void make_allocating_finalizable(void)
{
    for (unsigned i = 0; i < NREENTER; i++) {
        struct obj *o = new_obj(i);
        GC_register_finalizer(o, allocating_finalizer, NULL, NULL, NULL);
    }
}

static void test_no_reentry(void)
{
    depth = max_depth = 0;
    reentry_runs = 0;
    GC_word gc_before = GC_get_gc_no();
    make_allocating_finalizable();
    compat_collect(3);
    GC_invoke_finalizers();
    GC_word collections = GC_get_gc_no() - gc_before;
    printf("re-entrancy: %u allocating finalizers ran, %lu collections, maximum nesting %d\n",
           reentry_runs, (unsigned long)collections, max_depth);
    CHECK(AT_LEAST_PERCENT(reentry_runs, NREENTER, 90), "only %u of %u finalizers ran",
          reentry_runs, NREENTER);
    CHECK(collections > 10, "the finalizers triggered only %lu collections",
          (unsigned long)collections);
#ifdef COMPAT_STOCK
    /* Stock bdwgc does nest finalizers: GC_notify_or_invoke_finalizers, called
       from an allocation inside a finalizer, runs GC_invoke_finalizers again
       every 2^level-th time (GC_check_finalizer_nested). bibop promises never
       to. So the nesting check is bibop's only. */
    printf("re-entrancy: nesting not checked against stock libgc (it nests by design)\n");
#else
    CHECK(max_depth == 1, "a finalizer was re-entered (nesting %d)", max_depth);
#endif
}

/* ---- finalize on demand (last: it changes a global mode) ------------------------------ */

static unsigned notified;

static void GC_CALLBACK notifier(void) { notified++; }

static void test_on_demand(void)
{
    reset_counts();
    GC_set_finalize_on_demand(1);
    CHECK(GC_get_finalize_on_demand() == 1, "GC_get_finalize_on_demand() == %d",
          GC_get_finalize_on_demand());
    GC_set_finalizer_notifier(notifier);
    CHECK(GC_get_finalizer_notifier() == notifier, "GC_get_finalizer_notifier() is not ours");
    notified = 0;
    unsigned runs_at_start = total_runs;
    make_unreachable_finalizable(N, GC_register_finalizer);
    compat_collect(3);
    churn(20000, 64);   /* allocation slow paths: still nothing may run */
    compat_collect(1);
    unsigned ran = total_runs - runs_at_start;
    printf("on demand: notifier called %u times, %u finalizers ran on their own\n", notified,
           ran);
    CHECK(ran == 0, "%u finalizers ran on their own with GC_finalize_on_demand", ran);
    CHECK(notified >= 1, "the finalizer notifier was not called");
    CHECK(GC_should_invoke_finalizers(), "GC_should_invoke_finalizers() is false");
    unsigned runs_before = total_runs;
    int invoked = GC_invoke_finalizers();
    unsigned n = count_finalized(0, N), runs = total_runs - runs_before;
    check_once();
    printf("on demand: GC_invoke_finalizers() returned %d, %u finalized\n", invoked, n);
    /* runs counts finalizers of earlier tests' objects that a stale pointer
       kept until now, too. */
    CHECK(invoked >= 0 && (unsigned)invoked == runs, "GC_invoke_finalizers() returned %d, %u "
          "finalizers ran (%u of this test's objects)", invoked, runs, n);
    CHECK(AT_LEAST_PERCENT(n, N, 90), "only %u of %u finalized on demand", n, N);
    CHECK(!GC_should_invoke_finalizers(), "GC_should_invoke_finalizers() still true");
    CHECK(GC_invoke_finalizers() == 0, "a second GC_invoke_finalizers() ran more");
    GC_set_finalize_on_demand(0);
    GC_set_finalizer_notifier(0);
}

/* Stock bdwgc warns "Finalization cycle involving %p" for every object of the
   cycle tests; keep the log readable, pass every other warning on. */
static unsigned cycle_warnings;

static void GC_CALLBACK quiet_cycle_warnings(char *msg, GC_word arg)
{
    if (strstr(msg, "Finalization cycle")) cycle_warnings++;
    else fprintf(stderr, msg, (unsigned long)arg);
}

int main(void)
{
    GC_INIT();
    GC_set_warn_proc(quiet_cycle_warnings);
    test_basic();
    test_ordering();
    test_cycles();
    test_ignore_self();
    test_resurrection();
    test_reregister();
    test_client_data();
    test_no_reentry();
    test_on_demand();
    printf("finalize: all checks passed (%u finalization-cycle warnings, %u late finalizations "
           "of earlier sub-tests' objects)\n", cycle_warnings, stale_runs);
    return 0;
}
