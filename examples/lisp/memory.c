/*
 * memory.c: the Lisp's whole contact with bibop (see docs/EMBEDDING.md).
 *
 *  - Conses, symbols, closures and primitives are objects of a kind of our
 *    own (GC_new_kind) scanned by a mark procedure (GC_new_proc) that reads
 *    the header and traces only words that are object addresses: fixnums
 *    and nil are never taken for pointers, so there is no false retention
 *    from the heap either.
 *  - Environment frames use typed allocation (gc_typed.h): a bitmap
 *    descriptor says which words are pointers (not the header).
 *  - Strings keep their bytes in malloc, reported as external memory
 *    (bibop_alloc_external) so that they count in the collector's pacing,
 *    and freed and retracted by a finalizer.
 *  - Local roots are boxroots on a stack (roots_mark / roots_release).
 *  - LISP_GC_STRESS=n collects before every n-th allocation, to catch a
 *    value held outside a root (a bug that normally shows only rarely).
 * Invariant: an object is initialised before the next allocation, and the
 * mark procedure accepts a zeroed object (header 0: nothing to trace).
 */
#include "lisp.h"

#include <stdlib.h>
#include <string.h>

#include <bibop.h>
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_typed.h>

#define INITIAL_HEAP_BYTES ((size_t)4 << 20)

static int lisp_kind;            /* conses, symbols, closures, primitives */
static GC_descr frame_descr;     /* typed frames */
static unsigned long stress_every, stress_count;
static size_t external_peak;

/* ---- the mark procedure --------------------------------------------------- */

/* Called by the marker for each object of lisp_kind, with bdwgc's mark
   stack protocol: push what the object references, return the new top. */
static struct GC_ms_entry *mark_lisp_object(GC_word *addr, struct GC_ms_entry *top,
                                            struct GC_ms_entry *limit, GC_word env) {
  (void)env;
  unsigned traced = header_traced(addr[0]);
  for (unsigned i = 1; i <= traced; i++) {
    val v = addr[i];
    if (is_object(v)) top = GC_MARK_AND_PUSH((void *)v, top, limit, (void **)&addr[i]);
  }
  return top;
}

void memory_init(void) {
  const char *stress = getenv("LISP_GC_STRESS");
  if (stress) stress_every = strtoul(stress, NULL, 10);
  /* bdwgc's initial heap (64 KiB) means a collection every few hundred KiB
     of allocation until the heap has grown; an interpreter starts bigger. */
  if (GC_get_heap_size() < INITIAL_HEAP_BYTES) GC_expand_hp(INITIAL_HEAP_BYTES - GC_get_heap_size());
  unsigned proc = GC_new_proc(mark_lisp_object);
  lisp_kind = (int)GC_new_kind(GC_new_free_list(), GC_MAKE_PROC(proc, 0), 0, 1);
  GC_word bitmap[GC_BITMAP_SIZE(struct frame)] = {0};
  GC_set_bit(bitmap, GC_WORD_OFFSET(struct frame, parent));
  GC_set_bit(bitmap, GC_WORD_OFFSET(struct frame, names));
  GC_set_bit(bitmap, GC_WORD_OFFSET(struct frame, values));
  frame_descr = GC_make_descriptor(bitmap, GC_WORD_LEN(struct frame));
}

static void out_of_memory(void) {
  fprintf(stderr, "lisp: out of memory\n");
  exit(2);
}

static void before_allocation(void) {
  if (stress_every && ++stress_count % stress_every == 0) GC_gcollect();
}

static void *allocate(size_t bytes) {
  before_allocation();
  void *p = GC_generic_malloc(bytes, lisp_kind);
  if (!p) out_of_memory();
  return p;
}

/* ---- local roots ------------------------------------------------------------ */

/* The stack of local roots lives in malloc: bibop never scans it, the
   boxroots it lists are what keep values alive. */
static root *local_roots;
static size_t local_count, local_capacity;

size_t roots_mark(void) { return local_count; }

root root_new(val v) {
  if (local_count == local_capacity) {
    local_capacity = local_capacity ? 2 * local_capacity : 1024;
    local_roots = realloc(local_roots, local_capacity * sizeof *local_roots);
    if (!local_roots) out_of_memory();
  }
  root r = boxroot_create((void *)v);
  if (!r) out_of_memory();
  local_roots[local_count++] = r;
  return r;
}

void roots_release(size_t mark) {
  while (local_count > mark) boxroot_delete(local_roots[--local_count]);
}

/* ---- constructors ------------------------------------------------------------ */

void make_cons(root a, root d, root out) {
  struct cons *c = allocate(sizeof *c);
  c->header = HEADER(T_CONS, 2);
  c->car = get(a);                /* read after allocating: a collection */
  c->cdr = get(d);                /* inside allocate() saw them in roots */
  set(out, (val)c);
}

void list_append(root head, root last, root item) {
  size_t mark = roots_mark();
  root nil = root_new(NIL);
  make_cons(item, nil, item);               /* item now holds the new cell */
  if (get(last) == NIL) set(head, get(item));
  else AS(cons, get(last))->cdr = get(item);
  set(last, get(item));
  roots_release(mark);
}

void make_closure(root params, root body, root env, root out) {
  struct closure *c = allocate(sizeof *c);
  c->header = HEADER(T_CLOSURE, 3);
  c->params = get(params);
  c->body = get(body);
  c->env = get(env);
  set(out, (val)c);
}

void make_frame(root parent, root names, root values, root out) {
  before_allocation();
  struct frame *f = GC_malloc_explicitly_typed(sizeof *f, frame_descr);
  if (!f) out_of_memory();
  f->header = HEADER(T_FRAME, 3);
  f->parent = get(parent);
  f->names = get(names);
  f->values = get(values);
  set(out, (val)f);
}

val make_symbol_object(root name) {
  struct symbol *s = allocate(sizeof *s);
  s->header = HEADER(T_SYMBOL, 2);
  s->name = get(name);
  s->global = UNBOUND;
  return (val)s;
}

val make_primitive(const char *name, primitive_fn fn) {
  size_t mark = roots_mark();
  root n = root_new(NIL);
  make_string(name, strlen(name), n);
  struct primitive *p = allocate(sizeof *p);
  p->header = HEADER(T_PRIMITIVE, 1);   /* name traced; fn is a C address */
  p->name = get(n);
  p->fn = fn;
  roots_release(mark);
  return (val)p;
}

/* Strings: the bytes are in malloc, counted as external memory so that
   collections keep pace with them. The object is rooted (in out) before the
   bytes are reported, because a report may collect right away and this
   thread's stack is not scanned. (bibop_malloc_external does allocation,
   finalizer and report in one call, but reports before the caller can root
   the object: see docs/EMBEDDING.md.) */
static void release_string(void *obj, void *unused) {
  (void)unused;
  struct string *s = obj;
  free(s->bytes);
  bibop_free_external(s->length + 1);
}

static char *new_string(size_t length, root out) {
  char *bytes = malloc(length + 1);
  if (!bytes) out_of_memory();
  bytes[length] = 0;
  before_allocation();
  struct string *s = GC_malloc_atomic(sizeof *s);   /* no GC pointers inside */
  if (!s) out_of_memory();
  s->header = HEADER(T_STRING, 0);
  s->bytes = bytes;
  s->length = length;
  set(out, (val)s);
  GC_register_finalizer_no_order(s, release_string, NULL, NULL, NULL);
  bibop_alloc_external(length + 1);
  struct bibop_external_stats st;
  bibop_get_external_stats(&st);
  if (st.live_bytes > external_peak) external_peak = st.live_bytes;
  return bytes;
}

void make_string(const char *src, size_t length, root out) {
  memcpy(new_string(length, out), src, length);
}

void make_string_filled(size_t length, char fill, root out) {
  memset(new_string(length, out), fill, length);
}

size_t memory_external_peak(void) { return external_peak; }
