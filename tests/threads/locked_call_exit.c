/* locked_call_exit.c: a client that makes its state consistent only just
 * after GC_call_with_alloc_lock returns, as Guile 3.0.8 does when it grows
 * a thread's VM stack: vm_expand_stack moves the stack inside
 * GC_call_with_alloc_lock (so its mark procedure never sees the move half
 * done) but sets the stack pointer only after the call returns. A thread
 * stopped for a collection in those few instructions has its frames marked
 * through the stale pointer, into the freed old stack ("madvise failed:
 * Cannot allocate memory", SIGSEGV, or a marker looping in garbage).
 *
 * Here each "VM" is an object of a kind with a mark procedure that pushes
 * the words of its malloc'd stack from sp to top, after checking that sp
 * lies within the stack (the check replaces the crash). Six threads grow
 * their stacks this way while they allocate, so that collections often
 * start as one of them releases the lock. bibop must never stop a thread in that
 * window (src/stopworld.c: a stop is deferred once for a thread that has
 * just left a locked call). The objects the stacks hold are checked after
 * every growth.
 *
 * The race depends on scheduling, so a collector that stops threads in
 * the window fails only in some runs: on a 2-CPU machine, 6 of 8 runs on
 * bibop before the deferral, 6 of 6 on stock libgc1 (which has no such
 * deferral); a correct collector never fails. */
#define _GNU_SOURCE
#include <gc.h>
#include <gc/gc_mark.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "tcommon.h"

#define GROWERS 6
#define ROUNDS 1000         /* growth cycles per grower thread */
#define SLOTS_MIN 64        /* words a stack starts with */
#define SLOTS_MAX 16384     /* it is shrunk back to SLOTS_MIN from here */

struct vm {
    GC_word *bottom, *top, *sp;   /* the stack is [bottom, top); live part [sp, top) */
};

static int g_vm_kind;
static atomic_long g_inconsistent;   /* marks that found sp outside the stack */

static struct GC_ms_entry *mark_vm(GC_word *addr, struct GC_ms_entry *top,
                                   struct GC_ms_entry *limit, GC_word env)
{
    (void)env;
    struct vm *vm = (struct vm *)addr;
    if (!vm->bottom) return top;
    if (vm->sp < vm->bottom || vm->sp > vm->top) {
        atomic_fetch_add(&g_inconsistent, 1);
        return top;
    }
    for (GC_word *p = vm->sp; p < vm->top; p++)
        top = GC_MARK_AND_PUSH((void *)*p, top, limit, NULL);
    return top;
}

struct grow_call {
    struct vm *vm;
    size_t new_slots;
    GC_word *new_sp;   /* where sp must move: computed inside, stored after */
};

/* Inside the lock: move the live part to the top of a new stack of
   `slots` words and free the old one. Returns where sp must point now
   (NULL if malloc failed); sp itself is left in the old stack. */
static GC_word *move_stack(struct vm *vm, size_t slots)
{
    size_t live = (size_t)(vm->top - vm->sp);
    GC_word *bottom = malloc(slots * sizeof(GC_word));
    if (!bottom) return NULL;
    GC_word *top = bottom + slots;
    memcpy(top - live, vm->sp, live * sizeof(GC_word));
    free(vm->bottom);
    vm->bottom = bottom;
    vm->top = top;
    return top - live;
}

/* Growth as Guile does it: sp is stored by the caller, after the lock. */
static void *grow_inner(void *arg)
{
    struct grow_call *c = arg;
    c->new_sp = move_stack(c->vm, c->new_slots);
    return c->new_sp;
}

/* Back to a small stack, consistent before the lock is released. */
static void *shrink_inner(void *arg)
{
    struct vm *vm = arg;
    GC_word *sp = move_stack(vm, SLOTS_MIN + (size_t)(vm->top - vm->sp));
    if (sp) vm->sp = sp;
    return sp;
}

static void *grower(void *arg)
{
    uint64_t seed = 1000 + (uintptr_t)arg;
    struct vm *vm = GC_generic_malloc(sizeof(struct vm), g_vm_kind);
    TCHECK(vm != NULL, "GC_generic_malloc of a VM");
    GC_word *bottom = malloc(SLOTS_MIN * sizeof(GC_word));
    TCHECK(bottom != NULL, "malloc");
    vm->top = bottom + SLOTS_MIN;
    vm->sp = vm->top;
    vm->bottom = bottom;
    for (int round = 0; round < ROUNDS; round++) {
        /* Push lists (held only by this stack) until the stack is full,
           growing it as Guile does. */
        size_t slots = (size_t)(vm->top - vm->bottom);
        while (slots < SLOTS_MAX) {
            while (vm->sp > vm->bottom) {
                tcell_t *l;
                TLIST_BUILD(l, 4, seed + (uint64_t)(vm->top - vm->sp));
                vm->sp[-1] = (GC_word)l;
                vm->sp--;
            }
            struct grow_call c = {vm, slots * 2, NULL};
            TCHECK(GC_call_with_alloc_lock(grow_inner, &c) != NULL, "growing a stack: malloc failed");
            vm->sp = c.new_sp;   /* consistent again only here */
            slots *= 2;
        }
        for (GC_word *p = vm->sp; p < vm->top; p++)
            tlist_verify((tcell_t *)*p, 4, seed + (uint64_t)(vm->top - p - 1), "a list held by a VM stack");
        vm->sp = vm->top;   /* pop everything */
        TCHECK(GC_call_with_alloc_lock(shrink_inner, vm) != NULL, "shrinking a stack: malloc failed");
        TCHECK(atomic_load(&g_inconsistent) == 0,
               "a collection marked a VM whose stack pointer lay outside its stack: a thread was "
               "stopped between GC_call_with_alloc_lock's return and the client's next store");
    }
    return NULL;
}

int main(void)
{
    GC_INIT();
    t_watchdog(600);
    g_vm_kind = (int)GC_new_kind(GC_new_free_list(), GC_MAKE_PROC(GC_new_proc(mark_vm), 0), 0, 1);
    T_RUN_THREADS(grower, GROWERS);
    TCHECK(atomic_load(&g_inconsistent) == 0, "a VM was marked in an inconsistent state (%ld times)",
           atomic_load(&g_inconsistent));
    printf("locked_call_exit: %d threads grew their stacks %d times each; no collection saw one "
           "half-moved (%lu collections)\n",
           GROWERS, ROUNDS * 8, (unsigned long)GC_get_gc_no());
    return 0;
}
