/* boxroot.malloc_held: objects reachable only through boxroots whose handles
 * live in malloc'd memory (as in a C++ container or a foreign library's
 * structure) survive collections intact.
 *
 * A malloc'd table of holders. Half of them keep a value through a boxroot;
 * the other half (the control) keep the bare pointer in the same malloc'd
 * memory, which the collector does not scan. The head of every value has a
 * disappearing link in atomic memory. After the values are built (in a frame
 * that is gone, its stack scrubbed), churn and collections:
 *   - boxroot half: no link disappears, every value is intact;
 *   - control half: (almost) every link disappears — which shows that the
 *     collector really did run and did not find these values elsewhere,
 *     so the survival of the boxroot half is due to the boxroots. */
#define GC_THREADS
#include <gc.h>
#include "brtest.h"

#define HALF 20000

struct holder {
    boxroot root;      /* boxroot half */
    void *bare;        /* control half: a pointer in unscanned memory */
    uint64_t seed;
};

static struct holder *tab;     /* malloc'd */

static __attribute__((noinline)) void build(void)
{
    for (size_t i = 0; i < 2 * HALF; i++) {
        tab[i].seed = 1000 + i;
        br_node *v = br_value_make(tab[i].seed);
        br_links_watch(i, v);
        if (i < HALF) {
            tab[i].root = boxroot_create(v);
            BR_CHECK(tab[i].root != NULL, "boxroot_create returned NULL");
            tab[i].bare = NULL;
        } else {
            tab[i].root = NULL;
            tab[i].bare = v;
        }
    }
}

int main(void)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    tab = malloc(2 * HALF * sizeof *tab);
    BR_CHECK(tab != NULL, "malloc");
    br_links_init(2 * HALF);

    br_stage = "build";
    build();
    br_scrub_stack();

    br_stage = "collect";
    for (int round = 0; round < 6; round++) {
        br_churn(30000, 40);
        GC_gcollect();
        size_t lost = br_links_cleared(0, HALF);
        BR_CHECK(lost == 0, "round %d: %zu of %d values held by boxroots were collected", round,
                 lost, HALF);
        for (size_t i = 0; i < HALF; i++)
            BR_VALUE_CHECK(boxroot_get(tab[i].root), tab[i].seed, "value held by a boxroot");
    }
    size_t gone = br_links_cleared(HALF, 2 * HALF);
    BR_CHECK(gone >= HALF * 9 / 10,
             "control: only %zu of %d values kept by bare pointers in malloc'd memory were "
             "collected (the collector scans malloc'd memory, or did not run?)",
             gone, HALF);

    for (size_t i = 0; i < HALF; i++) boxroot_delete(tab[i].root);
    printf("boxroot.malloc_held: %d boxroot values intact, control %zu/%d collected: ok\n", HALF,
           gone, HALF);
    free(tab);
    return 0;
}
