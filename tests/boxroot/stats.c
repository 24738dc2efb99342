/* boxroot.stats_*: the statistics of boxroot_get_stats (include/boxroot.h).
 *
 *   peak   "peak: most live roots at once". Create 1,000 roots, delete them
 *          all, then ask: peak must be >= 1,000.
 *   race   two registered threads create and delete 8 roots at a time, in a
 *          loop, while the main thread asks for the stats 2,000,000 times.
 *          At most 16 roots are ever live: live must never exceed 16 and the
 *          peak, at the end, must not either.
 *
 *   exact  every count exact at quiet points, across threads taking turns:
 *          a registered thread creates 1,000 roots and main deletes 400 of
 *          them (remote deletions); a second thread creates 700 while those
 *          600 are live (peak +1,300), main deletes all; an unregistered thread
 *          creates 50 and deletes 20, main deletes the rest; live, peak,
 *          creations and deletions are checked after each step against the
 *          program's own counts. After a collection with nothing live, the
 *          pools of the finished threads are gone.
 * (peak and race failed before the per-thread counts and the peak limits of
 * src/boxroot.c.) */
#include <pthread.h>

/* The real pthread_create / pthread_join, taken before gc.h redirects them. */
static int raw_pthread_create(pthread_t *t, void *(*f)(void *), void *arg)
{
    return pthread_create(t, NULL, f, arg);
}
static int raw_pthread_join(pthread_t t) { return pthread_join(t, NULL); }

#define GC_THREADS
#include <gc.h>
#include <stdatomic.h>
#include "brtest.h"

static void mode_peak(void)
{
    static boxroot r[1000];
    for (int i = 0; i < 1000; i++) {
        r[i] = boxroot_create(NULL);
        BR_CHECK(r[i] != NULL, "boxroot_create returned NULL");
    }
    for (int i = 0; i < 1000; i++) boxroot_delete(r[i]);
    struct boxroot_stats s;
    br_stats(&s);
    BR_CHECK(s.live == 0, "live %zu", s.live);
    BR_CHECK(s.peak >= 1000, "peak %zu after 1000 roots were live at once", s.peak);
    printf("boxroot.stats_peak: peak %zu: ok\n", s.peak);
}

static atomic_int stop;
static atomic_long rounds;

static void *churner(void *arg)
{
    (void)arg;
    boxroot r[8];
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        for (int i = 0; i < 8; i++) r[i] = boxroot_create(NULL);
        for (int i = 0; i < 8; i++) boxroot_delete(r[i]);
        atomic_fetch_add_explicit(&rounds, 1, memory_order_relaxed);
    }
    return NULL;
}

static void mode_race(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        BR_CHECK(pthread_create(&t[i], NULL, churner, NULL) == 0, "pthread_create");
    while (atomic_load(&rounds) < 10000) { /* both threads running */ }
    size_t worst = 0;
    for (int k = 0; k < 2000000; k++) {
        struct boxroot_stats s;
        br_stats(&s);
        if (s.live > worst) worst = s.live;
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    struct boxroot_stats s;
    br_stats(&s);
    BR_CHECK(worst <= 16, "stats.live read as %zu while at most 16 roots were live", worst);
    BR_CHECK(s.peak <= 16, "stats.peak %zu while at most 16 roots were ever live", s.peak);
    printf("boxroot.stats_race: live <= %zu, peak %zu: ok\n", worst, s.peak);
}

/* ---- exact ---- */

static struct boxroot_stats base;
static boxroot made[1000];
static size_t n_made;

struct make_job { size_t create, delete_own; };

static void *maker(void *arg)
{
    struct make_job *j = arg;
    for (size_t i = 0; i < j->create; i++) {
        made[i] = boxroot_create(br_value_make(i));
        BR_CHECK(made[i] != NULL, "boxroot_create returned NULL");
    }
    for (size_t i = 0; i < j->delete_own; i++) boxroot_delete(made[j->create - 1 - i]);
    n_made = j->create - j->delete_own;
    return NULL;
}

/* Both other threads' roots stay in `made` or `kept` between steps. */
static boxroot kept[1000];

static void expect(const char *step, size_t live, size_t peak, size_t created, size_t deleted)
{
    struct boxroot_stats s;
    br_stats(&s);
    BR_CHECK(s.live == base.live + live, "%s: live %zu, expected %zu", step, s.live, base.live + live);
    size_t want_peak = base.live + peak > base.peak ? base.live + peak : base.peak;
    BR_CHECK(s.peak == want_peak, "%s: peak %zu, expected %zu", step, s.peak, want_peak);
    BR_CHECK(s.creations == base.creations + created, "%s: creations %zu, expected %zu", step,
             s.creations, base.creations + created);
    BR_CHECK(s.deletions == base.deletions + deleted, "%s: deletions %zu, expected %zu", step,
             s.deletions, base.deletions + deleted);
}

static void run_thread(int registered, struct make_job *j)
{
    pthread_t t;
    if (registered) {
        BR_CHECK(pthread_create(&t, NULL, maker, j) == 0, "pthread_create");
        BR_CHECK(pthread_join(t, NULL) == 0, "pthread_join");
    } else {
        BR_CHECK(raw_pthread_create(&t, maker, j) == 0, "pthread_create");
        BR_CHECK(raw_pthread_join(t) == 0, "pthread_join");
    }
}

static void mode_exact(void)
{
    br_stats(&base);
    struct make_job a = { 1000, 0 };
    run_thread(1, &a);
    expect("thread A made 1000", 1000, 1000, 1000, 0);
    for (size_t i = 0; i < 400; i++) boxroot_delete(made[i]);
    for (size_t i = 400; i < 1000; i++) kept[i - 400] = made[i];
    expect("main deleted 400 of A's", 600, 1000, 1000, 400);

    struct make_job b = { 700, 0 };
    run_thread(1, &b);
    expect("thread B made 700", 1300, 1300, 1700, 400);
    for (size_t i = 0; i < 700; i++) boxroot_delete(made[i]);
    expect("main deleted B's 700", 600, 1300, 1700, 1100);
    for (size_t i = 0; i < 600; i++) boxroot_delete(kept[i]);
    expect("main deleted A's 600", 0, 1300, 1700, 1700);

    struct make_job u = { 50, 20 };
    run_thread(0, &u);
    expect("unregistered made 50, deleted 20", 30, 1300, 1750, 1720);
    for (size_t i = 0; i < n_made; i++) boxroot_delete(made[i]);
    expect("main deleted the unregistered thread's 30", 0, 1300, 1750, 1750);

    /* Main now makes the peak higher by itself, one pool's worth and more. */
    static boxroot mine[3000];
    for (size_t i = 0; i < 3000; i++) mine[i] = boxroot_create(NULL);
    expect("main made 3000", 3000, 3000, 4750, 1750);
    for (size_t i = 0; i < 3000; i++) boxroot_delete(mine[i]);
    expect("main deleted its 3000", 0, 3000, 4750, 4750);

    GC_gcollect();
    struct boxroot_stats s;
    br_stats(&s);
    /* Left: at most main's current pool and the unregistered threads' one. */
    BR_CHECK(s.pools <= base.pools + 2, "%zu pools after collecting with none live (%zu before)",
             s.pools, base.pools);
    printf("boxroot.stats_exact: peak %zu, %zu pools: ok\n", s.peak, s.pools);
}

int main(int argc, char **argv)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "peak") == 0) mode_peak();
    else if (strcmp(mode, "race") == 0) mode_race();
    else if (strcmp(mode, "exact") == 0) mode_exact();
    else br_fail("usage: %s peak|race|exact", argv[0]);
    return 0;
}
