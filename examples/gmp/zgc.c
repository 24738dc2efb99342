/*
 * zgc.c: the binding of zgc.h. See there for the four modes.
 */
#include "zgc.h"
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef ZGC_STOCK
# include <gc.h>          /* stock libgc1: /usr/include/gc.h */
#else
# include <gc.h>          /* bibop's gc.h */
# include <bibop.h>
#endif

static enum zmode mode = Z_NONE;
static int ready;
static Z zero, one;     /* static data: roots */

static const char *const names[] = { "none", "account", "hooks", "heap", "heap-unguarded" };

int z_mode_parse(const char *name) {
  for (int i = 0; i < 5; i++)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

const char *z_mode_name(void) { return names[mode]; }

/* ---- limbs in the GC heap (Z_HEAP) ------------------------------------- */

/* Blocks GMP allocated during the current operation and has not freed: a
   root (static data). GMP may hold a block only through a pointer stored
   in another, atomic, block; pinning keeps it alive. Cleared after every
   operation, when the result's limbs hang from the handle. */
#define PIN_MAX 256
static void *pinned[PIN_MAX];
static int npinned;

static void pin(void *p) {
  if (mode != Z_HEAP) return;
  if (npinned == PIN_MAX) { fputs("zgc: too many GMP blocks pinned\n", stderr); abort(); }
  pinned[npinned++] = p;
}
static void unpin(void *p) {
  if (mode != Z_HEAP) return;
  for (int i = npinned - 1; i >= 0; i--)
    if (pinned[i] == p) {
      pinned[i] = pinned[--npinned];
      pinned[npinned] = NULL;
      return;
    }
}
static void unpin_all(void) {
  while (npinned) pinned[--npinned] = NULL;
}

static void *heap_alloc(size_t n) {
  void *p = GC_malloc_atomic(n);
  if (!p) { fputs("zgc: out of memory\n", stderr); abort(); }
  pin(p);
  return p;
}
static void *heap_realloc(void *p, size_t old, size_t n) {
  (void)old;
  void *q = GC_realloc(p, n);
  if (!q) { fputs("zgc: out of memory\n", stderr); abort(); }
  unpin(p);
  pin(q);
  return q;
}
static void heap_free(void *p, size_t n) { (void)n; unpin(p); }

/* ---- counting functions that report to bibop (Z_HOOKS) ------------------ */

static size_t hooks_outstanding;

size_t z_hooks_outstanding(void) { return hooks_outstanding; }

#ifndef ZGC_STOCK
static void *hooks_alloc(size_t n) {
  void *p = malloc(n);
  if (!p) { fputs("zgc: out of memory\n", stderr); abort(); }
  hooks_outstanding += n;
  bibop_alloc_external(n);     /* may collect, and run finalizers, right here */
  return p;
}
static void *hooks_realloc(void *p, size_t old, size_t n) {
  void *q = realloc(p, n);
  if (!q) { fputs("zgc: out of memory\n", stderr); abort(); }
  if (n >= old) {
    hooks_outstanding += n - old;
    bibop_alloc_external(n - old);
  } else {
    hooks_outstanding -= old - n;
    bibop_free_external(old - n);
  }
  return q;
}
static void hooks_free(void *p, size_t n) {
  free(p);
  hooks_outstanding -= n;
  bibop_free_external(n);
}
#endif

/* ---- making integers ------------------------------------------------------ */

static void z_finalize(void *obj, void *cd) {
  (void)cd;
  mpz_clear(((Z)obj)->v);
}

int z_setup(enum zmode m) {
#ifdef ZGC_STOCK
  if (m == Z_ACCOUNT || m == Z_HOOKS) return -1;
#endif
  mode = m;
  GC_INIT();
  if (m == Z_HEAP || m == Z_HEAP_UNGUARDED)
    mp_set_memory_functions(heap_alloc, heap_realloc, heap_free);
#ifndef ZGC_STOCK
  if (m == Z_HOOKS) mp_set_memory_functions(hooks_alloc, hooks_realloc, hooks_free);
#endif
  ready = 1;
  zero = z_from_ui(0);
  one = z_from_ui(1);
  return 0;
}

static Z z_new(void) {
  Z z;
  if (!ready) { fputs("zgc: z_setup first\n", stderr); abort(); }
  switch (mode) {
#ifndef ZGC_STOCK
  case Z_ACCOUNT:
    z = bibop_malloc_external(sizeof *z, 0, z_finalize, NULL);
    if (!z) break;
    mpz_init(z->v);             /* GMP 6.2: allocates nothing */
    z->reported = 0;
    return z;
#endif
  case Z_HEAP:
  case Z_HEAP_UNGUARDED:
    z = GC_malloc(sizeof *z);   /* scanned: it keeps its limbs alive */
    if (!z) break;
    mpz_init(z->v);
    return z;
  default:
    z = GC_malloc(sizeof *z);
    if (!z) break;
    mpz_init(z->v);
    GC_register_finalizer_no_order(z, z_finalize, NULL, NULL, NULL);
    return z;
  }
  fputs("zgc: out of memory\n", stderr);
  abort();
}

/* After every GMP call (Z_HEAP): its temporaries are freed, its result
   hangs from a handle: nothing needs pinning any more. */
static inline void gmp_begin(void) {}
static inline void gmp_end(void) { if (mode == Z_HEAP) unpin_all(); }

/* After an operation wrote z->v: in Z_ACCOUNT, record its limb allocation. */
static Z z_done(Z z) {
#ifndef ZGC_STOCK
  if (mode == Z_ACCOUNT) {
    size_t bytes = (size_t)z->v->_mp_alloc * sizeof(mp_limb_t);
    if (bytes != z->reported) {
      if (bibop_resize_external(z, bytes) != 0) {
        fputs("zgc: bibop_resize_external refused a live integer\n", stderr);
        abort();
      }
      z->reported = bytes;
    }
  }
#endif
  return z;
}

Z z_from_ui(unsigned long v) {
  Z z = z_new();
  gmp_begin();
  mpz_set_ui(z->v, v);
  gmp_end();
  return z_done(z);
}

Z z_mul(Z a, Z b) {
  Z z = z_new();
  gmp_begin();
  mpz_mul(z->v, a->v, b->v);
  gmp_end();
  return z_done(z);
}

Z z_pred(Z a) {
  Z z = z_new();
  gmp_begin();
  mpz_sub_ui(z->v, a->v, 1);
  gmp_end();
  return z_done(z);
}

Z z_mod(Z a, Z b) {
  Z z = z_new();
  gmp_begin();
  mpz_fdiv_r(z->v, a->v, b->v);
  gmp_end();
  return z_done(z);
}

unsigned long long z_mix(unsigned long long h, Z a) {
  gmp_begin();
  h = ck_mix(h, a->v);
  gmp_end();
  return h;
}

int z_equal(Z a, Z b) { return mpz_cmp(a->v, b->v) == 0; }
int z_is_zero(Z a) { return mpz_sgn(a->v) == 0; }
Z z_zero(void) { return zero; }
Z z_one(void) { return one; }
