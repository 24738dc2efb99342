/*
 * api_extra.c: the long tail of bdwgc 8.2's public interface — tuning
 * knobs of features bibop does not have (incremental collection, virtual
 * dirty bits), checked pointer arithmetic, aligned allocation, gcj-style
 * objects, toggle references, heap enumeration, profiling statistics and
 * external world stopping. Each knob bibop accepts without effect is listed
 * with its reason in docs/COMPATIBILITY.md. Owns no collector logic.
 */
#include "internal.h"
#include "gc/gc_gcj.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* ---- settings kept for clients, without effect (see COMPATIBILITY.md) -- */

static GC_word allocd_bytes_per_finalizer;
static int manual_vdb_allowed, max_prior_attempts, rate = 10, pages_executable;
static struct GC_timeval_s time_limit_tv = { 50, 0 };
static GC_stop_func stop_func;
static GC_await_finalize_proc await_finalize_proc;
static GC_on_thread_event_proc on_thread_event;

GC_API void GC_set_allocd_bytes_per_finalizer(GC_word v) { allocd_bytes_per_finalizer = v; }
GC_API GC_word GC_get_allocd_bytes_per_finalizer(void) { return allocd_bytes_per_finalizer; }
GC_API void GC_set_manual_vdb_allowed(int v) { manual_vdb_allowed = v; }
GC_API int GC_get_manual_vdb_allowed(void) { return manual_vdb_allowed; }
GC_API void GC_set_max_prior_attempts(int v) { max_prior_attempts = v; }
GC_API int GC_get_max_prior_attempts(void) { return max_prior_attempts; }
GC_API void GC_set_rate(int v) { rate = v; }
GC_API int GC_get_rate(void) { return rate; }
GC_API void GC_set_pages_executable(int v) { pages_executable = v; }
GC_API int GC_get_pages_executable(void) { return pages_executable; }
GC_API void GC_set_time_limit_tv(struct GC_timeval_s tv) { time_limit_tv = tv; }
GC_API struct GC_timeval_s GC_get_time_limit_tv(void) { return time_limit_tv; }
GC_API void GC_set_stop_func(GC_stop_func fn) { stop_func = fn; }
GC_API GC_stop_func GC_get_stop_func(void) { return stop_func; }
GC_API void GC_set_await_finalize_proc(GC_await_finalize_proc fn) { await_finalize_proc = fn; }
GC_API GC_await_finalize_proc GC_get_await_finalize_proc(void) { return await_finalize_proc; }
GC_API void GC_set_on_thread_event(GC_on_thread_event_proc fn) { on_thread_event = fn; }
GC_API GC_on_thread_event_proc GC_get_on_thread_event(void) { return on_thread_event; }
GC_API int GC_incremental_protection_needs(void) { return 0; }   /* no write barrier */
GC_API void GC_start_incremental_collection(void) {}
GC_API void GC_deinit(void) {}   /* bibop's memory goes with the process */
GC_API void GC_register_altstack(void *s, GC_word ss, void *a, GC_word as) {
  (void)s, (void)ss, (void)a, (void)as;
}
GC_API void GC_register_describe_type_fn(int kind, GC_describe_type_fn fn) { (void)kind, (void)fn; }
GC_API int GC_is_tmp_root(void *p) { (void)p; return 0; }   /* no temporary roots */

/* ---- real settings ------------------------------------------------------ */

GC_API void GC_set_disable_automatic_collection(int v) {
  LOCK();
  gc.no_automatic_collection = v != 0;
  UNLOCK();
}
GC_API int GC_get_disable_automatic_collection(void) { return gc.no_automatic_collection; }
GC_API void GC_set_force_unmap_on_gcollect(int v) { gc.unmap_on_gcollect = v != 0; }
GC_API int GC_get_force_unmap_on_gcollect(void) { return gc.unmap_on_gcollect; }
GC_API void GC_set_min_bytes_allocd(size_t v) { gc.min_bytes_floor = v ? v : 1; }
GC_API size_t GC_get_min_bytes_allocd(void) { return gc.min_bytes_floor; }

GC_API void GC_set_log_fd(int fd) {
  FILE *f = fdopen(dup(fd), "a");
  if (f) gc.log = f;
}

GC_API void GC_clear_exclusion_table(void) {
  LOCK();
  roots_clear_exclusions();
  UNLOCK();
}

GC_API void GC_abort_on_oom(void) {
  gc_abort("bibop: out of memory (GC_abort_on_oom)");
}

/* ---- statistics ---------------------------------------------------------- */

GC_API size_t GC_get_expl_freed_bytes_since_gc(void) { return gc.freed_since_gc; }
/* The heap's memory, mapped or returned since (bdwgc counts the unmapped
   part in); the collector's own tables are not counted. */
GC_API size_t GC_get_obtained_from_os_bytes(void) {
  return arena_committed_bytes() + arena_unmapped_bytes();
}
GC_API unsigned long GC_get_full_gc_total_time(void) {
  return (unsigned long)((gc.total_pause_ns - gc.measure_start_ns) / 1000000);
}
GC_API void GC_start_performance_measurement(void) { gc.measure_start_ns = gc.total_pause_ns; }

GC_API size_t GC_get_size_map_at(int i) {
  if (i < 0) return 0;
  size_t g = alloc_granules((size_t)i);
  return g ? g * GRANULE_BYTES : (size_t)i;
}

static size_t fill_prof_stats(struct GC_prof_stats_s *out, size_t size) {
  struct GC_prof_stats_s s;
  memset(&s, 0xff, sizeof s);           /* unknown fields read as -1 */
  /* The full sizes count the unmapped part too (gc.h). */
  s.heapsize_full = arena_committed_bytes() + arena_unmapped_bytes();
  s.unmapped_bytes = arena_unmapped_bytes();
  s.free_bytes_full = heap_free_bytes() + arena_unmapped_bytes();
  s.bytes_allocd_since_gc = gc.bytes_since_gc;
  s.allocd_bytes_before_gc = gc.total_bytes;
  s.non_gc_bytes = GC_non_gc_bytes;
  s.gc_no = GC_gc_no;
  s.markers_m1 = (GC_word)GC_parallel;
  s.expl_freed_bytes_since_gc = gc.freed_since_gc;
  s.obtained_from_os_bytes = s.heapsize_full;
  if (size > sizeof s) size = sizeof s;
  memcpy(out, &s, size);
  return size;
}

GC_API size_t GC_get_prof_stats(struct GC_prof_stats_s *out, size_t size) {
  LOCK();
  size_t n = fill_prof_stats(out, size);
  UNLOCK();
  return n;
}
GC_API size_t GC_get_prof_stats_unsafe(struct GC_prof_stats_s *out, size_t size) {
  return fill_prof_stats(out, size);
}

GC_API int GC_get_kind_and_size(const void *p, size_t *psize) {
  struct block *b = pt_block_of((uintptr_t)p);
  int kind = 0;
  size_t size = 0;
  if (b && b->state == BLOCK_SMALL) kind = b->kind, size = b->obj_bytes;
  else if (b && (b->state == BLOCK_LARGE || b->state == BLOCK_LARGE_TAIL)) {
    if (b->state == BLOCK_LARGE_TAIL) b = b->head;
    kind = b->kind, size = b->u.large.bytes;
  }
  if (psize) *psize = size;
  return kind;
}

/* Every allocated object (lock held by the caller, as bdwgc requires). */
GC_API void GC_enumerate_reachable_objects_inner(GC_reachable_object_proc proc, void *cd) {
  if (!proc) return;
  for (unsigned k = 0; k < gc.n_kinds; k++)
    for (unsigned g = 1; g <= MAX_SMALL_GRANULES; g++)
      for (struct block *b = gc.classes[k][g].blocks; b; b = b->next) {
        char *base = block_addr(b);
        for (unsigned i = 0; i < b->nobjs; i++)
          if (b->u.mark[i / 64] >> (i % 64) & 1) proc(base + (size_t)i * b->obj_bytes, b->obj_bytes, cd);
      }
  for (struct block *h = gc.large; h; h = h->next) proc(block_addr(h), h->u.large.bytes, cd);
}

/* gc.h: unlike GC_dump, does not acquire the lock. */
GC_API void GC_dump_named(const char *name) {
  fprintf(stdout, "***GC Dump %s\n", name ? name : "");
  gc_dump_locked(stdout);
}
GC_API void GC_dump_regions(void) {
  LOCK();
  fprintf(stdout, "bibop regions: committed %zu bytes, unmapped (returned to the OS) %zu bytes, "
          "address space reserved %zu bytes\n",
          arena_committed_bytes(), arena_unmapped_bytes(), arena_reserved_bytes());
  UNLOCK();
}
GC_API void GC_dump_finalization(void) {
  LOCK();
  finalize_dump(stdout);
  UNLOCK();
}
GC_API void GC_print_free_list(int kind, size_t granules) {
  LOCK();
  size_t blocks = 0;
  if (kind >= 0 && (unsigned)kind < gc.n_kinds && granules >= 1 && granules <= MAX_SMALL_GRANULES)
    for (struct block *b = gc.classes[kind][granules].blocks; b; b = b->next) blocks++;
  fprintf(stdout, "kind %d, %zu granules: %zu blocks (bibop keeps no free lists)\n", kind,
          granules, blocks);
  UNLOCK();
}

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

/* ---- aligned allocation ------------------------------------------------------- */

GC_API void *GC_memalign(size_t align, size_t lb) {
  if (align == 0 || (align & (align - 1))) return NULL;
  if (align <= GRANULE_BYTES) return GC_malloc(lb);
  if (lb > SIZE_MAX - align) return alloc_out_of_memory(lb);
  /* Large objects start on block boundaries: enough for align <= 4 KiB. */
  char *p = GC_malloc(lb + align - 1 > MAX_SMALL_BYTES ? lb + align - 1 : MAX_SMALL_BYTES + 1);
  if (!p) return NULL;
  uintptr_t aligned = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
  if (aligned != (uintptr_t)p && !GC_all_interior_pointers && aligned - (uintptr_t)p < BLOCK_BYTES)
    GC_register_displacement(aligned - (uintptr_t)p);
  return (void *)aligned;
}

GC_API int GC_posix_memalign(void **memptr, size_t align, size_t lb) {
  if (!memptr || align < sizeof(void *) || (align & (align - 1))) return EINVAL;
  void *p = GC_memalign(align, lb);
  if (!p) return ENOMEM;
  *memptr = p;
  return 0;
}

GC_API void *GC_malloc_stubborn(size_t lb) { return GC_malloc(lb); }
GC_API void *GC_generic_or_special_malloc(size_t lb, int k) { return alloc_generic(lb, k); }

/* ---- gcj-style objects: the first word points to a type whose second word
   is the mark descriptor (bdwgc's gc_gcj.h) ------------------------------- */

int GC_gcj_kind = 0;
int GC_gcj_debug_kind = 0;

GC_API void GC_init_gcj_malloc(int mp_index, void *mp) {
  gc_ensure_init();
  LOCK();
  if (!GC_gcj_kind) {
    if (mp && mp_index >= 0 && mp_index < (1 << GC_LOG_MAX_MARK_PROCS)) mark_procs[mp_index] = (GC_mark_proc)mp;
    /* Per-object descriptor found through the type word: (*obj)[1]. */
    GC_word d = ((GC_word)0 - sizeof(GC_word) - GC_INDIR_PER_OBJ_BIAS) | GC_DS_PER_OBJECT;
    GC_gcj_kind = (int)GC_new_kind_inner(GC_new_free_list_inner(), d, 0, 1);
    GC_gcj_debug_kind = KIND_NORMAL;   /* debug gcj objects are scanned conservatively */
  }
  UNLOCK();
}

GC_API void *GC_gcj_malloc(size_t lb, void *type) {
  if (!GC_gcj_kind) GC_init_gcj_malloc(-1, NULL);
  void **p = alloc_generic(lb, GC_gcj_kind);
  if (p) __atomic_store_n(p, type, __ATOMIC_RELEASE);
  return p;
}

GC_API void *GC_gcj_malloc_ignore_off_page(size_t lb, void *type) { return GC_gcj_malloc(lb, type); }

GC_API void *GC_debug_gcj_malloc(size_t lb, void *type, const char *s, int i) {
  void **p = GC_debug_malloc(lb, s, i);
  if (p) *p = type;
  return p;
}

/* ---- world stopping for clients --------------------------------------------- */

GC_API void GC_stop_world_external(void) {
  gc_ensure_init();
  LOCK();
  stopworld_stop();
}

GC_API void GC_start_world_external(void) {
  stopworld_start();
  UNLOCK();
}

/* ---- stack bottoms -------------------------------------------------------------- */

/* Neither takes the lock: gc.h has GC_set_stackbottom's caller hold it
   (typically in GC_call_with_alloc_lock), and the thread's own record is
   all GC_get_my_stackbottom reads, so both work inside and outside it. */
GC_API void *GC_get_my_stackbottom(struct GC_stack_base *sb) {
  struct gc_thread *me = threads_self();
  if (sb) sb->mem_base = me ? threads_stack_base(me) : NULL;
  return me;
}

/* Before initialisation, with no handle: the main thread's bottom,
   GC_stackbottom (gc.h). */
GC_API void GC_set_stackbottom(void *handle, const struct GC_stack_base *sb) {
  if (!sb) return;
  struct gc_thread *t = handle ? handle : threads_self();
  if (t && sb->mem_base) threads_set_stack_base(t, sb->mem_base);
  else if (!t && !gc.initialized) GC_stackbottom = sb->mem_base;
}

GC_API void GC_incr_bytes_allocd(size_t n) { gc.bytes_since_gc += n; }
GC_API void GC_incr_bytes_freed(size_t n) { gc.freed_since_gc += n; }
