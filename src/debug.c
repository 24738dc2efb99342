/*
 * debug.c: bdwgc's debugging allocator (the GC_debug_* family that
 * GC_DEBUG's GC_MALLOC macros call) and leak detection (GC_find_leak,
 * GC_FIND_LEAK, leak_detector.h).
 *
 * A debug object is an ordinary object with a 32-byte header in front —
 * allocation site, requested size, and a start guard that is a magic number
 * mixed with the object's address (so user data cannot pass for a header) —
 * and an end guard written right after the last requested byte, so that even
 * a one-byte overrun is caught. Guards are checked at GC_debug_free and, once
 * any debug object exists, at every collection; smashed objects are reported
 * with their allocation site. GC_debug_free fills the object with a pattern
 * and leaves it to the collector, so a write after free is reported too.
 * In leak mode, collections report allocated objects that became
 * unreachable without GC_free (site and size for debug objects), then
 * reclaim them; a collection also runs at exit.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

struct dbg_header {
  const char *file;
  GC_word line;
  GC_word size;     /* bytes the client asked for */
  GC_word guard;    /* START_GUARD or FREED_GUARD, xor the header address */
};
_Static_assert(sizeof(struct dbg_header) == 32, "bdwgc's debug header is 32 bytes");

#define START_GUARD ((GC_word)0xFEDCEDCBFEDCEDCBull)
#define FREED_GUARD ((GC_word)0xDEADBEEFDEADBEEFull)
#define END_GUARD ((GC_word)0xBEEFCAFE0BADF00Dull)
#define FREED_FILL 0xEF

const size_t GC_debug_header_size = sizeof(struct dbg_header);
volatile bool debugging_started;   /* a debug object exists: check at collections */

GC_API size_t GC_get_debug_header_size(void) { return sizeof(struct dbg_header); }

static GC_word end_guard_of(const struct dbg_header *h) { return END_GUARD ^ (GC_word)(uintptr_t)h; }

static void *debug_alloc(size_t lb, int kind, const char *file, int line) {
  if (lb > SIZE_MAX - sizeof(struct dbg_header) - sizeof(GC_word)) return gc_out_of_memory(lb);
  struct dbg_header *h = alloc_generic(lb + sizeof *h + sizeof(GC_word), kind);
  if (!h) return NULL;
  if (!debugging_started) debugging_started = true;
  h->file = file ? file : "(unknown)";
  h->line = (GC_word)line;
  h->size = lb;
  h->guard = START_GUARD ^ (GC_word)(uintptr_t)h;
  GC_word end = end_guard_of(h);
  memcpy((char *)(h + 1) + lb, &end, sizeof end);
  return h + 1;
}

/* The header of debug object base, or NULL if base is not one. */
static struct dbg_header *header_of(void *base, bool *freed) {
  if (!base) return NULL;
  struct dbg_header *h = base;
  size_t room = GC_size(base);
  if (room < sizeof *h + sizeof(GC_word)) return NULL;
  if (h->guard == (START_GUARD ^ (GC_word)(uintptr_t)h)) *freed = false;
  else if (h->guard == (FREED_GUARD ^ (GC_word)(uintptr_t)h)) *freed = true;
  else return NULL;
  if (h->size > room - sizeof *h - sizeof(GC_word)) return NULL;
  return h;
}

/* Where a debug object was damaged, or NULL if it is intact. */
static char *smashed_at(struct dbg_header *h, bool freed) {
  GC_word end;
  memcpy(&end, (char *)(h + 1) + h->size, sizeof end);
  if (end != end_guard_of(h)) return (char *)(h + 1) + h->size;
  if (freed) {
    unsigned char *p = (unsigned char *)(h + 1);
    for (size_t i = 0; i < h->size; i++)
      if (p[i] != FREED_FILL) return (char *)&p[i];
  }
  return NULL;
}

static void report_smashed(const char *what, char *where, struct dbg_header *h) {
  fprintf(stderr, "%s %p in or near object at %p(%s:%lu, appr. sz = %lu)\n", what, (void *)where,
          (void *)(h + 1), h->file, (unsigned long)h->line, (unsigned long)h->size);
}

/* Check every debug object in the heap (world stopped, lock held). */
static void check_heap_locked(void) {
  unsigned found = 0;
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) {
        char *base = block_addr(b);
        for (unsigned i = 0; i < b->nobjs; i++) {
          if (!(b->u.mark[i / 64] >> (i % 64) & 1)) continue;
          bool freed;
          struct dbg_header *h = header_of(base + (size_t)i * b->obj_bytes, &freed);
          char *where = h ? smashed_at(h, freed) : NULL;
          if (where) {
            if (!found++) fprintf(stderr, "GC_check_heap: smashed heap objects:\n");
            report_smashed(freed ? "written after free:" : "smashed:", where, h);
          }
        }
      }
  }
  for (struct block *b = gc.large; b; b = b->next) {
    bool freed;
    struct dbg_header *h = header_of(block_addr(b), &freed);
    char *where = h ? smashed_at(h, freed) : NULL;
    if (where) {
      if (!found++) fprintf(stderr, "GC_check_heap: smashed heap objects:\n");
      report_smashed(freed ? "written after free:" : "smashed:", where, h);
    }
  }
  if (found) fprintf(stderr, "GC_check_heap: found %u smashed heap objects\n", found);
}

void debug_before_collection(void) {
  if (debugging_started) check_heap_locked();
}

/* ---- the GC_debug_* family ------------------------------------------------- */

GC_API void *GC_debug_malloc(size_t lb, const char *s, int i) {
  return debug_alloc(lb, KIND_NORMAL, s, i);
}
GC_API void *GC_debug_malloc_atomic(size_t lb, const char *s, int i) {
  return debug_alloc(lb, KIND_PTRFREE, s, i);
}
GC_API void *GC_debug_malloc_uncollectable(size_t lb, const char *s, int i) {
  return debug_alloc(lb, KIND_UNCOLLECTABLE, s, i);
}
GC_API void *GC_debug_malloc_atomic_uncollectable(size_t lb, const char *s, int i) {
  return debug_alloc(lb, KIND_ATOMIC_UNCOLLECTABLE, s, i);
}
GC_API void *GC_debug_malloc_ignore_off_page(size_t lb, const char *s, int i) {
  return debug_alloc(lb, KIND_NORMAL, s, i);
}
GC_API void *GC_debug_malloc_atomic_ignore_off_page(size_t lb, const char *s, int i) {
  return debug_alloc(lb, KIND_PTRFREE, s, i);
}
GC_API void *GC_debug_malloc_stubborn(size_t lb, const char *s, int i) {
  return debug_alloc(lb, KIND_NORMAL, s, i);
}
GC_API void *GC_debug_generic_or_special_malloc(size_t lb, int k, const char *s, int i) {
  return debug_alloc(lb, k, s, i);
}
GC_API void *GC_debug_malloc_replacement(size_t lb) {
  return debug_alloc(lb, KIND_NORMAL, "(replacement)", 0);
}

GC_API char *GC_debug_strdup(const char *str, const char *s, int i) {
  if (!str) return NULL;
  size_t n = strlen(str) + 1;
  char *copy = debug_alloc(n, KIND_PTRFREE, s, i);
  if (copy) memcpy(copy, str, n);
  return copy;
}

GC_API char *GC_debug_strndup(const char *str, size_t n, const char *s, int i) {
  if (!str) return NULL;
  size_t len = strnlen(str, n);
  char *copy = debug_alloc(len + 1, KIND_PTRFREE, s, i);
  if (!copy) return NULL;
  memcpy(copy, str, len);
  copy[len] = '\0';
  return copy;
}

GC_API wchar_t *GC_debug_wcsdup(const wchar_t *str, const char *s, int i) {
  if (!str) return NULL;
  size_t n = (wcslen(str) + 1) * sizeof(wchar_t);
  wchar_t *copy = debug_alloc(n, KIND_PTRFREE, s, i);
  if (copy) memcpy(copy, str, n);
  return copy;
}

GC_API wchar_t *GC_wcsdup(const wchar_t *str) {
  if (!str) return NULL;
  size_t n = (wcslen(str) + 1) * sizeof(wchar_t);
  wchar_t *copy = GC_malloc_atomic(n);
  if (copy) memcpy(copy, str, n);
  return copy;
}

GC_API void GC_debug_free(void *p) {
  if (!p) return;
  void *base = GC_base(p);
  bool freed;
  struct dbg_header *h = base == (char *)p - sizeof(struct dbg_header) ? header_of(base, &freed) : NULL;
  if (!h) {
    gc_warn("GC Warning: GC_debug_free called on pointer %p without debugging info\n",
            (GC_word)(uintptr_t)p);
    return;
  }
  if (freed) {
    fprintf(stderr, "GC_debug_free: duplicate free of %p (%s:%lu)\n", p, h->file,
            (unsigned long)h->line);
    return;
  }
  char *where = smashed_at(h, false);
  if (where) {
    report_smashed("GC_debug_free: found smashed location at", where, h);
    GC_word end = end_guard_of(h);   /* reported once: later checks see it intact */
    memcpy((char *)(h + 1) + h->size, &end, sizeof end);
  }
  if (gc.kinds[pt_block_of((uintptr_t)base)->kind].uncollectable || GC_find_leak) {
    GC_free(base);
    return;
  }
  /* Leave it to the collector, poisoned, so later writes show up. */
  memset(p, FREED_FILL, h->size);
  h->guard = FREED_GUARD ^ (GC_word)(uintptr_t)h;
  LOCK();
  gc.freed_since_gc += h->size;
  UNLOCK();
}

GC_API void *GC_debug_realloc(void *p, size_t lb, const char *s, int i) {
  if (!p) return GC_debug_malloc(lb, s, i);
  if (lb == 0) {
    GC_debug_free(p);
    return NULL;
  }
  void *base = GC_base(p);
  bool freed;
  struct dbg_header *h = base == (char *)p - sizeof(struct dbg_header) ? header_of(base, &freed) : NULL;
  if (!h) {
    gc_warn("GC Warning: GC_debug_realloc called on pointer %p without debugging info\n",
            (GC_word)(uintptr_t)p);
    return GC_realloc(p, lb);
  }
  if (freed) {
    fprintf(stderr, "GC_debug_realloc: %p was already freed (%s:%lu)\n", p, h->file,
            (unsigned long)h->line);
    return NULL;
  }
  int kind = pt_block_of((uintptr_t)base)->kind;
  void *q = debug_alloc(lb, kind, s, i);
  if (!q) return NULL;
  memcpy(q, p, lb < h->size ? lb : h->size);
  GC_debug_free(p);
  return q;
}

GC_API void *GC_debug_realloc_replacement(void *p, size_t lb) {
  return GC_debug_realloc(p, lb, "(replacement)", 0);
}

GC_API void GC_debug_change_stubborn(const void *p) { (void)p; }
GC_API void GC_debug_end_stubborn_change(const void *p) { (void)p; }
GC_API void GC_debug_ptr_store_and_dirty(void *p, const void *q) { *(const void **)p = q; }
GC_API void GC_ptr_store_and_dirty(void *p, const void *q) { *(const void **)p = q; }

GC_API void GC_debug_register_displacement(size_t offset) {
  GC_register_displacement(offset);
  GC_register_displacement(offset + sizeof(struct dbg_header));
}

/* Finalizers of debug objects receive the client's pointer, not the base. */
struct debug_closure { GC_finalization_proc fn; void *cd; };

static void invoke_debug_finalizer(void *base, void *closure) {
  struct debug_closure *c = closure;
  c->fn((char *)base + sizeof(struct dbg_header), c->cd);
}

typedef void (*register_fn)(void *, GC_finalization_proc, void *, GC_finalization_proc *, void **);

static void debug_register(register_fn reg, void *p, GC_finalization_proc fn, void *cd,
                           GC_finalization_proc *ofn, void **ocd) {
  void *base = p ? GC_base(p) : NULL;
  if (!base) {
    if (ofn) *ofn = NULL;
    if (ocd) *ocd = NULL;
    return;
  }
  struct debug_closure *c = NULL;
  if (fn) {
    c = GC_malloc(sizeof *c);   /* reachable from the registration's client data */
    if (!c) return;
    c->fn = fn;
    c->cd = cd;
  }
  GC_finalization_proc old_fn;
  void *old_cd;
  reg(base, fn ? invoke_debug_finalizer : NULL, c, &old_fn, &old_cd);
  if (old_fn == invoke_debug_finalizer && old_cd) {
    struct debug_closure *old = old_cd;
    old_fn = old->fn;
    old_cd = old->cd;
  }
  if (ofn) *ofn = old_fn;
  if (ocd) *ocd = old_cd;
}

GC_API void GC_debug_register_finalizer(void *p, GC_finalization_proc fn, void *cd,
                                        GC_finalization_proc *ofn, void **ocd) {
  debug_register(GC_register_finalizer, p, fn, cd, ofn, ocd);
}
GC_API void GC_debug_register_finalizer_ignore_self(void *p, GC_finalization_proc fn, void *cd,
                                                    GC_finalization_proc *ofn, void **ocd) {
  debug_register(GC_register_finalizer_ignore_self, p, fn, cd, ofn, ocd);
}
GC_API void GC_debug_register_finalizer_no_order(void *p, GC_finalization_proc fn, void *cd,
                                                 GC_finalization_proc *ofn, void **ocd) {
  debug_register(GC_register_finalizer_no_order, p, fn, cd, ofn, ocd);
}
GC_API void GC_debug_register_finalizer_unreachable(void *p, GC_finalization_proc fn, void *cd,
                                                    GC_finalization_proc *ofn, void **ocd) {
  debug_register(GC_register_finalizer_unreachable, p, fn, cd, ofn, ocd);
}

/* ---- leak detection ----------------------------------------------------------- */

static const char *kind_name(unsigned k) {
  switch (k) {
    case KIND_PTRFREE: return "ATOMIC";
    case KIND_NORMAL: return "NORMAL";
    case KIND_UNCOLLECTABLE: return "UNCOLLECTABLE";
    case KIND_ATOMIC_UNCOLLECTABLE: return "ATOMIC_UNCOLLECTABLE";
    default: return "KIND";
  }
}

static unsigned leaks_reported;

static void report_leak(void *base, unsigned kind, size_t size) {
  if (!leaks_reported++) fprintf(stderr, "Found leaked objects:\n");
  bool freed;
  struct dbg_header *h = header_of(base, &freed);
  if (h && !freed)
    fprintf(stderr, "%p (%s:%lu, sz= %lu, %s)\n", (void *)(h + 1), h->file,
            (unsigned long)h->line, (unsigned long)h->size, kind_name(kind));
  else if (!h)
    fprintf(stderr, "%p (sz= %lu, %s)\n", base, (unsigned long)size, kind_name(kind));
}

/* Allocation bits saved before marking, one row per small block in list
   order; slots still free in a cursor are not allocated. */
static uint64_t (*saved_bits)[MARK_WORDS];
static size_t saved_rows, saved_capacity;

static void leak_snapshot(void) {
  size_t rows = 0;
  for (unsigned k = 0; k < gc.n_kinds; k++)
    if (!gc.kinds[k].uncollectable)
      for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
        for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) rows++;
  if (rows > saved_capacity) {
    if (saved_bits) meta_free(saved_bits, saved_capacity * sizeof *saved_bits);
    saved_capacity = rows * 2;
    saved_bits = meta_alloc(saved_capacity * sizeof *saved_bits);
    if (!saved_bits) saved_capacity = 0;
  }
  saved_rows = 0;
  if (!saved_bits) return;
  for (unsigned k = 0; k < gc.n_kinds; k++)
    if (!gc.kinds[k].uncollectable)
      for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
        for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) {
          memcpy(saved_bits[saved_rows], b->u.mark, sizeof b->u.mark);
          alloc_unclaimed_bits(b, saved_bits[saved_rows]);
          saved_rows++;
        }
}

void debug_leak_snapshot(void) {
  if (GC_find_leak) leak_snapshot();
}

/* After marking: report what was allocated and is now unmarked. */
void debug_report_leaks(void) {
  if (!GC_find_leak) return;
  leaks_reported = 0;
  size_t row = 0;
  for (unsigned k = 0; k < gc.n_kinds && saved_bits; k++)
    if (!gc.kinds[k].uncollectable)
      for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
        for (struct block *b = gc.classes[k][g].blocks; b && row < saved_rows; b = b->next, row++) {
          char *base = block_addr(b);
          for (unsigned w = 0; w < MARK_WORDS; w++) {
            /* A free slot that a stray pointer marked is still free: in leak
               mode it must not come back as an allocated object. */
            uint64_t stray = b->u.mark[w] & ~saved_bits[row][w];
            b->u.mark[w] &= ~stray;
            uint64_t leaked = saved_bits[row][w] & ~b->u.mark[w];
            while (leaked) {
              unsigned i = w * 64 + (unsigned)__builtin_ctzll(leaked);
              leaked &= leaked - 1;
              report_leak(base + (size_t)i * b->obj_bytes, k, b->obj_bytes);
              alloc_forget_claim(b, i);
            }
          }
        }
  for (struct block *h = gc.large; h; h = h->next)
    if (!h->u.large.marked && !gc.kinds[h->kind].uncollectable)
      report_leak(block_addr(h), h->kind, h->u.large.bytes);
  if (leaks_reported) {
    fprintf(stderr, "Found %u leaked objects\n", leaks_reported);
    if (gc.abort_on_leak) gc_abort("bibop: leaked objects found (GC_ABORT_ON_LEAK)");
  }
}

static void collect_at_exit(void) { GC_gcollect(); }

void debug_init(void) {
  if (os_env_set("GC_FIND_LEAK")) GC_find_leak = 1;
  if (GC_find_leak) atexit(collect_at_exit);
}

GC_API void GC_set_find_leak(int value) { GC_find_leak = value; }
GC_API int GC_get_find_leak(void) { return GC_find_leak; }
