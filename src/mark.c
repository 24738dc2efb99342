/*
 * mark.c: the marker. An explicit mark stack of {start, descriptor} entries
 * in bdwgc's layout and descriptor encoding (GC_DS_LENGTH, GC_DS_BITMAP; the
 * other two tags arrive with custom kinds). No recursion: long ranges are
 * scanned a chunk at a time with the rest pushed back, and when the stack is
 * full an entry is dropped and a flag set; marking then finishes, the stack
 * grows, and every marked object is scanned again until nothing was dropped
 * (dropped entries are always of objects already marked, so nothing
 * reachable is lost).
 * Invariant 1: a candidate word is dereferenced only if the page table and
 * the block descriptor say it is inside an object of a committed heap block.
 * Each marker (the collecting thread's, and the helpers of markers.c) has
 * its own stack; with several markers, mark bits are set with an atomic OR
 * and work is shared through markers.c's pool.
 * Runs with the world stopped and the allocation lock held.
 */
#include "internal.h"

#include <string.h>

#define MARK_STACK_INITIAL_ENTRIES ((size_t)1 << 16)   /* 1 MiB */
#define SCAN_CHUNK_BYTES 4096   /* long ranges are scanned this much at a time */
#define SHARE_CHECK_INTERVAL 64 /* entries scanned between looks at idle markers */

struct marker main_marker;      /* the collecting thread's; roots are pushed here */
/* The marker this thread is draining for: client mark procedures reach it
   through GC_mark_and_push. */
static __thread struct marker *current_marker __attribute__((tls_model("initial-exec")));

bool marker_init_stack(struct marker *m, size_t entries) {
  struct mark_entry *s = meta_alloc(entries * sizeof *s);
  if (!s) return false;
  if (m->base) meta_free(m->base, m->capacity * sizeof *m->base);
  m->base = s;
  m->capacity = entries;
  m->limit = s + entries;
  m->top = s - 1;
  return true;
}

void mark_init(void) {
  if (!marker_init_stack(&main_marker, MARK_STACK_INITIAL_ENTRIES))
    gc_abort("bibop: cannot allocate the mark stack");
}

static inline struct mark_entry *push(struct marker *m, struct mark_entry *top, char *start,
                                      GC_word descr) {
  if (UNLIKELY(top + 1 >= m->limit)) {
    m->overflowed = true;
    return top;
  }
  top++;
  top->start = start;
  top->descr = descr;
  return top;
}

/* A kind's descriptor for an object of `bytes`. A fixed template (not
   growing with the object) is cut to the object's size, so a descriptor
   longer than a small object can never make the marker read past it. */
static inline GC_word descriptor_of(unsigned kind, size_t bytes) {
  const struct kind *k = &gc.kinds[kind];
  if (LIKELY(k->add_size)) return k->descr + bytes;
  GC_word d = k->descr;
  size_t words = bytes / sizeof(GC_word);
  switch (d & GC_DS_TAGS) {
    case GC_DS_LENGTH:
      return d > bytes ? bytes : d;
    case GC_DS_BITMAP:
      if (words < 8 * sizeof(GC_word)) d &= ~(~(GC_word)0 >> words) | GC_DS_TAGS;
      return d;
    default:
      return d;
  }
}

/* Set a mark bit; true if this marker set it. With several markers the bit
   is set with an atomic OR, read first so marked objects cost no atomic. */
static inline bool set_mark_bit(uint64_t *word, uint64_t bit, bool parallel) {
  if (*word & bit) return false;
  if (parallel) return !(__atomic_fetch_or(word, bit, __ATOMIC_RELAXED) & bit);
  *word |= bit;
  return true;
}

/* Mark the object w points into, if any; push it if it holds pointers. */
static inline struct mark_entry *mark_candidate(struct marker *m, struct mark_entry *top,
                                                uintptr_t w, bool parallel) {
  struct block *b = pt_block_of(w);
  if (!b) return top;
  unsigned state = b->state;
  if (state == BLOCK_SMALL) {
    uintptr_t off = w & (BLOCK_BYTES - 1);
    unsigned i = (unsigned)((off * (uint64_t)b->recip) >> 32);
    if (i >= b->nobjs) return top;
    size_t displacement = off - (size_t)i * b->obj_bytes;
    const struct kind *k = &gc.kinds[b->kind];
    if (displacement && !GC_all_interior_pointers && !gc.valid_offsets[displacement] &&
        !m->any_interior && !k->any_interior)
      return top;
    if (k->uncollectable) return top;      /* live ones are roots; free slots stay free */
    if (!set_mark_bit(&b->u.mark[i >> 6], (uint64_t)1 << (i & 63), parallel)) return top;
    if (parallel) __atomic_fetch_add(&b->n_marks, 1, __ATOMIC_RELAXED);
    else b->n_marks++;
    m->marked++;
    if (!k->pointer_free)
      top = push(m, top, (char *)(w - displacement), descriptor_of(b->kind, b->obj_bytes));
    return top;
  }
  if (state == BLOCK_LARGE || state == BLOCK_LARGE_TAIL) {
    struct block *h = state == BLOCK_LARGE ? b : b->head;
    if (h->state != BLOCK_LARGE || h->u.large.marked) return top;
    char *start = block_addr(h);
    size_t displacement = w - (uintptr_t)start;
    if (displacement && !GC_all_interior_pointers && !m->any_interior &&
        !gc.kinds[h->kind].any_interior &&
        (displacement >= BLOCK_BYTES || !gc.valid_offsets[displacement]))
      return top;
    if (!set_mark_bit(&h->u.large.marked, 1, parallel)) return top;
    m->marked++;
    if (!gc.kinds[h->kind].pointer_free)
      top = push(m, top, start, descriptor_of(h->kind, h->u.large.bytes));
  }
  return top;
}

static inline struct mark_entry *scan_words(struct marker *m, struct mark_entry *top, char *lo,
                                            char *hi, bool parallel) {
  for (uintptr_t *p = (uintptr_t *)lo; (char *)(p + 1) <= hi; p++)
    top = mark_candidate(m, top, *p, parallel);
  return top;
}

/* Scan one entry, possibly pushing the rest of a long range back first. */
static struct mark_entry *scan_entry(struct marker *m, struct mark_entry *top, char *start,
                                     GC_word descr, bool parallel);
static inline struct mark_entry *scan_entry(struct marker *m, struct mark_entry *top,
                                            char *start, GC_word descr, bool parallel) {
  switch (descr & GC_DS_TAGS) {
    case GC_DS_LENGTH: {
      size_t len = descr;
      if (len > SCAN_CHUNK_BYTES) {
        top = push(m, top, start + SCAN_CHUNK_BYTES, len - SCAN_CHUNK_BYTES);
        len = SCAN_CHUNK_BYTES;
      }
      return scan_words(m, top, start, start + len, parallel);
    }
    case GC_DS_BITMAP: {
      GC_word bits = descr & ~(GC_word)GC_DS_TAGS;
      uintptr_t *p = (uintptr_t *)start;
      for (; bits; bits <<= 1, p++)
        if ((GC_signed_word)bits < 0) top = mark_candidate(m, top, *p, parallel);
      return top;
    }
    case GC_DS_PROC: {
      unsigned index = (unsigned)(descr >> GC_DS_TAG_BITS) & ((1u << GC_LOG_MAX_MARK_PROCS) - 1);
      GC_word env = descr >> (GC_DS_TAG_BITS + GC_LOG_MAX_MARK_PROCS);
      GC_mark_proc proc = mark_procs[index];
      if (!proc) return top;
      return (struct mark_entry *)proc((GC_word *)start, (struct GC_ms_entry *)top,
                                       (struct GC_ms_entry *)m->limit, env);
    }
    default: {   /* GC_DS_PER_OBJECT */
      GC_signed_word where = (GC_signed_word)(descr & ~(GC_word)GC_DS_TAGS);
      GC_word real;
      size_t limit;
      if (where >= 0) {
        /* the descriptor is inside the object: scan nothing beyond it */
        real = *(GC_word *)(start + where);
        limit = (size_t)where;
      } else {
        char *type = *(char **)start;
        if (!type) return top;                    /* not initialised yet */
        real = *(GC_word *)(type - where - GC_INDIR_PER_OBJ_BIAS);
        limit = GC_size(start);
      }
      switch (real & GC_DS_TAGS) {
        case GC_DS_LENGTH:
          return scan_entry(m, top, start, real > limit ? limit : real, parallel);
        case GC_DS_BITMAP:
          if (limit / sizeof(GC_word) < 8 * sizeof(GC_word))
            real &= ~(~(GC_word)0 >> (limit / sizeof(GC_word))) | GC_DS_TAGS;
          return scan_entry(m, top, start, real, parallel);
        case GC_DS_PROC:
          return scan_entry(m, top, start, real, parallel);
        default:
          return top;                             /* no descriptor chains */
      }
    }
  }
}

/* Entries go from the stack through a small FIFO before they are scanned:
   each is prefetched when it enters, so its cache miss overlaps with the
   scanning of the entries ahead of it. */
#define PREFETCH_FIFO_ENTRIES 16

static inline void drain(struct marker *m, bool parallel) {
  current_marker = m;
  struct mark_entry fifo[PREFETCH_FIFO_ENTRIES];
  unsigned head = 0, count = 0, until_share_check = SHARE_CHECK_INTERVAL;
  struct mark_entry *top = m->top;
  for (;;) {
    if (top >= m->base && count < PREFETCH_FIFO_ENTRIES) {
      struct mark_entry e = *top--;
      __builtin_prefetch(e.start);
      fifo[(head + count) % PREFETCH_FIFO_ENTRIES] = e;
      count++;
      continue;
    }
    if (count == 0) break;
    struct mark_entry e = fifo[head];
    head = (head + 1) % PREFETCH_FIFO_ENTRIES;
    count--;
    top = scan_entry(m, top, e.start, e.descr, parallel);
    if (parallel && --until_share_check == 0) {
      until_share_check = SHARE_CHECK_INTERVAL;
      if (top - m->base > 2 && markers_hungry()) {
        m->top = top;
        markers_share(m);
        top = m->top;
      }
    }
  }
  m->top = top;
}

void marker_drain(struct marker *m) {
  if (m->parallel) drain(m, true);
  else drain(m, false);
}

void mark_drain(void) { marker_drain(&main_marker); }

bool mark_word(uintptr_t w) {
  unsigned long before = main_marker.marked;
  main_marker.top = mark_candidate(&main_marker, main_marker.top, w, main_marker.parallel);
  return main_marker.marked != before;
}

void mark_push_range(const void *lo, const void *hi) {
  uintptr_t a = ((uintptr_t)lo + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
  uintptr_t z = (uintptr_t)hi & ~(uintptr_t)(sizeof(void *) - 1);
  if (z <= a) return;
  main_marker.top = push(&main_marker, main_marker.top, (char *)a, (GC_word)(z - a) & ~(GC_word)GC_DS_TAGS);
}

/* Roots are scanned one piece at a time with the stack drained after each,
   so a root range is never the entry that gets dropped on overflow. With
   any_interior, the root words themselves (not what they lead to) keep
   objects by interior pointers whatever GC_all_interior_pointers says. */
static void mark_root_words(const void *lo, const void *hi, bool any_interior) {
  struct marker *m = &main_marker;
  uintptr_t a = ((uintptr_t)lo + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
  uintptr_t z = (uintptr_t)hi & ~(uintptr_t)(sizeof(void *) - 1);
  while (a < z) {
    uintptr_t piece = z - a > SCAN_CHUNK_BYTES ? a + SCAN_CHUNK_BYTES : z;
    m->any_interior = any_interior;
    if (m->parallel) m->top = scan_words(m, m->top, (char *)a, (char *)piece, true);
    else m->top = scan_words(m, m->top, (char *)a, (char *)piece, false);
    m->any_interior = false;
    marker_drain(m);
    a = piece;
  }
}

void mark_range(const void *lo, const void *hi) { mark_root_words(lo, hi, false); }

/* Stacks and registers: like bdwgc, an interior pointer found there keeps
   its object even with GC_all_interior_pointers off (compilers keep derived
   pointers in registers and frames). */
void mark_range_stack(const void *lo, const void *hi) { mark_root_words(lo, hi, true); }

void mark_clear_all(void) {
  main_marker.marked = 0;
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    if (gc.kinds[k].uncollectable) continue;
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) {
        memset(b->u.mark, 0, sizeof b->u.mark);
        b->n_marks = 0;
      }
  }
  for (struct block *h = gc.large; h; h = h->next)
    if (!gc.kinds[h->kind].uncollectable) h->u.large.marked = 0;
}

/* Push every live object of one small block (its set bits). */
static void push_block_objects(struct block *b) {
  struct marker *m = &main_marker;
  char *base = block_addr(b);
  GC_word descr = descriptor_of(b->kind, b->obj_bytes);
  for (unsigned w = 0; w < MARK_WORDS; w++) {
    uint64_t bits = b->u.mark[w];
    while (bits) {
      unsigned i = w * 64 + (unsigned)__builtin_ctzll(bits);
      bits &= bits - 1;
      m->top = push(m, m->top, base + (size_t)i * b->obj_bytes, descr);
      marker_drain(m);
    }
  }
}

static void push_large_object(struct block *h) {
  main_marker.top = push(&main_marker, main_marker.top, block_addr(h),
                         descriptor_of(h->kind, h->u.large.bytes));
  marker_drain(&main_marker);
}

/* Push the objects of every pointerful kind that `which` selects. */
static void push_objects_of(bool (*which)(const struct kind *k, bool marked)) {
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    if (gc.kinds[k].pointer_free || !which(&gc.kinds[k], true)) continue;
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) push_block_objects(b);
  }
  for (struct block *h = gc.large; h; h = h->next)
    if (!gc.kinds[h->kind].pointer_free && which(&gc.kinds[h->kind], h->u.large.marked))
      push_large_object(h);
}

static bool is_uncollectable(const struct kind *k, bool marked) { (void)marked; return k->uncollectable; }
static bool is_marked(const struct kind *k, bool marked) { (void)k; return marked; }

void mark_uncollectable_roots(void) { push_objects_of(is_uncollectable); }

/* Overflow recovery, on this thread alone: every marked object is scanned
   again; the stack grows if memory allows (recovery works at any size, only
   slower). */
void mark_recover_overflow(void) {
  while (main_marker.overflowed || markers_overflowed()) {
    main_marker.overflowed = false;
    main_marker.parallel = false;
    (void)marker_init_stack(&main_marker, main_marker.capacity * 2);
    push_objects_of(is_marked);
  }
}

void mark_finish(void) {
  markers_finish_phase(&main_marker);
  mark_recover_overflow();
  gc.marked_objects = main_marker.marked + markers_marked_objects();
}

/* ---- object-level marking for finalization (serial, after mark_finish) ---- */

/* The mark bit of the object starting at obj; NULL bit pointer if obj is
   not an object start of the heap. */
static uint64_t *mark_bit_of(const void *obj, uint64_t *bit, struct block **blk) {
  struct block *b = pt_block_of((uintptr_t)obj);
  if (!b) return NULL;
  *blk = b;
  if (b->state == BLOCK_SMALL) {
    unsigned i = 0;
    if (small_object_start(b, (uintptr_t)obj, &i) != obj) return NULL;
    *bit = (uint64_t)1 << (i & 63);
    return &b->u.mark[i >> 6];
  }
  if (b->state == BLOCK_LARGE && block_addr(b) == obj) {
    *bit = 1;
    return &b->u.large.marked;
  }
  return NULL;
}

bool mark_is_marked(const void *obj) {
  uint64_t bit;
  struct block *b;
  uint64_t *word = mark_bit_of(obj, &bit, &b);
  return word && (*word & bit);
}

/* Set or clear obj's mark bit without scanning it (n_marks follows). */
void mark_set_bit(const void *obj, bool on) {
  uint64_t bit;
  struct block *b;
  uint64_t *word = mark_bit_of(obj, &bit, &b);
  if (!word) return;
  /* Atomic: client code may call this while helper markers run. */
  uint64_t old = on ? __atomic_fetch_or(word, bit, __ATOMIC_RELAXED)
                    : __atomic_fetch_and(word, ~bit, __ATOMIC_RELAXED);
  if (!(old & bit) == !on || b->state != BLOCK_SMALL) return;
  __atomic_fetch_add(&b->n_marks, on ? 1 : (uint16_t)-1, __ATOMIC_RELAXED);
}

/* Mark everything reachable from obj's contents, not obj itself. */
void mark_from_contents(const void *obj) {
  struct block *b = pt_block_of((uintptr_t)obj);
  if (!b || gc.kinds[b->kind].pointer_free) return;
  size_t bytes = b->state == BLOCK_SMALL ? b->obj_bytes : b->u.large.bytes;
  main_marker.top = push(&main_marker, main_marker.top, (char *)obj, descriptor_of(b->kind, bytes));
  marker_drain(&main_marker);
}

/* ---- gc_mark.h: what client mark procedures and root pushers call ---------- */

void marker_signal_overflow(void) {
  if (current_marker) current_marker->overflowed = true;
}

GC_API struct GC_ms_entry *GC_mark_and_push(void *obj, struct GC_ms_entry *msp,
                                            struct GC_ms_entry *msl, void **src) {
  (void)src;
  (void)msl;   /* the marker's own limit is the same one */
  struct marker *m = current_marker;
  if (!m) return msp;
  return (struct GC_ms_entry *)mark_candidate(m, (struct mark_entry *)msp, (uintptr_t)obj,
                                              m->parallel);
}

GC_API int GC_is_marked(const void *p) {
  void *base = GC_base((void *)p);
  return base && mark_is_marked(base);
}

GC_API void GC_set_mark_bit(const void *p) {
  void *base = GC_base((void *)p);
  if (base) mark_set_bit(base, true);
}

GC_API void GC_clear_mark_bit(const void *p) {
  void *base = GC_base((void *)p);
  if (base) mark_set_bit(base, false);
}

/* ignore_self finalization: like mark_from_contents, but words pointing into
   obj itself are skipped (a path back through other objects still counts).
   Kinds scanned by procedure cannot be filtered word by word: for those the
   object counts as marked while its contents are traced. */
void mark_from_contents_except_self(const void *obj) {
  struct block *b = pt_block_of((uintptr_t)obj);
  if (!b || gc.kinds[b->kind].pointer_free) return;
  size_t bytes = b->state == BLOCK_SMALL ? b->obj_bytes : b->u.large.bytes;
  GC_word d = descriptor_of(b->kind, bytes);
  if ((d & GC_DS_TAGS) != GC_DS_LENGTH) {
    mark_set_bit(obj, true);
    mark_from_contents(obj);
    mark_set_bit(obj, false);
    return;
  }
  const uintptr_t lo = (uintptr_t)obj, hi = lo + bytes;
  const uintptr_t *w = obj;
  for (size_t i = 0; i < d / sizeof(uintptr_t); i++) {
    if (w[i] >= lo && w[i] < hi) continue;
    main_marker.top = mark_candidate(&main_marker, main_marker.top, w[i], false);
    marker_drain(&main_marker);
  }
}
