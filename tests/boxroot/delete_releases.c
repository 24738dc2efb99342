/* boxroot.delete_releases_{links,heap}: a deleted boxroot no longer
 * retains its object.
 *
 * links: 40,000 objects each held by one boxroot, each watched by a
 *        disappearing link in atomic memory. While the roots live, no link
 *        disappears. Delete a random half: (almost) all of the deleted half's
 *        links disappear after collections, none of the kept half's. Delete
 *        the rest: (almost) all disappear. "Almost" (>= 95 %): conservative
 *        stack scanning may keep a few objects from stale stack words.
 * heap:  heap boundedness: 150 rounds, each creating 2,000 roots on fresh
 *        4 KiB objects (8 MiB live) then deleting them all (1.2 GB allocated
 *        in total); the heap must stay below 16 x the live size. */
#define GC_THREADS
#include <gc.h>
#include "brtest.h"

#define NA 40000

static boxroot *h;
static unsigned char *gone;    /* 1: root deleted */

static __attribute__((noinline)) void build(void)
{
    for (size_t i = 0; i < NA; i++) {
        void *o = GC_MALLOC(24 + 8 * (i % 5));
        BR_CHECK(o != NULL, "GC_MALLOC");
        br_links_watch(i, o);
        h[i] = boxroot_create(o);
        BR_CHECK(h[i] != NULL, "boxroot_create returned NULL");
    }
}

static void collect(void)
{
    br_scrub_stack();
    for (int k = 0; k < 3; k++) {
        br_churn(10000, 32);
        GC_gcollect();
    }
}

static size_t cleared_where(unsigned char want)
{
    size_t c = 0;
    for (size_t i = 0; i < NA; i++)
        if (gone[i] == want && br_links[i] == NULL) c++;
    return c;
}

static void part_links(void)
{
    h = malloc(NA * sizeof *h);
    gone = calloc(NA, 1);
    BR_CHECK(h && gone, "malloc");
    br_links_init(NA);
    build();
    collect();
    BR_CHECK(br_links_cleared(0, NA) == 0, "%zu objects held by live boxroots were collected",
             br_links_cleared(0, NA));

    /* delete a random half */
    br_rng r = { 7 };
    size_t half = 0;
    while (half < NA / 2) {
        size_t i = br_below(&r, NA);
        if (gone[i]) continue;
        gone[i] = 1;
        boxroot_delete(h[i]);
        h[i] = NULL;
        half++;
    }
    collect();
    size_t kept_lost = cleared_where(0), del_gone = cleared_where(1);
    BR_CHECK(kept_lost == 0, "%zu objects of still-live boxroots were collected", kept_lost);
    BR_CHECK(del_gone >= half * 95 / 100,
             "only %zu of %zu objects of deleted boxroots were collected (deleted roots retain?)",
             del_gone, half);

    for (size_t i = 0; i < NA; i++)
        if (!gone[i]) {
            boxroot_delete(h[i]);
            gone[i] = 2;
        }
    collect();
    size_t all_gone = br_links_cleared(0, NA);
    BR_CHECK(all_gone >= (size_t)NA * 95 / 100,
             "only %zu of %d objects collected after deleting every root", all_gone, NA);
    printf("boxroot.delete_releases_links: half %zu/%zu collected, kept 0 lost, all %zu/%d: ok\n",
           del_gone, half, all_gone, NA);
    free(h);
    free(gone);
}

#define NB 2000
#define ROUNDS_B 150
#define OBJ_B 4096

static __attribute__((noinline)) void round_b(boxroot *hb, uint64_t round)
{
    for (size_t i = 0; i < NB; i++) {
        uint64_t *o = GC_MALLOC_ATOMIC(OBJ_B);
        BR_CHECK(o != NULL, "GC_MALLOC_ATOMIC");
        o[0] = round;
        o[OBJ_B / 8 - 1] = i;
        hb[i] = boxroot_create(o);
        BR_CHECK(hb[i] != NULL, "boxroot_create returned NULL");
    }
    for (size_t i = 0; i < NB; i++) {
        uint64_t *o = boxroot_get(hb[i]);
        BR_CHECK(o[0] == round && o[OBJ_B / 8 - 1] == i, "object of root %zu overwritten", i);
        boxroot_delete(hb[i]);
    }
}

static void part_heap(void)
{
    boxroot *hb = malloc(NB * sizeof *hb);
    BR_CHECK(hb != NULL, "malloc");
    size_t max_heap = 0;
    for (uint64_t round = 0; round < ROUNDS_B; round++) {
        round_b(hb, round);
        size_t hs = GC_get_heap_size();
        if (hs > max_heap) max_heap = hs;
    }
    size_t total = (size_t)ROUNDS_B * NB * OBJ_B, live = (size_t)NB * OBJ_B;
    BR_CHECK(max_heap <= 16 * live,
             "heap grew to %zu bytes for %zu bytes live per round (%zu allocated): deleted roots "
             "retain?", max_heap, live, total);
    printf("boxroot.delete_releases_heap: max %zu MiB for %zu MiB live per round, %zu MiB "
           "allocated: ok\n", max_heap >> 20, live >> 20, total >> 20);
    free(hb);
}

int main(int argc, char **argv)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    const char *mode = argc > 1 ? argv[1] : "";
    br_stage = mode;
    if (strcmp(mode, "links") == 0) part_links();
    else if (strcmp(mode, "heap") == 0) part_heap();
    else br_fail("usage: %s links|heap", argv[0]);
    return 0;
}
