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

enum fin_mode { FIN_NORMAL, FIN_IGNORE_SELF, FIN_NO_ORDER, FIN_UNREACHABLE };

struct hnode { struct hnode *next; uintptr_t key; };

struct fin_entry {
  struct hnode h;                 /* key: the object's base */
  void *obj;                      /* as registered: what fn is called with */
  GC_finalization_proc fn;
  void *cd;
  size_t external;                /* foreign bytes the object owns (external.c) */
  struct fin_entry *queue_next;
  uint8_t mode;                   /* enum fin_mode; a byte so that an entry takes
                                     meta.c's 64-byte class, not the 128-byte one
                                     (ECL registers one per weak-table key) */
  bool owns_external;             /* registered by bibop_malloc_external */
};
_Static_assert(sizeof(struct fin_entry) <= 64, "a finalizer entry fits meta.c's 64-byte class");

struct link_entry {
  struct hnode h;                 /* key: the link's address */
  void *obj;                      /* as registered */
  uintptr_t obj_base;             /* its object's base: what must be marked */
};

struct table { struct hnode **buckets; size_t nbuckets, count; };

static struct table finalizers, short_links, long_links;
static struct fin_entry *queue_head, *queue_tail;   /* ready to run */
static size_t queue_length;
static size_t queued_by_last_collection;   /* finalizers the last collection queued */
static size_t queued_bytes_by_last_collection;   /* and their objects' bytes */
static __thread bool running_finalizers;

static size_t bucket_of(const struct table *t, uintptr_t key) {
  return (size_t)((key >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (t->nbuckets - 1);
}

static bool table_grow(struct table *t) {
  size_t n = t->nbuckets ? t->nbuckets * 2 : 256;
  struct hnode **b = meta_alloc(n * sizeof *b);
  if (!b) return false;
  struct table fresh = { b, n, t->count };
  for (size_t i = 0; i < t->nbuckets; i++) {
    struct hnode *e = t->buckets[i];
    while (e) {
      struct hnode *next = e->next;
      size_t k = bucket_of(&fresh, e->key);
      e->next = b[k];
      b[k] = e;
      e = next;
    }
  }
  if (t->buckets) meta_free(t->buckets, t->nbuckets * sizeof *t->buckets);
  *t = fresh;
  return true;
}

static struct hnode **table_find(struct table *t, uintptr_t key) {
  if (!t->nbuckets) return NULL;
  for (struct hnode **p = &t->buckets[bucket_of(t, key)]; *p; p = &(*p)->next)
    if ((*p)->key == key) return p;
  return NULL;
}

static bool table_insert(struct table *t, struct hnode *e) {
  if (t->count >= t->nbuckets && !table_grow(t) && !t->nbuckets) return false;
  size_t k = bucket_of(t, e->key);
  e->next = t->buckets[k];
  t->buckets[k] = e;
  t->count++;
  return true;
}

static struct hnode *table_unlink(struct table *t, struct hnode **p) {
  struct hnode *e = *p;
  *p = e->next;
  t->count--;
  return e;
}

/* Visit every node; fn returns true to remove (and free) it. */
static void table_filter(struct table *t, bool (*fn)(struct hnode *), size_t size) {
  for (size_t i = 0; i < t->nbuckets; i++) {
    struct hnode **p = &t->buckets[i];
    while (*p) {
      if (fn(*p)) meta_free(table_unlink(t, p), size);
      else p = &(*p)->next;
    }
  }
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

void finalize_mark_roots(void) {
  process_togglerefs();
  for (size_t i = 0; i < finalizers.nbuckets; i++)
    for (struct hnode *h = finalizers.buckets[i]; h; h = h->next) {
      struct fin_entry *e = (struct fin_entry *)h;
      mark_range(&e->cd, &e->cd + 1);
    }
  for (struct fin_entry *e = queue_head; e; e = e->queue_next) {
    mark_range(&e->h.key, &e->h.key + 1);
    mark_range(&e->cd, &e->cd + 1);
  }
}

/* A link inside a heap object that is now garbage must not be written. */
static bool link_is_dangling(struct hnode *h) {
  void *container = object_base((void *)h->key);
  return container && !mark_is_marked(container);
}

static bool clear_if_unreachable(struct hnode *h) {
  struct link_entry *l = (struct link_entry *)h;
  if (mark_is_marked((void *)l->obj_base)) return false;
  *(void **)h->key = NULL;
  return true;
}

static void enqueue(struct fin_entry *e) {
  e->queue_next = NULL;
  if (queue_tail) queue_tail->queue_next = e;
  else queue_head = e;
  queue_tail = e;
  queue_length++;
  queued_bytes_by_last_collection += object_size((void *)e->h.key) + sizeof *e;
}

/* Queue the unmarked finalizable objects of the given modes; mark them and
   everything they reach. */
static void queue_unmarked(bool unreachable_mode) {
  for (size_t i = 0; i < finalizers.nbuckets; i++) {
    struct hnode **p = &finalizers.buckets[i];
    while (*p) {
      struct fin_entry *e = (struct fin_entry *)*p;
      if ((e->mode == FIN_UNREACHABLE) != unreachable_mode || mark_is_marked((void *)e->h.key)) {
        p = &(*p)->next;
        continue;
      }
      table_unlink(&finalizers, p);
      enqueue(e);
    }
  }
  for (struct fin_entry *e = queue_head; e; e = e->queue_next) {
    if (!mark_is_marked((void *)e->h.key)) {
      mark_word(e->h.key);
      mark_drain();
    }
  }
}

void finalize_after_mark(void) {
  forget_dead_togglerefs();
  queued_by_last_collection = 0;
  queued_bytes_by_last_collection = 0;
  if (!finalizers.count && !short_links.count && !long_links.count) return;
  table_filter(&short_links, link_is_dangling, sizeof(struct link_entry));
  table_filter(&long_links, link_is_dangling, sizeof(struct link_entry));
  table_filter(&short_links, clear_if_unreachable, sizeof(struct link_entry));

  size_t queued_before = queue_length;
  for (size_t i = 0; i < finalizers.nbuckets; i++)
    for (struct hnode *h = finalizers.buckets[i]; h; h = h->next) {
      struct fin_entry *e = (struct fin_entry *)h;
      void *obj = (void *)h->key;
      if (mark_is_marked(obj)) continue;
      if (e->mode == FIN_NORMAL) {
        mark_from_contents(obj);
      } else if (e->mode == FIN_IGNORE_SELF) {
        mark_from_contents_except_self(obj);
      }
    }
  queue_unmarked(false);
  queue_unmarked(true);
  mark_recover_overflow();

  table_filter(&long_links, clear_if_unreachable, sizeof(struct link_entry));
  queued_by_last_collection = queue_length - queued_before;
  if (queue_length > queued_before) __atomic_store_n(&finalize_pending, true, __ATOMIC_RELEASE);
}

size_t finalize_registered(void) { return finalizers.count; }

size_t finalize_queued_by_last_collection(void) { return queued_by_last_collection; }

size_t finalize_queued_bytes_by_last_collection(void) { return queued_bytes_by_last_collection; }

/* Free an entry that will never run; its external bytes are no longer
   anybody's to release, so the accounting forgets them. */
static void discard_entry(struct fin_entry *e) {
  if (e->external) external_retract(e->external);
  meta_free(e, sizeof *e);
}

void finalize_forget_object(void *obj) {
  if (!finalizers.count) return;
  struct hnode **p = table_find(&finalizers, object_key(obj));
  if (p) discard_entry((struct fin_entry *)table_unlink(&finalizers, p));
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
    struct hnode **p = table_find(&finalizers, key);
    if (p) {
      struct fin_entry *e = (struct fin_entry *)*p;
      old_fn = e->fn;
      old_cd = e->cd;
      if (fn) {
        e->obj = obj;
        e->fn = fn;
        e->cd = cd;
        e->mode = mode;
      } else {
        discard_entry((struct fin_entry *)table_unlink(&finalizers, p));
      }
    } else if (fn) {
      struct fin_entry *e = meta_alloc(sizeof *e);
      if (e) {
        e->h.key = key;
        e->obj = obj;
        e->fn = fn;
        e->cd = cd;
        e->mode = mode;
        if (!table_insert(&finalizers, &e->h)) meta_free(e, sizeof *e), e = NULL;
      }
      if (!e) gc_warn("GC Warning: no memory to register a finalizer for %p\n", (GC_word)(uintptr_t)obj);
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

static int register_link(struct table *t, void **link, const void *obj) {
  if (!link_address_ok(link) || !obj) return GC_NOT_FOUND;
  gc_ensure_init();
  LOCK();
  uintptr_t obj_base = object_key(obj);
  int result = GC_DUPLICATE;
  struct hnode **existing = table_find(t, (uintptr_t)link);
  if (existing) {
    struct link_entry *l = (struct link_entry *)*existing;   /* now follows obj, as bdwgc */
    l->obj = (void *)obj;
    l->obj_base = obj_base;
  } else {
    struct link_entry *l = meta_alloc(sizeof *l);
    result = GC_NO_MEMORY;
    if (l) {
      l->h.key = (uintptr_t)link;
      l->obj = (void *)obj;
      l->obj_base = obj_base;
      if (table_insert(t, &l->h)) result = GC_SUCCESS;
      else meta_free(l, sizeof *l);
    }
  }
  UNLOCK();
  return result;
}

static int unregister_link(struct table *t, void **link) {
  LOCK();
  struct hnode **p = table_find(t, (uintptr_t)link);
  if (p) meta_free(table_unlink(t, p), sizeof(struct link_entry));
  UNLOCK();
  return p != NULL;
}

static int move_link(struct table *t, void **link, void **new_link) {
  if (!link_address_ok(new_link)) return GC_NOT_FOUND;
  LOCK();
  int result = GC_NOT_FOUND;
  struct hnode **p = table_find(t, (uintptr_t)link);
  if (p) {
    if (link == new_link) {
      result = GC_SUCCESS;
    } else if (table_find(t, (uintptr_t)new_link)) {
      result = GC_DUPLICATE;
    } else {
      struct hnode *e = table_unlink(t, p);
      e->key = (uintptr_t)new_link;
      table_insert(t, e);   /* the table has room: it just lost this node */
      result = GC_SUCCESS;
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

GC_API int GC_should_invoke_finalizers(void) { return queue_head != NULL; }

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
    struct fin_entry *e = queue_head;
    if (e) {
      queue_head = e->queue_next;
      if (!queue_head) queue_tail = NULL;
      queue_length--;
      obj = e->obj;
      cd = e->cd;
      fn = e->fn;
      external = e->external;
      meta_free(e, sizeof *e);
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

GC_API void GC_finalize_all(void) {
  gc_ensure_init();
  LOCK();
  for (size_t i = 0; i < finalizers.nbuckets; i++) {
    struct hnode **p = &finalizers.buckets[i];
    while (*p) enqueue((struct fin_entry *)table_unlink(&finalizers, p));
  }
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
  struct hnode **p = table_find(&finalizers, object_key(obj));
  if (p) {
    ((struct fin_entry *)*p)->external = bytes;
    ((struct fin_entry *)*p)->owns_external = true;
  }
  UNLOCK();
  return p != NULL;
}

/* Change the foreign bytes recorded for obj; returns the previous count, or
   (size_t)-1 if obj has no external-memory finalizer. */
size_t finalize_set_external(void *obj, size_t bytes) {
  LOCK();
  /* Keys are bases: bibop_resize_external takes only the object's start. */
  struct hnode **p = table_find(&finalizers, (uintptr_t)obj);
  size_t old = (size_t)-1;
  if (p && ((struct fin_entry *)*p)->owns_external) {
    old = ((struct fin_entry *)*p)->external;
    ((struct fin_entry *)*p)->external = bytes;
  }
  UNLOCK();
  return old;
}

void finalize_dump(FILE *out) {
  fprintf(out, "finalizers registered: %zu, queued: %zu; short links: %zu, long links: %zu\n",
          finalizers.count, queue_length, short_links.count, long_links.count);
}
