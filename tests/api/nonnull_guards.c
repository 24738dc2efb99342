/* nonnull_guards.c: NULL where gc.h declares a parameter GC_ATTR_NONNULL
 * (issue #15, item 8). The attribute is a hint to clients' compilers; the
 * library must still survive the call. In the Release build (-O2) gcc used
 * to delete bibop's guards on such parameters, because the definitions saw
 * the attribute too: GC_register_finalizer(NULL, fn, ...) then registered a
 * finalizer that ran with NULL, and GC_move_disappearing_link(link, NULL)
 * made the next collection write through NULL.
 *
 * Checked: every GC_register_finalizer variant (plain and debug) on NULL
 * reports no old finalizer and its finalizer never runs, with NULL or at
 * all; GC_toggleref_add(NULL) never reaches the callback with NULL; links
 * cannot be registered at or moved to NULL, nor made to follow NULL; and
 * each of the other calls with a NULL the headers forbid returns without
 * crashing (NULL or an error where there is a result; setters of callbacks
 * keep a callable default). bibop only: stock libgc1 asserts or crashes on
 * several of these. NULL reaches the calls through a volatile, so that the
 * test's own compiler neither warns nor folds anything. */
#define GC_REQUIRE_WCSDUP 1
#define GC_THREADS 1   /* GC_register_my_thread */
#include "check.h"

#include <gc.h>
#include <gc/gc_disclaim.h>
#include <gc/gc_mark.h>

static void *volatile null_object;          /* NULL, opaque to the optimizer */
static void **volatile null_link;
static volatile GC_fn_type null_fn;
static volatile GC_stack_base_func null_stack_fn;
static volatile GC_warn_proc null_warn_proc;
static volatile GC_abort_func null_abort_func;
static volatile GC_oom_func null_oom_fn;
static volatile GC_stop_func null_stop_func;

static unsigned finalizer_calls, finalizer_null_calls;

static void GC_CALLBACK count_finalizer(void *obj, void *cd)
{
    (void)cd;
    finalizer_calls++;
    if (!obj) finalizer_null_calls++;
}

typedef void (*register_fn)(void *, GC_finalization_proc, void *, GC_finalization_proc *,
                            void **);

static void finalizers_on_null(void)
{
    static const struct { const char *name; register_fn fn; } variants[] = {
        { "GC_register_finalizer", GC_register_finalizer },
        { "GC_register_finalizer_ignore_self", GC_register_finalizer_ignore_self },
        { "GC_register_finalizer_no_order", GC_register_finalizer_no_order },
        { "GC_register_finalizer_unreachable", GC_register_finalizer_unreachable },
        { "GC_debug_register_finalizer", GC_debug_register_finalizer },
        { "GC_debug_register_finalizer_ignore_self", GC_debug_register_finalizer_ignore_self },
        { "GC_debug_register_finalizer_no_order", GC_debug_register_finalizer_no_order },
        { "GC_debug_register_finalizer_unreachable", GC_debug_register_finalizer_unreachable },
    };
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        GC_finalization_proc ofn = count_finalizer;
        void *ocd = &ofn;
        variants[i].fn(null_object, count_finalizer, NULL, &ofn, &ocd);
        CHECKF(ofn == NULL && ocd == NULL, "%s(NULL) reported an old finalizer",
               variants[i].name);
        /* Twice: a second registration must not find a first one either. */
        variants[i].fn(null_object, count_finalizer, NULL, &ofn, &ocd);
        CHECKF(ofn == NULL && ocd == NULL, "a second %s(NULL) found the first",
               variants[i].name);
    }
    for (int i = 0; i < 3; i++) GC_gcollect();
    GC_invoke_finalizers();
    CHECKF(finalizer_null_calls == 0, "a finalizer registered on NULL ran with NULL %u times",
           finalizer_null_calls);
    CHECKF(finalizer_calls == 0, "a finalizer registered on NULL ran %u times", finalizer_calls);
    printf("finalizers: registrations on NULL ignored\n");
}

static unsigned toggle_null_calls;

static GC_ToggleRefStatus GC_CALLBACK toggle_callback(void *obj)
{
    if (!obj) toggle_null_calls++;
    return GC_TOGGLE_REF_STRONG;
}

static void toggleref_on_null(void)
{
    GC_set_toggleref_func(toggle_callback);
    (void)GC_toggleref_add(null_object, 1);
    (void)GC_toggleref_add(null_object, 0);
    for (int i = 0; i < 2; i++) GC_gcollect();
    CHECKF(toggle_null_calls == 0, "the toggle-ref callback got NULL %u times", toggle_null_calls);
    GC_set_toggleref_func(NULL);
    printf("toggle refs: NULL never reaches the callback\n");
}

static void **link_slots;   /* pointer-free: the links themselves */

static NOINLINE void make_link_target(void)
{
    link_slots[0] = GC_malloc(32);
    link_slots[1] = link_slots[0];
    CHECK(GC_general_register_disappearing_link(&link_slots[0], link_slots[0]) == GC_SUCCESS);
    CHECK(GC_register_long_link(&link_slots[1], link_slots[1]) == GC_SUCCESS);
}

static void links_and_null(void)
{
    link_slots = GC_malloc_atomic(4 * sizeof *link_slots);
    CHECK(link_slots != NULL);
    link_slots[2] = (void *)(uintptr_t)0x1230;   /* not a pointer to anything */
    CHECK(GC_register_disappearing_link(null_link) != GC_SUCCESS);
    CHECK(GC_general_register_disappearing_link(null_link, link_slots) != GC_SUCCESS);
    CHECK(GC_register_long_link(null_link, link_slots) != GC_SUCCESS);
    CHECK(GC_general_register_disappearing_link(&link_slots[2], null_object) != GC_SUCCESS);
    CHECK(GC_register_long_link(&link_slots[2], null_object) != GC_SUCCESS);
    CHECK(GC_unregister_disappearing_link(null_link) == 0);
    CHECK(GC_unregister_long_link(null_link) == 0);
    make_link_target();
    CHECK(GC_move_disappearing_link(&link_slots[0], null_link) != GC_SUCCESS);
    CHECK(GC_move_long_link(&link_slots[1], null_link) != GC_SUCCESS);
    CHECK(GC_move_disappearing_link(null_link, &link_slots[3]) != GC_SUCCESS);
    CHECK(GC_move_long_link(null_link, &link_slots[3]) != GC_SUCCESS);
    /* The target is dropped: the links, still where they were, are cleared;
       nothing was registered to follow NULL, so the unrelated word stays. */
    for (int i = 0; i < 4 && (link_slots[0] || link_slots[1]); i++) {
        clear_stack();
        GC_gcollect();
    }
    CHECK(link_slots[0] == NULL && link_slots[1] == NULL);
    CHECK(link_slots[2] == (void *)(uintptr_t)0x1230);
    printf("links: none at NULL, none moved to NULL, none following NULL\n");
}

static void *GC_CALLBACK alloc_some(void *cd)
{
    (void)cd;
    return NULL;
}

static void GC_CALLBACK ignore_warning(char *msg, GC_word arg)
{
    (void)msg;
    (void)arg;
}

static void other_calls(void)
{
    /* Setters of callbacks: NULL leaves a callable default. */
    GC_set_warn_proc(null_warn_proc);
    CHECK(GC_get_warn_proc() != NULL);
    GC_register_displacement(1 << 20);   /* too large: a warning through the proc */
    GC_set_warn_proc(ignore_warning);
    GC_set_abort_func(null_abort_func);
    CHECK(GC_get_abort_func() != NULL);
    GC_set_oom_fn(null_oom_fn);
    CHECK(GC_get_oom_fn() != NULL);
    GC_set_max_heap_size(64 << 20);
    CHECK(GC_malloc((size_t)1 << 30) == NULL);   /* out of memory: the default oom_fn */
    GC_set_max_heap_size(~(GC_word)0);
    GC_set_stop_func(null_stop_func);
    CHECK(GC_try_to_collect(null_stop_func) != 0 || GC_is_disabled());

    /* Calls that run a function. */
    CHECK(GC_call_with_alloc_lock(null_fn, NULL) == NULL);
    CHECK(GC_call_with_stack_base(null_stack_fn, NULL) == NULL);
    CHECK(GC_do_blocking(null_fn, NULL) == NULL);
    CHECK(GC_call_with_gc_active(null_fn, NULL) == NULL);
    CHECK(GC_call_with_alloc_lock(alloc_some, NULL) == NULL);

    /* Stack bases and threads. */
    CHECK(GC_get_stack_base((struct GC_stack_base *)null_object) != GC_SUCCESS);
    (void)GC_get_my_stackbottom((struct GC_stack_base *)null_object);
    GC_set_stackbottom(NULL, (const struct GC_stack_base *)null_object);
    CHECK(GC_register_my_thread((const struct GC_stack_base *)null_object) != GC_SUCCESS);

    /* Pointers, strings, sizes. */
    CHECK(GC_pre_incr(null_link, 16) == NULL);
    CHECK(GC_post_incr(null_link, 16) == NULL);
    CHECK(GC_posix_memalign(null_link, 64, 100) != 0);
    CHECK(GC_strndup((const char *)null_object, 5) == NULL);
    CHECK(GC_debug_strndup((const char *)null_object, 5, __FILE__, __LINE__) == NULL);
    CHECK(GC_wcsdup((const wchar_t *)null_object) == NULL);
    CHECK(GC_debug_wcsdup((const wchar_t *)null_object, __FILE__, __LINE__) == NULL);
    CHECK(GC_size(null_object) == 0);
    GC_end_stubborn_change(null_object);
    GC_debug_end_stubborn_change(null_object);
    size_t size = 1;
    (void)GC_get_kind_and_size(null_object, &size);
    CHECK(size == 0);

    /* Mark bits (the lock held, as gc_mark.h asks). */
    GC_call_with_alloc_lock(alloc_some, NULL);
    CHECK(GC_is_marked(null_object) == 0);
    GC_set_mark_bit(null_object);
    GC_clear_mark_bit(null_object);
    printf("other calls: NULL arguments survived\n");
}

static void *GC_CALLBACK enumerate_with_null(void *cd)
{
    (void)cd;
    GC_enumerate_reachable_objects_inner((GC_reachable_object_proc)null_object, NULL);
    return NULL;
}

static NOINLINE void allocate_kind_objects(int kind, unsigned n)
{
    for (unsigned i = 0; i < n; i++) CHECK(GC_generic_malloc(48, kind) != NULL);
}

static NOINLINE void allocate_finalized(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        CHECK(GC_finalized_malloc(40, (const struct GC_finalizer_closure *)null_object) != NULL);
}

static void kinds_and_disclaim(void)
{
    int kind = (int)GC_new_kind((void **)null_object, GC_DS_LENGTH, 1, 1);
    GC_register_disclaim_proc(kind, (GC_disclaim_proc)null_object, 0);
    allocate_kind_objects(kind, 1000);
    GC_init_finalized_malloc();
    allocate_finalized(1000);
    for (int i = 0; i < 3; i++) {
        clear_stack();
        GC_gcollect();
    }
    GC_call_with_alloc_lock(enumerate_with_null, NULL);
    printf("kinds and disclaim: NULL procedure and closures survived collections\n");
}

int main(void)
{
    GC_INIT();
    finalizers_on_null();
    toggleref_on_null();
    links_and_null();
    other_calls();
    kinds_and_disclaim();
    printf("nonnull_guards: all checks passed\n");
    return 0;
}
