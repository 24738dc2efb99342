/*
 * gcj.c: gcj-style objects (gc_gcj.h): the first word points to a type
 * whose second word is the mark descriptor. One client kind with a
 * per-object descriptor, made on first use; debug gcj objects are scanned
 * conservatively.
 */
#include "internal.h"
#include "gc/gc_gcj.h"

/* ---- gcj-style objects: the first word points to a type whose second word
   is the mark descriptor (bdwgc's gc_gcj.h) ------------------------------- */

int GC_gcj_kind = 0;
int GC_gcj_debug_kind = 0;

GC_API void GC_init_gcj_malloc(int mp_index, void *mp) {
  gc_ensure_init();
  LOCK();
  if (!GC_gcj_kind) {
    if (mp && mp_index >= 0 && mp_index < (1 << GC_LOG_MAX_MARK_PROCS)) mark_procs[mp_index] = (GC_mark_proc)mp;
    /* Per-object descriptor found through the type word: (*obj)[1]. */
    GC_word d = ((GC_word)0 - sizeof(GC_word) - GC_INDIR_PER_OBJ_BIAS) | GC_DS_PER_OBJECT;
    GC_gcj_kind = (int)GC_new_kind_inner(GC_new_free_list_inner(), d, 0, 1);
    GC_gcj_debug_kind = KIND_NORMAL;   /* debug gcj objects are scanned conservatively */
  }
  UNLOCK();
}

GC_API void *GC_gcj_malloc(size_t lb, void *type) {
  if (!GC_gcj_kind) GC_init_gcj_malloc(-1, NULL);
  void **p = alloc_generic(lb, GC_gcj_kind);
  if (p) __atomic_store_n(p, type, __ATOMIC_RELEASE);
  return p;
}

GC_API void *GC_gcj_malloc_ignore_off_page(size_t lb, void *type) { return GC_gcj_malloc(lb, type); }

GC_API void *GC_debug_gcj_malloc(size_t lb, void *type, const char *s, int i) {
  void **p = GC_debug_malloc(lb, s, i);
  if (p) *p = type;
  return p;
}
