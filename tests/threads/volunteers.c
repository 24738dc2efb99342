/* volunteers.c (bibop only): stopped threads that mark in their suspend
 * handler ("volunteers", src/markers.c) and a joining thread that waits in
 * a blocking section (GC_pthread_join).
 * - With GC_MARKERS=2 and BIBOP_HELPERS_MIN_HEAP=0 (set here before
 *   GC_INIT: the heap is small), WORKERS threads build and
 *   drop checksummed lists and keep one list each across the whole run;
 *   collections triggered by any of them stop the others, which volunteer.
 *   Every kept list must be intact at every check (a volunteer that marked
 *   wrong or too little shows up as a corrupted list once the memory is
 *   reused), and bibop_get_marker_counts must report volunteers. A
 *   volunteer joins only if it gets a CPU before the collector has marked
 *   everything, which a loaded machine may deny for a while: the workers
 *   go on collecting (up to EXTRA_ROUNDS more rounds) until one has.
 *   Volunteers come only from a CPU other than the collector's: pinned
 *   to one CPU (taskset, or the argument "one-cpu"), the run must report
 *   none.
 * - With the argument "off" (BIBOP_VOLUNTEERS=0) the same run must report
 *   no volunteer, and helper threads instead.
 * - The main thread keeps a list referenced only from its own stack while
 *   it waits in pthread_join (redirected to GC_pthread_join), which now
 *   waits in a blocking section: its stack above that point must still be
 *   scanned, so the list is intact after the join.
 * Behaviour only: no timing. */
#define _GNU_SOURCE
#include <gc.h>
#include <bibop.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "tcommon.h"

#define WORKERS 3
#define ROUNDS 600
#define KEPT_LEN 20000
#define DROPPED_LEN 300
/* Unloaded, a volunteer joins within ROUNDS; with the machine's CPUs
   taken by other processes (a valgrind run beside ctest -j2), 20,000 more
   rounds (~1,200 collections, 1 s) once passed without one. */
#define EXTRA_ROUNDS 200000

static int g_off;
static int g_one_cpu;   /* the process may run on one CPU only */

static atomic_ulong g_checks;

static int any_volunteer(void)
{
    struct bibop_marker_counts c;
    bibop_get_marker_counts(&c);
    return c.total_volunteers > 0;
}

static void *worker(void *arg)
{
    uint64_t seed = 100 + (uintptr_t)arg;
    tcell_t *kept;
    TLIST_BUILD(kept, KEPT_LEN, seed);
    for (unsigned r = 0; r < ROUNDS + (g_off ? 0 : EXTRA_ROUNDS); r++) {
        if (r >= ROUNDS && (g_one_cpu || any_volunteer())) break;
        tcell_t *dropped;
        TLIST_BUILD(dropped, DROPPED_LEN, seed * 7919 + r);
        tlist_verify(dropped, DROPPED_LEN, seed * 7919 + r, "dropped list");
        TCHURN(200, 48);
        if (r % 50 == 0) GC_gcollect();
        if (r % 20 == 0) {
            tlist_verify(kept, KEPT_LEN, seed, "kept list");
            atomic_fetch_add(&g_checks, 1);
        }
    }
    tlist_verify(kept, KEPT_LEN, seed, "kept list at the end");
    return NULL;
}

int main(int argc, char **argv)
{
    int off = g_off = argc > 1 && strcmp(argv[1], "off") == 0;
    setenv("GC_MARKERS", "2", 1);
    setenv("BIBOP_HELPERS_MIN_HEAP", "0", 1);   /* a small heap: helpers all the same */
    if (off) setenv("BIBOP_VOLUNTEERS", "0", 1);
    cpu_set_t usable;
    if (argc > 1 && strcmp(argv[1], "one-cpu") == 0) {   /* pin to the CPU it runs on */
        CPU_ZERO(&usable);
        CPU_SET(sched_getcpu(), &usable);
        TCHECK(sched_setaffinity(0, sizeof usable, &usable) == 0, "sched_setaffinity failed");
    }
    g_one_cpu = sched_getaffinity(0, sizeof usable, &usable) == 0 && CPU_COUNT(&usable) < 2;
    GC_INIT();
    t_watchdog(600);   /* a hang, not slowness: the extra rounds may take minutes at load 30 */

    t_stage = "build the main thread's list";
    tcell_t *mine;
    TLIST_BUILD(mine, KEPT_LEN, 7);

    t_stage = "workers";
    T_RUN_THREADS(worker, WORKERS);

    t_stage = "check";
    tlist_verify(mine, KEPT_LEN, 7, "the joining thread's list");
    TCHECK(atomic_load(&g_checks) >= WORKERS * (ROUNDS / 20), "workers' checks did not all run");
    struct bibop_marker_counts c;
    bibop_get_marker_counts(&c);
    printf("collections %lu, helpers joined %llu times, volunteers %llu times\n", c.gc_no,
           c.total_helpers, c.total_volunteers);
    TCHECK(c.gc_no >= WORKERS * (ROUNDS / 50), "too few collections: %lu", c.gc_no);
    if (off) {
        TCHECK(c.total_volunteers == 0, "BIBOP_VOLUNTEERS=0, yet %llu volunteers",
               c.total_volunteers);
        TCHECK(c.total_helpers > 0, "no helper thread ever marked");
    } else if (g_one_cpu) {
        /* Volunteers come only from a CPU other than the collector's. */
        TCHECK(c.total_volunteers == 0, "one CPU, yet %llu volunteers", c.total_volunteers);
    } else {
        TCHECK(c.total_volunteers > 0, "no stopped thread ever volunteered");
    }
    printf("ok\n");
    return 0;
}
