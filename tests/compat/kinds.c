/* kinds.c: client object kinds and mark procedures (gc_mark.h). A kind made
 * with GC_new_kind(GC_new_free_list(), GC_MAKE_PROC(GC_new_proc(proc), 0),
 * 0, 1), whose mark procedure pushes fields 0 and 2 of four with
 * GC_MARK_AND_PUSH: objects allocated with GC_generic_malloc in that kind
 * come zeroed, the targets of fields 0 and 2 survive and those of fields 1
 * and 3 are reclaimed (statistical, over many objects); the same for objects
 * of that kind larger than 4 KiB and one larger than 2 MiB (whose last
 * words, never pushed, retain nothing either); objects of the kind are reclaimed themselves once
 * unreachable. Deaths are observed through disappearing links held in
 * pointer-free memory. */
#include "compat.h"

#include <gc.h>
#include <gc/gc_mark.h>

/* ---- targets: small objects whose death is observed through a link ---------------------- */

#define MAX_TARGETS 20000
#include "targets.h"

static void judge(const char *what, unsigned first, unsigned n, int (*retained)(unsigned))
{
    judge_targets(what, first, n, retained, "pushed fields", "fields the mark procedure does not push");
}

/* ---- the kind ------------------------------------------------------------------------- */

static unsigned proc_calls;   /* only ever incremented: a race-free-enough hint */

static struct GC_ms_entry *push_fields_0_and_2(GC_word *addr, struct GC_ms_entry *msp,
                                               struct GC_ms_entry *msl, GC_word env)
{
    void **f = (void **)addr;
    (void)env;
    __atomic_add_fetch(&proc_calls, 1, __ATOMIC_RELAXED);
    msp = GC_MARK_AND_PUSH(f[0], msp, msl, &f[0]);
    msp = GC_MARK_AND_PUSH(f[2], msp, msl, &f[2]);
    return msp;
}

static int kind;

static NOINLINE void *new_kind_object(size_t bytes)
{
    void **o = GC_generic_malloc(bytes, kind);
    CHECK(o != NULL, "GC_generic_malloc(%lu, kind %d) failed", (unsigned long)bytes, kind);
    CHECK(GC_size(o) >= bytes, "GC_size %lu < %lu", (unsigned long)GC_size(o),
          (unsigned long)bytes);
    CHECK(GC_base(o) == (void *)o, "GC_base of a new object is not itself");
    for (size_t w = 0; w < bytes / sizeof(void *); w++)
        CHECK(o[w] == NULL, "word %lu of a new %lu-byte object of the kind is not zero",
              (unsigned long)w, (unsigned long)bytes);
    return o;
}

/* ---- small objects ---------------------------------------------------------------------- */

#define NSMALL 1000
static void ***small;          /* holders */
static void **small_links;     /* pointer-free: links to the small objects */

static int four_retained(unsigned k) { return k % 4 == 0 || k % 4 == 2; }

static NOINLINE void make_small(void)
{
    for (unsigned i = 0; i < NSMALL; i++) {
        void **o = new_kind_object(4 * sizeof(void *));
        for (int f = 0; f < 4; f++) o[f] = new_target();
        small[i] = o;
        small_links[i] = o;
        CHECK(GC_general_register_disappearing_link(&small_links[i], o) == GC_SUCCESS,
              "registering the link of kind object %u failed", i);
    }
}

static void test_small(void)
{
    small = GC_MALLOC(NSMALL * sizeof *small);
    small_links = GC_MALLOC_ATOMIC(NSMALL * sizeof *small_links);
    CHECK(small && small_links, "GC_MALLOC failed");
    unsigned first = n_targets;
    make_small();
    unsigned calls_before = proc_calls;
    compat_collect(4);
    CHECK(proc_calls > calls_before, "the mark procedure was never called");
    for (unsigned i = 0; i < NSMALL; i++) {
        CHECK(small_links[i] == small[i], "the link of live kind object %u was cleared", i);
        for (int f = 0; f < 4; f += 2)
            CHECK(small[i][f] == links[first + 4 * i + f], "field %d of object %u changed", f,
                  i);
    }
    judge("small objects of the kind", first, 4 * NSMALL, four_retained);

    /* Objects of the kind die like any other: drop every other one. */
    for (unsigned i = 1; i < NSMALL; i += 2) small[i] = NULL;
    compat_collect(4);
    unsigned died = 0;
    for (unsigned i = 0; i < NSMALL; i++) {
        if (i % 2 == 0) CHECK(small_links[i] == small[i], "live kind object %u reclaimed", i);
        else died += small_links[i] == NULL;
    }
    printf("small objects of the kind: %u of %u dropped objects reclaimed\n", died, NSMALL / 2);
    CHECK(AT_LEAST_PERCENT(died, NSMALL / 2, 90), "only %u of %u dropped objects of the kind "
          "reclaimed", died, NSMALL / 2);
    small = NULL;
    small_links = NULL;
}

/* ---- objects larger than 4 KiB ------------------------------------------------------------ */

#define NLARGE 200
#define LARGE_BYTES 8192
#define LARGE_WORDS (LARGE_BYTES / sizeof(void *))
static void ***large;

/* Five targets per object: fields 0..3 and the last word. */
static int large_retained(unsigned k) { return k % 5 == 0 || k % 5 == 2; }

static NOINLINE void make_large(void)
{
    for (unsigned i = 0; i < NLARGE; i++) {
        void **o = new_kind_object(LARGE_BYTES);
        for (int f = 0; f < 4; f++) o[f] = new_target();
        o[LARGE_WORDS - 1] = new_target();
        large[i] = o;
    }
}

static void test_large(void)
{
    large = GC_MALLOC(NLARGE * sizeof *large);
    CHECK(large != NULL, "GC_MALLOC failed");
    unsigned first = n_targets;
    make_large();
    compat_collect(4);
    for (unsigned i = 0; i < NLARGE; i++)
        for (int f = 0; f < 4; f += 2)
            CHECK(large[i][f] == links[first + 5 * i + f], "field %d of large object %u changed",
                  f, i);
    judge("8 KiB objects of the kind", first, 5 * NLARGE, large_retained);
    large = NULL;
}

/* ---- an object larger than a 2 MiB chunk --------------------------------------------------- */

#define HUGE_BYTES (3u << 20)
#define HUGE_STRIDE 1024   /* words between the targets after the four fields */
#define HUGE_TARGETS (4 + HUGE_BYTES / sizeof(void *) / HUGE_STRIDE - 1)
static void **huge;

static int huge_retained(unsigned k) { return k == 0 || k == 2; }

static NOINLINE void make_huge(void)
{
    huge = new_kind_object(HUGE_BYTES);
    for (int f = 0; f < 4; f++) huge[f] = new_target();
    for (size_t w = HUGE_STRIDE; w < HUGE_BYTES / sizeof(void *); w += HUGE_STRIDE)
        huge[w] = new_target();
}

static void test_huge(void)
{
    unsigned first = n_targets;
    make_huge();
    compat_collect(4);
    CHECK(n_targets - first == HUGE_TARGETS, "%u targets, expected %u", n_targets - first,
          (unsigned)HUGE_TARGETS);
    judge("3 MiB object of the kind", first, HUGE_TARGETS, huge_retained);
    huge = NULL;
}

int main(void)
{
    GC_INIT();
    links = GC_MALLOC_ATOMIC(MAX_TARGETS * sizeof *links);
    CHECK(links != NULL, "GC_MALLOC_ATOMIC failed");
    kind = (int)GC_new_kind(GC_new_free_list(), GC_MAKE_PROC(GC_new_proc(push_fields_0_and_2), 0),
                            0, 1);
    printf("kinds: new kind %d\n", kind);
    test_small();
    test_large();
    test_huge();
    printf("kinds: all checks passed\n");
    return 0;
}
