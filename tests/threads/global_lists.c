/* global_lists.c (bibop only): with two markers, two long lists hanging
 * from global variables are marked by both markers, and survive intact.
 * The only thread builds LISTS lists of LIST_LEN cells, held only by a
 * static array, starts the helper marker (GC_start_mark_threads), then
 * collects until bibop_get_marked_share reports that the other markers
 * marked at least a tenth of the objects, at most MAX_COLLECTIONS times (a
 * marker joins only once it gets a CPU, which a loaded machine may deny
 * for a while). Until session 12 a marker holding exactly two chains kept
 * one in its scan-ahead queue and the other's next cell in its candidate
 * FIFO, its stack empty, and never shared: the other marker marked none of
 * the two lists' cells, in every collection. Every list is checked after
 * every collection. Behaviour only: no timing. */
#define _GNU_SOURCE
#include <gc.h>
#include <bibop.h>

#include "tcommon.h"
#include "tshare.h"

#define LISTS 2
#define LIST_LEN 400000
#define MAX_COLLECTIONS 300

static tcell_t *lists[LISTS];

static void verify_all(void)
{
    for (int l = 0; l < LISTS; l++) tlist_verify(lists[l], LIST_LEN, 900 + (uint64_t)l, "a global list");
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    setenv("GC_MARKERS", "2", 1);
    GC_INIT();
    t_watchdog(150);

    t_stage = "build the lists";
    for (int l = 0; l < LISTS; l++) TLIST_BUILD(lists[l], LIST_LEN, 900 + (uint64_t)l);
    GC_start_mark_threads();

    t_stage = "collect until the other marker takes a share";
    (void)t_collect_until_shared((unsigned long long)LISTS * LIST_LEN, MAX_COLLECTIONS, verify_all);
    verify_all();
    printf("ok\n");
    return 0;
}
