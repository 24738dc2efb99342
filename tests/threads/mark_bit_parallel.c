/* mark_bit_parallel.c (bibop only): GC_set_mark_bit while markers run in
 * parallel. During a parallel phase only the collecting thread's marker
 * writes small blocks' mark bits, with plain stores; a mark set by client
 * code then goes in the object's mark byte, which the fold turns into its
 * bit when the phase ends (src/mark.c, claim_small and mark_set_bit).
 * - WORKERS threads each keep HOLDERS objects of a kind scanned by a mark
 *   procedure: the procedure pushes the holder's list (GC_MARK_AND_PUSH) and
 *   only sets the mark bit of the holder's payload (GC_set_mark_bit), a
 *   pointer-free object that nothing else keeps. The procedure runs on
 *   whichever marker pops the holder: the collector's, a helper or a
 *   volunteer (GC_MARKERS=2 and BIBOP_HELPERS_MIN_HEAP=0, set here before
 *   GC_INIT).
 * - The main thread keeps HOOKED pointer-free objects only in malloc'd
 *   memory and sets their mark bits from a GC_push_other_roots hook, which
 *   runs on the collecting thread while the other markers may be marking.
 * - Meanwhile every thread churns pointer-free objects of the payloads' size
 *   with a fill pattern and collects: a payload whose mark was lost is freed
 *   and soon overwritten, which its checksum shows. Every list must stay
 *   intact too, and some collections must have run with a second marker.
 *   A second marker joins only a phase still running when it arrives (a
 *   stopped thread's handler must run first, a helper must wake up), so
 *   each worker also keeps a ballast list of BALLAST cells that makes every
 *   collection mark for a while.
 * Behaviour only: no timing. */
#define _GNU_SOURCE
#include <gc.h>
#include <gc/gc_mark.h>
#include <bibop.h>

#include <pthread.h>
#include <stdatomic.h>

#include "tcommon.h"

#define WORKERS 3
#define HOLDERS 200
#define LIST_LEN 6
#define PAYLOAD_WORDS 6
#define HOOKED 500
#define ROUNDS 400
#define EXTRA_ROUNDS 20000
#define BALLAST 20000

typedef struct {
    uint64_t *payload;   /* kept by GC_set_mark_bit only */
    tcell_t *list;       /* pushed by the mark procedure */
    uint64_t seed;
} holder_t;

static int g_holder_kind;
static uint64_t **g_hooked;   /* malloc'd: the collector never scans it */
static GC_push_other_roots_proc g_prev_hook;
static atomic_ulong g_checks;

static void payload_fill(uint64_t *p, uint64_t seed)
{
    for (size_t i = 0; i < PAYLOAD_WORDS; i++) p[i] = tcell_value(seed, i);
}

static void payload_verify(const uint64_t *p, uint64_t seed, const char *what)
{
    for (size_t i = 0; i < PAYLOAD_WORDS; i++)
        TCHECK(p[i] == tcell_value(seed, i),
               "%s (seed %llu): word %zu is %#llx, a freed and reused object?", what,
               (unsigned long long)seed, i, (unsigned long long)p[i]);
}

static struct GC_ms_entry *holder_mark(GC_word *addr, struct GC_ms_entry *msp,
                                       struct GC_ms_entry *msl, GC_word env)
{
    (void)env;
    holder_t *h = (holder_t *)addr;
    if (h->payload) GC_set_mark_bit(h->payload);
    if (h->list) msp = GC_MARK_AND_PUSH(h->list, msp, msl, (void **)&h->list);
    return msp;
}

static void hook(void)
{
    for (size_t i = 0; i < HOOKED; i++) GC_set_mark_bit(g_hooked[i]);
    if (g_prev_hook) g_prev_hook();
}

static uint64_t *new_payload(uint64_t seed)
{
    uint64_t *p = GC_MALLOC_ATOMIC(PAYLOAD_WORDS * sizeof *p);
    TCHECK(p != NULL, "GC_MALLOC_ATOMIC returned NULL");
    payload_fill(p, seed);
    return p;
}

/* Pointer-free objects of the payloads' size, filled with a pattern that is
   no payload's, so a reused payload fails its check. */
static void churn(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t *p = GC_MALLOC_ATOMIC(PAYLOAD_WORDS * sizeof *p);
        TCHECK(p != NULL, "GC_MALLOC_ATOMIC returned NULL in churn");
        for (size_t k = 0; k < PAYLOAD_WORDS; k++) p[k] = 0xdeadbeefdeadbeefULL;
    }
}

static int any_parallel(void)
{
    struct bibop_marker_counts c;
    bibop_get_marker_counts(&c);
    return c.total_volunteers + c.total_helpers > 0;
}

static void verify_holders(holder_t **hs, const char *when)
{
    for (size_t i = 0; i < HOLDERS; i++) {
        payload_verify(hs[i]->payload, hs[i]->seed, when);
        tlist_verify(hs[i]->list, LIST_LEN, hs[i]->seed, when);
    }
}

static void *worker(void *arg)
{
    uint64_t base = 1000 * (1 + (uintptr_t)arg);
    /* The holders themselves are kept by this array (an ordinary object). */
    holder_t **hs = GC_MALLOC(HOLDERS * sizeof *hs);
    TCHECK(hs != NULL, "GC_MALLOC returned NULL");
    tcell_t *ballast;
    TLIST_BUILD(ballast, BALLAST, base);
    for (size_t i = 0; i < HOLDERS; i++) {
        holder_t *h = GC_generic_malloc(sizeof *h, g_holder_kind);
        TCHECK(h != NULL, "GC_generic_malloc returned NULL");
        h->seed = base + i;
        h->payload = new_payload(h->seed);
        TLIST_BUILD(h->list, LIST_LEN, h->seed);
        hs[i] = h;
    }
    for (unsigned r = 0; r < ROUNDS + EXTRA_ROUNDS; r++) {
        if (r >= ROUNDS && any_parallel()) break;
        churn(300);
        TCHURN(100, 48);
        if (r % 25 == 0) GC_gcollect();
        if (r % 20 == 0) {
            verify_holders(hs, "holder payload or list");
            atomic_fetch_add(&g_checks, 1);
        }
    }
    verify_holders(hs, "holder payload or list at the end");
    tlist_verify(ballast, BALLAST, base, "ballast list");
    return NULL;
}

int main(void)
{
    setenv("GC_MARKERS", "2", 1);
    setenv("BIBOP_HELPERS_MIN_HEAP", "0", 1);   /* a small heap: helpers all the same */
    GC_INIT();
    t_watchdog(100);

    t_stage = "set up";
    g_holder_kind = (int)GC_new_kind(GC_new_free_list(),
                                     GC_MAKE_PROC(GC_new_proc(holder_mark), 0), 0, 1);
    g_hooked = malloc(HOOKED * sizeof *g_hooked);
    TCHECK(g_hooked != NULL, "malloc failed");
    for (size_t i = 0; i < HOOKED; i++) g_hooked[i] = new_payload(77000 + i);
    g_prev_hook = GC_get_push_other_roots();
    GC_set_push_other_roots(hook);

    t_stage = "workers";
    T_RUN_THREADS(worker, WORKERS);

    t_stage = "check";
    for (size_t i = 0; i < HOOKED; i++) payload_verify(g_hooked[i], 77000 + i, "hooked object");
    GC_set_push_other_roots(g_prev_hook);
    free(g_hooked);
    struct bibop_marker_counts c;
    bibop_get_marker_counts(&c);
    TCHECK(c.gc_no >= WORKERS * (ROUNDS / 25), "too few collections: %lu", c.gc_no);
    TCHECK(c.total_helpers + c.total_volunteers > 0, "no collection ran with a second marker");
    TCHECK(atomic_load(&g_checks) >= WORKERS * (ROUNDS / 20), "workers' checks did not all run");
    printf("ok: %lu collections; a second marker joined %llu of them\n", c.gc_no,
           c.total_helpers + c.total_volunteers);
    return 0;
}
