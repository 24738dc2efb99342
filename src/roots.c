/*
 * roots.c: where marking starts. The registers and stack of the collecting
 * thread, the writable segments of the executable and of every loaded
 * library (found anew at each collection with dl_iterate_phdr, so dlopen'ed
 * libraries are seen), ranges added with GC_add_roots, uncollectable
 * objects, and the client's GC_push_other_roots hook.
 * Invariant 7: bibop's own data (the page table, the collector state, and
 * when bibop is a shared library its whole writable segment) and ranges
 * registered as static or excluded are never scanned.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <link.h>

struct root_range { uintptr_t lo, hi; };

static struct meta_vec user_roots = { .item_size = sizeof(struct root_range) };
static struct meta_vec exclusions = { .item_size = sizeof(struct root_range) }; /* sorted */
static GC_has_static_roots_func has_static_roots;   /* the client's filter of segments */
static size_t scanned_bytes;

void roots_init(void) {
  roots_exclude(pt_table, pt_table + PT_ENTRIES);
  roots_exclude(&gc, &gc + 1);
}

/* Forget client exclusions; bibop's own data stays excluded. */
void roots_clear_exclusions(void) {
  exclusions.count = 0;
  roots_exclude(pt_table, pt_table + PT_ENTRIES);
  roots_exclude(&gc, &gc + 1);
}

void roots_exclude(const void *lo, const void *hi) {
  struct root_range r = { (uintptr_t)lo, (uintptr_t)hi };
  if (r.hi <= r.lo || !meta_vec_push(&exclusions, &r)) return;
  struct root_range *v = exclusions.items;
  size_t i = exclusions.count - 1;
  while (i > 0 && v[i - 1].lo > r.lo) { v[i] = v[i - 1]; i--; }
  v[i] = r;
}

/* Scan [lo, hi) minus the sorted ranges skip[0..n) (each piece that is left
   goes on to the next level of subtraction). */
static void scan_minus(uintptr_t lo, uintptr_t hi, int level);

static void scan_piece(uintptr_t lo, uintptr_t hi, int level) {
  if (lo >= hi) return;
  if (level == 0) {
    scan_minus(lo, hi, 1);
  } else {
    mark_range((void *)lo, (void *)hi);
    scanned_bytes += hi - lo;
  }
}

/* Level 0 subtracts the exclusions, level 1 the static ranges. */
static void scan_minus(uintptr_t lo, uintptr_t hi, int level) {
  const struct meta_vec *skip = level == 0 ? &exclusions : pt_ranges();
  for (size_t i = 0; i < skip->count && lo < hi; i++) {
    uintptr_t rlo, rhi;
    if (level == 0) {
      const struct root_range *r = &META_VEC_AT(skip, struct root_range, i);
      rlo = r->lo; rhi = r->hi;
    } else {
      const struct pt_range *r = &META_VEC_AT(skip, struct pt_range, i);
      if (r->cls != BIBOP_ADDR_STATIC) continue;
      rlo = r->lo; rhi = r->hi;
    }
    if (rhi <= lo) continue;
    if (rlo >= hi) break;
    scan_piece(lo, rlo < hi ? rlo : hi, level);
    lo = rhi;
  }
  scan_piece(lo, hi, level);
}

static void scan_root_range(uintptr_t lo, uintptr_t hi) {
  scan_minus(lo, hi, 0);
}

static int scan_object_segments(struct dl_phdr_info *info, size_t size, void *self_base) {
  (void)size;
  bool is_main_program = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
  if (!is_main_program && GC_no_dls) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    uintptr_t hi = lo + ph->p_memsz;
    /* bibop as a shared library: its whole data is its own metadata. */
    if (!is_main_program && (uintptr_t)self_base >= lo && (uintptr_t)self_base < hi) return 0;
  }
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (has_static_roots && !has_static_roots(info->dlpi_name, (void *)lo, ph->p_memsz)) continue;
    scan_root_range(lo, lo + ph->p_memsz);
  }
  return 0;
}

static int segment_callback(struct dl_phdr_info *info, size_t size, void *data) {
  return scan_object_segments(info, size, data);
}

/* A coroutine runtime may move it between collections (threads.c). */
static void *current_stack_base(void) {
  return threads_own_stack_base();
}

static void scan_stack(uintptr_t lo, uintptr_t hi) {
  if (lo >= hi) return;
  mark_range_stack((void *)lo, (void *)hi);
  scanned_bytes += hi - lo;
}

/* The collecting thread's stack: from where it entered the collector (its
   registers spilled just above, collect.c) to the stack base. The
   collector's own frames below that point are not roots: their unwritten
   slots hold stale words of the client's returned frames. */
static void scan_own_stack_and_registers(void) {
  void *base = current_stack_base();
  if (base) scan_stack((uintptr_t)gc.collect_entry_sp, (uintptr_t)base);
}

/* Entries that collect zero the dead stack below them first
   (os_zero_stack_below), so that the library frames above
   gc.collect_entry_sp hold zeros, not stale pointers of the client's
   returned frames, in their unwritten slots. */
GC_API void *GC_clear_stack(void *arg) {
  os_zero_stack_below();
  return arg;
}

/* Other registered threads: stopped or suspended ones from where their
   handler stood, blocking ones from where they entered GC_do_blocking,
   ones parked in the allocation lock from where they went to sleep, up
   to their current stack bottom. Finished ones have no stack. */
static void scan_other_threads(void) {
  struct gc_thread *self = threads_self();
  for (struct gc_thread *t = gc.threads; t; t = t->next) {
    if (t == self || t->finished || (!t->stopped && !t->blocking && !t->suspended && !t->parked_in_lock) ||
        !t->stack_ptr ||
        t->precise)
      continue;
    scan_stack((uintptr_t)t->stack_ptr, (uintptr_t)threads_stack_base(t));
  }
}

static void default_push_other_roots(void) {}
void (*GC_push_other_roots)(void) = default_push_other_roots;

size_t roots_mark_all(void) {
  scanned_bytes = 0;
  mark_uncollectable_roots();
  dl_iterate_phdr(segment_callback, (void *)pt_table);
  for (size_t i = 0; i < user_roots.count; i++) {
    struct root_range *r = &META_VEC_AT(&user_roots, struct root_range, i);
    scan_root_range(r->lo, r->hi);
  }
  boxroot_mark_roots();
  if (!(threads_self() && threads_self()->precise)) scan_own_stack_and_registers();
  scan_other_threads();
  if (GC_push_other_roots) GC_push_other_roots();
  return scanned_bytes;
}

/* ---- the bdwgc root API --------------------------------------------------- */

GC_API void GC_register_has_static_roots_callback(GC_has_static_roots_func fn) {
  has_static_roots = fn;
}

GC_API void GC_add_roots(void *lo, void *hi) {
  gc_ensure_init();
  struct root_range r = { (uintptr_t)lo, (uintptr_t)hi };
  if (r.hi <= r.lo) return;
  LOCK();
  bool ok = meta_vec_push(&user_roots, &r);
  UNLOCK();
  if (!ok) gc_warn("GC Warning: no memory to register a root range of %lu bytes\n", r.hi - r.lo);
}

GC_API void GC_remove_roots(void *lo, void *hi) {
  gc_ensure_init();
  LOCK();
  for (size_t i = 0; i < user_roots.count;) {
    struct root_range *r = &META_VEC_AT(&user_roots, struct root_range, i);
    if (r->lo >= (uintptr_t)lo && r->hi <= (uintptr_t)hi) meta_vec_remove(&user_roots, i);
    else i++;
  }
  UNLOCK();
}

GC_API void GC_clear_roots(void) {
  gc_ensure_init();
  LOCK();
  user_roots.count = 0;
  UNLOCK();
}

GC_API void GC_exclude_static_roots(void *lo, void *hi) {
  gc_ensure_init();
  LOCK();
  roots_exclude(lo, hi);
  UNLOCK();
}

GC_API void GC_push_all(void *bottom, void *top) {
  mark_range(bottom, top);
}

GC_API void GC_push_all_stack(void *bottom, void *top) {
  mark_range_stack(bottom, top);
}

GC_API void GC_push_all_eager(void *bottom, void *top) {
  mark_range(bottom, top);
}

GC_API void GC_push_conditional(void *bottom, void *top, int all) {
  (void)all;
  mark_range(bottom, top);
}
