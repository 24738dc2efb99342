/* svector.fields: the type's pointer bitmap decides what a structure keeps.
 * Pointer fields retain their targets (every one of them: exact), and
 * non-pointer fields that hold heap addresses do not (statistical: at most
 * 5% may survive, for stale copies on the stack). Survival is read from
 * disappearing links kept in atomic memory, and targets carry a checksum.
 *
 *   A  a vector of 20,000 {pointer, word} elements
 *   B  20,000 individually allocated {pointer, word} structures
 *   C  a 130-field type (a three-word bitmap) with pointer fields 0, 63, 64,
 *      129 and heap addresses in non-pointer fields 1, 62, 65, 128: 300
 *      structures and a vector of 300 elements
 *   D  a vector of 300,000 one-pointer elements (2.4 MiB, multi-chunk), each
 *      pointing at its own target: far more pushes than the mark stack
 *      holds, so marking goes through overflow recovery
 *   E  element references in fields: a pointer field holding a reference to
 *      the middle element of another vector keeps that vector; a
 *      non-pointer field holding one does not
 *
 * Self-checks (must fail): selfcheck-no-bitmap declares every type without
 * pointer fields ("pointer field lost its target"); selfcheck-all-pointers
 * declares every field a pointer ("non-pointer fields retained"). */
#include <gc.h>
#include <bibop.h>

#include "svcommon.h"

#define NA 20000
#define NB 20000
#define NC 300
#define NCF 130
#define ND 300000
#define NE 200
#define TARGET_WORDS 3

enum mode { NORMAL, NO_BITMAP, ALL_POINTERS };
static enum mode mode = NORMAL;

static const bibop_struct_type *make_type(const char *name, size_t nfields,
                                          const unsigned long *bitmap)
{
    unsigned long none[3] = { 0, 0, 0 }, all[3] = { ~0UL, ~0UL, ~0UL };
    const bibop_struct_type *t = bibop_struct_type_new(
        name, nfields, mode == NO_BITMAP ? none : mode == ALL_POINTERS ? all : bitmap);
    SV_CHECK(t != NULL, "type %s not created", name);
    return t;
}

/* A checksummed atomic target: word w = sv_value(tag, i, w). */
static void *new_target(uint64_t tag, size_t i)
{
    unsigned long *p = GC_MALLOC_ATOMIC(TARGET_WORDS * sizeof(unsigned long));
    SV_CHECK(p != NULL, "target allocation failed");
    for (size_t w = 0; w < TARGET_WORDS; w++) p[w] = sv_value(tag, i, w);
    return p;
}

static int target_intact(const void *p, uint64_t tag, size_t i)
{
    const unsigned long *q = p;
    if (!q || GC_base((void *)q) != q) return 0;
    for (size_t w = 0; w < TARGET_WORDS; w++)
        if (q[w] != sv_value(tag, i, w)) return 0;
    return 1;
}

/* Roots of the test. */
static void *volatile vec_a, *volatile vec_c, *volatile vec_d, *volatile vec_e1, *volatile vec_e2;
static void **volatile array_b, **volatile array_c;
static sv_links links_a, links_b, links_c, links_d, links_e;

static const bibop_struct_type *PW, *W130, *P1;

/* Pointer targets: links [0, n) ; non-pointer targets: links [n, 2n). */
static SV_NOINLINE void build(void)
{
    /* A */
    unsigned long *a = bibop_svector_new(PW, NA);
    SV_CHECK(a != NULL, "vector A");
    links_a = sv_links_new(2 * NA);
    for (size_t i = 0; i < NA; i++) {
        void *p = new_target(1, i), *q = new_target(2, i);
        sv_links_watch(&links_a, i, p);
        sv_links_watch(&links_a, NA + i, q);
        unsigned long vals[2] = { (unsigned long)p, (unsigned long)q };
        SV_CHECK(bibop_svector_set(a, i, vals) == 0, "set A %zu", i);
    }
    vec_a = a;

    /* B */
    void **b = GC_MALLOC(NB * sizeof(void *));
    SV_CHECK(b != NULL, "array B");
    links_b = sv_links_new(2 * NB);
    for (size_t i = 0; i < NB; i++) {
        void *s = bibop_struct_new(PW);
        SV_CHECK(s != NULL, "struct B %zu", i);
        void *p = new_target(3, i), *q = new_target(4, i);
        sv_links_watch(&links_b, i, p);
        sv_links_watch(&links_b, NB + i, q);
        bibop_field_set(s, 0, (unsigned long)p);
        bibop_field_set(s, 1, (unsigned long)q);
        b[i] = s;
    }
    array_b = b;

    /* C: NC structures then NC vector elements; 4 pointer and 4 word targets
       each. */
    static const size_t ptr_fields[4] = { 0, 63, 64, 129 }, word_fields[4] = { 1, 62, 65, 128 };
    void **cs = GC_MALLOC(NC * sizeof(void *));
    unsigned long *cv = bibop_svector_new(W130, NC);
    SV_CHECK(cs != NULL && cv != NULL, "C");
    links_c = sv_links_new(2 * 2 * NC * 4);
    const size_t npt = 2 * NC * 4;
    for (size_t j = 0; j < 2 * NC; j++) {
        void *s;
        if (j < NC) {
            s = cs[j] = bibop_struct_new(W130);
            SV_CHECK(s != NULL, "struct C %zu", j);
        } else {
            s = bibop_svector_ref(cv, j - NC);
        }
        for (size_t f = 0; f < 4; f++) {
            size_t id = j * 4 + f;
            void *p = new_target(5, id), *q = new_target(6, id);
            sv_links_watch(&links_c, id, p);
            sv_links_watch(&links_c, npt + id, q);
            bibop_field_set(s, ptr_fields[f], (unsigned long)p);
            bibop_field_set(s, word_fields[f], (unsigned long)q);
        }
    }
    array_c = cs;
    vec_c = cv;

    /* D: every 97th target also watched by a link. */
    unsigned long *d = bibop_svector_new(P1, ND);
    SV_CHECK(d != NULL, "vector D");
    links_d = sv_links_new(ND / 97 + 1);
    for (size_t i = 0; i < ND; i++) {
        void *p = new_target(7, i);
        if (i % 97 == 0) sv_links_watch(&links_d, i / 97, p);
        d[i] = (unsigned long)p;   /* element i's only field, written directly */
    }
    vec_d = d;

    /* E: e1[j] (pointer field) holds the middle element of vector B_j, e2[j]
       (a {pointer, word} element: the word) the middle element of C_j. */
    unsigned long *e1 = bibop_svector_new(P1, NE), *e2 = bibop_svector_new(PW, NE);
    SV_CHECK(e1 != NULL && e2 != NULL, "vectors E");
    links_e = sv_links_new(2 * NE);
    for (size_t j = 0; j < NE; j++) {
        void *bj = bibop_svector_new(PW, 101), *cj = bibop_svector_new(PW, 101);
        SV_CHECK(bj != NULL && cj != NULL, "E %zu", j);
        unsigned long mark[2] = { 0, sv_value(8, j, 0) };
        bibop_svector_set(bj, 50, mark);
        sv_links_watch(&links_e, j, bj);
        sv_links_watch(&links_e, NE + j, cj);
        bibop_field_set(bibop_svector_ref(e1, j), 0, (unsigned long)bibop_svector_ref(bj, 50));
        bibop_field_set(bibop_svector_ref(e2, j), 1, (unsigned long)bibop_svector_ref(cj, 50));
    }
    vec_e1 = e1;
    vec_e2 = e2;
}

/* Pointer targets must all be there and intact. */
static void check_pointers(const char *what, const sv_links *l, size_t n)
{
    size_t alive = sv_links_alive(l, 0, n);
    SV_CHECK(alive == n, "%s: pointer field lost its target: %zu of %zu targets reclaimed", what,
             n - alive, n);
}

/* Non-pointer "targets": at most 5% may survive. */
static void check_words(const char *what, const sv_links *l, size_t from, size_t n)
{
    size_t alive = sv_links_alive(l, from, from + n);
    SV_CHECK(alive * 20 <= n, "%s: non-pointer fields retained %zu of %zu heap objects", what,
             alive, n);
    printf("%s: %zu of %zu objects named only by non-pointer fields survived\n", what, alive, n);
}

static SV_NOINLINE void check_all(int round)
{
    printf("round %d\n", round);
    /* A */
    unsigned long *a = vec_a;
    check_pointers("A (vector)", &links_a, NA);
    for (size_t i = 0; i < NA; i++)
        SV_CHECK(target_intact((void *)bibop_field_get(bibop_svector_ref(a, i), 0), 1, i),
                 "A: element %zu: pointer field lost its target (contents changed)", i);
    /* B */
    check_pointers("B (structures)", &links_b, NB);
    for (size_t i = 0; i < NB; i++)
        SV_CHECK(target_intact((void *)bibop_field_get(array_b[i], 0), 3, i),
                 "B: structure %zu: pointer field lost its target (contents changed)", i);
    /* C */
    check_pointers("C (130 fields)", &links_c, 2 * NC * 4);
    static const size_t ptr_fields[4] = { 0, 63, 64, 129 };
    for (size_t j = 0; j < 2 * NC; j++) {
        void *s = j < NC ? array_c[j] : bibop_svector_ref(vec_c, j - NC);
        for (size_t f = 0; f < 4; f++)
            SV_CHECK(target_intact((void *)bibop_field_get(s, ptr_fields[f]), 5, j * 4 + f),
                     "C: object %zu field %zu: pointer field lost its target", j, ptr_fields[f]);
    }
    /* D */
    check_pointers("D (300,000 pointers)", &links_d, ND / 97 + 1);
    const unsigned long *d = vec_d;
    for (size_t i = 0; i < ND; i++)
        SV_CHECK(target_intact((void *)d[i], 7, i),
                 "D: element %zu: pointer field lost its target (%#lx)", i, d[i]);
    /* E */
    check_pointers("E (element references in pointer fields)", &links_e, NE);
    for (size_t j = 0; j < NE; j++) {
        void *ref = (void *)bibop_field_get(bibop_svector_ref(vec_e1, j), 0);
        SV_CHECK(bibop_type_of(ref) == PW && bibop_field_get(ref, 1) == sv_value(8, j, 0),
                 "E: vector %zu held by its element in a pointer field: pointer field lost its "
                 "target", j);
    }
    /* Non-pointer fields. */
    check_words("A (vector)", &links_a, NA, NA);
    check_words("B (structures)", &links_b, NB, NB);
    check_words("C (130 fields)", &links_c, 2 * NC * 4, 2 * NC * 4);
    check_words("E (element references in non-pointer fields)", &links_e, NE, NE);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "selfcheck-no-bitmap") == 0) mode = NO_BITMAP;
        else if (strcmp(argv[1], "selfcheck-all-pointers") == 0) mode = ALL_POINTERS;
        else {
            fprintf(stderr, "usage: %s [selfcheck-no-bitmap|selfcheck-all-pointers]\n", argv[0]);
            return 2;
        }
    }
    GC_INIT();
    unsigned long pw_bits[1] = { 1UL << 0 };
    /* fields 0 and 63: word 0; field 64: bit 0 of word 1; field 129: bit 1
       of word 2 */
    unsigned long w130_bits[3] = { 1UL << 0 | 1UL << 63, 1UL << 0, 1UL << 1 };
    unsigned long p1_bits[1] = { 1 };
    PW = make_type("pw", 2, pw_bits);
    W130 = make_type("w130", NCF, w130_bits);
    P1 = make_type("p1", 1, p1_bits);

    build();
    for (int round = 0; round < 2; round++) {
        sv_collect_and_churn(2, PW);
        check_all(round);
    }
    printf("svector.fields: ok\n");
    return 0;
}
