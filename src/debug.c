/*
 * debug.c: bdwgc's debugging allocator (the GC_debug_* family that
 * GC_DEBUG's GC_MALLOC macros call) and leak detection (GC_find_leak,
 * GC_FIND_LEAK, leak_detector.h).
 *
 * A debug object is an ordinary object with a 32-byte header in front —
 * allocation site, requested size, and a start guard that is a magic number
 * mixed with the object's address (so user data cannot pass for a header) —
 * and an end guard written right after the last requested byte, so that even
 * a one-byte overrun is caught, and a tail guard in the object's last word,
 * by which an object is still known after an underrun overwrote its header.
 * Guards are checked at GC_debug_free and, once any debug object exists, at
 * every collection; smashed objects are reported with their allocation site
 * (unless the header itself was hit). GC_debug_free frees a damaged object
 * all the same (after one report: it repairs the header and guards); it
 * fills the object with a pattern and leaves it to the collector, so a write
 * after free is reported too (uncollectable objects are freed at once).
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
#define TAIL_GUARD ((GC_word)0x7A117A117A117A11ull)
#define FREED_FILL 0xEF
#define SMASHED_SITE "<smashed>"   /* the site of an object whose header was overwritten */

const size_t GC_debug_header_size = sizeof(struct dbg_header);
volatile bool debugging_started;   /* a debug object exists: check at collections */

GC_API size_t GC_get_debug_header_size(void) { return sizeof(struct dbg_header); }

static GC_word end_guard_of(const struct dbg_header *h) { return END_GUARD ^ (GC_word)(uintptr_t)h; }
static GC_word tail_guard_of(const struct dbg_header *h) { return TAIL_GUARD ^ (GC_word)(uintptr_t)h; }

/* The tail guard is the object's last word, whatever the size field says:
   an object whose header an underrun overwrote is still recognised by it
   (bdwgc keeps a flag there for the same reason). debug_alloc asks for a
   word more than the end guard needs, so the two never overlap. */
static GC_word *tail_guard_at(const struct dbg_header *h) {
  uintptr_t end = ((uintptr_t)h + object_size(h)) & ~(uintptr_t)(sizeof(GC_word) - 1);
  return (GC_word *)end - 1;
}

/* The most client bytes object h can hold: a size field above it is smashed. */
static size_t client_room(const struct dbg_header *h) {
  return (size_t)((char *)tail_guard_at(h) - (char *)(h + 1)) - sizeof(GC_word);
}

/* Write the size and both guards after the header's start guard. */
static void set_size_and_guards(struct dbg_header *h, size_t lb) {
  h->size = lb;
  GC_word end = end_guard_of(h), tail = tail_guard_of(h);
  memcpy((char *)(h + 1) + lb, &end, sizeof end);
  memcpy(tail_guard_at(h), &tail, sizeof tail);
}

static void *debug_alloc(size_t lb, int kind, const char *file, int line) {
  const size_t overhead = sizeof(struct dbg_header) + 3 * sizeof(GC_word);
  if (lb > SIZE_MAX - overhead) return alloc_out_of_memory(lb);
  size_t rounded = (lb + sizeof(GC_word) - 1) & ~(sizeof(GC_word) - 1);
  struct dbg_header *h = alloc_generic(rounded + overhead - sizeof(GC_word), kind);
  if (!h) return NULL;
  if (!debugging_started) debugging_started = true;
  h->file = file ? file : "(unknown)";
  h->line = (GC_word)line;
  h->guard = START_GUARD ^ (GC_word)(uintptr_t)h;
  set_size_and_guards(h, lb);
  return h + 1;
}

static bool header_intact(const struct dbg_header *h, bool *freed) {
  if (h->guard == (START_GUARD ^ (GC_word)(uintptr_t)h)) *freed = false;
  else if (h->guard == (FREED_GUARD ^ (GC_word)(uintptr_t)h)) *freed = true;
  else return false;
  return h->size <= client_room(h);
}

/* The header of debug object base with its header intact, or NULL if base
   is not one (or its header is damaged: see header_smashed_at). */
static struct dbg_header *header_of(void *base, bool *freed) {
  if (!base || object_size(base) < sizeof(struct dbg_header) + 3 * sizeof(GC_word)) return NULL;
  struct dbg_header *h = base;
  return header_intact(h, freed) ? h : NULL;
}

/* Where the header of h was overwritten (the start guard, or else an
   impossible size), or NULL if it is intact. */
static char *header_damage_at(struct dbg_header *h) {
  bool freed;
  if (header_intact(h, &freed)) return NULL;
  bool guard_ok = h->guard == (START_GUARD ^ (GC_word)(uintptr_t)h) ||
                  h->guard == (FREED_GUARD ^ (GC_word)(uintptr_t)h);
  return guard_ok ? (char *)&h->size : (char *)&h->guard;
}

/* A debug object whose header is damaged but whose tail guard is intact:
   where the header was hit; NULL otherwise (intact, or not a debug object). */
static char *header_smashed_at(void *base) {
  if (!base || object_size(base) < sizeof(struct dbg_header) + 3 * sizeof(GC_word)) return NULL;
  struct dbg_header *h = base;
  GC_word tail;
  memcpy(&tail, tail_guard_at(h), sizeof tail);
  return tail == tail_guard_of(h) ? header_damage_at(h) : NULL;
}

/* Where a debug object with an intact header was damaged, or NULL. */
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

/* The site and size are read only from a header known to be intact: a
   smashed one may hold any bits where the file name's pointer was. */
static void report_smashed(const char *what, char *where, struct dbg_header *h, bool header_ok) {
  if (header_ok)
    fprintf(stderr, "%s %p in or near object at %p(%s:%lu, appr. sz = %lu)\n", what,
            (void *)where, (void *)(h + 1), h->file, (unsigned long)h->line,
            (unsigned long)h->size);
  else
    fprintf(stderr, "%s %p in or near object at %p(" SMASHED_SITE ", appr. sz = %lu)\n", what,
            (void *)where, (void *)(h + 1), (unsigned long)client_room(h));
}

/* Report debug object base if it is damaged; true if it was. */
static bool check_object(void *base, unsigned found) {
  bool freed = false;
  struct dbg_header *h = header_of(base, &freed);
  char *where = h ? smashed_at(h, freed) : header_smashed_at(base);
  if (!where) return false;
  if (!found) fprintf(stderr, "GC_check_heap: smashed heap objects:\n");
  report_smashed(freed ? "written after free:" : "smashed:", where, base, h != NULL);
  return true;
}

/* Check every debug object in the heap (world stopped, lock held). */
static void check_heap_locked(void) {
  unsigned found = 0;
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) {
        char *base = block_addr(b);
        for (unsigned i = 0; i < b->nobjs; i++)
          if (b->u.mark[i / 64] >> (i % 64) & 1)
            found += check_object(base + (size_t)i * b->obj_bytes, found);
      }
  }
  for (struct block *b = gc.large; b; b = b->next) found += check_object(block_addr(b), found);
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

/* The header of p, a pointer GC_debug_malloc returned, after checking the
   object: damage is reported, once (the header and guards are repaired: a
   header overwritten by an underrun gets the largest size the object can
   hold and no site). As bdwgc does, a pointer one header above its
   object's start is taken for a debug object whatever its header holds, so
   that an underrun is reported and the object still freed. NULL if p is
   not such a pointer; *freed says it was freed already. */
static struct dbg_header *checked_header(void *p, const char *caller, bool *freed) {
  void *base = object_base(p);
  if (base != (char *)p - sizeof(struct dbg_header)) return NULL;
  if (object_size(base) < sizeof(struct dbg_header) + 3 * sizeof(GC_word)) return NULL;
  struct dbg_header *h = base;
  char where_what[96];
  snprintf(where_what, sizeof where_what, "%s: found smashed location at", caller);
  char *hit = header_damage_at(h);
  if (hit) {
    report_smashed(where_what, hit, h, false);
    *freed = h->guard == (FREED_GUARD ^ (GC_word)(uintptr_t)h);
    if (!*freed) h->guard = START_GUARD ^ (GC_word)(uintptr_t)h;
    h->file = SMASHED_SITE;
    h->line = 0;
    set_size_and_guards(h, client_room(h));
    return h;
  }
  header_intact(h, freed);
  if (*freed) return h;
  hit = smashed_at(h, false);
  if (hit) {
    report_smashed(where_what, hit, h, true);
    set_size_and_guards(h, h->size);
  }
  return h;
}

GC_API void GC_debug_free(void *p) {
  if (!p) return;
  bool freed;
  struct dbg_header *h = checked_header(p, "GC_debug_free", &freed);
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
  h->guard = FREED_GUARD ^ (GC_word)(uintptr_t)h;   /* a second free is caught */
  if (gc.kinds[pt_block_of((uintptr_t)h)->kind].uncollectable || GC_find_leak) {
    GC_free(h);
    return;
  }
  /* Leave it to the collector, poisoned, so later writes show up. */
  memset(p, FREED_FILL, h->size);
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
  bool freed;
  struct dbg_header *h = checked_header(p, "GC_debug_realloc", &freed);
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
  int kind = pt_block_of((uintptr_t)h)->kind;
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
  mark_register_displacement(offset);
  mark_register_displacement(offset + sizeof(struct dbg_header));
}

/* A finalizer registered on a debug object is called with the pointer it
   was registered with (the client's, not the header's), and the tables are
   keyed by the object's base whatever the pointer (finalize.c): so the
   debug registrations are the plain ones. bdwgc wraps the finalizer to add
   the header size to the base, which gives the same pointer for the
   client's own pointer and loses a displacement. */
GC_API void GC_debug_register_finalizer(void *p, GC_finalization_proc fn, void *cd,
                                        GC_finalization_proc *ofn, void **ocd) {
  GC_register_finalizer(p, fn, cd, ofn, ocd);
}
GC_API void GC_debug_register_finalizer_ignore_self(void *p, GC_finalization_proc fn, void *cd,
                                                    GC_finalization_proc *ofn, void **ocd) {
  GC_register_finalizer_ignore_self(p, fn, cd, ofn, ocd);
}
GC_API void GC_debug_register_finalizer_no_order(void *p, GC_finalization_proc fn, void *cd,
                                                 GC_finalization_proc *ofn, void **ocd) {
  GC_register_finalizer_no_order(p, fn, cd, ofn, ocd);
}
GC_API void GC_debug_register_finalizer_unreachable(void *p, GC_finalization_proc fn, void *cd,
                                                    GC_finalization_proc *ofn, void **ocd) {
  GC_register_finalizer_unreachable(p, fn, cd, ofn, ocd);
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

static void collect_at_exit(void) { gc_collect_explicit(); }

void debug_init(void) {
  if (os_env_set("GC_FIND_LEAK")) GC_find_leak = 1;
  if (GC_find_leak) atexit(collect_at_exit);
}

GC_API void GC_set_find_leak(int value) { GC_find_leak = value; }
GC_API int GC_get_find_leak(void) { return GC_find_leak; }
