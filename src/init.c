/*
 * init.c: how the library is put together. Initialisation builds every
 * layer in order (gc_ensure_init, from any entry point: the one call every
 * layer may make upward, docs/ARCHITECTURE.md) and wires the features
 * above the collector into it: debug allocation and leak finding, disclaim
 * procedures and the trace get their collection hooks (collect.c), boxroots
 * their thread and fork hooks (threads.c), finalization its allocator hooks
 * (alloc.c). Reads bdwgc's environment variables once, here.
 * Lives in the top layer: it may call every file; no file calls it but
 * through gc_ensure_init.
 */
#include "internal.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_INITIAL_HEAP ((size_t)64 << 10)   /* bdwgc's 64 KiB */
#define DEFAULT_UNMAP_THRESHOLD 6                  /* bdwgc's default */

/* bdwgc's environment variables, with its presence semantics (a variable
   that is set, whatever its value, turns its switch on). The ones that only
   make sense inside bdwgc are listed, and why they are ignored, in
   docs/COMPATIBILITY.md. */
static void read_environment(void) {
  size_t sz;
  long v;
  if (os_env_size("GC_INITIAL_HEAP_SIZE", &sz) && sz > gc.heap_budget)
    gc.heap_budget = round_to_blocks(sz);
  if (os_env_size("GC_MAXIMUM_HEAP_SIZE", &sz) && sz > 0) gc.max_heap = round_to_blocks(sz);
  if (os_env_long("GC_FREE_SPACE_DIVISOR", &v) && v > 0) GC_free_space_divisor = (GC_word)v;
  if (os_env_set("GC_DONT_GC")) GC_dont_gc = 1;
  if (os_env_set("GC_ENABLE_INCREMENTAL")) gc.generational_requested = true;
  if (os_env_set("GC_DISABLE_INCREMENTAL")) gc.generational_forbidden = true;
  if (os_env_long("BIBOP_GENERATIONAL", &v)) {
    gc.generational_requested = v != 0;
    gc.generational_forbidden = v == 0;
  }
  if (os_env_set("GC_PRINT_STATS") || os_env_set("GC_PRINT_VERBOSE_STATS")) gc.print_stats = true;
  if (os_env_long("GC_UNMAP_THRESHOLD", &v) && v >= 0) gc.unmap_threshold = (unsigned long)v;
  if (os_env_set("GC_ALL_INTERIOR_POINTERS")) GC_all_interior_pointers = 1;
  if (os_env_set("GC_USE_ENTIRE_HEAP")) GC_use_entire_heap = 1;
  if (os_env_set("GC_LOOP_ON_ABORT")) gc.loop_on_abort = true;
  if (os_env_set("GC_ABORT_ON_LEAK")) gc.abort_on_leak = true;
  if (os_env_set("GC_FORCE_UNMAP_ON_GCOLLECT")) gc.unmap_on_gcollect = true;
  if (os_env_set("GC_DUMP_REGULARLY")) gc.dump_regularly = true;
  const char *log = getenv("GC_LOG_FILE");
  if (log && *log) {
    FILE *f = fopen(log, "a");
    if (f) gc.log = f;
    else gc_warn("GC Warning: cannot open GC_LOG_FILE; logging to stderr\n", 0);
  }
  if (os_env_set("GC_PRINT_ADDRESS_MAP")) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps) {
      char line[512];
      fprintf(gc_log(), "---------- Begin address map ----------\n");
      while (fgets(line, sizeof line, maps)) fputs(line, gc_log());
      fprintf(gc_log(), "---------- End address map ----------\n");
      fclose(maps);
    }
  }
}

/* What the collector, the allocator and the thread registry call in the
   layers above them, registered here so that they name none of them. */
static void register_feature_hooks(void) {
  collect_add_hook(HOOK_BEFORE_MARK, debug_before_collection);
  collect_add_hook(HOOK_BEFORE_MARK, debug_leak_snapshot);
  collect_add_hook(HOOK_BEFORE_MARK, disclaim_snapshot);
  collect_add_hook(HOOK_MARK_MORE, disclaim_mark_unconditionally);
  collect_add_hook(HOOK_AFTER_FINALIZE, debug_report_leaks);
  collect_add_hook(HOOK_DEAD_KNOWN, disclaim_find_dead);
  collect_add_hook(HOOK_WORLD_RESTARTED, disclaim_sweep);
  collect_add_hook(HOOK_COLLECTION_END, trace_collection_end);
  threads_set_hooks(&(struct thread_hooks){
      .fork_prepare = boxroot_fork_prepare, .fork_parent = boxroot_fork_release,
      .fork_child = boxroot_fork_child, .thread_exit = boxroot_thread_exit });
  alloc_set_hooks(&(struct alloc_hooks){
      .object_freed = finalize_forget_object, .run_pending = finalize_run_pending });
}

static void init_locked(void) {
  gc.valid_offsets[0] = 1;
  gc.unmap_threshold = DEFAULT_UNMAP_THRESHOLD;
  if (!gc.heap_budget) gc.heap_budget = DEFAULT_INITIAL_HEAP;
  kinds_init();
  svector_init();
  read_environment();
  trace_init();
  register_feature_hooks();
  gc.extra_bytes = GC_all_interior_pointers ? 1 : 0;
  debug_init();
  if (gc.max_heap && gc.heap_budget > gc.max_heap) gc.heap_budget = gc.max_heap;
  gc.requested_heap = gc.heap_budget;
  pt_init();
  arena_init();
  arena_set_heap_limit(gc.max_heap);
  /* As bdwgc, the initial heap is obtained at once (committed, untouched):
     GC_get_heap_size() is not 0 after GC_init. */
  (void)arena_expand((gc.heap_budget + CHUNK_BYTES - 1) / CHUNK_BYTES);
  heap_init();
  mark_init();
  markers_init();
  roots_init();
  threads_init();   /* after register_feature_hooks: it installs the fork handlers */
  gc.initialized = true;
  gc.min_bytes_allocd = gc.heap_budget / 2;
  if (!GC_dont_gc) gc_collect_locked("init");
}

void gc_ensure_init(void) {
  if (LIKELY(__atomic_load_n(&gc.initialized, __ATOMIC_ACQUIRE))) return;
  LOCK();
  bool initialising = !gc.initialized;
  if (initialising) init_locked();
  UNLOCK();
  if (initialising) gc_lock_bias_begin();   /* this thread owns the lock's bias (state.c) */
}
