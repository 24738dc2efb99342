/* markproc_free.c: gc_mark.h warns that a mark procedure "may be invoked on
 * an unused object residing on a free list. Such objects are cleared,
 * except for a free list link field in the first word." Clients rely on it
 * (Guile's marking of a dead thread's VM stack follows and even writes
 * through the object's pointers). A stale pointer to an object that died
 * in an earlier collection must therefore reach a cleared object, never the
 * dead one's contents: bibop crashed Guile's parmap about once in 30 runs
 * before it cleared such objects (issue #15's conformance round).
 *
 * The test makes objects of a kind with a mark procedure, lets them die,
 * then points a root at each dead object and collects: the mark procedure
 * must never see a dead object's marker word. Between the deaths and the
 * check, fresh objects of the kind move the allocation cursor on and one
 * more collection runs: the slots a cursor holds count as allocated for a
 * collection or two (COMPATIBILITY.md, as bdwgc's unswept objects do).
 * Slots the fresh objects took are left out of the check. Stock libgc1
 * clears its dead only when it sweeps them lazily: the test is bibop's.
 */
#include <gc.h>
#include <gc/gc_mark.h>

#include "check.h"

#define OBJECTS 2000
#define ROUNDS 5
#define FRESH 256           /* moves the cursor past every window of the dead */
#define LIVE_MAGIC ((GC_word)0x4c49564531234567ULL)   /* first word of a live object */

static int kind;
static volatile int checking;        /* set while stale roots are planted */
static unsigned long dead_contents_seen, calls;
void *stale[OBJECTS];                /* scanned as static data */
void *fresh[FRESH];

static int idx_of(const GC_word *addr)
{
    for (int i = 0; i < OBJECTS; i++) if (stale[i] == (const void *)addr) return i;
    return -1;
}

/* One of the dead may be alive after all: GC_MARK_AND_PUSH reads
   GC_least_plausible_heap_addr, so the variable is copy-relocated into this
   program's data, a root, and it points at the heap's first object. */
static int retired(const GC_word *addr)
{
    if ((const void *)addr == GC_least_plausible_heap_addr) return 0;
    for (int i = 0; i < FRESH; i++)
        if (fresh[i] == (const void *)addr) return 0;
    return idx_of(addr) >= 0;
}

static struct GC_ms_entry *mark_object(GC_word *addr, struct GC_ms_entry *msp,
                                       struct GC_ms_entry *msl, GC_word env)
{
    (void)env;
    calls++;
    if (checking && addr[0] == LIVE_MAGIC && retired(addr)) dead_contents_seen++;
    /* Word 1 is a pointer the object owns, as a client's would be. */
    if (addr[0] == LIVE_MAGIC)
        msp = GC_MARK_AND_PUSH((void *)addr[1], msp, msl, (void **)addr + 1);
    return msp;
}

static NOINLINE void make_and_drop(void)
{
    for (int i = 0; i < OBJECTS; i++) {
        GC_word *o = GC_generic_malloc(4 * sizeof(GC_word), kind);
        CHECK(o != NULL);
        o[0] = LIVE_MAGIC;
        o[1] = (GC_word)GC_MALLOC(32);
        stale[i] = o;
    }
    GC_gcollect();                   /* all alive: held by stale[] */
    for (int i = 0; i < OBJECTS; i++) stale[i] = (void *)GC_HIDE_POINTER(stale[i]);
}

int main(void)
{
    GC_INIT();
    kind = (int)GC_new_kind(GC_new_free_list(),
                            GC_MAKE_PROC(GC_new_proc(mark_object), 0), 0, 1);
    for (int round = 0; round < ROUNDS; round++) {
        make_and_drop();
        GC_gcollect();               /* they die here */
        for (int i = 0; i < FRESH; i++) {
            GC_word *o = GC_generic_malloc(4 * sizeof(GC_word), kind);
            CHECK(o != NULL);
            o[0] = LIVE_MAGIC;
            fresh[i] = o;
        }
        GC_gcollect();               /* windows the dead shared are left behind */
        for (int i = 0; i < OBJECTS; i++) stale[i] = (void *)GC_REVEAL_POINTER(stale[i]);
        checking = 1;
        GC_gcollect();               /* stale roots reach the dead objects */
        checking = 0;
        for (int i = 0; i < OBJECTS; i++) stale[i] = NULL;
        for (int i = 0; i < FRESH; i++) fresh[i] = NULL;
    }
    CHECKF(dead_contents_seen == 0,
           "a mark procedure read a dead object's contents %lu times (%lu calls)",
           dead_contents_seen, calls);
    printf("markproc_free: %d rounds of %d dead objects, mark procedure saw only cleared ones\n",
           ROUNDS, OBJECTS);
    return 0;
}
