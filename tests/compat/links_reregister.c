/* links_reregister.c: registering an already registered link again, for
 * another object, answers GC_DUPLICATE and makes the link follow the new
 * object (bdwgc's GC_register_disappearing_link_inner stores the new object
 * in the existing entry). So a link re-registered from a dying object to a
 * live one is never cleared, and one re-registered from a live object to a
 * dying one is. Checked for short (GC_general_register_disappearing_link)
 * and long (GC_register_long_link) links; links are held in pointer-free
 * memory.
 *
 * KNOWN BIBOP BUG: bibop's register_link (src/finalize.c) returns
 * GC_DUPLICATE without updating the entry, so the link keeps following the
 * old object. This test is built always but registered with CTest only
 * against stock libgc1 (or with -DBIBOP_COMPAT_KNOWN_FAILURES=ON). */
#include "compat.h"

#include <gc.h>

#define N 1000

typedef int (*register_fn)(void **, const void *);

static void **slots;
static uintptr_t **keep;   /* the live objects */

static NOINLINE uintptr_t *new_obj(uintptr_t id)
{
    uintptr_t *o = GC_MALLOC(2 * sizeof *o);
    CHECK(o != NULL, "GC_MALLOC failed");
    o[0] = id;
    o[1] = ~id;
    return o;
}

/* Slot i: first registered for a dying object, then re-registered for a
   live one (i even), or the other way round (i odd). */
static NOINLINE void make(register_fn reg, const char *what)
{
    for (unsigned i = 0; i < N; i++) {
        uintptr_t *dying = new_obj(i), *live = new_obj(i);
        uintptr_t *first = i % 2 == 0 ? dying : live, *second = i % 2 == 0 ? live : dying;
        slots[i] = first;
        int r = reg(&slots[i], first);
        CHECK(r == GC_SUCCESS, "%s: registering link %u returned %d", what, i, r);
        slots[i] = second;
        r = reg(&slots[i], second);
        CHECK(r == GC_DUPLICATE, "%s: registering link %u again returned %d, not GC_DUPLICATE",
              what, i, r);
        keep[i] = live;
    }
}

static void run(register_fn reg, const char *what)
{
    slots = GC_MALLOC_ATOMIC(N * sizeof *slots);
    keep = GC_MALLOC(N * sizeof *keep);
    CHECK(slots && keep, "GC_MALLOC failed");
    make(reg, what);
    compat_collect(4);
    unsigned kept = 0, cleared = 0;
    for (unsigned i = 0; i < N; i += 2) kept += slots[i] == keep[i];
    for (unsigned i = 1; i < N; i += 2) cleared += slots[i] == NULL;
    printf("%s: %u of %u links re-registered to a live object kept, %u of %u re-registered to "
           "a dead object cleared\n", what, kept, N / 2, cleared, N / 2);
    CHECK(kept == N / 2, "%s: %u links re-registered to a live object were cleared (they "
          "still followed the object first registered)", what, N / 2 - kept);
    CHECK(AT_LEAST_PERCENT(cleared, N / 2, 90), "%s: only %u of %u links re-registered to a "
          "dead object were cleared", what, cleared, N / 2);
    slots = NULL;
    keep = NULL;
}

static int reg_short(void **link, const void *obj)
{
    return GC_general_register_disappearing_link(link, obj);
}

static int reg_long(void **link, const void *obj)
{
    return GC_register_long_link(link, obj);
}

int main(void)
{
    GC_INIT();
    run(reg_short, "short links");
    run(reg_long, "long links");
    printf("links_reregister: all checks passed\n");
    return 0;
}
