/* exit_no_stale.c: threads that allocate and end without unregistering
 * explicitly (returning, calling pthread_exit, joined or detached) leave
 * nothing behind. 40 rounds of 16 threads; each thread holds 1 MiB of
 * checksummed GC_MALLOC_ATOMIC buffers referenced only from its stack,
 * collects, verifies them and ends. After each round (detached threads
 * included: the round waits until they reported, and collects anyway) the
 * main thread's collections still complete (no waiting for vanished
 * threads), and the heap stays bounded: the 640 MiB the threads' stacks
 * referenced over the run must be reclaimed and reused (the heap after the
 * last round may not exceed 96 MiB, nor twice the heap after round 4). */
#define _GNU_SOURCE
#include <gc.h>

#include <pthread.h>
#include <stdatomic.h>

#include "tcommon.h"

#define ROUNDS 40
#define THREADS_PER_ROUND 16
#define BUFS 8
#define BUF_BYTES (128 * 1024)

static atomic_int g_done;

static void check_bufs(uint64_t **bufs, uint64_t seed)
{
    for (int b = 0; b < BUFS; b++)
        for (size_t i = 0; i < BUF_BYTES / 8; i += 61)
            if (bufs[b][i] != mix64(seed + (uint64_t)b * 100000 + i))
                tfail("thread %llu: buffer %d word %zu corrupted", (unsigned long long)seed, b, i);
}

static void finish_by_exit(uint64_t seed)
{
    atomic_fetch_add(&g_done, 1);
    pthread_exit((void *)(uintptr_t)(seed + 1));
}

static void *worker(void *arg)
{
    uint64_t seed = (uint64_t)(uintptr_t)arg;
    uint64_t *bufs[BUFS];
    for (int b = 0; b < BUFS; b++) {
        bufs[b] = GC_MALLOC_ATOMIC(BUF_BYTES);
        TCHECK(bufs[b] != NULL, "GC_MALLOC_ATOMIC(%d) returned NULL", BUF_BYTES);
        for (size_t i = 0; i < BUF_BYTES / 8; i++) bufs[b][i] = mix64(seed + (uint64_t)b * 100000 + i);
    }
    if (seed % 4 == 0) GC_gcollect();
    check_bufs(bufs, seed);
    if (seed % 3 == 1) finish_by_exit(seed);
    atomic_fetch_add(&g_done, 1);
    return (void *)(uintptr_t)(seed + 1);
}

int main(void)
{
    GC_INIT();
    t_watchdog(150);
    size_t heap_round4 = 0, max_heap = 0;
    uint64_t seed = 1;
    for (int round = 0; round < ROUNDS; round++) {
        t_stage = "running a round of threads";
        atomic_store(&g_done, 0);
        pthread_t t[THREADS_PER_ROUND];
        int detached[THREADS_PER_ROUND];
        for (int i = 0; i < THREADS_PER_ROUND; i++) {
            int r = pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)seed++);
            TCHECK(r == 0, "pthread_create: %d", r);
            detached[i] = i % 2;
            if (detached[i]) TCHECK(pthread_detach(t[i]) == 0, "pthread_detach");
        }
        for (int i = 0; i < THREADS_PER_ROUND; i++)
            if (!detached[i]) TCHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
        while (atomic_load(&g_done) < THREADS_PER_ROUND) sched_yield();
        t_stage = "collecting after the threads ended";
        GC_gcollect();
        GC_gcollect();
        size_t heap = GC_get_heap_size();
        if (heap > max_heap) max_heap = heap;
        if (round == 4) heap_round4 = heap;
    }
    t_stage = "final collections";
    GC_gcollect();
    size_t heap = GC_get_heap_size();
    size_t total = (size_t)ROUNDS * THREADS_PER_ROUND * BUFS * BUF_BYTES;
    printf("exit_no_stale: %d threads allocated %zu MiB in all; heap after round 4 %zu MiB, at the "
           "end %zu MiB, at most %zu MiB\n", ROUNDS * THREADS_PER_ROUND, total >> 20,
           heap_round4 >> 20, heap >> 20, max_heap >> 20);
    TCHECK(heap <= (size_t)96 << 20, "heap of %zu MiB: memory referenced by ended threads' stacks "
           "was not reclaimed", heap >> 20);
    TCHECK(heap <= 2 * heap_round4 + ((size_t)8 << 20), "heap grew from %zu MiB (round 4) to %zu MiB",
           heap_round4 >> 20, heap >> 20);
    return 0;
}
