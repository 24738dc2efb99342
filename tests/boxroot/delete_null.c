/* boxroot.delete_null: boxroot_delete(NULL) is harmless — from the main
 * thread, a registered thread and an unregistered one (started with the real
 * pthread_create): no crash, the live count and the pool count do not
 * change, and roots created before and after keep working. */
#include <pthread.h>

static int raw_pthread_create(pthread_t *t, void *(*f)(void *), void *arg)
{
    return pthread_create(t, NULL, f, arg);
}
static int raw_pthread_join(pthread_t t) { return pthread_join(t, NULL); }

#define GC_THREADS
#include <gc.h>
#include "brtest.h"

static void *delete_nulls(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++) boxroot_delete(NULL);
    return NULL;
}

int main(void)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    boxroot keep = boxroot_create(br_value_make(12345));
    BR_CHECK(keep != NULL, "boxroot_create returned NULL");
    struct boxroot_stats s0, s1;
    br_stats(&s0);

    delete_nulls(NULL);
    pthread_t t;
    BR_CHECK(pthread_create(&t, NULL, delete_nulls, NULL) == 0, "pthread_create");
    pthread_join(t, NULL);
    BR_CHECK(raw_pthread_create(&t, delete_nulls, NULL) == 0, "pthread_create (raw)");
    raw_pthread_join(t);

    br_stats(&s1);
    BR_CHECK(s1.live == s0.live && s1.pools == s0.pools && s1.creations == s0.creations,
             "after boxroot_delete(NULL): live %zu -> %zu, pools %zu -> %zu, creations %zu -> %zu",
             s0.live, s1.live, s0.pools, s1.pools, s0.creations, s1.creations);

    br_churn(30000, 48);
    GC_gcollect();
    BR_VALUE_CHECK(boxroot_get(keep), 12345, "root created before the NULL deletes");
    boxroot r = boxroot_create(br_value_make(777));
    BR_CHECK(r != NULL && r != keep, "boxroot_create after NULL deletes");
    GC_gcollect();
    BR_VALUE_CHECK(boxroot_get(r), 777, "root created after the NULL deletes");
    boxroot_delete(r);
    boxroot_delete(keep);
    br_stats(&s1);
    BR_CHECK(s1.live == 0, "live %zu at the end", s1.live);
    printf("boxroot.delete_null: 30000 NULL deletes from 3 threads, harmless: ok\n");
    return 0;
}
