/* svector.known_bug.<case>: structure-vector behaviour that bibop gets
 * wrong today. Built always, registered with CTest only with
 * -DBIBOP_SVECTOR_KNOWN_BUGS=ON; each case passes once src/ is fixed (the
 * fixes below were applied to a scratch copy of the tree: all svector tests
 * and these cases then pass, and no other test changes).
 *
 * 1. With GC_set_all_interior_pointers(0) (a bdwgc setting clients such as
 *    Guile use; bibop.h promises without conditions that an element
 *    reference "keeps the whole vector alive"):
 *
 *   interior-off-global   a vector held only by a reference to its middle
 *                         element, in a global, is reclaimed and its memory
 *                         reused while the reference is live
 *   interior-off-boxroot  the same with the reference in a boxroot
 *   interior-off-field    the same with the reference in a pointer field of
 *                         a live structure
 *       Cause: src/mark.c mark_candidate (lines 97-99 for small blocks,
 *       115-117 for large ones) accepts a non-zero displacement only if
 *       GC_all_interior_pointers, a registered displacement or a stack scan
 *       (any_interior) allows it; element references are interior pointers
 *       at arbitrary offsets and the struct kind has no exemption. Static
 *       roots and boxroots are scanned with mark_range (not
 *       mark_range_stack), struct fields through GC_mark_and_push.
 *       Fix: a per-kind flag, `bool any_interior` in struct kind
 *       (src/internal.h), set by svector_init for the struct kind, and
 *       `&& !k->any_interior` (small) / `&& !gc.kinds[h->kind].any_interior`
 *       (large) added to the two displacement tests of mark_candidate (the
 *       small path must look k up before the test).
 *
 *   interior-off-empty    bibop_svector_new(t, 0) returns a pointer one past
 *                         the end of its 2-word object (src/svector.c:102
 *                         allocates exactly 2 + n*k words; with no extra byte
 *                         the reference lands in the next object): is_svector
 *                         is 0, GC_base names another object, and nothing
 *                         keeps the empty vector alive.
 *       Fix: allocate 2 + (n ? n*k : 1) words.
 *
 * 2. Independently of the setting:
 *
 *   type-of-non-reference bibop_type_of / bibop_is_instance answer the type
 *                         for addresses inside a structure object that are
 *                         not structure references (field 1 of an element,
 *                         the vector's length and header words, the slack
 *                         after the last element, a byte-misaligned element
 *                         reference, field 1 of a structure, one structure
 *                         past a structure), while bibop.h says "NULL if ref
 *                         is not a structure reference" and bibop_field_get
 *                         aborts on the same addresses (src/svector.c:118-121
 *                         skips the checks field_address makes).
 *       Fix: in bibop_type_of, return the type only if ref == obj + 1 for a
 *       structure, or for a vector if (ref - (obj + 2)) in bytes is a
 *       multiple of k words and the quotient is below the length. (Or, if
 *       the cost of the division matters, document that any address inside
 *       the object is accepted.)
 *
 *   field-non-reference   (in bad_input.c, run as "bad_input
 *                         known-bug-non-reference") bibop_field_get/set read
 *                         or write instead of aborting on a byte-misaligned
 *                         reference (src/svector.c:157 takes a GC_word pointer
 *                         difference, which truncates) and on k words past a
 *                         k-field structure inside its object (line 158 only
 *                         asks for a multiple of k; line 159 bounds vectors
 *                         only).
 *       Fix: in field_address, compute the offset in bytes from uintptr_t
 *       values, require it to be a multiple of k * sizeof(GC_word), and the
 *       element index below obj[1] for a vector, below 1 for a structure.
 */
#include <gc.h>
#include <bibop.h>
#include <boxroot.h>

#include "svcommon.h"

#define N 1000
static const bibop_struct_type *T;    /* {word, word} */
static const bibop_struct_type *H;    /* {pointer} */
static void *volatile global_ref;
static sv_links links;

static SV_NOINLINE unsigned long *make_vector(uint64_t tag)
{
    unsigned long *v = bibop_svector_new(T, N);
    SV_CHECK(v != NULL, "svector_new");
    for (size_t i = 0; i < 2 * N; i++) v[i] = sv_value(tag, i, 0);
    sv_links_watch(&links, 0, v);
    return v + 2 * (N / 2);   /* the middle element */
}

static void check_vector(const char *how, unsigned long *e, uint64_t tag)
{
    SV_CHECK(links.cells[0] != NULL, "%s: the vector held by its middle element was reclaimed "
             "(interior pointers off)", how);
    unsigned long *v = e - 2 * (N / 2);
    for (size_t i = 0; i < 2 * N; i++)
        SV_CHECK(v[i] == sv_value(tag, i, 0), "%s: word %zu of the vector changed: %#lx", how, i,
                 v[i]);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s interior-off-global|interior-off-boxroot|interior-off-field|"
                "interior-off-empty|type-of-non-reference\n", argv[0]);
        return 2;
    }
    const char *c = argv[1];
    if (!strncmp(c, "interior-off-", 13)) GC_set_all_interior_pointers(0);
    GC_INIT();
    T = bibop_struct_type_new("t", 2, NULL);
    unsigned long bits[1] = { 1 };
    H = bibop_struct_type_new("h", 1, bits);
    links = sv_links_new(1);

    if (!strcmp(c, "interior-off-global")) {
        global_ref = make_vector(1);
        sv_collect_and_churn(3, T);
        check_vector(c, global_ref, 1);
    } else if (!strcmp(c, "interior-off-boxroot")) {
        boxroot *box = malloc(sizeof *box);
        *box = boxroot_create(make_vector(2));
        sv_collect_and_churn(3, T);
        check_vector(c, boxroot_get(*box), 2);
    } else if (!strcmp(c, "interior-off-field")) {
        void *s = bibop_struct_new(H);
        global_ref = s;   /* the structure itself is held by its base reference */
        s = NULL;
        bibop_field_set(global_ref, 0, (unsigned long)make_vector(3));
        sv_collect_and_churn(3, T);
        check_vector(c, (unsigned long *)bibop_field_get(global_ref, 0), 3);
    } else if (!strcmp(c, "interior-off-empty")) {
        unsigned long *v = bibop_svector_new(T, 0);
        SV_CHECK(v != NULL, "svector_new(t, 0) returned NULL");
        SV_CHECK(GC_base(v) == (void *)(v - 2), "svector_new(t, 0) = %p, but GC_base says the "
                 "object at %p (the vector's object is at %p)", (void *)v, GC_base(v),
                 (void *)(v - 2));
        SV_CHECK(bibop_is_svector(v) && bibop_svector_length(v) == 0 &&
                 bibop_svector_ref(v, 0) == NULL,
                 "svector_new(t, 0): is_svector %d, length %zu", bibop_is_svector(v),
                 bibop_svector_length(v));
        global_ref = v;   /* the empty vector survives a collection */
        v = NULL;
        sv_links_watch(&links, 0, global_ref);
        sv_collect_and_churn(2, T);
        SV_CHECK(links.cells[0] != NULL && bibop_is_svector(global_ref),
                 "the empty vector held by its reference was reclaimed");
    } else if (!strcmp(c, "type-of-non-reference")) {
        unsigned long *v = bibop_svector_new(T, 5);   /* 12 words + extra byte: 14-word object */
        unsigned long *s = bibop_struct_new(T);       /* 3 words + extra byte: 4-word object */
        SV_CHECK(v && s, "allocation");
        const void *not_refs[] = { v + 1, v + 3, v - 1, v - 2, v + 10, v + 11, s - 1,
                                   (char *)(v + 2) + 1, s + 1, s + 2 };
        const char *names[] = { "field 1 of element 0", "field 1 of element 1", "length word",
                                "vector header", "one element past the end", "slack word",
                                "structure header", "element 1 plus one byte",
                                "field 1 of a structure", "one structure past a structure" };
        for (size_t i = 0; i < sizeof not_refs / sizeof not_refs[0]; i++) {
            SV_CHECK(GC_base((void *)not_refs[i]) == GC_base(v) ||
                     GC_base((void *)not_refs[i]) == GC_base(s), "%s not in the object", names[i]);
            SV_CHECK(bibop_type_of(not_refs[i]) == NULL && !bibop_is_instance(not_refs[i], T),
                     "type_of(%s) = %p, want NULL (not a structure reference; bibop_field_get "
                     "aborts on it)", names[i], (void *)bibop_type_of(not_refs[i]));
        }
    } else {
        fprintf(stderr, "unknown case %s\n", c);
        return 2;
    }
    printf("svector.known_bug.%s: passes (fixed)\n", c);
    return 0;
}
