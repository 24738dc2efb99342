/* stale_stack.c: an object whose last reference was in a frame that has
 * returned is garbage, and the next GC_gcollect must see it so, every time.
 * The collecting thread's stack is scanned from where it entered the
 * collector, never through the collector's own frames, whose unwritten
 * slots still hold what the client's dead frames left there (issue #15,
 * item 7). Deliberately no stack scrubbing here: the dead frame's copies
 * of the pointer are the point of the test.
 */
#include <gc.h>

#include "check.h"

#define ROUNDS 200
#define COPIES 64          /* copies of the pointer left in the dead frame */

static void *link_slot;    /* a disappearing link: holds the pointer hidden */

/* Allocate an object, spread its address over this frame, register the
   link, return: from here on only dead stack refers to the object. */
static NOINLINE int leave_stale_copies(void)
{
    void *volatile copies[COPIES];
    void *obj = GC_MALLOC(64);
    CHECK(obj != NULL);
    for (int i = 0; i < COPIES; i++) copies[i] = obj;
    link_slot = (void *)GC_HIDE_POINTER(obj);
    CHECK_EQ(GC_general_register_disappearing_link(&link_slot, obj), GC_SUCCESS);
    __asm__ volatile("" : : "r"(copies) : "memory");
    return 0;
}

/* The same, a few frames deeper than the caller of GC_gcollect. */
static NOINLINE int leave_stale_copies_deep(int depth)
{
    volatile char pad[256];
    pad[0] = (char)depth;
    int r = depth > 0 ? leave_stale_copies_deep(depth - 1) : leave_stale_copies();
    return r + pad[0] - (char)depth;
}

int main(void)
{
    GC_INIT();
    int kept = 0;
    for (int round = 0; round < ROUNDS; round++) {
        if (round % 2 == 0) leave_stale_copies();
        else leave_stale_copies_deep(round % 8);
        GC_gcollect();
        if (link_slot != NULL) {
            kept++;
            GC_unregister_disappearing_link(&link_slot);
            link_slot = NULL;
        }
    }
    CHECKF(kept == 0, "%d of %d objects referenced only from dead frames survived GC_gcollect",
           kept, ROUNDS);
    printf("stale_stack: %d rounds, every object collected\n", ROUNDS);
    return 0;
}
