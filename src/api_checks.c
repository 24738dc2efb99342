/*
 * api_checks.c: checked pointer arithmetic (GC_same_obj, GC_PTR_ADD and
 * friends, GC_is_visible, GC_is_valid_displacement): a failed check calls
 * the exported print procedure the client may replace; the defaults print
 * and abort, as bdwgc's do.
 */
#include "internal.h"

#include <stdio.h>

/* ---- checked pointer arithmetic (GC_PTR_ADD and friends) ------------------ */

/* A failed check calls its exported print procedure, which clients may
   replace; the defaults report the pointers and abort, as bdwgc's do. */
static _Noreturn void failed_check(const char *format, void *p, void *q) {
  char msg[160];
  snprintf(msg, sizeof msg, format, p, q);
  gc_abort(msg);
}
static void default_same_obj_print_proc(void *p, void *q) {
  failed_check("GC_same_obj test failed: %p and %p are not in the same object", p, q);
}
static void default_is_visible_print_proc(void *p) {
  failed_check("GC_is_visible test failed: %p not GC-visible", p, NULL);
}
static void default_is_valid_displacement_print_proc(void *p) {
  failed_check("GC_is_valid_displacement test failed: %p not a valid displacement", p, NULL);
}
void (*GC_same_obj_print_proc)(void *, void *) = default_same_obj_print_proc;
void (*GC_is_visible_print_proc)(void *) = default_is_visible_print_proc;
void (*GC_is_valid_displacement_print_proc)(void *) = default_is_valid_displacement_print_proc;

static bool misaligned(const void *p) { return (uintptr_t)p & (sizeof(void *) - 1); }

GC_API void *GC_same_obj(void *p, void *q) {
  void *bp = GC_base(p), *bq = GC_base(q);
  if (bp != bq && bp) (GC_same_obj_print_proc ? GC_same_obj_print_proc : default_same_obj_print_proc)(p, q);
  return p;
}

/* A pointer the collector could not see as one: bibop, like bdwgc outside
   its debugging builds, checks only its alignment (every aligned word of
   a stack, static data or heap object is scanned). */
GC_API void *GC_is_visible(void *p) {
  if (misaligned(p)) (GC_is_visible_print_proc ? GC_is_visible_print_proc : default_is_visible_print_proc)(p);
  return p;
}

GC_API void *GC_pre_incr(void **p, ptrdiff_t how_much) {
  if (!p) return NULL;
  void *initial = *p;
  void *result = GC_same_obj((char *)initial + how_much, initial);
  *p = result;
  return result;
}

GC_API void *GC_post_incr(void **p, ptrdiff_t how_much) {
  if (!p) return NULL;
  void *initial = *p;
  *p = GC_same_obj((char *)initial + how_much, initial);
  return initial;
}

GC_API void *GC_is_valid_displacement(void *p) {
  void *base = GC_base(p);
  if (base && base != p && !GC_all_interior_pointers &&
      !((size_t)((char *)p - (char *)base) < BLOCK_BYTES && gc.valid_offsets[(char *)p - (char *)base])) {
    (GC_is_valid_displacement_print_proc ? GC_is_valid_displacement_print_proc
                                         : default_is_valid_displacement_print_proc)(p);
  }
  return p;
}
