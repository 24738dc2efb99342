/*
 * svector.c: structure types, structures and structure vectors (paper 003).
 *
 * A structure type (name, field count, pointer bitmap) lives in metadata
 * memory for the life of the process. Structures and structure vectors are
 * objects of one kind, the STRUCT kind, scanned by a mark procedure:
 *   structure:  [type]            [f0 .. f(k-1)]
 *   vector:     [type | 1] [n]    [element 0: f0 .. f(k-1)] ... [element n-1]
 * (the low bit of the header marks a vector; types are 8-byte aligned). A
 * structure reference points at field 0, so an element reference is just
 * an interior pointer into the vector: no per-element header and no back
 * pointer. type_of(ref) finds the object's start through the page table and
 * block descriptor (GC_base: two dependent loads, plus one for a large
 * vector's tail block), then reads the header: a fixed number of loads.
 * Marking pushes only pointer fields (the type's bitmap); an element
 * reference keeps the whole vector, since it is an interior pointer.
 */
#include "internal.h"

#include <string.h>

#define WORD_BITS (8 * sizeof(GC_word))
#define VECTOR_FLAG ((GC_word)1)

struct bibop_struct_type {
  const char *name;
  size_t nfields;
  size_t bitmap_words;
  GC_word bitmap[];     /* bit i set: field i holds a pointer */
};

static unsigned struct_kind;

static bool field_is_pointer(const struct bibop_struct_type *t, size_t i) {
  return t->bitmap[i / WORD_BITS] >> (i % WORD_BITS) & 1;
}

static struct GC_ms_entry *mark_fields(const struct bibop_struct_type *t, GC_word *fields,
                                       size_t count, struct GC_ms_entry *msp,
                                       struct GC_ms_entry *msl) {
  for (size_t e = 0; e < count; e++, fields += t->nfields)
    for (size_t i = 0; i < t->nfields; i++)
      if (field_is_pointer(t, i)) msp = GC_mark_and_push((void *)fields[i], msp, msl, (void **)&fields[i]);
  return msp;
}

static struct GC_ms_entry *mark_struct_object(GC_word *addr, struct GC_ms_entry *msp,
                                              struct GC_ms_entry *msl, GC_word env) {
  (void)env;
  GC_word header = addr[0];
  const struct bibop_struct_type *t = (const void *)(header & ~VECTOR_FLAG);
  if (!t) return msp;                       /* not initialised yet */
  size_t words = object_size(addr) / sizeof(GC_word);
  if (header & VECTOR_FLAG) {
    size_t n = addr[1];
    if (words < 2 || n > (words - 2) / t->nfields) return msp;
    return mark_fields(t, addr + 2, n, msp, msl);
  }
  if (words < 1 + t->nfields) return msp;
  return mark_fields(t, addr + 1, 1, msp, msl);
}

void svector_init(void) {
  struct_kind = GC_new_kind_inner(GC_new_free_list_inner(), GC_MAKE_PROC((GC_word)GC_new_proc_inner(mark_struct_object), 0), 0, 1);
  gc.kinds[struct_kind].any_interior = true;   /* element references are interior pointers */
}

BIBOP_API bibop_struct_type *bibop_struct_type_new(const char *name, size_t nfields,
                                                   const unsigned long *pointer_bitmap) {
  gc_ensure_init();
  if (nfields == 0 || nfields > ((size_t)1 << 20)) return NULL;
  size_t words = (nfields + WORD_BITS - 1) / WORD_BITS;
  struct bibop_struct_type *t = meta_alloc(sizeof *t + words * sizeof(GC_word));
  if (!t) return NULL;
  t->name = name ? name : "(anonymous)";
  t->nfields = nfields;
  t->bitmap_words = words;
  if (pointer_bitmap) memcpy(t->bitmap, pointer_bitmap, words * sizeof(GC_word));
  if (nfields % WORD_BITS) t->bitmap[words - 1] &= ((GC_word)1 << (nfields % WORD_BITS)) - 1;
  return t;
}

BIBOP_API const char *bibop_struct_type_name(const bibop_struct_type *t) {
  return t ? t->name : NULL;
}

BIBOP_API size_t bibop_struct_type_fields(const bibop_struct_type *t) {
  return t ? t->nfields : 0;
}

BIBOP_API void *bibop_struct_new(const bibop_struct_type *t) {
  if (!t) return NULL;
  GC_word *obj = GC_generic_malloc((1 + t->nfields) * sizeof(GC_word), (int)struct_kind);
  if (!obj) return NULL;
  __atomic_store_n(&obj[0], (GC_word)(uintptr_t)t, __ATOMIC_RELEASE);
  return obj + 1;
}

BIBOP_API void *bibop_svector_new(const bibop_struct_type *t, size_t n) {
  if (!t) return NULL;
  size_t max = (SIZE_MAX / sizeof(GC_word) - 2) / t->nfields;
  if (n > max) return NULL;                              /* n x size overflows */
  /* An empty vector still gets one word after its header, so that its
     reference points inside it. */
  size_t words = 2 + (n ? n * t->nfields : 1);
  GC_word *obj = GC_generic_malloc(words * sizeof(GC_word), (int)struct_kind);
  if (!obj) return NULL;
  obj[1] = n;
  __atomic_store_n(&obj[0], (GC_word)(uintptr_t)t | VECTOR_FLAG, __ATOMIC_RELEASE);
  return obj + 2;
}

/* The object header of a structure or vector reference, or NULL. */
static GC_word *object_of(const void *ref) {
  GC_word *base = object_base((void *)ref);
  if (!base) return NULL;
  struct block *b = pt_block_of((uintptr_t)base);
  if (!b || b->kind != struct_kind) return NULL;
  return base[0] ? base : NULL;
}

static GC_word *field_address(const void *ref, size_t k);

/* Only a true structure reference (a structure's field 0, or an element's)
   has a type. */
BIBOP_API const bibop_struct_type *bibop_type_of(const void *ref) {
  if (!field_address(ref, 0)) return NULL;
  GC_word *obj = object_of(ref);
  return (const bibop_struct_type *)(obj[0] & ~VECTOR_FLAG);
}

BIBOP_API int bibop_is_instance(const void *ref, const bibop_struct_type *t) {
  return t && bibop_type_of(ref) == t;
}

BIBOP_API int bibop_is_svector(const void *v) {
  GC_word *obj = object_of(v);
  return obj && (obj[0] & VECTOR_FLAG) && (const GC_word *)v == obj + 2;
}

BIBOP_API size_t bibop_svector_length(const void *v) {
  return bibop_is_svector(v) ? ((const GC_word *)v)[-1] : 0;
}

BIBOP_API void *bibop_svector_ref(void *v, size_t i) {
  if (!bibop_is_svector(v)) return NULL;
  GC_word *fields = v;
  const bibop_struct_type *t = bibop_type_of(v);
  if (i >= fields[-1]) return NULL;
  return fields + i * t->nfields;
}

BIBOP_API int bibop_svector_set(void *v, size_t i, const unsigned long *values) {
  GC_word *e = bibop_svector_ref(v, i);
  if (!e || !values) return -1;
  memcpy(e, values, bibop_type_of(v)->nfields * sizeof(GC_word));
  return 0;
}

/* A structure reference's field k: ref must be exactly a structure's or an
   element's start, and k below the type's field count. */
static GC_word *field_address(const void *ref, size_t k) {
  GC_word *obj = object_of(ref);
  if (!obj) return NULL;
  const bibop_struct_type *t = (const void *)(obj[0] & ~VECTOR_FLAG);
  bool vector = obj[0] & VECTOR_FLAG;
  const char *first = (const char *)(vector ? obj + 2 : obj + 1);
  if ((const char *)ref < first || k >= t->nfields) return NULL;
  size_t offset = (size_t)((const char *)ref - first);
  size_t element_bytes = t->nfields * sizeof(GC_word);
  if (offset % element_bytes != 0) return NULL;
  size_t index = offset / element_bytes;
  if (index >= (vector ? obj[1] : 1)) return NULL;
  return (GC_word *)ref + k;
}

BIBOP_API unsigned long bibop_field_get(const void *ref, size_t k) {
  GC_word *f = field_address(ref, k);
  if (!f) gc_abort("bibop_field_get: not a structure reference, or field index out of range");
  return *f;
}

BIBOP_API void bibop_field_set(void *ref, size_t k, unsigned long value) {
  GC_word *f = field_address(ref, k);
  if (!f) gc_abort("bibop_field_set: not a structure reference, or field index out of range");
  *f = value;
}
