/*
 * zgc.h: a small garbage-collected big-integer binding over GMP, in the
 * manner of mlgmp's Z module: every integer is a small GC object holding an
 * mpz_t, immutable once made; operations return new integers and nobody
 * frees anything. How the limbs (the GMP-side memory) are managed is chosen
 * at run time, once, before the first integer is made:
 *
 *   Z_NONE     limbs by malloc (GMP's default functions); the GC object
 *              gets a finalizer (GC_register_finalizer_no_order) calling
 *              mpz_clear. The collector sees only the small handles: the
 *              paper's situation.
 *   Z_ACCOUNT  (bibop only) the same, but every integer is made with
 *              bibop_malloc_external (its finalizer is the release that
 *              calls mpz_clear) and, after each operation, its limb
 *              allocation is recorded with bibop_resize_external: attached
 *              accounting, exact per object, retracted by the collector
 *              after the release ran. This is the accounting mode.
 *   Z_HOOKS    (bibop only) limbs by a counting malloc/realloc/free installed
 *              with mp_set_memory_functions that reports every allocation,
 *              growth, shrink and free with bibop_alloc_external /
 *              bibop_free_external (GMP's temporaries included); finalizers
 *              as in Z_NONE. Detached accounting, kept for comparison.
 *   Z_HEAP     limbs are atomic objects in the GC heap:
 *              mp_set_memory_functions(GC_malloc_atomic, GC_realloc, no-op
 *              free); no finalizer at all, the handle (a scanned object)
 *              keeps its limbs alive. GMP keeps pointers to its temporary
 *              blocks inside other temporary blocks (the GMP manual warns
 *              of it; mpn_mul_fft's pointer arrays), which atomic objects
 *              hide from the collector: so every block GMP allocates is
 *              also pinned in a small static root array until GMP frees it
 *              or, for the result's limbs, until the operation has
 *              returned and the (scanned) handle holds them.
 *   Z_HEAP_UNGUARDED  Z_HEAP without the pinning: crashes (SIGSEGV in
 *              mpn_mul_fft) on stock libgc1 and bibop alike once operands
 *              reach GMP's FFT range (listing 2 with 18 squarings). Kept to
 *              show why the guard is there; not used by tests or benchmarks.
 *
 * Built against bibop (all modes) or, with -DZGC_STOCK, against stock
 * libgc1 (Z_NONE and Z_HEAP only: stock has no accounting interface).
 * Single-threaded.
 */
#ifndef ZGC_H
#define ZGC_H

#include <gmp.h>

enum zmode { Z_NONE, Z_ACCOUNT, Z_HOOKS, Z_HEAP, Z_HEAP_UNGUARDED };

typedef struct zobj *Z;
struct zobj {
  mpz_t v;
  size_t reported;   /* Z_ACCOUNT: external bytes last recorded for v */
};

/* Parse "none", "account", "hooks", "heap" or "heap-unguarded"; -1 if
   unknown. */
int z_mode_parse(const char *name);
/* Select the mode and initialise the collector; 0, or -1 if the mode is not
   available in this build. Call once, before anything else. */
int z_setup(enum zmode mode);
const char *z_mode_name(void);
/* Bytes GMP currently holds through the counting functions (Z_HOOKS). */
size_t z_hooks_outstanding(void);

Z z_from_ui(unsigned long v);
Z z_mul(Z a, Z b);
Z z_pred(Z a);
Z z_mod(Z a, Z b);                  /* a mod b, b > 0 (fdiv) */
int z_equal(Z a, Z b);
/* The checksum step of common.h, ck_mix(h, a->v), as a binding operation. */
unsigned long long z_mix(unsigned long long h, Z a);
int z_is_zero(Z a);
Z z_zero(void);
Z z_one(void);

#endif
