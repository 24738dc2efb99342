/* markers_from_cpus.c (bibop only): the default number of markers follows
 * the CPUs the process may use, not the CPUs online (src/os.c,
 * os_cpus_usable).
 * - "one-cpu": pinned to the CPU it runs on (sched_setaffinity) before
 *   GC_INIT, with GC_MARKERS and GC_NPROCS unset, the process must get no
 *   helper marker (GC_get_parallel() == 0 after GC_start_mark_threads):
 *   a second marker could only take turns with the first.
 * - "one-cpu-explicit": the same pinning with GC_MARKERS=2 set: an
 *   explicit request is honoured (one helper).
 * In both, a list built across collections must come out intact.
 * Behaviour only: no timing. */
#define _GNU_SOURCE
#include <gc.h>

#include <pthread.h>
#include <sched.h>

#include "tcommon.h"

#define CELLS 200000

struct cell {
    struct cell *next;
    uint64_t value;
};

int main(int argc, char **argv)
{
    TCHECK(argc == 2, "usage: markers_from_cpus one-cpu|one-cpu-explicit");
    int explicit_markers = strcmp(argv[1], "one-cpu-explicit") == 0;
    TCHECK(explicit_markers || strcmp(argv[1], "one-cpu") == 0, "unknown mode %s", argv[1]);
    t_watchdog(300);
    unsetenv("GC_NPROCS");
    if (explicit_markers) setenv("GC_MARKERS", "2", 1);
    else unsetenv("GC_MARKERS");

    int cpu = sched_getcpu();
    TCHECK(cpu >= 0, "sched_getcpu failed");
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    TCHECK(sched_setaffinity(0, sizeof one, &one) == 0, "sched_setaffinity to CPU %d failed", cpu);

    GC_INIT();
    GC_start_mark_threads();
    int expected = explicit_markers ? 1 : 0;
    TCHECK(GC_get_parallel() == expected,
           "%s: GC_get_parallel() is %d, expected %d", argv[1], GC_get_parallel(), expected);

    struct cell *head = NULL;
    for (uint64_t i = 0; i < CELLS; i++) {
        struct cell *c = GC_MALLOC(sizeof *c);
        TCHECK(c != NULL, "allocation failed");
        c->next = head;
        c->value = mix64(i);
        head = c;
        if (i % 50000 == 0) GC_gcollect();
    }
    GC_gcollect();
    uint64_t i = CELLS;
    for (struct cell *c = head; c; c = c->next) {
        TCHECK(i > 0, "the list is longer than built");
        i--;
        TCHECK(c->value == mix64(i), "cell %llu damaged", (unsigned long long)i);
    }
    TCHECK(i == 0, "the list lost %llu cells", (unsigned long long)i);
    printf("PASS markers_from_cpus %s: GC_get_parallel() = %d on one CPU\n", argv[1], GC_get_parallel());
    return 0;
}
