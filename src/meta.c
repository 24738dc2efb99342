/*
 * meta.c: memory for the collector's own bookkeeping (root tables, caches,
 * arena intervals), taken from mmap and never from malloc: the collector must
 * not call malloc while the world is stopped, and this memory is never
 * scanned as a root (invariant 7). Power-of-two size classes up to 64 KiB on
 * free lists; larger requests are mapped directly. Freed blocks of 16 KiB
 * and more keep no pages resident.
 */
#include "internal.h"

#include <string.h>

#define META_MIN_SHIFT 4
#define META_MAX_SHIFT 16
#define META_SLAB_BYTES ((size_t)1 << 20)
/* A freed block of 16 KiB and more gives its pages back (meta_free): the
   tables that grow by doubling (finalize.c's links, the mark stack) free
   each smaller copy, whose size class no later request may need. Guile's
   weak tables left ~230 KiB of them resident in guile-weak (its peak RSS
   was 1.03 x stock's), where stock keeps the same tables in its heap. A
   block taken again is zeroed by meta_alloc, page by page on first touch. */
#define META_DISCARD_SHIFT 14

static pthread_mutex_t meta_lock = PTHREAD_MUTEX_INITIALIZER;
static void *meta_free_lists[META_MAX_SHIFT + 1];   /* guarded by meta_lock */
static char *slab_cur, *slab_end;                   /* guarded by meta_lock */

static unsigned class_shift(size_t bytes) {
  unsigned s = META_MIN_SHIFT;
  while (((size_t)1 << s) < bytes) s++;
  return s;
}

void *meta_alloc(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > ((size_t)1 << META_MAX_SHIFT)) {
    size_t len = (bytes + 4095) & ~(size_t)4095;
    return os_map_noreserve(len, 4096);    /* fresh pages read as zero */
  }
  unsigned s = class_shift(bytes);
  size_t size = (size_t)1 << s;
  void *p;
  pthread_mutex_lock(&meta_lock);
  if (meta_free_lists[s]) {
    p = meta_free_lists[s];
    meta_free_lists[s] = *(void **)p;
  } else {
    if ((size_t)(slab_end - slab_cur) < size) {
      char *slab = os_map_noreserve(META_SLAB_BYTES, 4096);
      if (!slab) { pthread_mutex_unlock(&meta_lock); return NULL; }
      slab_cur = slab;
      slab_end = slab + META_SLAB_BYTES;
    }
    p = slab_cur;
    slab_cur += size;
  }
  pthread_mutex_unlock(&meta_lock);
  memset(p, 0, size);
  return p;
}

void meta_free(void *p, size_t bytes) {
  if (!p) return;
  if (bytes == 0) bytes = 1;
  if (bytes > ((size_t)1 << META_MAX_SHIFT)) {
    os_unmap(p, (bytes + 4095) & ~(size_t)4095);
    return;
  }
  unsigned s = class_shift(bytes);
  if (s >= META_DISCARD_SHIFT) {
    /* The pages after the free-list link go back to the system. */
    uintptr_t from = ((uintptr_t)p + sizeof(void *) + 4095) & ~(uintptr_t)4095;
    uintptr_t to = ((uintptr_t)p + ((size_t)1 << s)) & ~(uintptr_t)4095;
    if (to > from) os_discard((void *)from, to - from);
  }
  pthread_mutex_lock(&meta_lock);
  *(void **)p = meta_free_lists[s];
  meta_free_lists[s] = p;
  pthread_mutex_unlock(&meta_lock);
}

bool meta_vec_push(struct meta_vec *v, const void *item) {
  if (v->count == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 16;
    void *items = meta_alloc(cap * v->item_size);
    if (!items) return false;
    if (v->items) {
      memcpy(items, v->items, v->count * v->item_size);
      meta_free(v->items, v->cap * v->item_size);
    }
    v->items = items;
    v->cap = cap;
  }
  memcpy((char *)v->items + v->count * v->item_size, item, v->item_size);
  v->count++;
  return true;
}

void meta_vec_remove(struct meta_vec *v, size_t i) {
  char *base = v->items;
  memmove(base + i * v->item_size, base + (i + 1) * v->item_size,
          (v->count - i - 1) * v->item_size);
  v->count--;
}
