/*
 * kinds.c: client-defined object kinds, mark procedures and typed
 * descriptors (gc_mark.h, gc_typed.h).
 *
 * A kind is a row of gc.kinds: a descriptor template (added to the object
 * size if asked), whether new objects are cleared, and whether the kind holds
 * pointers at all. Mark procedures are numbered (GC_new_proc) and named in
 * GC_DS_PROC descriptors. Explicitly typed objects are of the TYPED kind,
 * whose template is a per-object descriptor: the object's last word. A
 * descriptor whose bitmap does not fit in one word becomes a GC_DS_PROC
 * descriptor of the extended-bitmap procedure; typed arrays (calloc) keep
 * the element descriptor and count in their last words and are scanned by
 * the array procedure. All tables only grow; readers during marking need no
 * lock because writers run under the allocation lock and marking holds it.
 */
#include "internal.h"
#include "gc/gc_typed.h"

#include <string.h>

#define MAX_MARK_PROCS (1 << GC_LOG_MAX_MARK_PROCS)
#define WORD_BITS (8 * sizeof(GC_word))
#define BITMAP_DESCR_BITS (WORD_BITS - GC_DS_TAG_BITS)

GC_mark_proc mark_procs[MAX_MARK_PROCS];
static unsigned n_mark_procs = GC_RESERVED_MARK_PROCS;
static unsigned extended_bitmap_proc, typed_array_proc;

struct extended_bitmap { size_t words; GC_word bits[]; };
static struct meta_vec extended_bitmaps = { .item_size = sizeof(struct extended_bitmap *) };

static unsigned new_proc_locked(GC_mark_proc proc) {
  if (n_mark_procs >= MAX_MARK_PROCS) gc_abort("bibop: too many mark procedures (GC_new_proc)");
  mark_procs[n_mark_procs] = proc;
  return n_mark_procs++;
}

static unsigned new_kind_locked(GC_word descr, int add_size, int clear) {
  if (gc.n_kinds >= MAX_KINDS) gc_abort("bibop: too many object kinds (GC_new_kind)");
  unsigned k = gc.n_kinds++;
  gc.kinds[k] = (struct kind){
      .descr = descr, .add_size = add_size != 0, .zero_on_alloc = clear != 0, .in_use = true,
      /* a zero-length descriptor that does not grow with the object scans nothing */
      .pointer_free = (descr & GC_DS_TAGS) == GC_DS_LENGTH && descr == 0 && !add_size};
  return k;
}

/* ---- marking helpers used by the procedures below --------------------------- */

static struct GC_ms_entry *push_entry(struct GC_ms_entry *msp, struct GC_ms_entry *msl,
                                      void *start, GC_word descr) {
  struct mark_entry *top = (struct mark_entry *)msp;
  if (top + 1 >= (struct mark_entry *)msl) {
    marker_signal_overflow();
    return msp;
  }
  top++;
  top->start = start;
  top->descr = descr;
  return (struct GC_ms_entry *)top;
}

static struct GC_ms_entry *mark_extended_bitmap(GC_word *addr, struct GC_ms_entry *msp,
                                                struct GC_ms_entry *msl, GC_word env) {
  const struct extended_bitmap *bm = META_VEC_AT(&extended_bitmaps, struct extended_bitmap *, env);
  for (size_t i = 0; i < bm->words; i++)
    if (bm->bits[i / WORD_BITS] >> (i % WORD_BITS) & 1)
      msp = GC_mark_and_push((void *)addr[i], msp, msl, (void **)&addr[i]);
  return msp;
}

/* A typed array: [elements...] ... [count][element descriptor][descriptor]. */
static struct GC_ms_entry *mark_typed_array(GC_word *addr, struct GC_ms_entry *msp,
                                            struct GC_ms_entry *msl, GC_word env) {
  size_t elem_bytes = env;
  size_t words = object_size(addr) / sizeof(GC_word);
  GC_word count = addr[words - 3], elem_descr = addr[words - 2];
  if (!elem_bytes || count > (words * sizeof(GC_word)) / elem_bytes) return msp;
  for (GC_word i = 0; i < count; i++)
    msp = push_entry(msp, msl, (char *)addr + i * elem_bytes, elem_descr);
  return msp;
}

/* bdwgc's four predefined kinds, numbered as gc.h numbers them. */
static void define_builtin_kinds(void) {
  gc.kinds[KIND_PTRFREE] = (struct kind){ .descr = GC_DS_LENGTH, .add_size = true,
      .pointer_free = true, .zero_on_alloc = false, .in_use = true };
  gc.kinds[KIND_NORMAL] = (struct kind){ .descr = GC_DS_LENGTH, .add_size = true,
      .zero_on_alloc = true, .in_use = true };
  gc.kinds[KIND_UNCOLLECTABLE] = (struct kind){ .descr = GC_DS_LENGTH, .add_size = true,
      .uncollectable = true, .zero_on_alloc = true, .in_use = true };
  gc.kinds[KIND_ATOMIC_UNCOLLECTABLE] = (struct kind){ .descr = GC_DS_LENGTH, .add_size = true,
      .pointer_free = true, .uncollectable = true, .zero_on_alloc = false, .in_use = true };
  gc.n_kinds = KIND_BUILTIN_COUNT;
}

void kinds_init(void) {
  define_builtin_kinds();
  extended_bitmap_proc = new_proc_locked(mark_extended_bitmap);
  typed_array_proc = new_proc_locked(mark_typed_array);
  /* Per-object descriptor at displacement (size - 8): the last word. */
  unsigned k = new_kind_locked(((GC_word)0 - sizeof(GC_word)) | GC_DS_PER_OBJECT, 1, 1);
  if (k != KIND_TYPED) gc_abort("bibop: typed kind has the wrong number");
}

/* ---- gc_mark.h ---------------------------------------------------------------- */

GC_API void **GC_new_free_list_inner(void) {
  /* bibop's kinds allocate through cursors, not free lists; the array is
     kept for clients that pass it to GC_new_kind and never read by bibop. */
  void **fl = meta_alloc((MAX_SMALL_GRANULES + 1) * sizeof(void *));
  if (!fl) gc_abort("bibop: no memory for GC_new_free_list");
  return fl;
}

GC_API void **GC_new_free_list(void) {
  LOCK();
  void **fl = GC_new_free_list_inner();
  UNLOCK();
  return fl;
}

GC_API unsigned GC_new_kind_inner(void **free_list, GC_word descr, int add_size, int clear) {
  (void)free_list;
  return new_kind_locked(descr, add_size, clear);
}

GC_API unsigned GC_new_kind(void **free_list, GC_word descr, int add_size, int clear) {
  gc_ensure_init();
  LOCK();
  unsigned k = new_kind_locked(descr, add_size, clear);
  UNLOCK();
  (void)free_list;
  return k;
}

GC_API unsigned GC_new_proc_inner(GC_mark_proc proc) { return new_proc_locked(proc); }

GC_API unsigned GC_new_proc(GC_mark_proc proc) {
  gc_ensure_init();
  LOCK();
  unsigned i = new_proc_locked(proc);
  UNLOCK();
  return i;
}

/* ---- gc_typed.h ---------------------------------------------------------------- */

GC_API GC_descr GC_make_descriptor(const GC_word *bitmap, size_t len) {
  gc_ensure_init();
  long last = -1;
  for (size_t i = 0; i < len; i++)
    if (bitmap[i / WORD_BITS] >> (i % WORD_BITS) & 1) last = (long)i;
  if (last < 0) return 0;                                   /* no pointers */
  bool all = true;
  for (long i = 0; i <= last; i++)
    if (!(bitmap[i / WORD_BITS] >> (i % WORD_BITS) & 1)) all = false;
  if (all) return (GC_word)(last + 1) * sizeof(GC_word) | GC_DS_LENGTH;
  if ((size_t)last < BITMAP_DESCR_BITS) {
    GC_word d = 0;
    for (long i = 0; i <= last; i++)
      if (bitmap[i / WORD_BITS] >> (i % WORD_BITS) & 1) d |= (GC_word)1 << (WORD_BITS - 1 - i);
    return d | GC_DS_BITMAP;
  }
  size_t words = (size_t)last + 1;
  size_t bytes = sizeof(struct extended_bitmap) + ((words + WORD_BITS - 1) / WORD_BITS) * sizeof(GC_word);
  struct extended_bitmap *bm = meta_alloc(bytes);
  if (!bm) return (GC_word)words * sizeof(GC_word) | GC_DS_LENGTH;   /* conservative: still safe */
  bm->words = words;
  memcpy(bm->bits, bitmap, ((words + WORD_BITS - 1) / WORD_BITS) * sizeof(GC_word));
  LOCK();
  size_t index = extended_bitmaps.count;
  bool ok = meta_vec_push(&extended_bitmaps, &bm);
  UNLOCK();
  if (!ok) {
    meta_free(bm, bytes);
    return (GC_word)words * sizeof(GC_word) | GC_DS_LENGTH;
  }
  return GC_MAKE_PROC((GC_word)extended_bitmap_proc, (GC_word)index);
}

/* An object of the typed kind with descriptor d in its last word. */
static void *malloc_typed(size_t lb, GC_descr d, size_t tail_words, GC_word tail[]) {
  size_t extra = tail_words * sizeof(GC_word);
  if (lb > SIZE_MAX - extra) return alloc_out_of_memory(lb);
  GC_word *p = alloc_generic(lb + extra, KIND_TYPED);
  if (!p) return NULL;
  size_t words = object_size(p) / sizeof(GC_word);
  for (size_t i = 0; i + 1 < tail_words; i++) p[words - tail_words + i] = tail[i];
  __atomic_store_n(&p[words - 1], d, __ATOMIC_RELEASE);
  return p;
}

GC_API void *GC_malloc_explicitly_typed(size_t lb, GC_descr d) {
  return malloc_typed(lb, d, 1, NULL);
}

GC_API void *GC_malloc_explicitly_typed_ignore_off_page(size_t lb, GC_descr d) {
  return malloc_typed(lb, d, 1, NULL);
}

GC_API void *GC_calloc_explicitly_typed(size_t n, size_t lb, GC_descr d) {
  if (lb && n > SIZE_MAX / lb) return alloc_out_of_memory(SIZE_MAX);
  GC_word tail[2] = { (GC_word)n, d };
  return malloc_typed(n * lb, GC_MAKE_PROC((GC_word)typed_array_proc, (GC_word)lb), 3, tail);
}
