/* finalize_displaced.c: finalizers and links registered through a pointer
 * into an object rather than its start (issue #15, item 6). ECL registers
 * finalizers on conses through a tagged pointer, start + 1, after
 * GC_register_displacement(1); bdwgc accepts it, reports the old finalizer
 * when the registration is repeated, and calls the finalizer with the
 * pointer as registered. bibop used to ignore such registrations (no
 * finalizer ran) and cleared a link to start + 1 while its object lived.
 *
 * For each of GC_register_finalizer, _ignore_self, _no_order and
 * _unreachable: N objects registered through start + 1 (the second
 * registration reports the first's fn and cd), half of them held by a
 * scanned field through start + 1: none of those is finalized, at least
 * 90% of the others are, each with the pointer it was registered with. For
 * short and long links to start + 1: the links of held objects keep their
 * value, at least 90% of the others are cleared; a moved link follows.
 * bibop only (stock keys finalizers by the exact pointer and passes the
 * debug header's end to debug finalizers): registering through the start
 * finds the registration made through start + 1, and a debug finalizer
 * registered through start + 1 of a debug object gets that pointer. */
#include "compat.h"

#include <gc.h>

#define N 200
#define TAG 1

struct cell { void *car; uintptr_t generation; };
static uintptr_t generation;   /* each variant's objects are its own: a late
                                  finalization of an earlier one is ignored */

static void **holder;        /* scanned: tagged pointers to the held objects */
static void **links;         /* pointer-free: link slots */
static void **moved_links;   /* pointer-free: where some links were moved */
static unsigned calls, wrong_pointer, held_finalized;

/* cd hides the registered pointer (a visible one would keep it alive). */
#define HIDE(p) ((void *)~(uintptr_t)(p))

static void GC_CALLBACK check_finalizer(void *obj, void *cd)
{
    if (obj != HIDE(cd)) {
        wrong_pointer++;
        return;
    }
    struct cell *c = (struct cell *)((char *)obj - TAG);
    if (c->generation != generation) return;
    calls++;
    if (c->car == (void *)c) held_finalized++;   /* a held object is marked so */
}

static void *tagged(struct cell *c) { return (char *)c + TAG; }

typedef void (*register_fn)(void *, GC_finalization_proc, void *, GC_finalization_proc *,
                            void **);

static NOINLINE void make_finalizable(register_fn reg, const char *name)
{
    for (unsigned i = 0; i < N; i++) {
        struct cell *c = GC_MALLOC(sizeof *c);
        CHECK(c != NULL, "GC_MALLOC failed");
        c->generation = generation;
        void *t = tagged(c);
        GC_finalization_proc ofn = check_finalizer;
        void *ocd = t;
        reg(t, check_finalizer, HIDE(t), &ofn, &ocd);
        CHECK(ofn == NULL && ocd == NULL, "%s: first registration through start + 1 reported "
              "an old finalizer", name);
        reg(t, check_finalizer, HIDE(t), &ofn, &ocd);
        CHECK(ofn == check_finalizer && ocd == HIDE(t), "%s: a second registration through "
              "start + 1 did not report the first (fn %p, cd %p)", name,
              (void *)(uintptr_t)ofn, ocd);
        if (i % 2 == 0) {
            c->car = c;   /* self-reference: ignore_self and no_order do not mind it */
            holder[i / 2] = t;
        }
    }
}

static void test_finalizers(register_fn reg, const char *name)
{
    calls = wrong_pointer = held_finalized = 0;
    generation++;
    make_finalizable(reg, name);
    compat_collect(5);
    GC_invoke_finalizers();
    unsigned dropped = N / 2;
    printf("%s: %u of %u dropped objects finalized through start + 1, %u held ones, %u with "
           "another pointer\n", name, calls - held_finalized, dropped, held_finalized,
           wrong_pointer);
    CHECK(wrong_pointer == 0, "%s: %u finalizers got another pointer than the registered one",
          name, wrong_pointer);
    CHECK(held_finalized == 0, "%s: %u objects held through start + 1 were finalized", name,
          held_finalized);
    /* The self-referencing cells are held; with plain GC_register_finalizer
       dropped ones are not self-referencing, so all four variants apply. */
    CHECK(AT_LEAST_PERCENT(calls, dropped, 90), "%s: only %u of %u dropped objects finalized",
          name, calls, dropped);
    /* Release the held ones for the next variant, finalizing them now. */
    memset(holder, 0, N / 2 * sizeof *holder);
    compat_collect(4);
    GC_invoke_finalizers();
}

typedef int (*link_fn)(void **, const void *);
typedef int (*move_fn)(void **, void **);

static NOINLINE void make_linked(link_fn reg)
{
    for (unsigned i = 0; i < N; i++) {
        struct cell *c = GC_MALLOC(sizeof *c);
        CHECK(c != NULL, "GC_MALLOC failed");
        links[i] = tagged(c);
        CHECK(reg(&links[i], tagged(c)) == GC_SUCCESS, "registering a link to start + 1 failed");
        if (i % 2 == 0) holder[i / 2] = tagged(c);
    }
}

static void test_links(link_fn reg, move_fn move, const char *name)
{
    memset(links, 0, N * sizeof *links);
    memset(moved_links, 0, N * sizeof *moved_links);
    make_linked(reg);
    /* Links of objects 0 and 1 (held and dropped) move elsewhere. */
    for (unsigned i = 0; i < 2; i++) {
        CHECK(move(&links[i], &moved_links[i]) == GC_SUCCESS, "%s: moving a link failed", name);
        moved_links[i] = links[i];
        links[i] = NULL;
    }
    compat_collect(5);
    unsigned cleared = 0;
    for (unsigned i = 2; i < N; i++) {
        if (i % 2 == 0)
            CHECK(links[i] == holder[i / 2], "%s: the link to start + 1 of held object %u is %p, "
                  "not %p", name, i, links[i], holder[i / 2]);
        else
            cleared += links[i] == NULL;
    }
    CHECK(moved_links[0] == holder[0], "%s: the moved link of a held object is %p, not %p", name,
          moved_links[0], holder[0]);
    printf("%s: links to start + 1 of held objects kept, %u of %u others cleared\n", name,
           cleared, N / 2 - 1);
    CHECK(AT_LEAST_PERCENT(cleared, N / 2 - 1, 90), "%s: only %u of %u links to dropped objects "
          "cleared", name, cleared, N / 2 - 1);
    for (unsigned i = 0; i < N; i++) {
        GC_unregister_disappearing_link(&links[i]);
        GC_unregister_long_link(&links[i]);
    }
    GC_unregister_disappearing_link(&moved_links[0]);
    GC_unregister_long_link(&moved_links[0]);
    GC_unregister_disappearing_link(&moved_links[1]);
    GC_unregister_long_link(&moved_links[1]);
    memset(holder, 0, N / 2 * sizeof *holder);
}

#ifndef COMPAT_STOCK
static void GC_CALLBACK count_finalizer(void *obj, void *cd)
{
    if (obj == HIDE(cd)) calls++;
    else wrong_pointer++;
}

static NOINLINE void register_both_ways(void)
{
    struct cell *c = GC_MALLOC(sizeof *c);
    CHECK(c != NULL, "GC_MALLOC failed");
    GC_register_finalizer(tagged(c), count_finalizer, HIDE(tagged(c)), NULL, NULL);
    GC_finalization_proc ofn = NULL;
    void *ocd = NULL;
    GC_register_finalizer(c, count_finalizer, HIDE(c), &ofn, &ocd);
    CHECK(ofn == count_finalizer && ocd == HIDE(tagged(c)), "registering through the start "
          "did not find the registration through start + 1");
    char *d = GC_debug_malloc(32, "finalize_displaced.c", __LINE__);
    CHECK(d != NULL, "GC_debug_malloc failed");
    GC_debug_register_finalizer(d + TAG, count_finalizer, HIDE(d + TAG), NULL, NULL);
}

static void test_one_entry_per_object(void)
{
    calls = wrong_pointer = 0;
    register_both_ways();
    compat_collect(5);
    GC_invoke_finalizers();
    CHECK(wrong_pointer == 0 && calls == 2, "%u finalizers ran with their pointer, %u with "
          "another (want 2 and 0)", calls, wrong_pointer);
    printf("one entry per object: the start finds start + 1's; debug finalizer gets start + 1\n");
}
#endif

int main(void)
{
    GC_INIT();
    GC_register_displacement(TAG);
    holder = GC_MALLOC(N / 2 * sizeof *holder);
    links = GC_MALLOC_ATOMIC(N * sizeof *links);
    moved_links = GC_MALLOC_ATOMIC(N * sizeof *moved_links);
    CHECK(holder && links && moved_links, "GC_MALLOC failed");
    test_finalizers(GC_register_finalizer_ignore_self, "GC_register_finalizer_ignore_self");
    test_finalizers(GC_register_finalizer_no_order, "GC_register_finalizer_no_order");
    test_finalizers(GC_register_finalizer_unreachable, "GC_register_finalizer_unreachable");
    test_finalizers(GC_register_finalizer, "GC_register_finalizer");
    test_links(GC_general_register_disappearing_link, GC_move_disappearing_link,
               "disappearing links");
    test_links(GC_register_long_link, GC_move_long_link, "long links");
#ifndef COMPAT_STOCK
    test_one_entry_per_object();
#endif
    printf("finalize_displaced: all checks passed\n");
    return 0;
}
