/* model.c: model-based test. A random object graph (seeded PRNG, thousands
 * of objects of 16 B to 64 KiB, GC_malloc for nodes with links and
 * GC_malloc_atomic for some leaves) is held only through root arrays
 * registered with GC_add_roots (one static, one malloc'd) and through an
 * array on the stack. Each object carries its id and a checksum of its
 * payload; a shadow model kept in malloc'd memory (never scanned, holding
 * only hidden addresses and ids) records what every object and link must
 * be. Random mutations (add, relink, drop, rewrite) are interleaved with
 * GC_gcollect() and with the collections that allocation triggers; after
 * every collection everything reachable from the roots is walked and every
 * checksum and link verified (invariant: reachable objects survive with
 * their contents unchanged).
 * Then a steady-state churn phase allocates ~2 GB while keeping ~20 MB live:
 * the heap must stay below 8 times the live set (memory is reclaimed and
 * reused). Optional argument: number of mutation steps. */
#include <gc.h>

#include "check.h"

#define MAX_LINKS 8
#define N_STATIC_ROOTS 1024
#define N_DYN_ROOTS 1024
#define N_STACK_ROOTS 32
#define N_ROOTS (N_STATIC_ROOTS + N_DYN_ROOTS + N_STACK_ROOTS)

typedef struct obj {
    uint32_t id;
    uint32_t sum;            /* checksum of id, size and payload */
    struct obj *link[];      /* nlinks links, then the payload */
} obj_t;

typedef struct {
    uintptr_t hidden;        /* HIDE(address): the model never holds a root */
    uint32_t size;           /* requested bytes */
    uint32_t sum;
    uint32_t links[MAX_LINKS]; /* ids, 0 = NULL */
    uint32_t visited;        /* epoch of the last walk that reached it */
    uint8_t atomic, nlinks;
} shadow_t;

static obj_t *g_static_roots[N_STATIC_ROOTS];
static obj_t **g_dyn_roots;                  /* malloc'd, GC_add_roots */
static obj_t *volatile *g_stack_roots;       /* an array in run()'s frame */
static uint32_t g_root_ids[N_ROOTS];         /* model of all root slots */

static shadow_t *g_sh;                       /* indexed by id, 0 unused */
static uint32_t g_nsh, g_capsh;
static uint32_t *g_work;                     /* DFS stack of ids */
static uint32_t g_epoch;
static rng_t g_rng;

static size_t g_live_count, g_live_bytes, g_verifications;

static obj_t *get_root(unsigned r)
{
    if (r < N_STATIC_ROOTS) return g_static_roots[r];
    r -= N_STATIC_ROOTS;
    if (r < N_DYN_ROOTS) return g_dyn_roots[r];
    return g_stack_roots ? g_stack_roots[r - N_DYN_ROOTS] : NULL;
}

static void set_root(unsigned r, obj_t *p, uint32_t id)
{
    g_root_ids[r] = id;
    if (r < N_STATIC_ROOTS) { g_static_roots[r] = p; return; }
    r -= N_STATIC_ROOTS;
    if (r < N_DYN_ROOTS) { g_dyn_roots[r] = p; return; }
    g_stack_roots[r - N_DYN_ROOTS] = p;
}

static size_t payload_off(const shadow_t *s) { return 8 + 8 * (size_t)s->nlinks; }

static uint32_t payload_sum(const obj_t *o, const shadow_t *s, uint32_t id)
{
    size_t off = payload_off(s);
    return (uint32_t)hash_bytes((const char *)o + off, s->size - off,
                                ((uint64_t)s->size << 32) | id);
}

/* The model entry for a pointer met while mutating; fails loudly instead of
 * crashing if the object was damaged. */
static shadow_t *sh_of(obj_t *p)
{
    uint32_t id = p->id;
    CHECKF(id > 0 && id < g_nsh && g_sh[id].hidden == HIDE(p),
           "object %p carries id %u which is not its own (corrupted)",
           (void *)p, id);
    return &g_sh[id];
}

static size_t rand_size(rng_t *r)
{
    uint64_t k = rng_below(r, 100);
    if (k < 70) return 16 + rng_below(r, 240);
    if (k < 93) return 256 + rng_below(r, 3840);
    return 4096 + rng_below(r, 65536 - 4096 + 1);
}

static void verify_fail_path(uint32_t id, const char *what)
{
    fprintf(stderr, "model: %s at object id %u (size %u, %s, %u links), "
            "after %lu collections\n", what, id, g_sh[id].size,
            g_sh[id].atomic ? "atomic" : "normal", g_sh[id].nlinks,
            (unsigned long)GC_get_gc_no());
}

/* Walk everything reachable from the roots; check every object and link. */
static void verify_all(void)
{
    size_t sp = 0, count = 0, bytes = 0;
    g_epoch++;
    g_verifications++;
    for (unsigned r = 0; r < N_ROOTS; r++) {
        uint32_t id = g_root_ids[r];
        obj_t *p = get_root(r);
        if (id == 0) {
            CHECKF(p == NULL, "root slot %u should be NULL, holds %p", r, (void *)p);
            continue;
        }
        CHECKF(p == UNHIDE(g_sh[id].hidden), "root slot %u holds %p, model "
               "says %p (id %u)", r, (void *)p, UNHIDE(g_sh[id].hidden), id);
        g_work[sp++] = id;
    }
    while (sp > 0) {
        uint32_t id = g_work[--sp];
        shadow_t *s = &g_sh[id];
        if (s->visited == g_epoch) continue;
        s->visited = g_epoch;
        count++;
        bytes += s->size;
        obj_t *o = UNHIDE(s->hidden);
        if (o->id != id) {
            verify_fail_path(id, "id overwritten");
            CHECKF(o->id == id, "object %p has id %u, want %u", (void *)o, o->id, id);
        }
        uint32_t sum = payload_sum(o, s, id);
        if (sum != s->sum || o->sum != s->sum) {
            verify_fail_path(id, "payload changed");
            CHECKF(sum == s->sum && o->sum == s->sum, "object %p id %u: payload "
                   "checksum %08x, stored %08x, model %08x", (void *)o, id, sum,
                   o->sum, s->sum);
        }
        if ((g_verifications & 7) == 0) {
            void *b = GC_base(o);
            CHECKF(b == o, "GC_base(%p) = %p for live object id %u", (void *)o, b, id);
        }
        for (unsigned k = 0; k < s->nlinks; k++) {
            uint32_t lid = s->links[k];
            obj_t *q = o->link[k];
            if (lid == 0) {
                if (q != NULL) verify_fail_path(id, "link changed");
                CHECKF(q == NULL, "object id %u link %u = %p, want NULL", id, k, (void *)q);
                continue;
            }
            if (q != UNHIDE(g_sh[lid].hidden)) verify_fail_path(id, "link changed");
            CHECKF(q == UNHIDE(g_sh[lid].hidden), "object id %u link %u = %p, "
                   "want %p (id %u)", id, k, (void *)q, UNHIDE(g_sh[lid].hidden), lid);
            if (g_sh[lid].visited != g_epoch) g_work[sp++] = lid;
        }
    }
    g_live_count = count;
    g_live_bytes = bytes;
}

static uint32_t new_shadow(void)
{
    if (g_nsh == g_capsh) {
        g_capsh *= 2;
        g_sh = realloc(g_sh, g_capsh * sizeof *g_sh);
        g_work = realloc(g_work, (g_capsh * (size_t)(MAX_LINKS + 1) + N_ROOTS) * sizeof *g_work);
        CHECK(g_sh != NULL && g_work != NULL);
    }
    memset(&g_sh[g_nsh], 0, sizeof g_sh[g_nsh]);
    return g_nsh++;
}

/* A random object that is reachable right now: a random root, then a short
 * random walk along links. */
static obj_t *pick_reachable(void)
{
    obj_t *p = NULL;
    for (int i = 0; i < 32 && p == NULL; i++)
        p = get_root((unsigned)rng_below(&g_rng, N_ROOTS));
    if (p == NULL) return NULL;
    for (int steps = (int)rng_below(&g_rng, 6); steps > 0; steps--) {
        shadow_t *s = sh_of(p);
        if (s->nlinks == 0) break;
        obj_t *q = p->link[rng_below(&g_rng, s->nlinks)];
        if (q == NULL) break;
        p = q;
    }
    return p;
}

static obj_t *pick_reachable_with_links(void)
{
    for (int i = 0; i < 8; i++) {
        obj_t *p = pick_reachable();
        if (p != NULL && sh_of(p)->nlinks > 0) return p;
    }
    return NULL;
}

static void rewrite_payload(obj_t *o, shadow_t *s, uint32_t id)
{
    size_t off = payload_off(s);
    fill_pattern((char *)o + off, s->size - off, rng_next(&g_rng));
    s->sum = payload_sum(o, s, id);
    o->sum = s->sum;
}

static void op_add(void)
{
    size_t size = rand_size(&g_rng);
    int atomic = rng_below(&g_rng, 4) == 0;
    unsigned maxl = (unsigned)((size - 8) / 8);
    if (maxl > MAX_LINKS) maxl = MAX_LINKS;
    unsigned nlinks = atomic ? 0 : (unsigned)rng_below(&g_rng, maxl + 1);
    obj_t *targets[MAX_LINKS]; /* held only here (stack) across the allocation */
    for (unsigned k = 0; k < nlinks; k++)
        targets[k] = rng_below(&g_rng, 3) ? pick_reachable() : NULL;

    obj_t *o = atomic ? GC_malloc_atomic(size) : GC_malloc(size);
    CHECKF(o != NULL, "GC_malloc%s(%zu) returned NULL", atomic ? "_atomic" : "", size);
    if (!atomic) {
        const unsigned char *b = (const unsigned char *)o;
        for (size_t i = 0; i < size; i++)
            CHECKF(b[i] == 0, "GC_malloc(%zu) = %p: byte %zu is 0x%02x, not zero",
                   size, (void *)o, i, b[i]);
    }
    uint32_t id = new_shadow();
    shadow_t *s = &g_sh[id];
    s->hidden = HIDE(o);
    s->size = (uint32_t)size;
    s->atomic = (uint8_t)atomic;
    s->nlinks = (uint8_t)nlinks;
    o->id = id;
    for (unsigned k = 0; k < nlinks; k++) {
        o->link[k] = targets[k];
        s->links[k] = targets[k] ? sh_of(targets[k]) - g_sh : 0;
    }
    rewrite_payload(o, s, id);

    obj_t *parent = rng_below(&g_rng, 2) ? pick_reachable_with_links() : NULL;
    if (parent != NULL) {
        shadow_t *ps = sh_of(parent);
        unsigned k = (unsigned)rng_below(&g_rng, ps->nlinks);
        parent->link[k] = o;
        ps->links[k] = id;
    } else {
        set_root((unsigned)rng_below(&g_rng, N_ROOTS), o, id);
    }
}

static void op_relink(void)
{
    obj_t *p = pick_reachable_with_links();
    if (p == NULL) return;
    shadow_t *ps = sh_of(p);
    unsigned k = (unsigned)rng_below(&g_rng, ps->nlinks);
    obj_t *t = rng_below(&g_rng, 5) ? pick_reachable() : NULL;
    p->link[k] = t;
    ps->links[k] = t ? (uint32_t)(sh_of(t) - g_sh) : 0;
}

static void op_root_assign(void)
{
    obj_t *t = pick_reachable();
    set_root((unsigned)rng_below(&g_rng, N_ROOTS), t, t ? (uint32_t)(sh_of(t) - g_sh) : 0);
}

static void op_drop(void)
{
    if (rng_below(&g_rng, 2)) {
        set_root((unsigned)rng_below(&g_rng, N_ROOTS), NULL, 0);
    } else {
        obj_t *p = pick_reachable_with_links();
        if (p == NULL) return;
        shadow_t *ps = sh_of(p);
        unsigned k = (unsigned)rng_below(&g_rng, ps->nlinks);
        p->link[k] = NULL;
        ps->links[k] = 0;
    }
}

static void op_rewrite(void)
{
    obj_t *p = pick_reachable();
    if (p == NULL) return;
    shadow_t *s = sh_of(p);
    rewrite_payload(p, s, (uint32_t)(s - g_sh));
}

static NOINLINE void run_mutations(long steps)
{
    obj_t *volatile stack_roots[N_STACK_ROOTS];
    for (int i = 0; i < N_STACK_ROOTS; i++) stack_roots[i] = NULL;
    g_stack_roots = stack_roots;

    GC_word last_gc = GC_get_gc_no();
    size_t implicit = 0, explicit_ = 0, max_live = 0;
    for (long step = 0; step < steps; step++) {
        unsigned p_add = g_live_count < 2500 ? 55 : g_live_count > 6000 ? 20 : 35;
        unsigned op = (unsigned)rng_below(&g_rng, 100);
        if (op < p_add) op_add();
        else if (op < p_add + 25) op_relink();
        else if (op < p_add + 35) op_root_assign();
        else if (op < p_add + 47) op_drop();
        else op_rewrite();

        if (step % 25000 == 24999) {
            GC_gcollect();
            explicit_++;
        }
        if (GC_get_gc_no() != last_gc) {
            if (step % 25000 != 24999) implicit++;
            verify_all();
            last_gc = GC_get_gc_no();
            if (g_live_count > max_live) max_live = g_live_count;
        }
    }
    GC_gcollect();
    verify_all();
    printf("model: %ld steps, %u objects created, %zu explicit and %zu implicit "
           "collections verified, live now %zu objects / %zu KiB (max %zu "
           "objects)\n", steps, g_nsh - 1, explicit_, implicit, g_live_count,
           g_live_bytes >> 10, max_live);
    CHECKF(implicit >= 10, "only %zu collections were triggered by allocation",
           implicit);
    CHECKF(max_live >= 2000, "the live graph never grew beyond %zu objects",
           max_live);
    /* leave the stack array: drop it from the model */
    for (unsigned r = N_STATIC_ROOTS + N_DYN_ROOTS; r < N_ROOTS; r++)
        set_root(r, NULL, 0);
    g_stack_roots = NULL;
}

/* ---- steady-state churn ------------------------------------------------ */

#define CHURN_SLOTS 65536
#define CHURN_LIVE (20u << 20)
#define CHURN_TOTAL ((size_t)2 << 30)

typedef struct { uint32_t size, sum; uintptr_t hidden; } slot_t;

static void churn_verify(obj_t **slots, const slot_t *sl, int full)
{
    for (unsigned i = 0; i < CHURN_SLOTS; i++) {
        if (!full && (i & 63) != (g_verifications & 63)) continue;
        obj_t *o = slots[i];
        if (sl[i].size == 0) {
            CHECKF(o == NULL, "churn slot %u holds %p, want NULL", i, (void *)o);
            continue;
        }
        CHECKF(o == UNHIDE(sl[i].hidden), "churn slot %u holds %p, want %p", i,
               (void *)o, UNHIDE(sl[i].hidden));
        uint32_t sum = (uint32_t)hash_bytes((char *)o + 8, sl[i].size - 8,
                                            ((uint64_t)sl[i].size << 32) | i);
        CHECKF(o->id == i && o->sum == sl[i].sum && sum == sl[i].sum,
               "churn slot %u: object %p (size %u) id %u, checksum %08x, "
               "stored %08x, want %08x", i, (void *)o, sl[i].size, o->id,
               sum, o->sum, sl[i].sum);
    }
    g_verifications++;
}

static void run_churn(void)
{
    obj_t **slots = malloc(CHURN_SLOTS * sizeof *slots);
    slot_t *sl = calloc(CHURN_SLOTS, sizeof *sl);
    CHECK(slots != NULL && sl != NULL);
    memset(slots, 0, CHURN_SLOTS * sizeof *slots);
    GC_add_roots(slots, slots + CHURN_SLOTS);

    size_t total = 0, live = 0, max_heap = 0, ncoll = 0;
    GC_word last_gc = GC_get_gc_no();
    while (total < CHURN_TOTAL) {
        size_t size = rand_size(&g_rng);
        int atomic = rng_below(&g_rng, 3) == 0;
        obj_t *o = atomic ? GC_malloc_atomic(size) : GC_malloc(size);
        CHECKF(o != NULL, "churn: GC_malloc(%zu) = NULL after %zu MB", size, total >> 20);
        total += size;
        unsigned i = (unsigned)rng_below(&g_rng, CHURN_SLOTS);
        o->id = i;
        fill_pattern((char *)o + 8, size - 8, rng_next(&g_rng));
        o->sum = (uint32_t)hash_bytes((char *)o + 8, size - 8,
                                      ((uint64_t)size << 32) | i);
        live += size - sl[i].size;
        slots[i] = o;
        sl[i].size = (uint32_t)size;
        sl[i].sum = o->sum;
        sl[i].hidden = HIDE(o);
        while (live > CHURN_LIVE) {
            unsigned j = (unsigned)rng_below(&g_rng, CHURN_SLOTS);
            live -= sl[j].size;
            sl[j].size = 0;
            slots[j] = NULL;
        }
        size_t h = GC_get_heap_size();
        if (h > max_heap) max_heap = h;
        if (GC_get_gc_no() != last_gc) {
            last_gc = GC_get_gc_no();
            churn_verify(slots, sl, (++ncoll & 15) == 0);
        }
    }
    GC_gcollect();
    churn_verify(slots, sl, 1);
    printf("churn: %zu MB allocated, live %zu KiB, %zu collections, max heap "
           "%zu KiB\n", total >> 20, live >> 10, ncoll, max_heap >> 10);
    /* The model graph from the first phase is still live: count it too. */
    size_t live_set = CHURN_LIVE + g_live_bytes;
    CHECKF(max_heap < 8 * live_set, "heap reached %zu bytes with a live set "
           "of %zu bytes (bound: 8x)", max_heap, live_set);
    CHECKF(ncoll >= 20, "only %zu collections while allocating %zu MB", ncoll,
           total >> 20);
    GC_remove_roots(slots, slots + CHURN_SLOTS);
    free(slots);
    free(sl);
}

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : 400000;
    GC_INIT();
    g_rng = rng_seeded(20240601);

    g_dyn_roots = calloc(N_DYN_ROOTS, sizeof *g_dyn_roots);
    CHECK(g_dyn_roots != NULL);
    GC_add_roots(g_static_roots, g_static_roots + N_STATIC_ROOTS);
    GC_add_roots(g_dyn_roots, g_dyn_roots + N_DYN_ROOTS);

    g_capsh = 1 << 16;
    g_sh = malloc(g_capsh * sizeof *g_sh);
    g_work = malloc((g_capsh * (size_t)(MAX_LINKS + 1) + N_ROOTS) * sizeof *g_work);
    CHECK(g_sh != NULL && g_work != NULL);
    g_nsh = 1; /* id 0 means NULL */

    run_mutations(steps);
    run_churn();
    verify_all(); /* the model graph went through the churn unchanged */
    printf("model: ok\n");
    return 0;
}
