/* uncollectable_reuse.c: uncollectable objects stay intact after the block
 * that held earlier ones was emptied and released. This is the pattern of
 * thread creation: GC_pthread_create allocates an uncollectable start
 * record that the new thread frees, so a program that creates threads
 * empties blocks of 16-byte uncollectable objects all the time. Each of 20
 * rounds: create and join 64 threads (their start records fill and empty
 * one block), collect (the empty block is released), allocate 16-byte
 * collectable objects keeping one in eight (the block is reused for them),
 * collect; then allocate 64 uncollectable objects held only through hidden
 * pointers (uncollectable objects need no reference) and 400 more, collect,
 * allocate collectable objects of that size, and check that the 64 are
 * intact.
 *
 * Regression test of a bibop bug found by stress.c (a crash in
 * start_registered jumping to a start routine read from a clobbered start
 * record, after "GC_free of a pointer that is not an object start"
 * warnings): an allocation cursor kept pointing at its block after
 * sweep_setup (src/collect.c) had released that block as empty, and refill
 * (src/alloc.c) then claimed windows of whatever the block had become, so
 * uncollectable objects were handed out inside a collectable block, where
 * the next collection freed them. Fixed in ffa9331. */
#define _GNU_SOURCE
#include <gc.h>

#include <pthread.h>

#include "tcommon.h"

#define ROUNDS 20

static void *nothing(void *arg) { return arg; }

static void *g_keep[ROUNDS * 700];   /* one collectable object in eight stays live */

int main(void)
{
    GC_INIT();
    t_watchdog(100);
    size_t nkeep = 0;
    for (int round = 0; round < ROUNDS; round++) {
        t_stage = "thread creations";
        for (int i = 0; i < 64; i++) {
            pthread_t t;
            TCHECK(pthread_create(&t, NULL, nothing, NULL) == 0, "pthread_create");
            TCHECK(pthread_join(t, NULL) == 0, "pthread_join");
        }
        t_stage = "reusing memory";
        GC_gcollect();
        for (int i = 0; i < 5000; i++) {
            char *p = GC_MALLOC(15);
            TCHECK(p != NULL, "GC_MALLOC");
            memset(p, 0x22, 15);
            if (i % 8 == 0) g_keep[nkeep++] = p;
        }
        GC_gcollect();
        uintptr_t hidden[64];
        for (int i = 0; i < 64; i++) {
            unsigned char *u = GC_MALLOC_UNCOLLECTABLE(15);
            TCHECK(u != NULL, "GC_MALLOC_UNCOLLECTABLE");
            memset(u, 0x33, 15);
            hidden[i] = ~(uintptr_t)u;
        }
        void *more[400];
        for (int i = 0; i < 400; i++) more[i] = GC_MALLOC_UNCOLLECTABLE(15);
        GC_gcollect();
        for (int i = 0; i < 5000; i++) {
            char *p = GC_MALLOC(15);
            TCHECK(p != NULL, "GC_MALLOC");
            memset(p, 0x44, 15);
        }
        for (int i = 0; i < 64; i++) {
            unsigned char *u = (unsigned char *)~hidden[i];
            for (int j = 0; j < 15; j++)
                if (u[j] != 0x33)
                    tfail("round %d: uncollectable object %d at %p overwritten (byte %d is %#x)", round,
                          i, (void *)u, j, u[j]);
            GC_FREE(u);
        }
        for (int i = 0; i < 400; i++) GC_FREE(more[i]);
    }
    printf("uncollectable_reuse: %d rounds, uncollectable objects intact\n", ROUNDS);
    return 0;
}
