/* typed.c: explicitly typed allocation (gc_typed.h). Objects of
 * struct {void *p1; long notptr; void *p2; long notptr2[3];} allocated with
 * GC_malloc_explicitly_typed and a GC_make_descriptor bitmap: what p1 and p2
 * point to survives, heap addresses stored in the non-pointer fields retain
 * nothing (statistical, over many objects), and the non-pointer fields are
 * never changed; the same for a 100-word bitmap with a pointer every 7th word
 * (longer than a one-word bitmap descriptor holds) and for
 * GC_calloc_explicitly_typed arrays of the struct, small and larger than a
 * page, and for an array of the 100-word type. Whether a target died is seen through disappearing links held in
 * pointer-free memory. */
#include "compat.h"

#include <gc.h>
#include <gc/gc_typed.h>
#include <stddef.h>

struct s {
    void *p1;
    long notptr;
    void *p2;
    long notptr2[3];
};

/* ---- targets: small objects whose death is observed through a link ---------------------- */

#define MAX_TARGETS 50000
#include "targets.h"

static void judge(const char *what, unsigned first, unsigned n, int (*retained)(unsigned))
{
    judge_targets(what, first, n, retained, "pointer fields", "non-pointer fields");
}

/* ---- struct s ------------------------------------------------------------------------ */

static GC_descr s_descr;
static uintptr_t *shadow;   /* pointer-free: ~ of each non-pointer field's value */

static int s_retained(unsigned k) { return k % 6 == 0 || k % 6 == 2; }

/* Fill s with six new targets, in field order; remember the non-pointer
   values (complemented, in pointer-free memory) to check them later. */
static NOINLINE void fill_s(struct s *s, unsigned index)
{
    s->p1 = new_target();
    s->notptr = (long)ADDR(new_target());
    s->p2 = new_target();
    for (int k = 0; k < 3; k++) s->notptr2[k] = (long)ADDR(new_target());
    shadow[4 * index] = ~(uintptr_t)s->notptr;
    for (int k = 0; k < 3; k++) shadow[4 * index + 1 + k] = ~(uintptr_t)s->notptr2[k];
}

static void check_s(const struct s *s, unsigned index, unsigned first_target)
{
    CHECK(s->p1 == links[first_target] && s->p2 == links[first_target + 2],
          "pointer fields of struct %u changed", index);
    CHECK((uintptr_t)s->notptr == ~shadow[4 * index], "notptr of struct %u changed", index);
    for (int k = 0; k < 3; k++)
        CHECK((uintptr_t)s->notptr2[k] == ~shadow[4 * index + 1 + k],
              "notptr2[%d] of struct %u changed", k, index);
}

#define NS 1000
static struct s **holders;

static NOINLINE void make_typed_structs(void)
{
    for (unsigned i = 0; i < NS; i++) {
        struct s *s = GC_malloc_explicitly_typed(sizeof *s, s_descr);
        CHECK(s != NULL, "GC_malloc_explicitly_typed failed");
        CHECK(GC_size(s) >= sizeof *s, "GC_size of a typed object is %lu",
              (unsigned long)GC_size(s));
        fill_s(s, i);
        holders[i] = s;
    }
}

static void test_struct(void)
{
    GC_word bm[GC_BITMAP_SIZE(struct s)] = { 0 };
    GC_set_bit(bm, GC_WORD_OFFSET(struct s, p1));
    GC_set_bit(bm, GC_WORD_OFFSET(struct s, p2));
    s_descr = GC_make_descriptor(bm, GC_WORD_LEN(struct s));
    holders = GC_MALLOC(NS * sizeof *holders);
    shadow = GC_MALLOC_ATOMIC(4 * NS * sizeof *shadow);
    CHECK(holders && shadow, "GC_MALLOC failed");
    unsigned first = n_targets;
    make_typed_structs();
    compat_collect(4);
    for (unsigned i = 0; i < NS; i++) check_s(holders[i], i, first + 6 * i);
    judge("struct", first, 6 * NS, s_retained);
    holders = NULL;
    shadow = NULL;
}

/* ---- a 100-word bitmap: pointers every 7th word --------------------------------------- */

#define LONG_WORDS 100
#define NLONG 100
static GC_word **long_holders;

static int long_retained(unsigned k) { return (k % LONG_WORDS) % 7 == 0; }

static NOINLINE void make_long_objects(GC_descr d)
{
    for (unsigned i = 0; i < NLONG; i++) {
        GC_word *o = GC_malloc_explicitly_typed(LONG_WORDS * sizeof(GC_word), d);
        CHECK(o != NULL, "GC_malloc_explicitly_typed failed");
        for (unsigned w = 0; w < LONG_WORDS; w++) o[w] = ADDR(new_target());
        long_holders[i] = o;
    }
}

static void test_long_bitmap(void)
{
    GC_word bm[(LONG_WORDS + GC_WORDSZ - 1) / GC_WORDSZ] = { 0 };
    for (unsigned w = 0; w < LONG_WORDS; w += 7) GC_set_bit(bm, w);
    GC_descr d = GC_make_descriptor(bm, LONG_WORDS);
    long_holders = GC_MALLOC(NLONG * sizeof *long_holders);
    CHECK(long_holders != NULL, "GC_MALLOC failed");
    unsigned first = n_targets;
    make_long_objects(d);
    compat_collect(4);
    for (unsigned i = 0; i < NLONG; i++)
        for (unsigned w = 0; w < LONG_WORDS; w += 7)
            CHECK(long_holders[i][w] == ADDR(links[first + i * LONG_WORDS + w]),
                  "pointer word %u of long object %u changed", w, i);
    judge("100-word bitmap", first, NLONG * LONG_WORDS, long_retained);
    long_holders = NULL;
}

/* ---- typed arrays ----------------------------------------------------------------------- */

#define NARRAYS 40
#define ARRAY_LEN 50
#define BIG_LEN 2000   /* 96 KB: a multi-page object */

static struct s **arrays;
static struct s *big;

static NOINLINE struct s *make_array(size_t n, unsigned first_index)
{
    struct s *a = GC_calloc_explicitly_typed(n, sizeof(struct s), s_descr);
    CHECK(a != NULL, "GC_calloc_explicitly_typed failed");
    CHECK(GC_size(a) >= n * sizeof(struct s), "GC_size of a typed array is %lu",
          (unsigned long)GC_size(a));
    for (size_t i = 0; i < n; i++)
        CHECK(a[i].p1 == NULL && a[i].notptr == 0 && a[i].notptr2[2] == 0,
              "typed array element %lu not zeroed", (unsigned long)i);
    for (size_t i = 0; i < n; i++) fill_s(&a[i], first_index + (unsigned)i);
    return a;
}

static NOINLINE void make_arrays(void)
{
    for (unsigned i = 0; i < NARRAYS; i++) arrays[i] = make_array(ARRAY_LEN, i * ARRAY_LEN);
    big = make_array(BIG_LEN, NARRAYS * ARRAY_LEN);
}

static void test_arrays(void)
{
    unsigned elements = NARRAYS * ARRAY_LEN + BIG_LEN;
    arrays = GC_MALLOC(NARRAYS * sizeof *arrays);
    shadow = GC_MALLOC_ATOMIC(4 * elements * sizeof *shadow);
    CHECK(arrays && shadow, "GC_MALLOC failed");
    unsigned first = n_targets;
    make_arrays();
    compat_collect(4);
    for (unsigned i = 0; i < NARRAYS; i++)
        for (unsigned e = 0; e < ARRAY_LEN; e++) {
            unsigned index = i * ARRAY_LEN + e;
            check_s(&arrays[i][e], index, first + 6 * index);
        }
    judge("typed arrays", first, 6 * NARRAYS * ARRAY_LEN, s_retained);
    unsigned big_first = first + 6 * NARRAYS * ARRAY_LEN;
    for (unsigned e = 0; e < BIG_LEN; e++)
        check_s(&big[e], NARRAYS * ARRAY_LEN + e, big_first + 6 * e);
    judge("large typed array", big_first, 6 * BIG_LEN, s_retained);
    arrays = NULL;
    big = NULL;
    shadow = NULL;
}

/* ---- arrays of 100-word elements (the long bitmap inside an array) ------------------------- */

#define NLONG_ELEMS 30
static GC_word *long_array;

static NOINLINE void make_long_array(GC_descr d)
{
    long_array = GC_calloc_explicitly_typed(NLONG_ELEMS, LONG_WORDS * sizeof(GC_word), d);
    CHECK(long_array != NULL, "GC_calloc_explicitly_typed failed");
    for (unsigned i = 0; i < NLONG_ELEMS * LONG_WORDS; i++) long_array[i] = ADDR(new_target());
}

static void test_long_array(void)
{
    GC_word bm[(LONG_WORDS + GC_WORDSZ - 1) / GC_WORDSZ] = { 0 };
    for (unsigned w = 0; w < LONG_WORDS; w += 7) GC_set_bit(bm, w);
    GC_descr d = GC_make_descriptor(bm, LONG_WORDS);
    unsigned first = n_targets;
    make_long_array(d);
    compat_collect(4);
    judge("array of 100-word elements", first, NLONG_ELEMS * LONG_WORDS, long_retained);
    long_array = NULL;
}

int main(void)
{
    GC_INIT();
    links = GC_MALLOC_ATOMIC(MAX_TARGETS * sizeof *links);
    CHECK(links != NULL, "GC_MALLOC_ATOMIC failed");
    test_struct();
    test_long_bitmap();
    test_arrays();
    test_long_array();
    printf("typed: all checks passed\n");
    return 0;
}
