/* finalize_ignore_self.c: GC_register_finalizer_ignore_self ignores only
 * pointers from the object to itself (gc.h: "It ignores self-cycles, i.e.
 * pointers from a finalizable object to itself"). An object that points to
 * itself, directly or through an interior pointer, is finalized (most of N);
 * but an object on a longer cycle — A <-> B with both registered
 * ignore_self, or A (ignore_self) -> B (no finalizer) -> A — is reachable
 * from itself through another object and, as with GC_register_finalizer, is
 * never finalized.
 *
 * Regression test: bibop once handled FIN_IGNORE_SELF by setting the
 * object's own mark bit while marking from its contents, which let paths
 * back through other objects be ignored too (src/finalize.c now skips only
 * words pointing into the object itself). */
#include "compat.h"

#include <gc.h>

#define N 1000

struct obj {
    void *next;
    uintptr_t id;
    uintptr_t pad[2];
};

static unsigned finalized;
/* Each phase registers its finalizers with its own tag as client data, so an
   object of an earlier phase that a stale stack word kept alive and that is
   finalized later (as happens in -O0 builds) is not counted against a later
   phase. */
static uintptr_t phase;

static void GC_CALLBACK count(void *p, void *cd)
{
    (void)p;
    if ((uintptr_t)cd == phase) finalized++;
}

static NOINLINE struct obj *new_obj(uintptr_t id)
{
    struct obj *o = GC_MALLOC(sizeof *o);
    CHECK(o != NULL, "GC_MALLOC failed");
    o->id = id;
    return o;
}

/* Control: direct and interior self-pointers are ignored. */
static NOINLINE void make_self(void)
{
    for (unsigned i = 0; i < N; i++) {
        struct obj *o = new_obj(i);
        o->next = i % 2 ? (void *)o : (void *)&o->pad[1];
        GC_register_finalizer_ignore_self(o, count, (void *)phase, NULL, NULL);
    }
}

/* The objects of the cycles, hidden, to unregister them afterwards. */
static GC_hidden_pointer *hidden;

static NOINLINE void make_pairs(int both)
{
    for (unsigned i = 0; i < N / 2; i++) {
        struct obj *a = new_obj(i), *b = new_obj(i + N / 2);
        a->next = b;
        b->next = a;
        GC_register_finalizer_ignore_self(a, count, (void *)phase, NULL, NULL);
        if (both) GC_register_finalizer_ignore_self(b, count, (void *)phase, NULL, NULL);
        hidden[i] = GC_HIDE_POINTER(a);
        hidden[i + N / 2] = both ? GC_HIDE_POINTER(b) : 0;
    }
}

static void unregister_pairs(void)
{
    for (unsigned i = 0; i < N; i++)
        if (hidden[i])
            GC_register_finalizer_ignore_self(GC_REVEAL_POINTER(hidden[i]), NULL, NULL, NULL,
                                              NULL);
}

static void GC_CALLBACK quiet_cycle_warnings(char *msg, GC_word arg)
{
    if (!strstr(msg, "Finalization cycle")) fprintf(stderr, msg, (unsigned long)arg);
}

int main(void)
{
    GC_INIT();
    GC_set_warn_proc(quiet_cycle_warnings);   /* stock warns about each cycle object */
    hidden = GC_MALLOC_ATOMIC(N * sizeof *hidden);
    CHECK(hidden != NULL, "GC_MALLOC_ATOMIC failed");

    phase = 1;
    make_self();
    compat_collect(4);
    GC_invoke_finalizers();
    printf("self-pointers: %u of %u finalized\n", finalized, N);
    CHECK(AT_LEAST_PERCENT(finalized, N, 90), "only %u of %u objects pointing to themselves "
          "finalized", finalized, N);

    finalized = 0;
    phase = 2;
    make_pairs(1);
    compat_collect(6);
    GC_invoke_finalizers();
    printf("A <-> B, both ignore_self: %u of %u finalized\n", finalized, N);
    CHECK(finalized == 0, "%u objects of two-object cycles registered with "
          "GC_register_finalizer_ignore_self were finalized", finalized);
    unregister_pairs();

    finalized = 0;
    phase = 3;
    make_pairs(0);
    compat_collect(6);
    GC_invoke_finalizers();
    printf("A (ignore_self) -> B -> A: %u of %u finalized\n", finalized, N / 2);
    CHECK(finalized == 0, "%u objects registered with GC_register_finalizer_ignore_self and "
          "reachable from themselves through another object were finalized", finalized);
    unregister_pairs();

    printf("finalize_ignore_self: all checks passed\n");
    return 0;
}
