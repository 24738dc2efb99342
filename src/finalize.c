/*
 * finalize.c: finalizers and disappearing (weak) links, bdwgc semantics.
 *
 * Tables live in metadata memory (never scanned): finalizers by object,
 * short and long links by link address. After marking, in this order:
 *   1. links that lie inside unreachable heap objects are forgotten (never
 *      written: that memory is garbage);
 *   2. short links to unreachable objects are cleared;
 *   3. ordering: from every unreachable finalizable object, everything its
 *      contents reach is marked (not the object itself; ignore_self skips
 *      only pointers into the object itself; no_order marks nothing), so an
 *      object reachable from another finalizable one waits a cycle;
 *   4. finalizable objects still unmarked are queued, and they and all they
 *      reach are marked: they and their referents stay intact until their
 *      finalizer has run (Java-style, whatever GC_java_finalization says);
 *      "unreachable" finalizers are queued only if still unmarked then;
 *   5. long links to objects still unmarked are cleared.
 * Marking is batched, the stack drained every PUSHES_PER_DRAIN pushes, not
 * once per object: step 3 marks the union of what each object reaches,
 * whatever the order, and step 4 decides every entry before it marks any.
 * Per collection the short links are read once, in order, the long links
 * twice (steps 1 and 5), the finalizers twice (client data among the roots,
 * then steps 3-4); only the entries found unmarked get more work, and
 * removed entries go in one pass at the end of a step (DTAB_GONE).
 * Every table is keyed by the object's base (GC_base), whatever pointer into
 * the object the client registered with: a tagged pointer (ECL's conses,
 * start + 1) or any other interior pointer names its object, and a second
 * registration through another pointer into the same object finds the
 * first. The pointer is kept as given: a finalizer is called with it, a
 * toggle-ref callback receives it, a link is cleared (or left) for it.
 * Queued finalizers run outside the lock, never inside the collector and
 * never re-entrantly on one thread: from GC_invoke_finalizers, or after an
 * allocation or GC_gcollect unless GC_finalize_on_demand (then the
 * notifier is called instead). Client data of registered finalizers and
 * queued objects are roots.
 */
#include "internal.h"

#include <string.h>

/* ---- dense tables ------------------------------------------------------------ */

/* A table's entries lie dense in one array, items[0, count), each beginning
   with its key (never 0), so a walk reads memory in order and meets no
   hole; a removal moves the last entry into the hole. Beside them, an
   index by key: open addressing with linear probing over 2 * cap slots
   (at most half full; cap a power of two, as bdwgc's table sizes), each
   slot holding an entry's number + 1
   (0: empty) and the upper half of its key's hash, which gives the home
   slot and filters probes without reading entries. Arrays above 64 KiB are mappings of their
   own (meta.c), so a table that shrinks gives its memory back: ECL's weak
   hash tables register a finalizer and a link per key, by the hundred
   thousand, and then drop them. Under the allocation lock. */
struct dtab_slot { uint32_t item; uint32_t hash; };
struct dtab {
  char *items;
  struct dtab_slot *index;
  size_t item_size, count, cap;   /* cap: 3/4 of the index's slots */
  size_t peak;                    /* the largest count since the last collection */
  unsigned index_bits;            /* log2(index slots); 0 with no arrays */
};

#define DTAB_MIN_BITS 6
#define DTAB_MAX_BITS 32   /* entry numbers + 1 fit 32 bits */

/* 2^(bits-1) entries: a power of two, so that a table collects when it is
   full at bdwgc's sizes (below). */
static inline size_t dtab_cap_of(unsigned bits) { return bits ? (size_t)1 << (bits - 1) : 0; }

static inline uintptr_t *dtab_entry(const struct dtab *t, size_t i) {
  return (uintptr_t *)(t->items + i * t->item_size);
}

static inline uint32_t dtab_hash(uintptr_t key) {
  return (uint32_t)(((uint64_t)(key >> 3) * 0x9E3779B97F4A7C15ull) >> 32);
}

static inline size_t dtab_home(const struct dtab *t, uint32_t hash) {
  return hash >> (32 - t->index_bits);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t dtab_slot(const struct dtab *t, uintptr_t key) {
  size_t mask = ((size_t)1 << t->index_bits) - 1;
  uint32_t hash = dtab_hash(key);
  for (size_t s = dtab_home(t, hash);; s = (s + 1) & mask) {
    struct dtab_slot d = t->index[s];
    if (!d.item || (d.hash == hash && *dtab_entry(t, d.item - 1) == key)) return s;
  }
}

static void *dtab_find(const struct dtab *t, uintptr_t key) {
  if (!t->count) return NULL;
  struct dtab_slot d = t->index[dtab_slot(t, key)];
  return d.item ? dtab_entry(t, d.item - 1) : NULL;
}

/* Index every entry (the index is empty). */
static void dtab_index_all(struct dtab *t) {
  for (size_t i = 0; i < t->count; i++) {
    uintptr_t key = *dtab_entry(t, i);
    t->index[dtab_slot(t, key)] = (struct dtab_slot){ (uint32_t)i + 1, dtab_hash(key) };
  }
}

/* New arrays for an index of 2^bits slots (none if bits is 0), the
   entries kept in order; false (nothing changed) if memory is short. */
static bool dtab_resize(struct dtab *t, unsigned bits) {
  char *items = NULL;
  struct dtab_slot *index = NULL;
  size_t cap = dtab_cap_of(bits);
  if (cap) {
    items = meta_alloc(cap * t->item_size);
    index = meta_alloc(((size_t)1 << bits) * sizeof *index);   /* zeroed: all empty */
    if (!items || !index) {
      meta_free(items, cap * t->item_size);
      meta_free(index, ((size_t)1 << bits) * sizeof *index);
      return false;
    }
    if (t->count) memcpy(items, t->items, t->count * t->item_size);
  }
  meta_free(t->items, t->cap * t->item_size);
  meta_free(t->index, t->cap ? ((size_t)1 << t->index_bits) * sizeof *t->index : 0);
  t->items = items;
  t->index = index;
  t->cap = cap;
  t->index_bits = bits;
  dtab_index_all(t);
  return true;
}

/* A zeroed entry for key (not in the table) with its key set; NULL if
   memory is short. Never fails while count < cap. */
static void *dtab_insert(struct dtab *t, uintptr_t key) {
  if (t->count == t->cap &&
      (t->index_bits >= DTAB_MAX_BITS || !dtab_resize(t, t->cap ? t->index_bits + 1 : DTAB_MIN_BITS)))
    return NULL;
  size_t i = t->count++;
  if (t->count > t->peak) t->peak = t->count;
  t->index[dtab_slot(t, key)] = (struct dtab_slot){ (uint32_t)i + 1, dtab_hash(key) };
  uintptr_t *e = dtab_entry(t, i);
  memset(e, 0, t->item_size);
  *e = key;
  return e;
}

/* bdwgc's rule before a finalizer or link table of 4,096 entries or more
   grows: a collection first (the program registers one per weak key or
   finalized object, and most may be dead), and growth only if the table is
   still four fifths full after it. So such programs collect about as often
   as on stock libgc1, where the heap alone would let them run longer
   (ecl-weak: 139 collections against stock's 611, peak RSS 35.7 against
   25.2 MiB; with the rule 859 collections and 24.7 MiB; api.link_churn_bounded:
   a million links or finalizers on dropped objects in a heap with room for
   all, resident set +95 and +166 MiB before, +8 MiB now and on stock).
   The sizes are bdwgc's too, powers of two from 4,096 entries (session 11;
   until then 3/4 of a power of two, 3,072, 6,144, 12,288): guile-weak's
   ~4,900 live links kept a table of 6,144 that collected when full and
   did not grow (816-827 collections against stock's 600, 11.6-11.9 MiB
   against 10.4-10.6); with a table of 8,192, as on stock, 604-608
   collections, 10.7-10.9 MiB, CPU 1.9 -> 1.6 s. (It took
   collection_overdue in collect.c: guile-interp, whose table then stops
   collecting, had its peak RSS go 14.2 -> 16.1 MiB without it.) In
   generational mode the collection is a minor one (bdwgc skips the rule
   in incremental mode rather than run a full collection; the entries of
   young objects are the ones that churn). Not while collections are
   disabled or one is running. The caller holds the lock and keeps the
   object it registers for on its stack, where the collection finds it. */
#define COLLECT_BEFORE_GROWING_BITS 13   /* 4,096 entries */

static void *dtab_insert_or_collect(struct dtab *t, uintptr_t key) {
  if (t->count == t->cap && t->index_bits >= COLLECT_BEFORE_GROWING_BITS && !GC_dont_gc &&
      !gc.collecting && !gc.no_automatic_collection) {
    gc_collect_locked("allocation, table growth");
    /* Mostly live entries: grow now, or every insertion would collect. */
    if (t->count * 5 >= t->cap * 4 && t->index_bits < DTAB_MAX_BITS)
      (void)dtab_resize(t, t->index_bits + 1);
  }
  return dtab_insert(t, key);
}

/* Empty slot s, moving later slots of its cluster back into the hole when
   their home allows (no tombstones: probes stay short). */
static void dtab_clear_slot(struct dtab *t, size_t hole) {
  size_t mask = ((size_t)1 << t->index_bits) - 1;
  for (size_t s = (hole + 1) & mask; t->index[s].item; s = (s + 1) & mask) {
    size_t home = dtab_home(t, t->index[s].hash);
    if (((s - home) & mask) >= ((s - hole) & mask)) {   /* hole lies in [home, s) */
      t->index[hole] = t->index[s];
      hole = s;
    }
  }
  t->index[hole] = (struct dtab_slot){ 0, 0 };
}

/* Remove the entry whose index slot is s (the last entry takes its place). */
static void dtab_remove_slot(struct dtab *t, size_t s) {
  size_t i = t->index[s].item - 1;
  dtab_clear_slot(t, s);
  size_t last = --t->count;
  if (i == last) return;
  t->index[dtab_slot(t, *dtab_entry(t, last))].item = (uint32_t)i + 1;
  memcpy(dtab_entry(t, i), dtab_entry(t, last), t->item_size);
}

static void dtab_remove_at(struct dtab *t, size_t i) {
  dtab_remove_slot(t, dtab_slot(t, *dtab_entry(t, i)));
}

/* The entry whose index slot is `from` takes key `to` (not in the table;
   its empty slot is `to_slot`), staying where it is in items[]: two probes
   in all, against five for a removal and an insertion. Guile's weak hash
   tables move an entry's link at each displacement of their open
   addressing (GC_move_disappearing_link: 2.3% of guild compile's samples
   before, most of it in the probes' cache misses). */
static void dtab_rekey(struct dtab *t, size_t from, uintptr_t to, size_t to_slot) {
  uint32_t item = t->index[from].item;
  t->index[to_slot] = (struct dtab_slot){ item, dtab_hash(to) };
  *dtab_entry(t, item - 1) = to;
  dtab_clear_slot(t, from);
}

/* After removals: a table that has not been a quarter full since the last
   collection is cut to between a quarter and a half full (an empty one is
   freed), so memory follows the live entries. Not sooner: a program that
   registers and drops as many entries every cycle (ECL's weak tables)
   would otherwise map, fill and unmap the same arrays every cycle. */
static void dtab_fit(struct dtab *t) {
  size_t want = t->count > t->peak ? t->count : t->peak;
  if (want >= t->cap / 4) return;
  unsigned bits = want ? DTAB_MIN_BITS : 0;
  while (bits && dtab_cap_of(bits) < 2 * want) bits++;
  if (bits < t->index_bits) (void)dtab_resize(t, bits);   /* short of memory: stay as is */
}

/* At the end of a collection's work on t: fit, and start a new peak. */
static void dtab_collected(struct dtab *t) {
  dtab_fit(t);
  t->peak = t->count;
}

/* A collection removes entries in bulk: it sets this bit of their keys
   (keys are word-aligned), then removes them all at once. */
#define DTAB_GONE ((uintptr_t)1)

/* Remove the `gone` entries whose key has DTAB_GONE. A few are removed one
   by one (two probes each; from the end, so that the entry moved into a
   hole is one already looked at); more, and the survivors are moved down
   in order and indexed again, which costs less than probing for each. */
static void dtab_remove_gone(struct dtab *t, size_t gone) {
  if (!gone) return;
  if (gone * 4 < t->count - gone) {
    for (size_t i = t->count; i-- > 0;) {
      uintptr_t *key = dtab_entry(t, i);
      if (!(*key & DTAB_GONE)) continue;
      *key &= ~DTAB_GONE;
      dtab_remove_at(t, i);
    }
    return;
  }
  size_t kept = 0;
  for (size_t i = 0; i < t->count; i++) {
    uintptr_t *e = dtab_entry(t, i);
    if (*e & DTAB_GONE) continue;
    if (i != kept) memcpy(dtab_entry(t, kept), e, t->item_size);
    kept++;
  }
  t->count = kept;
  memset(t->index, 0, ((size_t)1 << t->index_bits) * sizeof *t->index);
  dtab_index_all(t);
}

/* Visit every entry once, removing those fn answers true for. */
static inline void dtab_filter(struct dtab *t, bool (*fn)(void *entry)) {
  size_t gone = 0;
  for (size_t i = 0; i < t->count; i++) {
    uintptr_t *key = dtab_entry(t, i);
    if (fn(key)) *key |= DTAB_GONE, gone++;
  }
  dtab_remove_gone(t, gone);
}

/* ---- the tables ------------------------------------------------------------------ */

enum fin_mode { FIN_NORMAL, FIN_IGNORE_SELF, FIN_NO_ORDER, FIN_UNREACHABLE };

struct fin_entry {
  uintptr_t key;                  /* the object's base; first, as dtab wants */
  void *obj;                      /* as registered: what fn is called with */
  GC_finalization_proc fn;
  void *cd;
  size_t external;                /* foreign bytes the object owns (external.c) */
  uint8_t mode;                   /* enum fin_mode */
  bool owns_external;             /* registered by bibop_malloc_external */
};

struct link_entry {
  uintptr_t key;                  /* the link's address */
  void *obj;                      /* as registered */
  uintptr_t obj_base;             /* its object's base: what must be marked */
};

static struct dtab finalizers = { .item_size = sizeof(struct fin_entry) };
static struct dtab short_links = { .item_size = sizeof(struct link_entry) };
static struct dtab long_links = { .item_size = sizeof(struct link_entry) };

/* Ready to run, in order: items[head, count), what the run needs of the
   entries, which left the table. Under the allocation lock. */
struct fin_queued {
  uintptr_t key;                  /* the object's base: a root until it runs */
  void *obj;
  GC_finalization_proc fn;
  void *cd;
  size_t external;
};
static struct {
  struct fin_queued *items;
  size_t head, count, cap;
} queue;
#define QUEUE_MIN_CAP 64

static size_t queued_by_last_collection;   /* finalizers the last collection queued */
static size_t queued_bytes_by_last_collection;   /* and their objects' bytes */
static __thread bool running_finalizers;

static size_t queue_waiting(void) { return queue.count - queue.head; }

/* Room for n more queued entries: the waiting ones move to the front, or
   to a new array, which is also cut when it holds more than four times
   what is needed (memory follows the queue). false if memory is short
   (nothing lost). */
static bool queue_reserve(size_t n) {
  size_t waiting = queue_waiting(), need = waiting + n;
  bool oversized = queue.cap > QUEUE_MIN_CAP && queue.cap > 4 * need;
  if (queue.count + n <= queue.cap && !oversized) return true;
  if (need > queue.cap || oversized) {
    size_t cap = QUEUE_MIN_CAP;
    while (cap < 2 * need) cap *= 2;
    struct fin_queued *items = meta_alloc(cap * sizeof *items);
    if (items) {
      if (waiting) memcpy(items, queue.items + queue.head, waiting * sizeof *items);
      meta_free(queue.items, queue.cap * sizeof *queue.items);
      queue.items = items;
      queue.cap = cap;
      queue.head = 0;
      queue.count = waiting;
      return true;
    }
    if (need > queue.cap) return false;
    if (queue.count + n <= queue.cap) return true;
  }
  if (waiting) memmove(queue.items, queue.items + queue.head, waiting * sizeof *queue.items);
  queue.head = 0;
  queue.count = waiting;
  return true;
}

/* Move finalizer entry s of the table to the queue (room reserved). */
static void enqueue_slot(size_t s) {
  const struct fin_entry *e = (const struct fin_entry *)dtab_entry(&finalizers, finalizers.index[s].item - 1);
  queue.items[queue.count++] = (struct fin_queued){ e->key, e->obj, e->fn, e->cd, e->external };
  dtab_remove_slot(&finalizers, s);
}

/* The key of obj's entries: its object's base, 0 if obj is in no object. */
static uintptr_t object_key(const void *obj) {
  return obj ? (uintptr_t)object_base((void *)obj) : 0;
}

/* ---- the collector's side -------------------------------------------------------- */

/* ---- toggle references ------------------------------------------------------- */

/* Objects whose strength the client decides at every collection: the
   callback answers STRONG (a root this cycle), WEAK (kept only if reachable
   otherwise; forgotten once it dies) or DROP (forgotten now). As in bdwgc,
   an object is added only while a callback is set (otherwise nobody would
   ever let it go), and the callback never sees NULL: NULL is refused. */
struct toggleref {
  void *obj;          /* as added: what the callback receives */
  void *base;         /* its object's start: marked while strong */
  bool strong;
};
static struct meta_vec togglerefs = { .item_size = sizeof(struct toggleref) };
static GC_toggleref_func toggleref_func;

static void process_togglerefs(void) {
  size_t kept = 0;
  for (size_t i = 0; i < togglerefs.count; i++) {
    struct toggleref t = META_VEC_AT(&togglerefs, struct toggleref, i);
    GC_ToggleRefStatus status = toggleref_func ? toggleref_func(t.obj)
                                               : (t.strong ? GC_TOGGLE_REF_STRONG : GC_TOGGLE_REF_WEAK);
    if (status == GC_TOGGLE_REF_DROP) continue;
    t.strong = status == GC_TOGGLE_REF_STRONG;
    META_VEC_AT(&togglerefs, struct toggleref, kept++) = t;
    if (t.strong) mark_range(&META_VEC_AT(&togglerefs, struct toggleref, kept - 1).base,
                             &META_VEC_AT(&togglerefs, struct toggleref, kept - 1).base + 1);
  }
  togglerefs.count = kept;
}

static void forget_dead_togglerefs(void) {
  size_t kept = 0;
  for (size_t i = 0; i < togglerefs.count; i++) {
    struct toggleref t = META_VEC_AT(&togglerefs, struct toggleref, i);
    if (t.strong || mark_is_marked(t.base)) META_VEC_AT(&togglerefs, struct toggleref, kept++) = t;
  }
  togglerefs.count = kept;
}

GC_API void GC_set_toggleref_func(GC_toggleref_func fn) {
  LOCK();
  toggleref_func = fn;
  UNLOCK();
}
GC_API GC_toggleref_func GC_get_toggleref_func(void) { return toggleref_func; }

GC_API int GC_toggleref_add(void *obj, int is_strong) {
  gc_ensure_init();
  void *base = (void *)object_key(obj);
  LOCK();
  int result = GC_SUCCESS;   /* no callback: ignored, as bdwgc */
  if (toggleref_func && !base) result = GC_NOT_FOUND;
  else if (toggleref_func) {
    struct toggleref t = { obj, base, is_strong != 0 };
    if (!meta_vec_push(&togglerefs, &t)) result = GC_NO_MEMORY;
  }
  UNLOCK();
  return result;
}

/* Marking in batches: the stack is drained after this many pushes, not
   after each (a drain costs more than one object's marking), yet stays
   short: its untouched pages cost no memory. Safe wherever it drains:
   mark_word marks an object before its entry can be lost to overflow, and
   mark_push_contents drains first when the stack is full. */
#define PUSHES_PER_DRAIN 256

void finalize_mark_roots(void) {
  process_togglerefs();
  size_t pending = 0;
  void *last_cd = NULL;   /* many entries share one (ECL: one per weak table) */
  for (size_t i = 0; i < finalizers.count; i++) {
    const struct fin_entry *e = (const struct fin_entry *)dtab_entry(&finalizers, i);
    if (e->cd == last_cd) continue;
    last_cd = e->cd;
    mark_word((uintptr_t)e->cd);
    if (++pending == PUSHES_PER_DRAIN) mark_drain(), pending = 0;
  }
  for (size_t i = queue.head; i < queue.count; i++) {
    mark_word(queue.items[i].key);
    if (queue.items[i].cd) mark_word((uintptr_t)queue.items[i].cd);
    if (++pending >= PUSHES_PER_DRAIN) mark_drain(), pending = 0;
  }
  mark_drain();
}

/* A link inside a heap object that is now garbage must not be written. */
static bool link_is_dangling(const struct link_entry *l) {
  return object_mark_state((void *)l->key) == 0;
}

/* obj_base is 0 for an object outside the heap: its link is cleared. */
static bool clear_if_unreachable(void *entry) {
  struct link_entry *l = entry;
  if (object_mark_state((void *)l->obj_base) == 1) return false;
  *(void **)l->key = NULL;
  return true;
}

/* Steps 1 and 2 for a short link: forgotten if it lies in garbage,
   cleared (and forgotten) if its object is unreachable. */
static bool short_link_settled(void *entry) {
  return link_is_dangling(entry) || clear_if_unreachable(entry);
}

static bool long_link_dangling(void *entry) { return link_is_dangling(entry); }

/* The entries (numbers) of the finalizable objects found unmarked after
   marking, for step 4; no entry moves until step 4 has decided them all. */
static struct meta_vec unmarked = { .item_size = sizeof(size_t) };

/* Step 3; collects the unmarked keys, and returns how many of them are of
   FIN_UNREACHABLE mode. What is marked is the union of what each object
   reaches, whatever the order: draining as it goes changes nothing. */
static size_t mark_from_unreachable_finalizable(void) {
  unmarked.count = 0;
  size_t unreachable_mode = 0, pushed = 0;
  for (size_t i = 0; i < finalizers.count; i++) {
    const struct fin_entry *e = (const struct fin_entry *)dtab_entry(&finalizers, i);
    void *obj = (void *)e->key;
    if (object_mark_state(obj) == 1) continue;
    if (unmarked.count < unmarked.cap) {
      META_VEC_AT(&unmarked, size_t, unmarked.count++) = i;
    } else if (!meta_vec_push(&unmarked, &i)) {
      mark_word(e->key);   /* no memory to consider it: it lives a cycle more */
      continue;
    }
    if (e->mode == FIN_NORMAL) {
      mark_push_contents(obj);
      if (++pushed == PUSHES_PER_DRAIN) mark_drain(), pushed = 0;
    } else if (e->mode == FIN_IGNORE_SELF) {
      mark_from_contents_except_self(obj);
    } else if (e->mode == FIN_UNREACHABLE) {
      unreachable_mode++;
    }
  }
  mark_drain();
  mark_recover_overflow();
  return unreachable_mode;
}

/* Step 4 for the entries of one kind of mode: those still unmarked are
   queued (their entries marked DTAB_GONE; returns how many), all of them
   decided before any is marked. An entry the queue has no room for stays
   registered and lives a cycle more. */
static size_t queue_unmarked(bool unreachable_mode) {
  size_t first = queue.count, gone = 0;
  for (size_t k = 0; k < unmarked.count; k++) {
    struct fin_entry *e = (struct fin_entry *)dtab_entry(&finalizers, META_VEC_AT(&unmarked, size_t, k));
    if (e->key & DTAB_GONE) continue;   /* queued by the other pass */
    if ((e->mode == FIN_UNREACHABLE) != unreachable_mode || object_mark_state((void *)e->key) == 1)
      continue;
    if (queue.count < queue.cap) {
      queued_bytes_by_last_collection += object_size((void *)e->key) + sizeof *e;
      queue.items[queue.count++] = (struct fin_queued){ e->key, e->obj, e->fn, e->cd, e->external };
      e->key |= DTAB_GONE;
      gone++;
    } else {
      mark_word(e->key);   /* marked, not yet scanned: later decisions are unchanged */
    }
  }
  size_t pushed = 0;
  for (size_t i = first; i < queue.count; i++) {
    mark_word(queue.items[i].key);
    if (++pushed == PUSHES_PER_DRAIN) mark_drain(), pushed = 0;
  }
  mark_drain();
  mark_recover_overflow();
  return gone;
}

void finalize_after_mark(void) {
  forget_dead_togglerefs();
  queued_by_last_collection = 0;
  queued_bytes_by_last_collection = 0;
  if (!finalizers.count && !short_links.count && !long_links.count) {
    dtab_collected(&finalizers);   /* memory of emptied tables goes back */
    dtab_collected(&short_links);
    dtab_collected(&long_links);
    return;
  }
  dtab_filter(&short_links, short_link_settled);
  dtab_filter(&long_links, long_link_dangling);

  size_t queued_before = queue_waiting();
  if (finalizers.count) {
    size_t unreachable_mode = mark_from_unreachable_finalizable();
    for (size_t n = unmarked.count; n && !queue_reserve(n); n /= 2) continue;
    size_t gone = queue_unmarked(false);
    if (unreachable_mode) gone += queue_unmarked(true);
    dtab_remove_gone(&finalizers, gone);
    /* The keys' array follows what a collection needs too. */
    if (unmarked.cap > 4 * (unmarked.count + dtab_cap_of(DTAB_MIN_BITS))) {
      meta_free(unmarked.items, unmarked.cap * unmarked.item_size);
      unmarked.items = NULL;
      unmarked.cap = 0;
    }
    unmarked.count = 0;
  }
  dtab_collected(&finalizers);

  dtab_filter(&long_links, clear_if_unreachable);
  dtab_collected(&short_links);
  dtab_collected(&long_links);
  queued_by_last_collection = queue_waiting() - queued_before;
  if (queued_by_last_collection) __atomic_store_n(&finalize_pending, true, __ATOMIC_RELEASE);
}

size_t finalize_registered(void) { return finalizers.count; }

size_t finalize_queued_by_last_collection(void) { return queued_by_last_collection; }

size_t finalize_queued_bytes_by_last_collection(void) { return queued_bytes_by_last_collection; }

/* Remove an entry that will never run; its external bytes are no longer
   anybody's to release, so the accounting forgets them. */
static void discard_slot(size_t s) {
  const struct fin_entry *e = (const struct fin_entry *)dtab_entry(&finalizers, finalizers.index[s].item - 1);
  if (e->external) external_retract(e->external);
  dtab_remove_slot(&finalizers, s);
  dtab_fit(&finalizers);
}

/* The index slot of key's finalizer, or SIZE_MAX. */
static size_t finalizer_slot(uintptr_t key) {
  if (!finalizers.count) return SIZE_MAX;
  size_t s = dtab_slot(&finalizers, key);
  return finalizers.index[s].item ? s : SIZE_MAX;
}

void finalize_forget_object(void *obj) {
  if (!finalizers.count) return;
  size_t s = finalizer_slot(object_key(obj));
  if (s != SIZE_MAX) discard_slot(s);
}

/* ---- registration ---------------------------------------------------------------- */

static void register_finalizer(void *obj, GC_finalization_proc fn, void *cd,
                               GC_finalization_proc *ofn, void **ocd, enum fin_mode mode) {
  gc_ensure_init();
  GC_finalization_proc old_fn = NULL;
  void *old_cd = NULL;
  LOCK();
  uintptr_t key = object_key(obj);
  if (key) {
    size_t s = finalizer_slot(key);
    if (s != SIZE_MAX) {
      struct fin_entry *e = (struct fin_entry *)dtab_entry(&finalizers, finalizers.index[s].item - 1);
      old_fn = e->fn;
      old_cd = e->cd;
      if (fn) {
        e->obj = obj;
        e->fn = fn;
        e->cd = cd;
        e->mode = mode;
      } else {
        discard_slot(s);
      }
    } else if (fn) {
      struct fin_entry *e = dtab_insert_or_collect(&finalizers, key);
      if (e) {
        e->obj = obj;
        e->fn = fn;
        e->cd = cd;
        e->mode = mode;
      } else {
        gc_warn("GC Warning: no memory to register a finalizer for %p\n", (GC_word)(uintptr_t)obj);
      }
    }
  }
  UNLOCK();
  if (ofn) *ofn = old_fn;
  if (ocd) *ocd = old_cd;
}

GC_API void GC_register_finalizer(void *obj, GC_finalization_proc fn, void *cd,
                                  GC_finalization_proc *ofn, void **ocd) {
  register_finalizer(obj, fn, cd, ofn, ocd, FIN_NORMAL);
}
GC_API void GC_register_finalizer_ignore_self(void *obj, GC_finalization_proc fn, void *cd,
                                              GC_finalization_proc *ofn, void **ocd) {
  register_finalizer(obj, fn, cd, ofn, ocd, FIN_IGNORE_SELF);
}
GC_API void GC_register_finalizer_no_order(void *obj, GC_finalization_proc fn, void *cd,
                                           GC_finalization_proc *ofn, void **ocd) {
  register_finalizer(obj, fn, cd, ofn, ocd, FIN_NO_ORDER);
}
GC_API void GC_register_finalizer_unreachable(void *obj, GC_finalization_proc fn, void *cd,
                                              GC_finalization_proc *ofn, void **ocd) {
  register_finalizer(obj, fn, cd, ofn, ocd, FIN_UNREACHABLE);
}

/* A link is a word-aligned address other than NULL. */
static bool link_address_ok(void **link) {
  if (link && !((uintptr_t)link & (sizeof(void *) - 1))) return true;
  gc_warn("GC Warning: bad disappearing link address %p\n", (GC_word)(uintptr_t)link);
  return false;
}

static int register_link(struct dtab *t, void **link, const void *obj) {
  if (!link_address_ok(link) || !obj) return GC_NOT_FOUND;
  gc_ensure_init();
  LOCK();
  uintptr_t obj_base = object_key(obj);
  int result = GC_DUPLICATE;   /* the existing link now follows obj, as bdwgc */
  struct link_entry *l = dtab_find(t, (uintptr_t)link);
  if (!l) {
    l = dtab_insert_or_collect(t, (uintptr_t)link);
    result = l ? GC_SUCCESS : GC_NO_MEMORY;
  }
  if (l) {
    l->obj = (void *)obj;
    l->obj_base = obj_base;
  }
  UNLOCK();
  return result;
}

static int unregister_link(struct dtab *t, void **link) {
  LOCK();
  bool found = false;
  if (t->count) {
    size_t s = dtab_slot(t, (uintptr_t)link);
    found = t->index[s].item != 0;
    if (found) {
      dtab_remove_slot(t, s);
      dtab_fit(t);
    }
  }
  UNLOCK();
  return found;
}

static int move_link(struct dtab *t, void **link, void **new_link) {
  if (!link_address_ok(new_link)) return GC_NOT_FOUND;
  LOCK();
  int result = GC_NOT_FOUND;
  if (t->count) {
    /* The two probes' cache misses overlap (each is one slot in most). */
    __builtin_prefetch(&t->index[dtab_home(t, dtab_hash((uintptr_t)new_link))]);
    size_t from = dtab_slot(t, (uintptr_t)link);
    if (!t->index[from].item) {
      result = GC_NOT_FOUND;
    } else if (link == new_link) {
      result = GC_SUCCESS;
    } else {
      size_t to = dtab_slot(t, (uintptr_t)new_link);
      result = t->index[to].item ? GC_DUPLICATE : GC_SUCCESS;
      if (result == GC_SUCCESS) dtab_rekey(t, from, (uintptr_t)new_link, to);
    }
  }
  UNLOCK();
  return result;
}

GC_API int GC_general_register_disappearing_link(void **link, const void *obj) {
  return register_link(&short_links, link, obj);
}
GC_API int GC_register_disappearing_link(void **link) {
  void *base = link ? object_base(link) : NULL;
  if (!base) return GC_NOT_FOUND;
  return register_link(&short_links, link, base);
}
GC_API int GC_unregister_disappearing_link(void **link) { return unregister_link(&short_links, link); }
GC_API int GC_move_disappearing_link(void **link, void **new_link) {
  return move_link(&short_links, link, new_link);
}
GC_API int GC_register_long_link(void **link, const void *obj) {
  return register_link(&long_links, link, obj);
}
GC_API int GC_unregister_long_link(void **link) { return unregister_link(&long_links, link); }
GC_API int GC_move_long_link(void **link, void **new_link) {
  return move_link(&long_links, link, new_link);
}

/* ---- running finalizers ------------------------------------------------------------ */

GC_API int GC_should_invoke_finalizers(void) { return queue_waiting() != 0; }

GC_API int GC_invoke_finalizers(void) {
  if (running_finalizers) return 0;
  running_finalizers = true;
  int count = 0;
  for (;;) {
    /* obj and cd move from the queue (a root) to this frame under the
       lock, so no collection can find them in neither place. */
    void *volatile obj = NULL;
    void *volatile cd = NULL;
    GC_finalization_proc fn = NULL;
    size_t external = 0;
    LOCK();
    if (queue_waiting()) {
      const struct fin_queued *e = &queue.items[queue.head++];
      obj = e->obj;
      cd = e->cd;
      fn = e->fn;
      external = e->external;
      if (queue.head == queue.count) queue.head = queue.count = 0;
    } else {
      __atomic_store_n(&finalize_pending, false, __ATOMIC_RELAXED);
    }
    UNLOCK();
    if (!fn) break;
    fn(obj, cd);
    /* The foreign memory is released now: so is its accounting. */
    if (external) external_retract(external);
    count++;
  }
  running_finalizers = false;
  return count;
}

void finalize_run_pending(void) {
  if (!__atomic_load_n(&finalize_pending, __ATOMIC_ACQUIRE) || running_finalizers) return;
  if (!GC_finalize_on_demand) {
    GC_invoke_finalizers();
  } else if (GC_finalizer_notifier) {
    __atomic_store_n(&finalize_pending, false, __ATOMIC_RELAXED);
    GC_finalizer_notifier();
  }
}

/* Queue every registered finalizer and run the queue. Short of memory for
   the queue, a part at a time (the ones registered when it began). */
GC_API void GC_finalize_all(void) {
  gc_ensure_init();
  LOCK();
  size_t todo = finalizers.count;
  while (todo && finalizers.count) {
    size_t n = todo < finalizers.count ? todo : finalizers.count;
    while (n && !queue_reserve(n)) n /= 2;
    if (!n) break;
    for (size_t k = 0; k < n; k++) enqueue_slot(dtab_slot(&finalizers, *dtab_entry(&finalizers, finalizers.count - 1)));
    todo -= n;
    if (todo) {
      UNLOCK();
      GC_invoke_finalizers();
      LOCK();
    }
  }
  dtab_fit(&finalizers);
  UNLOCK();
  GC_invoke_finalizers();
}

GC_API void GC_set_finalize_on_demand(int value) { GC_finalize_on_demand = value; }
GC_API int GC_get_finalize_on_demand(void) { return GC_finalize_on_demand; }
GC_API void GC_set_java_finalization(int value) { GC_java_finalization = value; }
GC_API int GC_get_java_finalization(void) { return GC_java_finalization; }
GC_API void GC_set_finalizer_notifier(GC_finalizer_notifier_proc fn) { GC_finalizer_notifier = fn; }
GC_API GC_finalizer_notifier_proc GC_get_finalizer_notifier(void) { return GC_finalizer_notifier; }

/* ---- external memory owned by finalizable objects (external.c) ------------- */

/* Register fn as obj's no-order finalizer owning `bytes` foreign bytes.
   Returns false if obj is in no heap object or memory is short. */
bool finalize_register_external(void *obj, GC_finalization_proc fn, void *cd, size_t bytes) {
  register_finalizer(obj, fn, cd, NULL, NULL, FIN_NO_ORDER);
  LOCK();
  struct fin_entry *e = dtab_find(&finalizers, object_key(obj));
  if (e) {
    e->external = bytes;
    e->owns_external = true;
  }
  UNLOCK();
  return e != NULL;
}

/* Change the foreign bytes recorded for obj; returns the previous count, or
   (size_t)-1 if obj has no external-memory finalizer. */
size_t finalize_set_external(void *obj, size_t bytes) {
  LOCK();
  /* Keys are bases: bibop_resize_external takes only the object's start. */
  struct fin_entry *e = dtab_find(&finalizers, (uintptr_t)obj);
  size_t old = (size_t)-1;
  if (e && e->owns_external) {
    old = e->external;
    e->external = bytes;
  }
  UNLOCK();
  return old;
}

/* GC_PRINT_STATS, after each collection: what the tables hold and the
   entries their arrays have room for (a table grows by doubling, and
   collects first from 4,096 entries: the capacity tells when the next
   collection that a registration forces will come). */
void finalize_print_stats(FILE *out) {
  fprintf(out,
          "bibop: finalization: %zu finalizers (room for %zu), %zu queued; "
          "short links %zu (room for %zu), long links %zu (room for %zu)\n",
          finalizers.count, finalizers.cap, queue_waiting(), short_links.count, short_links.cap,
          long_links.count, long_links.cap);
}

void finalize_dump(FILE *out) {
  fprintf(out, "finalizers registered: %zu, queued: %zu; short links: %zu, long links: %zu\n",
          finalizers.count, queue_waiting(), short_links.count, long_links.count);
}
