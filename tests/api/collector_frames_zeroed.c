/* collector_frames_zeroed.c: objects that were live in one collection and
 * died after it are collected by the next one, even when the client lays
 * frames with unwritten slots over the stack where the first collection
 * ran. Marking leaves the addresses of the objects it visited in its dead
 * frames (the mark loop's scan-ahead queue alone holds 64); bibop zeroes
 * them when a collection returns, and when a thread that volunteered to
 * mark leaves its signal handler, so a conservative scan of the client's
 * later frames cannot find them there. Before that, a worker of the
 * ecl-threads client kept a dead worker's list alive through such slots.
 */
#include <gc.h>

#include "check.h"

#define ROUNDS 100
#define LISTS 512            /* short lists, so that many heads pass the */
#define CELLS_PER_LIST 8     /* mark loop's queue: each cell has a link */
#define CELLS (LISTS * CELLS_PER_LIST)
#define UNWRITTEN_WORDS 4096 /* 32 KiB of frame the client never writes */

struct cell { struct cell *next; GC_word payload; };

static struct cell **heads;               /* the only reference, dropped */
static void *links[CELLS];                /* hidden: they do not retain */

static NOINLINE void build_lists(void)
{
    heads = GC_MALLOC(LISTS * sizeof *heads);
    CHECK(heads != NULL);
    for (int i = 0; i < CELLS; i++) {
        struct cell *c = GC_NEW(struct cell);
        CHECK(c != NULL);
        c->next = heads[i % LISTS];
        c->payload = (GC_word)i;
        heads[i % LISTS] = c;
        links[i] = (void *)GC_HIDE_POINTER(c);
        CHECK_EQ(GC_general_register_disappearing_link(&links[i], c), GC_SUCCESS);
    }
}

/* A frame as big as the collection's dead stack, never written: a
   conservative scan of it reads whatever the collection left there. */
static NOINLINE void collect_over_unwritten_frame(void)
{
    void *volatile unwritten[UNWRITTEN_WORDS];
    __asm__ volatile("" : : "r"(unwritten) : "memory");
    GC_gcollect();
}

static int links_left(void)
{
    int left = 0;
    for (int i = 0; i < CELLS; i++) {
        if (links[i] != NULL) {
            left++;
            GC_unregister_disappearing_link(&links[i]);
            links[i] = NULL;
        }
    }
    return left;
}

int main(void)
{
    GC_INIT();
    int rounds_with_survivors = 0, survivors = 0;
    for (int round = 0; round < ROUNDS; round++) {
        build_lists();
        GC_gcollect();               /* marks the lists: its frames see cells */
        heads = NULL;
        collect_over_unwritten_frame();
        int left = links_left();
        survivors += left;
        rounds_with_survivors += left > 0;
    }
    CHECKF(rounds_with_survivors == 0,
           "%d of %d rounds kept dead cells (%d in all) through a collection's dead frames\n",
           rounds_with_survivors, ROUNDS, survivors);
    printf("collector_frames_zeroed: %d rounds of %d dead cells, every cell collected\n",
           ROUNDS, CELLS);
    return 0;
}
