/*
 * api_stats.c: what bdwgc reports about the heap — sizes as bdwgc defines
 * them (heap = committed, free = committed bytes in no block in use,
 * unmapped = returned to the OS), profiling statistics, heap enumeration
 * and the human-readable dumps. Reads counters; owns none.
 */
#include "internal.h"

#include <string.h>

/* ---- statistics ---------------------------------------------------------------- */

/* bdwgc's definitions: the heap is the memory obtained for it and still
   mapped (the arena's committed chunks); free bytes are those of its blocks
   that hold no object (free slots inside small blocks are not counted, as
   bdwgc does not count them); unmapped bytes were returned to the OS but
   still count in the full heap size. So free <= heap size, and heap size -
   free = the bytes of blocks in use (GC_get_memory_use). The pacing budget
   is internal. */
GC_API size_t GC_get_heap_size(void) { return arena_committed_bytes(); }

/* Unsynchronized, like the other getters here (gc.h: clients call them
   from callbacks that hold the lock); only counters are read. */
GC_API size_t GC_get_free_bytes(void) {
  return heap_free_bytes();
}

GC_API size_t GC_get_unmapped_bytes(void) { return arena_unmapped_bytes(); }
GC_API size_t GC_get_bytes_since_gc(void) { return gc.bytes_since_gc; }
GC_API size_t GC_get_total_bytes(void) {
  return size_add_saturated(gc.total_bytes, gc.bytes_since_gc);
}
GC_API size_t GC_get_memory_use(void) {
  LOCK();
  size_t used = heap_blocks_in_use() * BLOCK_BYTES;
  UNLOCK();
  return used;
}

GC_API void GC_get_heap_usage_safe(GC_word *pheap_size, GC_word *pfree_bytes,
                                   GC_word *punmapped_bytes, GC_word *pbytes_since_gc,
                                   GC_word *ptotal_bytes) {
  LOCK();
  if (pheap_size) *pheap_size = arena_committed_bytes();
  if (pfree_bytes) *pfree_bytes = heap_free_bytes();
  if (punmapped_bytes) *punmapped_bytes = arena_unmapped_bytes();
  if (pbytes_since_gc) *pbytes_since_gc = gc.bytes_since_gc;
  if (ptotal_bytes) *ptotal_bytes = size_add_saturated(gc.total_bytes, gc.bytes_since_gc);
  UNLOCK();
}

GC_API GC_word GC_get_gc_no(void) { return GC_gc_no; }

GC_API unsigned GC_get_version(void) {
  return ((unsigned)GC_VERSION_MAJOR << 16) | ((unsigned)GC_VERSION_MINOR << 8) | GC_VERSION_MICRO;
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

GC_API void GC_incr_bytes_allocd(size_t n) { gc.bytes_since_gc += n; }
GC_API void GC_incr_bytes_freed(size_t n) { gc.freed_since_gc += n; }

BIBOP_API void bibop_get_generation_stats(struct bibop_generation_stats *out) {
  if (!out) return;
  gc_ensure_init();
  const char *backend = dirty_backend_name();
  LOCK();
  *out = (struct bibop_generation_stats){
    .enabled = gc.generational,
    .dirty_backend = backend,
    .minor_collections = gc.minor_collections,
    .major_collections = gc.major_collections,
    .last_dirty_blocks = gc.last_dirty_blocks,
    .minor_pause_ns = gc.minor_pause_ns,
    .major_pause_ns = gc.major_pause_ns,
    .max_minor_pause_ns = gc.max_minor_pause_ns,
  };
  UNLOCK();
}
