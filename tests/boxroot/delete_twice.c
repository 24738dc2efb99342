/* boxroot.delete_twice: deleting a root twice (with no create in between)
 * is reported through the collector's warning function and ignored: the
 * live count drops once, and the next two creates return distinct cells
 * (a second push on the free list would hand the same cell out twice).
 * Also from another thread than the creator (the remote path). */
#include <pthread.h>
#include <string.h>

#define GC_THREADS
#include <gc.h>
#include "brtest.h"

static int warnings;

static void count_warning(char *msg, GC_word arg)
{
    (void)arg;
    if (strstr(msg, "already deleted")) warnings++;
}

static void *delete_it(void *r)
{
    boxroot_delete((boxroot)r);
    return NULL;
}

static void check_twice(int remote)
{
    struct boxroot_stats s0, s1;
    br_stats(&s0);
    boxroot r = boxroot_create(br_value_make(7));
    BR_CHECK(r != NULL, "boxroot_create returned NULL");
    if (remote) {
        pthread_t t;
        BR_CHECK(pthread_create(&t, NULL, delete_it, r) == 0, "pthread_create");
        pthread_join(t, NULL);
    } else {
        boxroot_delete(r);
    }
    int before = warnings;
    boxroot_delete(r);                       /* the misuse */
    BR_CHECK(warnings == before + 1, "double delete (%s) not reported", remote ? "remote" : "local");
    br_stats(&s1);
    BR_CHECK(s1.live == s0.live, "live count %zu after create + 2 deletes, expected %zu", s1.live,
             s0.live);
    boxroot a = boxroot_create(br_value_make(1));
    boxroot b = boxroot_create(br_value_make(2));
    BR_CHECK(a && b && a != b, "two creates after a double delete returned the same cell");
    BR_CHECK(!br_value_bad(boxroot_get(a), 1) && !br_value_bad(boxroot_get(b), 2), "values mixed up");
    boxroot_delete(a);
    boxroot_delete(b);
}

int main(void)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    GC_set_warn_proc(count_warning);
    check_twice(0);
    check_twice(1);
    printf("delete_twice: double deletes reported and ignored\n");
    return 0;
}
