/* svector.lookup: the type, instance test, length and fields are found from
 * every element reference of structure vectors of 1, 2, 255, 256, 4096 and
 * 100,000 elements and of one vector larger than 2 MiB (so a large object
 * spanning many blocks and at least two 2 MiB chunks), for types of 1, 2, 3
 * and 20 fields, before and after collections; and from individually
 * allocated structures. Element references are checked to be plain interior
 * pointers (element i of a k-field type is i*k words after element 0).
 *
 * Behaviour only; no timing. */
#include <gc.h>
#include <bibop.h>

#include "svcommon.h"

static const size_t sizes[] = { 1, 2, 255, 256, 4096, 100000 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Check every element of v (n elements of t, filled with tag's values). */
static void check_vector(void *v, const bibop_struct_type *t, const bibop_struct_type *other,
                         size_t n, uint64_t tag, const char *when)
{
    size_t k = bibop_struct_type_fields(t);
    SV_CHECK(bibop_is_svector(v), "%s: n=%zu k=%zu: bibop_is_svector(v) is 0", when, n, k);
    SV_CHECK(bibop_svector_length(v) == n, "%s: length %zu, want %zu (k=%zu)", when,
             bibop_svector_length(v), n, k);
    SV_CHECK(bibop_type_of(v) == t, "%s: n=%zu k=%zu: type_of(vector) %p, want %p", when, n, k,
             (void *)bibop_type_of(v), (void *)t);
    for (size_t i = 0; i < n; i++) {
        unsigned long *e = bibop_svector_ref(v, i);
        SV_CHECK(e == (unsigned long *)v + i * k, "%s: n=%zu k=%zu: ref(%zu) = %p, want %p", when,
                 n, k, i, (void *)e, (void *)((unsigned long *)v + i * k));
        const bibop_struct_type *got = bibop_type_of(e);
        SV_CHECK(got == t, "%s: n=%zu k=%zu: type_of(element %zu at %p) = %p, want %p", when, n,
                 k, i, (void *)e, (void *)got, (void *)t);
        SV_CHECK(bibop_is_instance(e, t), "%s: n=%zu k=%zu: element %zu not an instance", when, n,
                 k, i);
        SV_CHECK(!bibop_is_instance(e, other), "%s: n=%zu k=%zu: element %zu is an instance of "
                 "another type", when, n, k, i);
        SV_CHECK(!bibop_is_instance(e, NULL), "%s: element %zu is an instance of NULL", when, i);
        for (size_t f = 0; f < k; f++) {
            unsigned long want = sv_value(tag, i, f);
            unsigned long g = bibop_field_get(e, f);
            SV_CHECK(g == want, "%s: n=%zu k=%zu: element %zu field %zu = %#lx, want %#lx", when, n,
                     k, i, f, g, want);
            SV_CHECK(e[f] == want, "%s: element %zu field %zu in memory %#lx, want %#lx", when, i,
                     f, e[f], want);
        }
        /* An element reference is not itself a vector (except element 0,
           which is the vector reference). */
        if (i > 0) {
            SV_CHECK(!bibop_is_svector(e), "%s: n=%zu: element %zu is a vector", when, n, i);
            SV_CHECK(bibop_svector_length(e) == 0, "%s: n=%zu: length(element %zu) = %zu", when, n,
                     i, bibop_svector_length(e));
            SV_CHECK(bibop_svector_ref(e, 0) == NULL, "%s: n=%zu: ref(element %zu, 0) not NULL",
                     when, n, i);
        }
    }
}

/* Fill through both setters: svector_set for even elements, field_set for
   odd ones. */
static void fill_vector(void *v, const bibop_struct_type *t, size_t n, uint64_t tag)
{
    size_t k = bibop_struct_type_fields(t);
    unsigned long vals[20];
    for (size_t i = 0; i < n; i++) {
        if (i % 2 == 0) {
            for (size_t f = 0; f < k; f++) vals[f] = sv_value(tag, i, f);
            SV_CHECK(bibop_svector_set(v, i, vals) == 0, "svector_set(%zu) of %zu failed", i, n);
        } else {
            void *e = bibop_svector_ref(v, i);
            SV_CHECK(e != NULL, "ref(%zu) of %zu is NULL", i, n);
            for (size_t f = 0; f < k; f++) bibop_field_set(e, f, sv_value(tag, i, f));
        }
    }
}

/* The vectors are held from here (a root) during the test. */
static void *volatile held[4][NSIZES + 1];

int main(void)
{
    GC_INIT();
    static const size_t field_counts[4] = { 1, 2, 3, 20 };
    const bibop_struct_type *types[4], *other = bibop_struct_type_new("other", 2, NULL);
    SV_CHECK(other != NULL, "type 'other' not created");
    for (int ti = 0; ti < 4; ti++) {
        static const char *const names[4] = { "t1", "t2", "t3", "t20" };
        const char *name = names[ti];
        unsigned long bitmap[1] = { 0 };   /* no pointer fields: values are arbitrary */
        types[ti] = bibop_struct_type_new(name, field_counts[ti], bitmap);
        SV_CHECK(types[ti] != NULL, "type with %zu fields not created", field_counts[ti]);
        SV_CHECK(bibop_struct_type_fields(types[ti]) == field_counts[ti], "fields %zu, want %zu",
                 bibop_struct_type_fields(types[ti]), field_counts[ti]);
        SV_CHECK(strcmp(bibop_struct_type_name(types[ti]), name) == 0, "name '%s', want '%s'",
                 bibop_struct_type_name(types[ti]), name);
    }

    /* Every size for every type, plus the > 2 MiB vector (2-field type:
       196,608 elements = 3 MiB of fields). */
    const size_t big_n = (size_t)3 << 17;
    for (int ti = 0; ti < 4; ti++) {
        const bibop_struct_type *t = types[ti];
        for (size_t s = 0; s <= NSIZES; s++) {
            size_t n = s < NSIZES ? sizes[s] : (ti == 1 ? big_n : 0);
            if (n == 0) continue;
            void *v = bibop_svector_new(t, n);
            SV_CHECK(v != NULL, "svector_new(k=%zu, n=%zu) failed", field_counts[ti], n);
            SV_CHECK(GC_base(v) == (unsigned long *)v - 2, "vector at %p, object at %p", v,
                     GC_base(v));
            if (s == NSIZES) {
                size_t bytes = GC_size(GC_base(v));
                uintptr_t lo = (uintptr_t)GC_base(v), hi = lo + bytes - 1;
                SV_CHECK(bytes > ((size_t)2 << 20), "big vector is %zu bytes", bytes);
                SV_CHECK((lo >> 21) != (hi >> 21), "big vector [%#lx, %#lx] within one chunk",
                         (unsigned long)lo, (unsigned long)hi);
            }
            uint64_t tag = (uint64_t)ti * 100 + s;
            fill_vector(v, t, n, tag);
            check_vector(v, t, other, n, tag, "fresh");
            held[ti][s] = v;
        }
    }

    /* Individually allocated structures of every type. */
    void *volatile singles[4][64];
    for (int ti = 0; ti < 4; ti++)
        for (size_t j = 0; j < 64; j++) {
            unsigned long *s = bibop_struct_new(types[ti]);
            SV_CHECK(s != NULL, "struct_new(k=%zu) failed", field_counts[ti]);
            SV_CHECK(GC_base(s) == s - 1, "structure at %p, object at %p", (void *)s, GC_base(s));
            for (size_t f = 0; f < field_counts[ti]; f++)
                SV_CHECK(s[f] == 0, "struct_new: field %zu not zero", f);
            for (size_t f = 0; f < field_counts[ti]; f++) bibop_field_set(s, f, sv_value(900 + ti, j, f));
            singles[ti][j] = s;
        }

    /* Again after collections (with churn that reuses any freed memory). */
    for (int round = 0; round < 2; round++) {
        sv_collect_and_churn(2, types[1]);
        for (int ti = 0; ti < 4; ti++) {
            for (size_t s = 0; s <= NSIZES; s++)
                if (held[ti][s]) {
                    size_t n = s < NSIZES ? sizes[s] : big_n;
                    check_vector(held[ti][s], types[ti], other, n, (uint64_t)ti * 100 + s,
                                 "after collections");
                }
            for (size_t j = 0; j < 64; j++) {
                unsigned long *s = singles[ti][j];
                SV_CHECK(bibop_type_of(s) == types[ti], "structure %zu of k=%zu: type_of %p, want %p",
                         j, field_counts[ti], (void *)bibop_type_of(s), (void *)types[ti]);
                SV_CHECK(bibop_is_instance(s, types[ti]) && !bibop_is_instance(s, other),
                         "structure %zu: instance test", j);
                SV_CHECK(!bibop_is_svector(s) && bibop_svector_length(s) == 0 &&
                         bibop_svector_ref(s, 0) == NULL, "structure %zu taken for a vector", j);
                for (size_t f = 0; f < field_counts[ti]; f++)
                    SV_CHECK(bibop_field_get(s, f) == sv_value(900 + ti, j, f),
                             "structure %zu of k=%zu field %zu = %#lx", j, field_counts[ti], f,
                             bibop_field_get(s, f));
            }
        }
    }

    /* Things that are not structures have no type. */
    static unsigned long a_static[4];
    unsigned long on_stack[4] = { 0 };
    void *plain = GC_MALLOC(64), *atomic = GC_MALLOC_ATOMIC(64), *big_plain = GC_MALLOC(100000);
    void *m = malloc(64);
    const void *not_structs[] = { NULL, a_static, on_stack, plain, (char *)plain + 8, atomic,
                                  big_plain, (char *)big_plain + 50000, m };
    for (size_t i = 0; i < sizeof not_structs / sizeof not_structs[0]; i++) {
        SV_CHECK(bibop_type_of(not_structs[i]) == NULL, "type_of(non-structure #%zu %p) = %p", i,
                 not_structs[i], (void *)bibop_type_of(not_structs[i]));
        SV_CHECK(!bibop_is_instance(not_structs[i], types[1]), "non-structure #%zu is an instance",
                 i);
    }
    free(m);
    printf("svector.lookup: ok\n");
    return 0;
}
