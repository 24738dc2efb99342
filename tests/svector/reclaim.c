/* svector.reclaim: a structure vector is reclaimed when the last reference
 * to any of its elements dies, so a program that keeps allocating vectors
 * and holding only element references of the newest ones runs in a bounded
 * heap.
 *
 *   phase 1  300 rounds; each allocates a vector (1 MiB of fields; every
 *            10th round 3 MiB, a multi-chunk object), some small vectors and
 *            individually allocated structures, and keeps only a reference
 *            to a middle element of the newest vector in a global (the
 *            previous one is overwritten)
 *   phase 2  300 rounds where each new vector's element 0 holds (in a
 *            pointer field) a middle element of the previous vector; the
 *            chain is cut every 8 rounds, so at most 8 vectors are live
 *
 * After every round GC_get_heap_size() must stay under HEAP_BOUND (the
 * program allocates ~1 GiB in all; the heap size is the committed memory,
 * which holds up to twice the live vectors: a 1 MiB vector takes 257
 * blocks, more than half a 2 MiB chunk, and freed chunks stay committed
 * for GC_UNMAP_THRESHOLD collections), and at the end the vectors of all but
 * the last rounds must have been reclaimed (disappearing links in atomic
 * memory; statistical: 90%).
 *
 * selfcheck-keep also keeps every element reference in a GC_MALLOC'd array:
 * it must FAIL with "heap bound". */
#include <gc.h>
#include <bibop.h>

#include "svcommon.h"

#define ROUNDS 300
#define HEAP_BOUND ((size_t)128 << 20)
#define SMALL_N ((size_t)1 << 16)          /* 2 fields: 1 MiB */
#define BIG_N ((size_t)3 << 17)            /* 2 fields: 3 MiB */

static const bibop_struct_type *T;          /* {pointer, word} */
static void *volatile hold;                 /* the newest element reference */
static void **volatile kept;                /* selfcheck-keep */
static sv_links links;                      /* one per round and phase */
static size_t max_heap;

static SV_NOINLINE void *one_round(int phase, int round, void *prev)
{
    size_t n = round % 10 == 9 ? BIG_N : SMALL_N;
    unsigned long *v = bibop_svector_new(T, n);
    SV_CHECK(v != NULL, "phase %d round %d: svector_new(%zu) failed", phase, round, n);
    for (size_t i = 0; i < n; i++) v[2 * i + 1] = sv_value(round, i, 1);
    if (phase == 2 && prev && round % 8 != 0) bibop_field_set(v, 0, (unsigned long)prev);
    sv_links_watch(&links, (size_t)(phase - 1) * ROUNDS + (size_t)round, v);
    /* Short-lived companions: small vectors and structures. */
    for (int j = 0; j < 50; j++) {
        void *s = bibop_svector_new(T, 1 + (size_t)j);
        void *t = bibop_struct_new(T);
        SV_CHECK(s != NULL && t != NULL, "companions");
        bibop_field_set(t, 0, (unsigned long)bibop_svector_ref(s, (size_t)j));
    }
    void *mid = bibop_svector_ref(v, n / 2 + (size_t)round % 7);
    SV_CHECK(mid != NULL, "ref");
    return mid;
}

static SV_NOINLINE void check_round(int phase, int round)
{
    /* The held element and whatever it chains to is intact. */
    unsigned long *e = hold;
    int depth = 0;
    for (int r = round; e; r--, depth++) {
        SV_CHECK(bibop_type_of(e) == T, "phase %d round %d: chained vector %d lost its type",
                 phase, round, depth);
        unsigned long *v = (unsigned long *)GC_base(e) + 2;
        size_t n = r % 10 == 9 ? BIG_N : SMALL_N;
        SV_CHECK(bibop_svector_length(v) == n, "phase %d round %d depth %d: length %zu, want %zu",
                 phase, round, depth, bibop_svector_length(v), n);
        size_t i = (size_t)(e - v) / 2;
        SV_CHECK(e[1] == sv_value(r, i, 1) && v[1] == sv_value(r, 0, 1),
                 "phase %d round %d depth %d: contents changed", phase, round, depth);
        e = (unsigned long *)v[0];
        SV_CHECK(depth < 8, "phase %d round %d: chain longer than 8", phase, round);
    }
    size_t heap = GC_get_heap_size();
    if (heap > max_heap) max_heap = heap;
    SV_CHECK(heap <= HEAP_BOUND,
             "phase %d round %d: heap bound exceeded: heap %zu MiB > %zu MiB (gc_no %lu)", phase,
             round, heap >> 20, HEAP_BOUND >> 20, (unsigned long)GC_get_gc_no());
}

int main(int argc, char **argv)
{
    int keep = argc > 1 && strcmp(argv[1], "selfcheck-keep") == 0;
    if (argc > 1 && !keep) {
        fprintf(stderr, "usage: %s [selfcheck-keep]\n", argv[0]);
        return 2;
    }
    GC_INIT();
    unsigned long bits[1] = { 1 };
    T = bibop_struct_type_new("reclaim", 2, bits);
    SV_CHECK(T != NULL, "type");
    links = sv_links_new(2 * ROUNDS);
    if (keep) kept = GC_MALLOC(2 * ROUNDS * sizeof(void *));

    for (int phase = 1; phase <= 2; phase++) {
        hold = NULL;
        for (int round = 0; round < ROUNDS; round++) {
            void *e = one_round(phase, round, hold);
            hold = e;
            if (keep) kept[(phase - 1) * ROUNDS + round] = e;
            e = NULL;
            sv_scrub_stack();
            check_round(phase, round);
        }
        printf("phase %d: max heap %zu MiB, %lu collections so far\n", phase, max_heap >> 20,
               (unsigned long)GC_get_gc_no());
    }

    /* Everything but the newest chain (<= 8 vectors) is garbage. */
    sv_collect_and_churn(2, NULL);
    size_t old = 2 * ROUNDS - 8;
    size_t alive = sv_links_alive(&links, 0, ROUNDS) + sv_links_alive(&links, ROUNDS, 2 * ROUNDS - 8);
    SV_CHECK(alive * 10 <= old, "%zu of %zu dropped vectors were not reclaimed", alive, old);
    SV_CHECK(links.cells[2 * ROUNDS - 1] != NULL, "the held vector was reclaimed");
    printf("%zu of %zu dropped vectors survived; max heap %zu MiB\n", alive, old, max_heap >> 20);
    printf("svector.reclaim: ok\n");
    return 0;
}
