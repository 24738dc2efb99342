/* svector.interior.<where>: a structure vector kept alive only by a
 * reference to one of its elements (the middle one, and in a second set of
 * cases the last one) survives collections with its contents intact, for a
 * small vector (10 elements, a small object), a medium one (1,000
 * elements, a large object whose middle is in a tail block) and one larger
 * than 2 MiB (100,000 3-field elements: the held element lies in a later
 * block and chunk than the object's start).
 *
 *   global    the element reference is in a global (static data)
 *   stack     ... in a volatile stack slot of main
 *   register  ... only in a local of a noinline function that calls
 *             GC_gcollect (and allocates) before it uses it again, so it
 *             lives in a callee-saved register or that function's frame
 *   boxroot   ... only in a boxroot (include/boxroot.h); the boxroot handles
 *             are kept in malloc'd memory, which is not scanned
 *   selfcheck-dropped
 *             the reference is not kept: must FAIL with "was reclaimed"
 *
 * Every element has a non-pointer field, a pointer field (every 16th element
 * points at an atomic payload object, checked too) and a third word. Whether
 * the vector survived is read from a disappearing link on it (in atomic
 * memory), and its contents are compared with what was written after
 * collections interleaved with churn that reuses freed memory. */
#include <gc.h>
#include <bibop.h>
#include <boxroot.h>

#include "svcommon.h"

#define K 3
#define PAYLOAD_WORDS 4

static const bibop_struct_type *T;
static const size_t sizes[3] = { 10, 1000, 100000 };
#define NCASES 6   /* 3 sizes x {middle, last} */

static sv_links links;

static size_t case_n(size_t c) { return sizes[c % 3]; }
static size_t case_index(size_t c) { return c < 3 ? case_n(c) / 2 : case_n(c) - 1; }
static uint64_t case_tag(size_t c) { return 0x5eed0000 + c; }

/* Allocate case c's vector, fill it, watch it; return only the element
   reference (the vector reference dies with this frame). */
static SV_NOINLINE unsigned long *make_case(size_t c)
{
    size_t n = case_n(c);
    uint64_t tag = case_tag(c);
    void *v = bibop_svector_new(T, n);
    SV_CHECK(v != NULL, "svector_new(%zu) failed", n);
    for (size_t i = 0; i < n; i++) {
        unsigned long vals[K] = { sv_value(tag, i, 0), 0, sv_value(tag, i, 2) };
        if (i % 16 == 0 || i == n - 1) {
            unsigned long *p = GC_MALLOC_ATOMIC(PAYLOAD_WORDS * sizeof(unsigned long));
            SV_CHECK(p != NULL, "payload allocation failed");
            for (size_t w = 0; w < PAYLOAD_WORDS; w++) p[w] = sv_value(tag, i, 10 + w);
            vals[1] = (unsigned long)p;
        }
        SV_CHECK(bibop_svector_set(v, i, vals) == 0, "svector_set(%zu) failed", i);
    }
    sv_links_watch(&links, c, v);
    unsigned long *e = bibop_svector_ref(v, case_index(c));
    SV_CHECK(e != NULL, "ref(%zu) failed", case_index(c));
    return e;
}

/* Everything about case c, reached from its held element reference e. */
static SV_NOINLINE void check_case(size_t c, unsigned long *e)
{
    size_t n = case_n(c), held = case_index(c);
    uint64_t tag = case_tag(c);
    SV_CHECK(links.cells[c] != NULL,
             "case %zu: vector of %zu elements held by element %zu was reclaimed", c, n, held);
    SV_CHECK(bibop_type_of(e) == T, "case %zu: type_of(held element) = %p, want %p", c,
             (void *)bibop_type_of(e), (void *)T);
    unsigned long *v = e - held * K;
    SV_CHECK(GC_base(e) == (void *)(v - 2) && links.cells[c] == (void *)(v - 2),
             "case %zu: element %zu at %p: object %p, link %p, expected %p", c, held, (void *)e,
             GC_base(e), links.cells[c], (void *)(v - 2));
    SV_CHECK(bibop_svector_length(v) == n, "case %zu: length %zu, want %zu", c,
             bibop_svector_length(v), n);
    for (size_t i = 0; i < n; i++) {
        unsigned long *ei = bibop_svector_ref(v, i);
        SV_CHECK(ei == v + i * K, "case %zu: ref(%zu) = %p", c, i, (void *)ei);
        SV_CHECK(bibop_type_of(ei) == T, "case %zu: element %zu lost its type", c, i);
        SV_CHECK(bibop_field_get(ei, 0) == sv_value(tag, i, 0) &&
                 bibop_field_get(ei, 2) == sv_value(tag, i, 2),
                 "case %zu (n=%zu, held %zu): element %zu fields %#lx %#lx, want %#lx %#lx", c, n,
                 held, i, bibop_field_get(ei, 0), bibop_field_get(ei, 2), sv_value(tag, i, 0),
                 sv_value(tag, i, 2));
        unsigned long *p = (unsigned long *)bibop_field_get(ei, 1);
        if (i % 16 == 0 || i == n - 1) {
            SV_CHECK(p != NULL && GC_base(p) == p, "case %zu: element %zu payload %p", c, i,
                     (void *)p);
            for (size_t w = 0; w < PAYLOAD_WORDS; w++)
                SV_CHECK(p[w] == sv_value(tag, i, 10 + w),
                         "case %zu: element %zu payload word %zu = %#lx, want %#lx", c, i, w, p[w],
                         sv_value(tag, i, 10 + w));
        } else {
            SV_CHECK(p == NULL, "case %zu: element %zu pointer field %p, want NULL", c, i,
                     (void *)p);
        }
    }
}

static void *volatile global_hold[NCASES];

/* The element reference exists only in this function's local e. */
static SV_NOINLINE void hold_in_register(size_t c)
{
    unsigned long *e = make_case(c);
    __asm__ volatile("" : "+r"(e));
    sv_collect_and_churn(3, T);
    check_case(c, e);
    sv_collect_and_churn(1, T);
    __asm__ volatile("" : "+r"(e));
    check_case(c, e);
}

int main(int argc, char **argv)
{
    const char *where = argc > 1 ? argv[1] : "global";
    GC_INIT();
    unsigned long bitmap[1] = { 1UL << 1 };   /* field 1 is a pointer */
    T = bibop_struct_type_new("interior", K, bitmap);
    SV_CHECK(T != NULL, "type not created");
    links = sv_links_new(NCASES);

    void *volatile stack_hold[NCASES];
    boxroot *boxes = malloc(NCASES * sizeof *boxes);
    SV_CHECK(boxes != NULL, "malloc");

    if (strcmp(where, "register") == 0) {
        for (size_t c = 0; c < NCASES; c++) hold_in_register(c);
        printf("svector.interior.register: ok\n");
        return 0;
    }
    int dropped = strcmp(where, "selfcheck-dropped") == 0;
    if (!dropped && strcmp(where, "global") && strcmp(where, "stack") && strcmp(where, "boxroot")) {
        fprintf(stderr, "usage: %s global|stack|register|boxroot|selfcheck-dropped\n", argv[0]);
        return 2;
    }
    for (size_t c = 0; c < NCASES; c++) {
        unsigned long *e = make_case(c);
        if (strcmp(where, "global") == 0) global_hold[c] = e;
        else if (strcmp(where, "stack") == 0) stack_hold[c] = e;
        else if (strcmp(where, "boxroot") == 0) {
            boxes[c] = boxroot_create(e);
            SV_CHECK(boxes[c] != NULL, "boxroot_create failed");
        }
        e = NULL;
    }
    for (int round = 0; round < 3; round++) {
        sv_collect_and_churn(2, T);
        for (size_t c = 0; c < NCASES; c++) {
            unsigned long *e = NULL;
            if (strcmp(where, "global") == 0) e = global_hold[c];
            else if (strcmp(where, "stack") == 0) e = stack_hold[c];
            else if (strcmp(where, "boxroot") == 0) e = boxroot_get(boxes[c]);
            else {   /* dropped: nothing holds the vectors */
                SV_CHECK(links.cells[c] != NULL, "case %zu: vector of %zu elements (reference "
                         "dropped) was reclaimed", c, case_n(c));
                continue;
            }
            check_case(c, e);
        }
    }
    if (strcmp(where, "boxroot") == 0) {
        /* Deleting the boxroots drops the vectors. Statistical: a stale
           word left on the stack may still hold one. */
        for (size_t c = 0; c < NCASES; c++) boxroot_delete(boxes[c]);
        sv_collect_and_churn(2, T);
        size_t alive = sv_links_alive(&links, 0, NCASES);
        SV_CHECK(alive <= 2, "%zu of %d vectors survived the deletion of their boxroots", alive,
                 NCASES);
    }
    free(boxes);
    printf("svector.interior.%s: ok\n", where);
    return 0;
}
