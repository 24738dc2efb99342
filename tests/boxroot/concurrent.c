/* boxroot.concurrent: 8 registered threads create, read, modify and delete
 * roots concurrently while collections run (the main thread collects in a
 * loop; the workers' allocations trigger more). Roots are also handed from
 * thread to thread through a shared mailbox and deleted by whoever takes
 * them (remote deletes). Every value is checked when read, handed over and
 * deleted: zero corruption. At the end the stats agree with the program's
 * own counts. */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include "brtest.h"

#define THREADS 8
#define SLOTS 1500
#define OPS 600000
#define MAILBOX 4096

struct slot {
    boxroot r;
    uint64_t seed;
};

static struct {
    pthread_mutex_t mu;
    struct slot e[MAILBOX];
    size_t n;
} mbox = { .mu = PTHREAD_MUTEX_INITIALIZER };

static atomic_size_t n_created, n_deleted, n_handed;
static atomic_int running;

static int mbox_put(struct slot s)
{
    int ok = 0;
    pthread_mutex_lock(&mbox.mu);
    if (mbox.n < MAILBOX) {
        mbox.e[mbox.n++] = s;
        ok = 1;
    }
    pthread_mutex_unlock(&mbox.mu);
    return ok;
}

static int mbox_take(struct slot *s, br_rng *r)
{
    int ok = 0;
    pthread_mutex_lock(&mbox.mu);
    if (mbox.n > 0) {
        size_t i = br_below(r, mbox.n);
        *s = mbox.e[i];
        mbox.e[i] = mbox.e[--mbox.n];
        ok = 1;
    }
    pthread_mutex_unlock(&mbox.mu);
    return ok;
}

static void *worker(void *arg)
{
    size_t id = (size_t)(uintptr_t)arg;
    struct slot *sl = calloc(SLOTS, sizeof *sl);     /* malloc'd: never scanned */
    BR_CHECK(sl != NULL, "calloc");
    br_rng r = { 77 + id * 1000003 };
    uint64_t next = 1;
    for (size_t op = 0; op < OPS; op++) {
        size_t i = br_below(&r, SLOTS);
        struct slot *s = &sl[i];
        if (!s->r) {
            s->seed = ((uint64_t)(id + 1) << 40) | next++;
            s->r = boxroot_create(br_value_make(s->seed));
            BR_CHECK(s->r != NULL, "boxroot_create returned NULL");
            atomic_fetch_add(&n_created, 1);
            continue;
        }
        unsigned what = (unsigned)br_below(&r, 100);
        BR_VALUE_CHECK(boxroot_get(s->r), s->seed, "worker's own root");
        if (what < 30) {
            /* read only */
        } else if (what < 55) {
            boxroot_delete(s->r);
            s->r = NULL;
            atomic_fetch_add(&n_deleted, 1);
        } else if (what < 75) {
            s->seed = ((uint64_t)(id + 1) << 40) | next++;
            boxroot_modify(&s->r, br_value_make(s->seed));
        } else if (what < 90) {
            if (mbox_put(*s)) {
                s->r = NULL;
                atomic_fetch_add(&n_handed, 1);
            }
        } else {
            struct slot t;
            if (mbox_take(&t, &r)) {
                BR_VALUE_CHECK(boxroot_get(t.r), t.seed, "root taken from the mailbox");
                boxroot_delete(t.r);
                atomic_fetch_add(&n_deleted, 1);
            }
        }
        if ((op & 1023) == 0) br_churn(64, 48);
    }
    for (size_t i = 0; i < SLOTS; i++)
        if (sl[i].r) {
            BR_VALUE_CHECK(boxroot_get(sl[i].r), sl[i].seed, "worker's own root at the end");
            boxroot_delete(sl[i].r);
            atomic_fetch_add(&n_deleted, 1);
        }
    free(sl);
    atomic_fetch_sub(&running, 1);
    return NULL;
}

int main(void)
{
    br_watchdog(BR_WATCHDOG_SECONDS);
    GC_INIT();
    pthread_t t[THREADS];
    atomic_store(&running, THREADS);
    GC_word gc0 = GC_get_gc_no();
    br_stage = "workers";
    for (size_t k = 0; k < THREADS; k++)
        BR_CHECK(pthread_create(&t[k], NULL, worker, (void *)(uintptr_t)k) == 0, "pthread_create");

    /* Collect until the workers are done, with a short pause in between so
       that the workers make progress. */
    size_t explicit_gcs = 0;
    while (atomic_load(&running) > 0) {
        GC_gcollect();
        explicit_gcs++;
        struct timespec ts = { 0, 5000000 };
        nanosleep(&ts, NULL);
    }
    for (size_t k = 0; k < THREADS; k++) pthread_join(t[k], NULL);
    GC_word gcs = GC_get_gc_no() - gc0;

    br_stage = "drain";
    struct slot s;
    br_rng r = { 3 };
    while (mbox_take(&s, &r)) {
        BR_VALUE_CHECK(boxroot_get(s.r), s.seed, "root left in the mailbox");
        boxroot_delete(s.r);
        atomic_fetch_add(&n_deleted, 1);
    }
    struct boxroot_stats st;
    br_stats(&st);
    size_t c = atomic_load(&n_created), d = atomic_load(&n_deleted);
    BR_CHECK(c == d, "program: %zu created, %zu deleted", c, d);
    BR_CHECK(st.live == 0 && st.creations == c && st.deletions == d,
             "stats: live %zu creations %zu deletions %zu; program: %zu created and deleted",
             st.live, st.creations, st.deletions, c);
    BR_CHECK(explicit_gcs >= 1 && gcs >= 10, "only %lu collections ran during the test",
             (unsigned long)gcs);
    printf("boxroot.concurrent: %d threads, %zu roots created and deleted (%zu handed over), %lu "
           "collections, %zu pools: ok\n", THREADS, c, (size_t)atomic_load(&n_handed),
           (unsigned long)gcs, st.pools);
    return 0;
}
