/* global_lists.c (bibop only): with two markers, two long lists hanging
 * from global variables are marked by both markers, and survive intact.
 * The main thread builds LISTS lists of LIST_LEN cells, held only by a
 * static array, and starts one registered thread that waits on a condition
 * variable (so that collections have a second marker: a volunteer, or with
 * the argument "off", BIBOP_VOLUNTEERS=0, a helper thread). It then
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

#include <pthread.h>

#include "tcommon.h"

#define LISTS 2
#define LIST_LEN 400000
#define MAX_COLLECTIONS 300

static tcell_t *lists[LISTS];

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_done;

static void *idle(void *arg)
{
    pthread_mutex_lock(&g_lock);
    while (!g_done) pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
    return arg;
}

static void verify_all(void)
{
    for (int l = 0; l < LISTS; l++) tlist_verify(lists[l], LIST_LEN, 900 + (uint64_t)l, "a global list");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "off") == 0) setenv("BIBOP_VOLUNTEERS", "0", 1);
    setenv("GC_MARKERS", "2", 1);
    GC_INIT();
    t_watchdog(150);

    t_stage = "build the lists";
    for (int l = 0; l < LISTS; l++) TLIST_BUILD(lists[l], LIST_LEN, 900 + (uint64_t)l);
    pthread_t th;
    TCHECK(pthread_create(&th, NULL, idle, NULL) == 0, "pthread_create failed");

    t_stage = "collect until the other marker takes a share";
    struct bibop_marked_share s = { 0, 0, 0 };
    unsigned long long best_others = 0, best_objects = 1;
    int n = 0;
    for (; n < MAX_COLLECTIONS; n++) {
        GC_gcollect();
        bibop_get_marked_share(&s);
        TCHECK(s.objects >= (unsigned long long)LISTS * LIST_LEN,
               "collection %lu marked %llu objects, fewer than the lists hold", s.gc_no, s.objects);
        TCHECK(s.by_others <= s.objects, "others marked %llu of %llu", s.by_others, s.objects);
        verify_all();
        if (n == 0 || s.by_others * best_objects > best_others * s.objects) {
            best_others = s.by_others;
            best_objects = s.objects;
        }
        if (s.by_others * 10 >= s.objects) break;
    }
    printf("%d collections; best share of the other marker: %llu of %llu objects\n", n + 1,
           best_others, best_objects);
    TCHECK(n < MAX_COLLECTIONS, "in %d collections the other marker never marked a tenth "
           "(best %llu of %llu objects)", MAX_COLLECTIONS, best_others, best_objects);

    t_stage = "stop the waiting thread";
    pthread_mutex_lock(&g_lock);
    g_done = 1;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
    TCHECK(pthread_join(th, NULL) == 0, "pthread_join failed");
    verify_all();
    printf("ok\n");
    return 0;
}
