/* lock_held_calls.c: every function that gc.h and gc_mark.h document as
 * called with the allocation lock held, as not acquiring it (the
 * "unsynchronized" getters and setters, the "_unsafe" and "_inner"
 * variants, GC_dump_named), or, like GC_set_stackbottom, as to be called
 * from GC_call_with_alloc_lock, is called from inside a
 * GC_call_with_alloc_lock callback, while another registered thread
 * allocates. The lock is not recursive: a function that takes it there
 * deadlocks, and the watchdog fails the test naming the call. (javaxfc.h
 * documents only functions that acquire the lock.)
 * GC_get_my_stackbottom, which bdwgc documents as acquiring the lock,
 * works there with bibop (it reads only the calling thread's own record);
 * with argument "stock" that call is left out. */
#define _GNU_SOURCE
#include <gc.h>
#include <gc/gc_mark.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "tcommon.h"

static bool g_stock;
static atomic_int g_stop;
static void **g_live;       /* an object the mark-bit calls work on (a root) */

#define CALL(call)                                                              \
    do {                                                                        \
        t_stage = #call;                                                        \
        call;                                                                   \
    } while (0)
/* A setter given what its getter says: both are called, nothing changes. */
#define CALL_KEEP(setting) CALL(GC_set_##setting(GC_get_##setting()))

static void count_object(void *obj, size_t bytes, void *cd)
{
    (void)obj, (void)bytes;
    ++*(size_t *)cd;
}

static struct GC_ms_entry *no_mark(GC_word *addr, struct GC_ms_entry *top, struct GC_ms_entry *lim,
                                   GC_word env)
{
    (void)addr, (void)lim, (void)env;
    return top;
}

static void *inside_lock(void *arg)
{
    (void)arg;
    /* gc.h: unsynchronized getters and setters. */
    CALL((void)GC_get_gc_no());
    CALL((void)GC_get_parallel());
    CALL(GC_set_markers_count(0));   /* no effect after initialisation */
    CALL((void)GC_get_find_leak());
    CALL((void)GC_get_all_interior_pointers());
    CALL_KEEP(finalize_on_demand);
    CALL_KEEP(java_finalization);
    CALL_KEEP(dont_expand);
    CALL_KEEP(full_freq);
    CALL_KEEP(non_gc_bytes);
    CALL_KEEP(no_dls);
    CALL_KEEP(free_space_divisor);
    CALL_KEEP(max_retries);
    CALL_KEEP(dont_precollect);
    CALL_KEEP(time_limit);
    CALL_KEEP(time_limit_tv);
    CALL_KEEP(allocd_bytes_per_finalizer);
    CALL(GC_start_performance_measurement());
    CALL((void)GC_get_full_gc_total_time());
    CALL((void)GC_get_pages_executable());
    CALL((void)GC_get_min_bytes_allocd());
    CALL_KEEP(rate);
    CALL_KEEP(max_prior_attempts);
    CALL(GC_set_max_heap_size(0));   /* 0: unbounded, the default */
    CALL((void)GC_get_heap_size());
    CALL((void)GC_get_free_bytes());
    CALL((void)GC_get_unmapped_bytes());
    CALL((void)GC_get_bytes_since_gc());
    CALL((void)GC_get_expl_freed_bytes_since_gc());
    CALL((void)GC_get_total_bytes());
    CALL((void)GC_get_obtained_from_os_bytes());
    struct GC_prof_stats_s stats;
    CALL(TCHECK(GC_get_prof_stats_unsafe(&stats, sizeof stats) == sizeof stats,
                "GC_get_prof_stats_unsafe filled less than asked"));
    CALL((void)GC_get_size_map_at(16));
    CALL((void)GC_is_disabled());
    CALL((void)GC_is_incremental_mode());
    CALL_KEEP(manual_vdb_allowed);
    CALL((void)GC_should_invoke_finalizers());
    CALL_KEEP(force_unmap_on_gcollect);
    CALL(GC_dump_named("lock_held_calls: inside GC_call_with_alloc_lock"));

    /* gc.h: the stack bottom, "the caller should hold the GC lock". */
    struct GC_stack_base sb;
    void *handle = NULL;
    if (!g_stock) {
        CALL(handle = GC_get_my_stackbottom(&sb));
        TCHECK(handle != NULL && sb.mem_base != NULL, "GC_get_my_stackbottom failed");
        CALL(GC_set_stackbottom(NULL, &sb));
        CALL(GC_set_stackbottom(handle, &sb));
    }

    /* gc_mark.h: the _inner versions, mark bits, the heap walk. */
    void **fl;
    CALL(fl = GC_new_free_list_inner());
    TCHECK(fl != NULL, "GC_new_free_list_inner returned NULL");
    CALL((void)GC_new_kind_inner(fl, GC_DS_LENGTH, 1, 1));
    CALL((void)GC_new_proc_inner(no_mark));
    CALL_KEEP(push_other_roots);
    CALL(GC_set_mark_bit(g_live));
    CALL(TCHECK(GC_is_marked(g_live), "GC_is_marked after GC_set_mark_bit"));
    CALL(GC_clear_mark_bit(g_live));
    CALL(TCHECK(!GC_is_marked(g_live), "GC_is_marked after GC_clear_mark_bit"));
    CALL(GC_set_mark_bit(g_live));   /* it is in use */
    size_t objects = 0;
    CALL(GC_enumerate_reachable_objects_inner(count_object, &objects));
    TCHECK(objects > 0, "GC_enumerate_reachable_objects_inner visited nothing");
    t_stage = "leaving the callback";
    return (void *)1;
}

static void *allocator(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_stop)) {
        tcell_t *l;
        TLIST_BUILD(l, 200, 3);
        tlist_verify(l, 200, 3, "allocating thread");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    g_stock = argc > 1 && strcmp(argv[1], "stock") == 0;
    GC_INIT();
    t_watchdog(200);
    g_live = GC_MALLOC(4 * sizeof(void *));
    TCHECK(g_live != NULL, "GC_MALLOC");
    pthread_t t;
    TCHECK(pthread_create(&t, NULL, allocator, NULL) == 0, "pthread_create");
    for (int round = 0; round < 3; round++) {
        TCHECK(GC_call_with_alloc_lock(inside_lock, NULL) == (void *)1, "callback result");
        t_stage = "collecting between rounds";
        GC_gcollect();
    }
    atomic_store(&g_stop, 1);
    TCHECK(pthread_join(t, NULL) == 0, "pthread_join");
    printf("lock_held_calls: every call returned inside GC_call_with_alloc_lock\n");
    return 0;
}
