/* shared_lists.c (bibop only): with two markers, long lists each held only
 * by one thread's stack are marked by both markers, not by the collecting
 * thread alone.
 * WORKERS threads each build a list of LIST_LEN cells, referenced from
 * their stack alone, and wait on a condition variable (not a blocking
 * section, so collections stop them and one of them may volunteer). The
 * main thread then collects until bibop_get_marked_share reports that the
 * other markers marked at least a tenth of the objects, at most
 * MAX_COLLECTIONS times: a volunteer or helper joins only once it gets a
 * CPU, which a loaded machine may deny for a while. Until session 10 the
 * collecting thread drained each root piece before reading the next one,
 * so it followed one list to its end before it found the next, and the
 * others were given nothing (0-3% of the objects in every collection).
 * The lists must be intact at the end. With the argument "off"
 * (BIBOP_VOLUNTEERS=0) the other marker is a helper thread.
 * Behaviour only: no timing. */
#define _GNU_SOURCE
#include <gc.h>
#include <bibop.h>

#include <pthread.h>

#include "tcommon.h"
#include "tshare.h"

#define WORKERS 4
#define LIST_LEN 100000
#define MAX_COLLECTIONS 400

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_built, g_done;

static void *worker(void *arg)
{
    uint64_t seed = 500 + (uintptr_t)arg;
    tcell_t *list;
    TLIST_BUILD(list, LIST_LEN, seed);
    pthread_mutex_lock(&g_lock);
    g_built++;
    pthread_cond_broadcast(&g_cond);
    while (!g_done) pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
    tlist_verify(list, LIST_LEN, seed, "a worker's list");
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "off") == 0) setenv("BIBOP_VOLUNTEERS", "0", 1);
    setenv("GC_MARKERS", "2", 1);
    GC_INIT();
    t_watchdog(150);

    t_stage = "workers build their lists";
    pthread_t th[WORKERS];
    for (uintptr_t i = 0; i < WORKERS; i++)
        TCHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0, "pthread_create failed");
    pthread_mutex_lock(&g_lock);
    while (g_built < WORKERS) pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);

    t_stage = "collect until the other markers take a share";
    (void)t_collect_until_shared((unsigned long long)WORKERS * LIST_LEN, MAX_COLLECTIONS, NULL);

    t_stage = "workers check their lists";
    pthread_mutex_lock(&g_lock);
    g_done = 1;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
    for (int i = 0; i < WORKERS; i++) TCHECK(pthread_join(th[i], NULL) == 0, "pthread_join failed");
    printf("ok\n");
    return 0;
}
