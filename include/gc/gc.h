/*
 * bibop: the main public interface, source- and binary-compatible with
 * bdwgc 8.2 (Debian libgc1 8.2.2) gc.h: types, allocation, collection
 * control, finalization, weak links, roots, threads, and the GC_MALLOC
 * family of macros (GC_debug_* versions when GC_DEBUG is defined).
 */

#ifndef GC_H
#define GC_H

#include "gc_version.h"
#include "gc_config_macros.h"

#ifdef __cplusplus
  extern "C" {
#endif

/* ---- Basic types ------------------------------------------------------- */

typedef void *GC_PTR;                   /* old name for void *          */
typedef unsigned long GC_word;          /* pointer-sized unsigned word  */
typedef long GC_signed_word;            /* pointer-sized signed word    */

/* Library version as (major << 16) | (minor << 8) | micro. */
GC_API unsigned GC_CALL GC_get_version(void);

/* ---- Public variables and their accessors ------------------------------ */
/* Direct access to the variables is deprecated; use the setters/getters. */

/* Number of collections so far (includes the one done at start-up). */
GC_API GC_ATTR_DEPRECATED GC_word GC_gc_no;
GC_API GC_word GC_CALL GC_get_gc_no(void);

#ifdef GC_THREADS
  /* Number of parallel marker threads besides the initiating one. */
  GC_API GC_ATTR_DEPRECATED int GC_parallel;
  GC_API int GC_CALL GC_get_parallel(void);
  /* Requested marker count (including the initiator); 0 = automatic. */
  GC_API void GC_CALL GC_set_markers_count(unsigned);
#endif

/* Called with the size when an allocation fails; returns NULL or an object. */
typedef void * (GC_CALLBACK *GC_oom_func)(size_t /* bytes_requested */);
GC_API GC_ATTR_DEPRECATED GC_oom_func GC_oom_fn;
GC_API void GC_CALL GC_set_oom_fn(GC_oom_func) GC_ATTR_NONNULL(1);
GC_API GC_oom_func GC_CALL GC_get_oom_fn(void);

/* Called (world stopped) whenever the heap size changes; may be 0. */
typedef void (GC_CALLBACK *GC_on_heap_resize_proc)(GC_word /* new_size */);
GC_API GC_ATTR_DEPRECATED GC_on_heap_resize_proc GC_on_heap_resize;
GC_API void GC_CALL GC_set_on_heap_resize(GC_on_heap_resize_proc);
GC_API GC_on_heap_resize_proc GC_CALL GC_get_on_heap_resize(void);

/* Collection phases reported to the event callbacks. */
typedef enum {
  GC_EVENT_START,
  GC_EVENT_MARK_START,
  GC_EVENT_MARK_END,
  GC_EVENT_RECLAIM_START,
  GC_EVENT_RECLAIM_END,
  GC_EVENT_END,
  GC_EVENT_PRE_STOP_WORLD,
  GC_EVENT_POST_STOP_WORLD,
  GC_EVENT_PRE_START_WORLD,
  GC_EVENT_POST_START_WORLD,
  GC_EVENT_THREAD_SUSPENDED,
  GC_EVENT_THREAD_UNSUSPENDED
} GC_EventType;

/* Collection progress callback (lock held); 0 means none. */
typedef void (GC_CALLBACK *GC_on_collection_event_proc)(GC_EventType);
GC_API void GC_CALL GC_set_on_collection_event(GC_on_collection_event_proc);
GC_API GC_on_collection_event_proc GC_CALL GC_get_on_collection_event(void);

#ifdef GC_THREADS
  /* Per-thread suspend/resume callback during a collection; 0 = none. */
  typedef void (GC_CALLBACK *GC_on_thread_event_proc)(GC_EventType,
                                                void * /* thread_id */);
  GC_API void GC_CALL GC_set_on_thread_event(GC_on_thread_event_proc);
  GC_API GC_on_thread_event_proc GC_CALL GC_get_on_thread_event(void);
#endif

/* Leak-detection mode: report unreachable unfreed objects, never reclaim. */
GC_API GC_ATTR_DEPRECATED int GC_find_leak;
GC_API void GC_CALL GC_set_find_leak(int);
GC_API int GC_CALL GC_get_find_leak(void);

/* 1 = any interior pointer keeps an object alive (0 or 1 only). */
GC_API GC_ATTR_DEPRECATED int GC_all_interior_pointers;
GC_API void GC_CALL GC_set_all_interior_pointers(int);
GC_API int GC_CALL GC_get_all_interior_pointers(void);

/* Nonzero: finalizers run only from explicit GC_invoke_finalizers(). */
GC_API GC_ATTR_DEPRECATED int GC_finalize_on_demand;
GC_API void GC_CALL GC_set_finalize_on_demand(int);
GC_API int GC_CALL GC_get_finalize_on_demand(void);

/* Nonzero: Java-style finalization (objects reachable from finalizable */
/* ones are marked in a separate pass).                                 */
GC_API GC_ATTR_DEPRECATED int GC_java_finalization;
GC_API void GC_CALL GC_set_java_finalization(int);
GC_API int GC_CALL GC_get_java_finalization(void);

/* Called once per cycle when finalizers are pending (on-demand mode). */
typedef void (GC_CALLBACK *GC_finalizer_notifier_proc)(void);
GC_API GC_ATTR_DEPRECATED GC_finalizer_notifier_proc GC_finalizer_notifier;
GC_API void GC_CALL GC_set_finalizer_notifier(GC_finalizer_notifier_proc);
GC_API GC_finalizer_notifier_proc GC_CALL GC_get_finalizer_notifier(void);

/* Collection-disable counter; prefer GC_disable/GC_enable/GC_is_disabled. */
GC_API
#ifndef GC_DONT_GC
  GC_ATTR_DEPRECATED
#endif
  int GC_dont_gc;

/* Nonzero: never grow the heap unless forced. */
GC_API GC_ATTR_DEPRECATED int GC_dont_expand;
GC_API void GC_CALL GC_set_dont_expand(int);
GC_API int GC_CALL GC_get_dont_expand(void);

/* Nonzero: fill the whole heap before collecting. */
GC_API GC_ATTR_DEPRECATED int GC_use_entire_heap;

/* Partial collections between full ones (incremental mode only). */
GC_API GC_ATTR_DEPRECATED int GC_full_freq;
GC_API void GC_CALL GC_set_full_freq(int);
GC_API int GC_CALL GC_get_full_freq(void);

/* Bytes that are not collection candidates (uncollectable objects). */
GC_API GC_ATTR_DEPRECATED GC_word GC_non_gc_bytes;
GC_API void GC_CALL GC_set_non_gc_bytes(GC_word);
GC_API GC_word GC_CALL GC_get_non_gc_bytes(void);

/* Nonzero: do not register data segments of shared libraries as roots. */
GC_API GC_ATTR_DEPRECATED int GC_no_dls;
GC_API void GC_CALL GC_set_no_dls(int);
GC_API int GC_CALL GC_get_no_dls(void);

/* Heap-growth versus collection-frequency trade-off (higher = smaller). */
GC_API GC_ATTR_DEPRECATED GC_word GC_free_space_divisor;
GC_API void GC_CALL GC_set_free_space_divisor(GC_word);
GC_API GC_word GC_CALL GC_get_free_space_divisor(void);

/* Collections tried after failed heap growth before reporting OOM. */
GC_API GC_ATTR_DEPRECATED GC_word GC_max_retries;
GC_API void GC_CALL GC_set_max_retries(GC_word);
GC_API GC_word GC_CALL GC_get_max_retries(void);

/* Cold end of the main thread's stack; may be preset before GC_init. */
GC_API GC_ATTR_DEPRECATED char *GC_stackbottom;

/* Nonzero: skip the collection normally done by GC_init. */
GC_API GC_ATTR_DEPRECATED int GC_dont_precollect;
GC_API void GC_CALL GC_set_dont_precollect(int);
GC_API int GC_CALL GC_get_dont_precollect(void);

/* Incremental-collection pause target in milliseconds. */
GC_API GC_ATTR_DEPRECATED unsigned long GC_time_limit;
#define GC_TIME_UNLIMITED 999999        /* no pause limit */
GC_API void GC_CALL GC_set_time_limit(unsigned long);
GC_API unsigned long GC_CALL GC_get_time_limit(void);

/* A duration: milliseconds plus a sub-millisecond nanosecond part. */
struct GC_timeval_s {
  unsigned long tv_ms;
  unsigned long tv_nsec;
};

/* ---- Tuning ------------------------------------------------------------ */

/* Pause target with nanosecond precision. */
GC_API void GC_CALL GC_set_time_limit_tv(struct GC_timeval_s);
GC_API struct GC_timeval_s GC_CALL GC_get_time_limit_tv(void);

/* Allocated bytes per new finalizer that trigger a collection (0 = off). */
GC_API void GC_CALL GC_set_allocd_bytes_per_finalizer(GC_word);
GC_API GC_word GC_CALL GC_get_allocd_bytes_per_finalizer(void);

/* Start timing full collections; total so far in milliseconds. */
GC_API void GC_CALL GC_start_performance_measurement(void);
GC_API unsigned long GC_CALL GC_get_full_gc_total_time(void);

/* Map heap pages executable (set before GC_init). */
GC_API void GC_CALL GC_set_pages_executable(int);
GC_API int GC_CALL GC_get_pages_executable(void);

/* Lower bound on bytes allocated between collections (nonzero). */
GC_API void GC_CALL GC_set_min_bytes_allocd(size_t);
GC_API size_t GC_CALL GC_get_min_bytes_allocd(void);

/* Amount of work done by one GC_collect_a_little step. */
GC_API void GC_CALL GC_set_rate(int);
GC_API int GC_CALL GC_get_rate(void);

/* Maximum prior attempts at world-stopped marking. */
GC_API void GC_CALL GC_set_max_prior_attempts(int);
GC_API int GC_CALL GC_get_max_prior_attempts(void);

/* Nonzero: never start a collection because of allocation volume. */
GC_API void GC_CALL GC_set_disable_automatic_collection(int);
GC_API int GC_CALL GC_get_disable_automatic_collection(void);

/* Install pthread_atfork handlers at GC_init (nonzero), or -1 for manual */
/* handling with the three GC_atfork_* calls around fork().              */
GC_API void GC_CALL GC_set_handle_fork(int);
GC_API void GC_CALL GC_atfork_prepare(void);
GC_API void GC_CALL GC_atfork_parent(void);
GC_API void GC_CALL GC_atfork_child(void);

/* ---- Initialization ---------------------------------------------------- */

/* Initialize the collector (clients normally use GC_INIT()). */
GC_API void GC_CALL GC_init(void);
/* Nonzero once initialization has started. */
GC_API int GC_CALL GC_is_init_called(void);
/* Shut the collector down; repeated calls do nothing. */
GC_API void GC_CALL GC_deinit(void);

/* ---- Allocation -------------------------------------------------------- */

/* Cleared, scanned object. */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc(size_t /* size_in_bytes */);
/* Object the collector never scans (no pointers); contents not cleared. */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc_atomic(size_t /* size_in_bytes */);
/* Collectable copies of C strings. */
GC_API GC_ATTR_MALLOC char * GC_CALL GC_strdup(const char *);
GC_API GC_ATTR_MALLOC char * GC_CALL
        GC_strndup(const char *, size_t) GC_ATTR_NONNULL(1);
/* Scanned object that is never collected (free it with GC_free). */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc_uncollectable(size_t /* size_in_bytes */);
/* Same as GC_malloc (stubborn objects are gone). */
GC_API GC_ATTR_DEPRECATED void * GC_CALL GC_malloc_stubborn(size_t);

/* Aligned allocation, memalign and posix_memalign style. */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(2) void * GC_CALL
        GC_memalign(size_t /* align */, size_t /* lb */);
GC_API int GC_CALL GC_posix_memalign(void ** /* memptr */, size_t /* align */,
                                     size_t /* lb */) GC_ATTR_NONNULL(1);

/* Explicitly free an object (base pointer); GC_free(0) does nothing. */
GC_API void GC_CALL GC_free(void *);

/* Stubborn-object compatibility: these are plain allocations now. */
#define GC_MALLOC_STUBBORN(sz)  GC_MALLOC(sz)
#define GC_NEW_STUBBORN(t)      GC_NEW(t)
#define GC_CHANGE_STUBBORN(p)   GC_change_stubborn(p)
GC_API GC_ATTR_DEPRECATED void GC_CALL GC_change_stubborn(const void *);

/* Record a pointer store into an object (manual write barrier). */
GC_API void GC_CALL GC_end_stubborn_change(const void *) GC_ATTR_NONNULL(1);

/* Start of the heap object containing the address, or 0. */
GC_API void * GC_CALL GC_base(void * /* displaced_pointer */);

/* Nonzero if the address lies in the collected heap. */
GC_API int GC_CALL GC_is_heap_ptr(const void *);

/* Bytes usable in the object that starts at the given address. */
GC_API size_t GC_CALL GC_size(const void * /* obj_addr */) GC_ATTR_NONNULL(1);

/* realloc for collected objects; keeps the object kind. */
GC_API void * GC_CALL GC_realloc(void * /* old_object */,
                                 size_t /* new_size_in_bytes */)
                                 GC_ATTR_ALLOC_SIZE(2);

/* Grow the heap by the given bytes: 1 on success, 0 on failure. */
GC_API int GC_CALL GC_expand_hp(size_t /* number_of_bytes */);

/* Cap the heap size in bytes (0 = no limit). */
GC_API void GC_CALL GC_set_max_heap_size(GC_word /* n */);

/* ---- Roots ------------------------------------------------------------- */

/* Never scan this static range. */
GC_API void GC_CALL GC_exclude_static_roots(void * /* low_address */,
                                            void * /* high_address_plus_1 */);
/* Forget all exclusions. */
GC_API void GC_CALL GC_clear_exclusion_table(void);
/* Forget all registered root ranges. */
GC_API void GC_CALL GC_clear_roots(void);
/* Scan [low, high) as a root range. */
GC_API void GC_CALL GC_add_roots(void * /* low_address */,
                                 void * /* high_address_plus_1 */);
/* Drop root ranges lying entirely in [low, high). */
GC_API void GC_CALL GC_remove_roots(void * /* low_address */,
                                    void * /* high_address_plus_1 */);

/* Treat object-start + n as a valid pointer to an object (no-op when all */
/* interior pointers are recognized); the debug one is for debug objects. */
GC_API void GC_CALL GC_register_displacement(size_t /* n */);
GC_API void GC_CALL GC_debug_register_displacement(size_t /* n */);

/* ---- Collection -------------------------------------------------------- */

/* Full, world-stopped collection. */
GC_API void GC_CALL GC_gcollect(void);
/* Full collection that also returns as much memory as it can to the OS. */
GC_API void GC_CALL GC_gcollect_and_unmap(void);

/* Polled during a collection; nonzero aborts it. */
typedef int (GC_CALLBACK *GC_stop_func)(void);
/* Full collection abortable by stop_func: 1 if completed, 0 if not. */
GC_API int GC_CALL GC_try_to_collect(GC_stop_func /* stop_func */)
                                                        GC_ATTR_NONNULL(1);
/* Default stop function for collections. */
GC_API void GC_CALL GC_set_stop_func(GC_stop_func /* stop_func */)
                                                        GC_ATTR_NONNULL(1);
GC_API GC_stop_func GC_CALL GC_get_stop_func(void);

/* ---- Statistics -------------------------------------------------------- */

/* Unsynchronized heap counters, in bytes. */
GC_API size_t GC_CALL GC_get_heap_size(void);
GC_API size_t GC_CALL GC_get_free_bytes(void);
GC_API size_t GC_CALL GC_get_unmapped_bytes(void);
GC_API size_t GC_CALL GC_get_bytes_since_gc(void);
GC_API size_t GC_CALL GC_get_expl_freed_bytes_since_gc(void);
GC_API size_t GC_CALL GC_get_total_bytes(void);
GC_API size_t GC_CALL GC_get_obtained_from_os_bytes(void);

/* Consistent snapshot of five of the above; any argument may be NULL. */
GC_API void GC_CALL GC_get_heap_usage_safe(GC_word * /* pheap_size */,
                                           GC_word * /* pfree_bytes */,
                                           GC_word * /* punmapped_bytes */,
                                           GC_word * /* pbytes_since_gc */,
                                           GC_word * /* ptotal_bytes */);

/* Statistics snapshot; fields are only ever appended. */
struct GC_prof_stats_s {
  GC_word heapsize_full;                /* heap incl. unmapped         */
  GC_word free_bytes_full;              /* free incl. unmapped         */
  GC_word unmapped_bytes;
  GC_word bytes_allocd_since_gc;
  GC_word allocd_bytes_before_gc;
  GC_word non_gc_bytes;
  GC_word gc_no;
  GC_word markers_m1;                   /* parallel markers minus one  */
  GC_word bytes_reclaimed_since_gc;
  GC_word reclaimed_bytes_before_gc;
  GC_word expl_freed_bytes_since_gc;
  GC_word obtained_from_os_bytes;
};

/* Fill up to stats_sz bytes of *stats (unknown fields get -1); returns */
/* the number of bytes filled.  The _unsafe one takes no lock.          */
GC_API size_t GC_CALL GC_get_prof_stats(struct GC_prof_stats_s *,
                                        size_t /* stats_sz */);
#ifdef GC_THREADS
  GC_API size_t GC_CALL GC_get_prof_stats_unsafe(struct GC_prof_stats_s *,
                                                 size_t /* stats_sz */);
#endif

/* Actual allocation size for a request of i bytes, or -1 if out of range. */
GC_API size_t GC_CALL GC_get_size_map_at(int i);

/* Bytes in all allocated blocks. */
GC_API size_t GC_CALL GC_get_memory_use(void);

/* ---- Collection modes -------------------------------------------------- */

/* Nested disable/enable of collection. */
GC_API void GC_CALL GC_disable(void);
GC_API int GC_CALL GC_is_disabled(void);
GC_API void GC_CALL GC_enable(void);

/* Use client write barriers (GC_end_stubborn_change) for incremental mode. */
GC_API void GC_CALL GC_set_manual_vdb_allowed(int);
GC_API int GC_CALL GC_get_manual_vdb_allowed(void);

/* Switch to incremental/generational collection (initializes the GC). */
GC_API void GC_CALL GC_enable_incremental(void);
GC_API int GC_CALL GC_is_incremental_mode(void);

/* Bits returned by GC_incremental_protection_needs(). */
#define GC_PROTECTS_POINTER_HEAP  1
#define GC_PROTECTS_PTRFREE_HEAP  2
#define GC_PROTECTS_STATIC_DATA   4
#define GC_PROTECTS_STACK         8
#define GC_PROTECTS_NONE          0

/* Which memory incremental mode write-protects (GC_PROTECTS_* bits). */
GC_API int GC_CALL GC_incremental_protection_needs(void);

/* Begin an incremental cycle now (no-op unless incremental). */
GC_API void GC_CALL GC_start_incremental_collection(void);

/* Do a little collection work; 0 when there is nothing left to do. */
GC_API int GC_CALL GC_collect_a_little(void);

/* Large objects kept alive only by pointers into their first page. */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc_ignore_off_page(size_t /* lb */);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc_atomic_ignore_off_page(size_t /* lb */);

/* ---- Debug allocation -------------------------------------------------- */

/* Call-site arguments passed to the GC_debug_* allocators. */
#ifdef GC_ADD_CALLER
# define GC_EXTRAS GC_RETURN_ADDR, __FILE__, __LINE__
# define GC_EXTRA_PARAMS GC_word ra, const char * s, int i
#else
# define GC_EXTRAS __FILE__, __LINE__
# define GC_EXTRA_PARAMS const char * s, int i
#endif

/* Pointer-free object that is never collected. */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_malloc_atomic_uncollectable(size_t /* size_in_bytes */);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_debug_malloc_atomic_uncollectable(size_t, GC_EXTRA_PARAMS);

/* Debug versions of the allocators: record the call site, check for */
/* overwrites at collection time.                                     */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_debug_malloc(size_t /* size_in_bytes */, GC_EXTRA_PARAMS);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_debug_malloc_atomic(size_t /* size_in_bytes */, GC_EXTRA_PARAMS);
GC_API GC_ATTR_MALLOC char * GC_CALL
        GC_debug_strdup(const char *, GC_EXTRA_PARAMS);
GC_API GC_ATTR_MALLOC char * GC_CALL
        GC_debug_strndup(const char *, size_t, GC_EXTRA_PARAMS)
                                                        GC_ATTR_NONNULL(1);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_debug_malloc_uncollectable(size_t /* size_in_bytes */,
                                      GC_EXTRA_PARAMS);
GC_API GC_ATTR_DEPRECATED void * GC_CALL
        GC_debug_malloc_stubborn(size_t /* size_in_bytes */, GC_EXTRA_PARAMS);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_debug_malloc_ignore_off_page(size_t /* size_in_bytes */,
                                        GC_EXTRA_PARAMS);
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_debug_malloc_atomic_ignore_off_page(size_t /* size_in_bytes */,
                                               GC_EXTRA_PARAMS);
GC_API void GC_CALL GC_debug_free(void *);
GC_API void * GC_CALL GC_debug_realloc(void * /* old_object */,
                        size_t /* new_size_in_bytes */, GC_EXTRA_PARAMS)
                        GC_ATTR_ALLOC_SIZE(2);
GC_API GC_ATTR_DEPRECATED void GC_CALL GC_debug_change_stubborn(const void *);
GC_API void GC_CALL GC_debug_end_stubborn_change(const void *)
                                                        GC_ATTR_NONNULL(1);

/* Debug allocation with placeholder call-site data: usable in place of */
/* malloc/realloc.                                                      */
GC_API GC_ATTR_MALLOC GC_ATTR_ALLOC_SIZE(1) void * GC_CALL
        GC_debug_malloc_replacement(size_t /* size_in_bytes */);
GC_API GC_ATTR_ALLOC_SIZE(2) void * GC_CALL
        GC_debug_realloc_replacement(void * /* object_addr */,
                                     size_t /* size_in_bytes */);

/* ---- Allocation macros: debug or plain, selected by GC_DEBUG ----------- */

#ifdef GC_DEBUG_REPLACEMENT
# define GC_MALLOC(sz) GC_debug_malloc_replacement(sz)
# define GC_REALLOC(old, sz) GC_debug_realloc_replacement(old, sz)
#elif defined(GC_DEBUG)
# define GC_MALLOC(sz) GC_debug_malloc(sz, GC_EXTRAS)
# define GC_REALLOC(old, sz) GC_debug_realloc(old, sz, GC_EXTRAS)
#else
# define GC_MALLOC(sz) GC_malloc(sz)
# define GC_REALLOC(old, sz) GC_realloc(old, sz)
#endif

#ifdef GC_DEBUG
# define GC_MALLOC_ATOMIC(sz) GC_debug_malloc_atomic(sz, GC_EXTRAS)
# define GC_STRDUP(s) GC_debug_strdup(s, GC_EXTRAS)
# define GC_STRNDUP(s, sz) GC_debug_strndup(s, sz, GC_EXTRAS)
# define GC_MALLOC_ATOMIC_UNCOLLECTABLE(sz) \
        GC_debug_malloc_atomic_uncollectable(sz, GC_EXTRAS)
# define GC_MALLOC_UNCOLLECTABLE(sz) \
        GC_debug_malloc_uncollectable(sz, GC_EXTRAS)
# define GC_MALLOC_IGNORE_OFF_PAGE(sz) \
        GC_debug_malloc_ignore_off_page(sz, GC_EXTRAS)
# define GC_MALLOC_ATOMIC_IGNORE_OFF_PAGE(sz) \
        GC_debug_malloc_atomic_ignore_off_page(sz, GC_EXTRAS)
# define GC_FREE(p) GC_debug_free(p)
# define GC_REGISTER_FINALIZER(p, f, d, of, od) \
        GC_debug_register_finalizer(p, f, d, of, od)
# define GC_REGISTER_FINALIZER_IGNORE_SELF(p, f, d, of, od) \
        GC_debug_register_finalizer_ignore_self(p, f, d, of, od)
# define GC_REGISTER_FINALIZER_NO_ORDER(p, f, d, of, od) \
        GC_debug_register_finalizer_no_order(p, f, d, of, od)
# define GC_REGISTER_FINALIZER_UNREACHABLE(p, f, d, of, od) \
        GC_debug_register_finalizer_unreachable(p, f, d, of, od)
# define GC_END_STUBBORN_CHANGE(p) GC_debug_end_stubborn_change(p)
# define GC_PTR_STORE_AND_DIRTY(p, q) GC_debug_ptr_store_and_dirty(p, q)
  /* Debug objects carry a header: register links against the real base. */
# define GC_GENERAL_REGISTER_DISAPPEARING_LINK(link, obj) \
        GC_general_register_disappearing_link(link, GC_base((void *)(obj)))
# define GC_REGISTER_LONG_LINK(link, obj) \
        GC_register_long_link(link, GC_base((void *)(obj)))
# define GC_REGISTER_DISPLACEMENT(n) GC_debug_register_displacement(n)
#else
# define GC_MALLOC_ATOMIC(sz) GC_malloc_atomic(sz)
# define GC_STRDUP(s) GC_strdup(s)
# define GC_STRNDUP(s, sz) GC_strndup(s, sz)
# define GC_MALLOC_ATOMIC_UNCOLLECTABLE(sz) GC_malloc_atomic_uncollectable(sz)
# define GC_MALLOC_UNCOLLECTABLE(sz) GC_malloc_uncollectable(sz)
# define GC_MALLOC_IGNORE_OFF_PAGE(sz) GC_malloc_ignore_off_page(sz)
# define GC_MALLOC_ATOMIC_IGNORE_OFF_PAGE(sz) \
        GC_malloc_atomic_ignore_off_page(sz)
# define GC_FREE(p) GC_free(p)
# define GC_REGISTER_FINALIZER(p, f, d, of, od) \
        GC_register_finalizer(p, f, d, of, od)
# define GC_REGISTER_FINALIZER_IGNORE_SELF(p, f, d, of, od) \
        GC_register_finalizer_ignore_self(p, f, d, of, od)
# define GC_REGISTER_FINALIZER_NO_ORDER(p, f, d, of, od) \
        GC_register_finalizer_no_order(p, f, d, of, od)
# define GC_REGISTER_FINALIZER_UNREACHABLE(p, f, d, of, od) \
        GC_register_finalizer_unreachable(p, f, d, of, od)
# define GC_END_STUBBORN_CHANGE(p) GC_end_stubborn_change(p)
# define GC_PTR_STORE_AND_DIRTY(p, q) GC_ptr_store_and_dirty(p, q)
# define GC_GENERAL_REGISTER_DISAPPEARING_LINK(link, obj) \
        GC_general_register_disappearing_link(link, obj)
# define GC_REGISTER_LONG_LINK(link, obj) GC_register_long_link(link, obj)
# define GC_REGISTER_DISPLACEMENT(n) GC_register_displacement(n)
#endif /* !GC_DEBUG */

/* Typed allocation shorthands; like the functions they may return NULL. */
#define GC_NEW(t)               ((t*)GC_MALLOC(sizeof(t)))
#define GC_NEW_ATOMIC(t)        ((t*)GC_MALLOC_ATOMIC(sizeof(t)))
#define GC_NEW_UNCOLLECTABLE(t) ((t*)GC_MALLOC_UNCOLLECTABLE(sizeof(t)))

#ifdef GC_REQUIRE_WCSDUP
  /* Collectable wide-string copies (only in libraries built for them). */
  GC_API GC_ATTR_MALLOC wchar_t * GC_CALL
        GC_wcsdup(const wchar_t *) GC_ATTR_NONNULL(1);
  GC_API GC_ATTR_MALLOC wchar_t * GC_CALL
        GC_debug_wcsdup(const wchar_t *, GC_EXTRA_PARAMS) GC_ATTR_NONNULL(1);
# ifdef GC_DEBUG
#   define GC_WCSDUP(s) GC_debug_wcsdup(s, GC_EXTRAS)
# else
#   define GC_WCSDUP(s) GC_wcsdup(s)
# endif
#endif

/* ---- Finalization ------------------------------------------------------ */

/* Finalizer: called as fn(obj, client_data) once obj is unreachable. */
typedef void (GC_CALLBACK *GC_finalization_proc)(void * /* obj */,
                                                 void * /* client_data */);

/* Register (fn == 0: remove) the finalizer of obj; the previous finalizer */
/* and data are stored to *ofn / *ocd when those are non-NULL.  Ordering:  */
/* plain = topological; ignore_self = self-references do not count;        */
/* no_order = no ordering at all; unreachable = run only when obj is       */
/* unreachable also from objects with other finalizers (Java style).      */
GC_API void GC_CALL GC_register_finalizer(void * /* obj */,
                        GC_finalization_proc /* fn */, void * /* cd */,
                        GC_finalization_proc * /* ofn */, void ** /* ocd */)
                        GC_ATTR_NONNULL(1);
GC_API void GC_CALL GC_debug_register_finalizer(void * /* obj */,
                        GC_finalization_proc /* fn */, void * /* cd */,
                        GC_finalization_proc * /* ofn */, void ** /* ocd */)
                        GC_ATTR_NONNULL(1);
GC_API void GC_CALL GC_register_finalizer_ignore_self(void * /* obj */,
                        GC_finalization_proc /* fn */, void * /* cd */,
                        GC_finalization_proc * /* ofn */, void ** /* ocd */)
                        GC_ATTR_NONNULL(1);
GC_API void GC_CALL GC_debug_register_finalizer_ignore_self(void * /* obj */,
                        GC_finalization_proc /* fn */, void * /* cd */,
                        GC_finalization_proc * /* ofn */, void ** /* ocd */)
                        GC_ATTR_NONNULL(1);
GC_API void GC_CALL GC_register_finalizer_no_order(void * /* obj */,
                        GC_finalization_proc /* fn */, void * /* cd */,
                        GC_finalization_proc * /* ofn */, void ** /* ocd */)
                        GC_ATTR_NONNULL(1);
GC_API void GC_CALL GC_debug_register_finalizer_no_order(void * /* obj */,
                        GC_finalization_proc /* fn */, void * /* cd */,
                        GC_finalization_proc * /* ofn */, void ** /* ocd */)
                        GC_ATTR_NONNULL(1);
GC_API void GC_CALL GC_register_finalizer_unreachable(void * /* obj */,
                        GC_finalization_proc /* fn */, void * /* cd */,
                        GC_finalization_proc * /* ofn */, void ** /* ocd */)
                        GC_ATTR_NONNULL(1);
GC_API void GC_CALL GC_debug_register_finalizer_unreachable(void * /* obj */,
                        GC_finalization_proc /* fn */, void * /* cd */,
                        GC_finalization_proc * /* ofn */, void ** /* ocd */)
                        GC_ATTR_NONNULL(1);

/* ---- Weak links -------------------------------------------------------- */

/* Result codes of the registration functions. */
#define GC_SUCCESS 0
#define GC_DUPLICATE 1          /* already registered                 */
#define GC_NO_THREADS 2         /* obsolete, never returned            */
#define GC_NO_MEMORY 2          /* out of memory                       */
#define GC_UNIMPLEMENTED 3      /* not supported (e.g. in leak mode)   */
#define GC_NOT_FOUND 4          /* no such link                        */

/* Clear *link when the object containing link becomes unreachable. */
GC_API int GC_CALL GC_register_disappearing_link(void ** /* link */)
                        GC_ATTR_NONNULL(1);

/* Clear *link when obj becomes unreachable (before finalization). */
GC_API int GC_CALL GC_general_register_disappearing_link(void ** /* link */,
                                                    const void * /* obj */)
                        GC_ATTR_NONNULL(1) GC_ATTR_NONNULL(2);

/* Move a registered link to new_link; GC_NOT_FOUND if none at link. */
GC_API int GC_CALL GC_move_disappearing_link(void ** /* link */,
                                             void ** /* new_link */)
                        GC_ATTR_NONNULL(2);

/* Cancel a registration: 1 if there was one, 0 if not. */
GC_API int GC_CALL GC_unregister_disappearing_link(void ** /* link */);

/* Long weak links: cleared only once obj cannot be resurrected. */
GC_API int GC_CALL GC_register_long_link(void ** /* link */,
                                         const void * /* obj */)
                        GC_ATTR_NONNULL(1) GC_ATTR_NONNULL(2);
GC_API int GC_CALL GC_move_long_link(void ** /* link */,
                                     void ** /* new_link */)
                        GC_ATTR_NONNULL(2);
GC_API int GC_CALL GC_unregister_long_link(void ** /* link */);

/* Toggle references: the callback decides per object whether the */
/* collector holds it strongly, weakly, or forgets it.             */
typedef enum {
  GC_TOGGLE_REF_DROP,
  GC_TOGGLE_REF_STRONG,
  GC_TOGGLE_REF_WEAK
} GC_ToggleRefStatus;

typedef GC_ToggleRefStatus (GC_CALLBACK *GC_toggleref_func)(void * /* obj */);
GC_API void GC_CALL GC_set_toggleref_func(GC_toggleref_func);
GC_API GC_toggleref_func GC_CALL GC_get_toggleref_func(void);
/* Register obj for toggle-ref processing (GC_SUCCESS or GC_NO_MEMORY). */
GC_API int GC_CALL GC_toggleref_add(void * /* obj */, int /* is_strong */)
                        GC_ATTR_NONNULL(1);

/* Called (lock held) for every object queued for finalization; 0 = none. */
typedef void (GC_CALLBACK *GC_await_finalize_proc)(void * /* obj */);
GC_API void GC_CALL GC_set_await_finalize_proc(GC_await_finalize_proc);
GC_API GC_await_finalize_proc GC_CALL GC_get_await_finalize_proc(void);

/* Nonzero if finalizers are waiting to run. */
GC_API int GC_CALL GC_should_invoke_finalizers(void);
/* Run all ready finalizers; returns how many ran. */
GC_API int GC_CALL GC_invoke_finalizers(void);

/* Keep ptr alive (visible to the collector) up to this point. */
#define GC_reachable_here(ptr) \
        __asm__ __volatile__ (" " : : "X"(ptr) : "memory")
/* An opaque no-op taking a word (defeats optimization of its argument). */
GC_API void GC_CALL GC_noop1(GC_word);

/* ---- Diagnostics ------------------------------------------------------- */

/* Warning sink: printf-style message with one word argument. */
typedef void (GC_CALLBACK *GC_warn_proc)(char * /* msg */, GC_word /* arg */);
GC_API void GC_CALL GC_set_warn_proc(GC_warn_proc /* p */) GC_ATTR_NONNULL(1);
GC_API GC_warn_proc GC_CALL GC_get_warn_proc(void);
/* A warn proc that drops warnings. */
GC_API void GC_CALLBACK GC_ignore_warn_proc(char *, GC_word);

/* File descriptor for the collector's log output. */
GC_API void GC_CALL GC_set_log_fd(int);

/* Called on fatal errors before aborting (msg is NULL before exit(1)). */
typedef void (GC_CALLBACK *GC_abort_func)(const char * /* msg */);
GC_API void GC_CALL GC_set_abort_func(GC_abort_func) GC_ATTR_NONNULL(1);
GC_API GC_abort_func GC_CALL GC_get_abort_func(void);

/* Report that memory ran out, then abort. */
GC_API void GC_CALL GC_abort_on_oom(void);

/* ---- Hidden pointers --------------------------------------------------- */

/* A pointer disguised so that the collector does not see it. */
typedef GC_word GC_hidden_pointer;
#define GC_HIDE_POINTER(p) (~(GC_hidden_pointer)(p))
#define GC_REVEAL_POINTER(p) ((void *)GC_HIDE_POINTER(p))
#if defined(I_HIDE_POINTERS) || defined(GC_I_HIDE_POINTERS)
# define HIDE_POINTER(p) GC_HIDE_POINTER(p)
# define REVEAL_POINTER(p) GC_REVEAL_POINTER(p)
#endif

/* ---- Locking and threads ----------------------------------------------- */

/* The (non-recursive) allocator lock; no-ops in single-threaded builds. */
#ifdef GC_THREADS
  GC_API void GC_CALL GC_alloc_lock(void);
  GC_API void GC_CALL GC_alloc_unlock(void);
#else
# define GC_alloc_lock() (void)0
# define GC_alloc_unlock() (void)0
#endif

/* Run fn(client_data) with the allocator lock held; returns its result. */
typedef void * (GC_CALLBACK *GC_fn_type)(void * /* client_data */);
GC_API void * GC_CALL GC_call_with_alloc_lock(GC_fn_type /* fn */,
                                void * /* client_data */) GC_ATTR_NONNULL(1);

/* Where a thread's stack begins (the end holding its oldest frame). */
struct GC_stack_base {
  void *mem_base;
};

/* Run fn with a stack base inside the GC_call_with_stack_base frame. */
typedef void * (GC_CALLBACK *GC_stack_base_func)(
                        struct GC_stack_base * /* sb */, void * /* arg */);
GC_API void * GC_CALL GC_call_with_stack_base(GC_stack_base_func /* fn */,
                                void * /* arg */) GC_ATTR_NONNULL(1);

/* Launch the parallel marker threads, if the library has them. */
GC_API void GC_CALL GC_start_mark_threads(void);

#ifdef GC_THREADS
  /* Choose the signals used to suspend/resume threads (before GC_init). */
  GC_API void GC_CALL GC_set_suspend_signal(int);
  GC_API void GC_CALL GC_set_thr_restart_signal(int);
  /* Signals actually used to suspend/resume threads. */
  GC_API int GC_CALL GC_get_suspend_signal(void);
  GC_API int GC_CALL GC_get_thr_restart_signal(void);

  /* Allow GC_register_my_thread() (call from a registered thread). */
  GC_API void GC_CALL GC_allow_register_threads(void);
  /* Register the calling thread with its stack bottom: GC_SUCCESS, or */
  /* GC_DUPLICATE if already registered.                               */
  GC_API int GC_CALL GC_register_my_thread(const struct GC_stack_base *)
                        GC_ATTR_NONNULL(1);
  /* Nonzero when the caller is a registered thread. */
  GC_API int GC_CALL GC_thread_is_registered(void);
  /* Describe the calling thread's stack and signal alt-stack. */
  GC_API void GC_CALL GC_register_altstack(void * /* stack_start */,
                                           GC_word /* stack_size */,
                                           void * /* altstack_base */,
                                           GC_word /* altstack_size */);
  /* Unregister a thread registered with GC_register_my_thread. */
  GC_API int GC_CALL GC_unregister_my_thread(void);

  /* Stop/restart all other registered threads. */
  GC_API void GC_CALL GC_stop_world_external(void);
  GC_API void GC_CALL GC_start_world_external(void);
#endif /* GC_THREADS */

/* Run fn in "inactive" state: this frame and its callees are not scanned */
/* and the thread is not stopped; fn must not touch the GC heap.           */
GC_API void * GC_CALL GC_do_blocking(GC_fn_type /* fn */,
                                void * /* client_data */) GC_ATTR_NONNULL(1);
/* Run fn in "active" state (inverse of GC_do_blocking). */
GC_API void * GC_CALL GC_call_with_gc_active(GC_fn_type /* fn */,
                                void * /* client_data */) GC_ATTR_NONNULL(1);

/* Find the calling thread's stack bottom: GC_SUCCESS or GC_UNIMPLEMENTED. */
GC_API int GC_CALL GC_get_stack_base(struct GC_stack_base *)
                        GC_ATTR_NONNULL(1);
/* Stack bottom the collector uses for the calling thread; returns a */
/* handle for GC_set_stackbottom.                                    */
GC_API void * GC_CALL GC_get_my_stackbottom(struct GC_stack_base *)
                        GC_ATTR_NONNULL(1);
/* Change the stack bottom of a thread (handle, or NULL = current). */
GC_API void GC_CALL GC_set_stackbottom(void * /* gc_thread_handle */,
                                       const struct GC_stack_base *)
                        GC_ATTR_NONNULL(2);

/* ---- Pointer checking -------------------------------------------------- */

/* Fails loudly unless p and q lie in one object; returns p. */
GC_API void * GC_CALL GC_same_obj(void * /* p */, void * /* q */);
/* Checked *p += how_much (in bytes): the new and the old value. */
GC_API void * GC_CALL GC_pre_incr(void **, ptrdiff_t /* how_much */)
                        GC_ATTR_NONNULL(1);
GC_API void * GC_CALL GC_post_incr(void **, ptrdiff_t /* how_much */)
                        GC_ATTR_NONNULL(1);
/* Check that p is a location the collector scans; returns p. */
GC_API void * GC_CALL GC_is_visible(void * /* p */);
/* Check that p is a valid displacement into a heap object; returns p. */
GC_API void * GC_CALL GC_is_valid_displacement(void * /* p */);

/* Print the collector state, regions, or finalization tables. */
GC_API void GC_CALL GC_dump(void);
GC_API void GC_CALL GC_dump_named(const char * /* name */);
GC_API void GC_CALL GC_dump_regions(void);
GC_API void GC_CALL GC_dump_finalization(void);

/* Checked pointer arithmetic with GC_DEBUG (x is evaluated twice). */
#ifdef GC_DEBUG
# define GC_PTR_ADD3(x, n, type_of_result) \
        ((type_of_result)GC_same_obj((x)+(n), (x)))
# define GC_PRE_INCR3(x, n, type_of_result) \
        ((type_of_result)GC_pre_incr((void **)(&(x)), (n)*sizeof(*x)))
# define GC_POST_INCR3(x, n, type_of_result) \
        ((type_of_result)GC_post_incr((void **)(&(x)), (n)*sizeof(*x)))
# define GC_PTR_ADD(x, n) GC_PTR_ADD3(x, n, __typeof__(x))
# define GC_PRE_INCR(x, n) GC_PRE_INCR3(x, n, __typeof__(x))
# define GC_POST_INCR(x) GC_POST_INCR3(x, 1, __typeof__(x))
# define GC_POST_DECR(x) GC_POST_INCR3(x, -1, __typeof__(x))
#else
# define GC_PTR_ADD(x, n) ((x)+(n))
# define GC_PRE_INCR(x, n) ((x) += (n))
# define GC_POST_INCR(x) ((x)++)
# define GC_POST_DECR(x) ((x)--)
#endif

/* *p = q, checked with GC_DEBUG. */
#ifdef GC_DEBUG
# define GC_PTR_STORE(p, q) \
        (*(void **)GC_is_visible((void *)(p)) = \
                GC_is_valid_displacement((void *)(q)))
#else
# define GC_PTR_STORE(p, q) (*(void **)(p) = (void *)(q))
#endif

/* *p = q followed by the write barrier for p and keeping q alive. */
GC_API void GC_CALL GC_ptr_store_and_dirty(void * /* p */,
                                           const void * /* q */);
GC_API void GC_CALL GC_debug_ptr_store_and_dirty(void * /* p */,
                                                 const void * /* q */);

/* Error reporters of the checks above (replaceable). */
GC_API void (GC_CALLBACK *GC_same_obj_print_proc)(void * /* p */,
                                                  void * /* q */);
GC_API void (GC_CALLBACK *GC_is_valid_displacement_print_proc)(void *);
GC_API void (GC_CALLBACK *GC_is_visible_print_proc)(void *);

/* ---- Misc -------------------------------------------------------------- */

/* Several objects of size lb, chained through their first word. */
GC_API GC_ATTR_MALLOC void * GC_CALL GC_malloc_many(size_t /* lb */);
#define GC_NEXT(p) (*(void * *)(p))     /* next object in such a chain */

/* Filter for shared-library data sections: nonzero = scan the section. */
typedef int (GC_CALLBACK *GC_has_static_roots_func)(
                                        const char * /* dlpi_name */,
                                        void * /* section_start */,
                                        size_t /* section_size */);
GC_API void GC_CALL GC_register_has_static_roots_callback(
                                        GC_has_static_roots_func);

/* Make explicit collections give the most memory they can back to the OS. */
GC_API void GC_CALL GC_set_force_unmap_on_gcollect(int);
GC_API int GC_CALL GC_get_force_unmap_on_gcollect(void);

/* ---- GC_INIT ----------------------------------------------------------- */
/* GC_INIT() applies the compile-time settings below (each only if the  */
/* macro is defined by the client), then calls GC_init().               */

#define GC_INIT_CONF_ROOTS

#ifdef GC_DONT_EXPAND
# define GC_INIT_CONF_DONT_EXPAND GC_set_dont_expand(1)
#else
# define GC_INIT_CONF_DONT_EXPAND
#endif

#ifdef GC_FORCE_UNMAP_ON_GCOLLECT
# define GC_INIT_CONF_FORCE_UNMAP_ON_GCOLLECT \
        GC_set_force_unmap_on_gcollect(1)
#else
# define GC_INIT_CONF_FORCE_UNMAP_ON_GCOLLECT
#endif

#ifdef GC_DONT_GC
# define GC_INIT_CONF_MAX_RETRIES (void)(GC_dont_gc = 1)
#elif defined(GC_MAX_RETRIES)
# define GC_INIT_CONF_MAX_RETRIES GC_set_max_retries(GC_MAX_RETRIES)
#else
# define GC_INIT_CONF_MAX_RETRIES
#endif

#ifdef GC_ALLOCD_BYTES_PER_FINALIZER
# define GC_INIT_CONF_ALLOCD_BYTES_PER_FINALIZER \
        GC_set_allocd_bytes_per_finalizer(GC_ALLOCD_BYTES_PER_FINALIZER)
#else
# define GC_INIT_CONF_ALLOCD_BYTES_PER_FINALIZER
#endif

#ifdef GC_FREE_SPACE_DIVISOR
# define GC_INIT_CONF_FREE_SPACE_DIVISOR \
        GC_set_free_space_divisor(GC_FREE_SPACE_DIVISOR)
#else
# define GC_INIT_CONF_FREE_SPACE_DIVISOR
#endif

#ifdef GC_FULL_FREQ
# define GC_INIT_CONF_FULL_FREQ GC_set_full_freq(GC_FULL_FREQ)
#else
# define GC_INIT_CONF_FULL_FREQ
#endif

#ifdef GC_TIME_LIMIT
# define GC_INIT_CONF_TIME_LIMIT GC_set_time_limit(GC_TIME_LIMIT)
#else
# define GC_INIT_CONF_TIME_LIMIT
#endif

#if defined(GC_MARKERS) && defined(GC_THREADS)
# define GC_INIT_CONF_MARKERS GC_set_markers_count(GC_MARKERS)
#else
# define GC_INIT_CONF_MARKERS
#endif

#if defined(GC_SIG_SUSPEND) && defined(GC_THREADS)
# define GC_INIT_CONF_SUSPEND_SIGNAL GC_set_suspend_signal(GC_SIG_SUSPEND)
#else
# define GC_INIT_CONF_SUSPEND_SIGNAL
#endif

#if defined(GC_SIG_THR_RESTART) && defined(GC_THREADS)
# define GC_INIT_CONF_THR_RESTART_SIGNAL \
        GC_set_thr_restart_signal(GC_SIG_THR_RESTART)
#else
# define GC_INIT_CONF_THR_RESTART_SIGNAL
#endif

#ifdef GC_MAXIMUM_HEAP_SIZE
# define GC_INIT_CONF_MAXIMUM_HEAP_SIZE \
        GC_set_max_heap_size(GC_MAXIMUM_HEAP_SIZE)
#else
# define GC_INIT_CONF_MAXIMUM_HEAP_SIZE
#endif

#ifdef GC_IGNORE_WARN
# define GC_INIT_CONF_IGNORE_WARN GC_set_warn_proc(GC_ignore_warn_proc)
#else
# define GC_INIT_CONF_IGNORE_WARN
#endif

#ifdef GC_INITIAL_HEAP_SIZE
# define GC_INIT_CONF_INITIAL_HEAP_SIZE \
        { size_t heap_size = GC_get_heap_size(); \
          if (heap_size < (GC_INITIAL_HEAP_SIZE)) \
            (void)GC_expand_hp((GC_INITIAL_HEAP_SIZE) - heap_size); }
#else
# define GC_INIT_CONF_INITIAL_HEAP_SIZE
#endif

/* Call first, from the main thread; calling it again is harmless. */
#define GC_INIT() { GC_INIT_CONF_DONT_EXPAND; \
                    GC_INIT_CONF_FORCE_UNMAP_ON_GCOLLECT; \
                    GC_INIT_CONF_MAX_RETRIES; \
                    GC_INIT_CONF_ALLOCD_BYTES_PER_FINALIZER; \
                    GC_INIT_CONF_FREE_SPACE_DIVISOR; \
                    GC_INIT_CONF_FULL_FREQ; \
                    GC_INIT_CONF_TIME_LIMIT; \
                    GC_INIT_CONF_MARKERS; \
                    GC_INIT_CONF_SUSPEND_SIGNAL; \
                    GC_INIT_CONF_THR_RESTART_SIGNAL; \
                    GC_INIT_CONF_MAXIMUM_HEAP_SIZE; \
                    GC_init(); \
                    GC_INIT_CONF_ROOTS; \
                    GC_INIT_CONF_IGNORE_WARN; \
                    GC_INIT_CONF_INITIAL_HEAP_SIZE; }

#ifdef __cplusplus
  } /* extern "C" */
#endif

/* With threads, pthread_create and friends are routed through the GC. */
#ifdef GC_PTHREADS
# include "gc_pthread_redirects.h"
#endif

#endif /* GC_H */
