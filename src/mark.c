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
 * Runs with the world stopped and the allocation lock held.
 */
#include "internal.h"

#include <string.h>

struct mark_entry { char *start; GC_word descr; };

#define MARK_STACK_INITIAL_ENTRIES ((size_t)1 << 16)   /* 1 MiB */
#define SCAN_CHUNK_BYTES 4096   /* long ranges are scanned this much at a time */

static struct mark_entry *ms_base, *ms_limit;   /* limit: one past the end */
static struct mark_entry *ms_top;               /* last entry in use (bdwgc's convention) */
static size_t ms_capacity;
static bool ms_overflowed;

static bool mark_stack_alloc(size_t entries) {
  struct mark_entry *s = meta_alloc(entries * sizeof *s);
  if (!s) return false;
  if (ms_base) meta_free(ms_base, ms_capacity * sizeof *ms_base);
  ms_base = s;
  ms_capacity = entries;
  ms_limit = s + entries;
  ms_top = s - 1;
  return true;
}

void mark_init(void) {
  if (!mark_stack_alloc(MARK_STACK_INITIAL_ENTRIES))
    gc_abort("bibop: cannot allocate the mark stack");
}

static inline struct mark_entry *push(struct mark_entry *top, char *start, GC_word descr) {
  if (UNLIKELY(top + 1 >= ms_limit)) {
    ms_overflowed = true;
    return top;
  }
  top++;
  top->start = start;
  top->descr = descr;
  return top;
}

static inline GC_word descriptor_of(unsigned kind, size_t bytes) {
  const struct kind *k = &gc.kinds[kind];
  return k->add_size ? k->descr + bytes : k->descr;
}

/* Mark the object w points into, if any; push it if it holds pointers. */
static inline struct mark_entry *mark_candidate(struct mark_entry *top, uintptr_t w) {
  struct block *b = pt_block_of(w);
  if (!b) return top;
  unsigned state = b->state;
  if (state == BLOCK_SMALL) {
    uintptr_t off = w & (BLOCK_BYTES - 1);
    unsigned i = (unsigned)((off * (uint64_t)b->recip) >> 32);
    if (i >= b->nobjs) return top;
    size_t displacement = off - (size_t)i * b->obj_bytes;
    if (displacement && !GC_all_interior_pointers && !gc.valid_offsets[displacement]) return top;
    uint64_t bit = (uint64_t)1 << (i & 63);
    uint64_t *word = &b->u.mark[i >> 6];
    if (*word & bit) return top;
    const struct kind *k = &gc.kinds[b->kind];
    if (k->uncollectable) return top;      /* a free slot: live ones are roots */
    *word |= bit;
    b->n_marks++;
    gc.marked_objects++;
    if (!k->pointer_free) {
      top = push(top, (char *)(w - displacement), descriptor_of(b->kind, b->obj_bytes));
    }
    return top;
  }
  if (state == BLOCK_LARGE || state == BLOCK_LARGE_TAIL) {
    struct block *h = state == BLOCK_LARGE ? b : b->head;
    if (h->state != BLOCK_LARGE || h->u.large.marked) return top;
    char *start = block_addr(h);
    size_t displacement = w - (uintptr_t)start;
    if (displacement && !GC_all_interior_pointers &&
        (displacement >= BLOCK_BYTES || !gc.valid_offsets[displacement]))
      return top;
    h->u.large.marked = 1;
    gc.marked_objects++;
    if (!gc.kinds[h->kind].pointer_free)
      top = push(top, start, descriptor_of(h->kind, h->u.large.bytes));
  }
  return top;
}

static struct mark_entry *scan_words(struct mark_entry *top, char *lo, char *hi) {
  for (uintptr_t *p = (uintptr_t *)lo; (char *)(p + 1) <= hi; p++)
    top = mark_candidate(top, *p);
  return top;
}

/* Scan one entry, possibly pushing the rest of a long range back first. */
static struct mark_entry *scan_entry(struct mark_entry *top, char *start, GC_word descr) {
  switch (descr & GC_DS_TAGS) {
    case GC_DS_LENGTH: {
      size_t len = descr;
      if (len > SCAN_CHUNK_BYTES) {
        top = push(top, start + SCAN_CHUNK_BYTES, len - SCAN_CHUNK_BYTES);
        len = SCAN_CHUNK_BYTES;
      }
      return scan_words(top, start, start + len);
    }
    case GC_DS_BITMAP: {
      GC_word bits = descr & ~(GC_word)GC_DS_TAGS;
      uintptr_t *p = (uintptr_t *)start;
      for (; bits; bits <<= 1, p++)
        if ((GC_signed_word)bits < 0) top = mark_candidate(top, *p);
      return top;
    }
    default:
      /* Procedure and per-object descriptors arrive with custom kinds; until
         then, treat the object conservatively is impossible without a
         length, so an unknown tag is a collector bug. */
      gc_abort("bibop: mark descriptor with an unsupported tag");
  }
}

/* Entries go from the stack through a small FIFO before they are scanned:
   each is prefetched when it enters, so its cache miss overlaps with the
   scanning of the entries ahead of it. */
#define PREFETCH_FIFO_ENTRIES 16

void mark_drain(void) {
  struct mark_entry fifo[PREFETCH_FIFO_ENTRIES];
  unsigned head = 0, count = 0;
  struct mark_entry *top = ms_top;
  for (;;) {
    if (top >= ms_base && count < PREFETCH_FIFO_ENTRIES) {
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
    top = scan_entry(top, e.start, e.descr);
  }
  ms_top = top;
}

bool mark_word(uintptr_t w) {
  unsigned long before = gc.marked_objects;
  ms_top = mark_candidate(ms_top, w);
  return gc.marked_objects != before;
}

void mark_push_range(const void *lo, const void *hi) {
  uintptr_t a = ((uintptr_t)lo + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
  uintptr_t z = (uintptr_t)hi & ~(uintptr_t)(sizeof(void *) - 1);
  if (z <= a) return;
  ms_top = push(ms_top, (char *)a, (GC_word)(z - a) & ~(GC_word)GC_DS_TAGS);
}

/* Roots are scanned one range at a time with the stack drained after each,
   so a root range is never the entry that gets dropped on overflow. */
void mark_range(const void *lo, const void *hi) {
  uintptr_t a = ((uintptr_t)lo + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
  uintptr_t z = (uintptr_t)hi & ~(uintptr_t)(sizeof(void *) - 1);
  while (a < z) {
    uintptr_t piece = z - a > SCAN_CHUNK_BYTES ? a + SCAN_CHUNK_BYTES : z;
    ms_top = scan_words(ms_top, (char *)a, (char *)piece);
    mark_drain();
    a = piece;
  }
}

void mark_clear_all(void) {
  gc.marked_objects = 0;
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
  char *base = block_addr(b);
  GC_word descr = descriptor_of(b->kind, b->obj_bytes);
  for (unsigned w = 0; w < MARK_WORDS; w++) {
    uint64_t bits = b->u.mark[w];
    while (bits) {
      unsigned i = w * 64 + (unsigned)__builtin_ctzll(bits);
      bits &= bits - 1;
      ms_top = push(ms_top, base + (size_t)i * b->obj_bytes, descr);
      mark_drain();
    }
  }
}

void mark_uncollectable_roots(void) {
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    if (!gc.kinds[k].uncollectable || gc.kinds[k].pointer_free) continue;
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) push_block_objects(b);
  }
  for (struct block *h = gc.large; h; h = h->next) {
    if (!gc.kinds[h->kind].uncollectable || gc.kinds[h->kind].pointer_free) continue;
    ms_top = push(ms_top, block_addr(h), descriptor_of(h->kind, h->u.large.bytes));
    mark_drain();
  }
}

/* Overflow recovery: scan every marked object that holds pointers again. */
static void rescan_marked(void) {
  for (unsigned k = 0; k < gc.n_kinds; k++) {
    if (gc.kinds[k].pointer_free) continue;
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) push_block_objects(b);
  }
  for (struct block *h = gc.large; h; h = h->next) {
    if (gc.kinds[h->kind].pointer_free || !h->u.large.marked) continue;
    ms_top = push(ms_top, block_addr(h), descriptor_of(h->kind, h->u.large.bytes));
    mark_drain();
  }
}

void mark_finish(void) {
  mark_drain();
  while (ms_overflowed) {
    ms_overflowed = false;
    /* Grow if memory allows; recovery works at any size, only slower. */
    (void)mark_stack_alloc(ms_capacity * 2);
    rescan_marked();
  }
}
