/* links.c: disappearing (weak) links, bdwgc semantics. A link registered
 * with GC_general_register_disappearing_link, held in pointer-free memory (or
 * hidden with GC_HIDE_POINTER in scanned memory), is cleared when its object
 * dies and never while it lives; GC_unregister_disappearing_link returns 1
 * then 0 and an unregistered link is left alone; GC_move_disappearing_link
 * answers GC_SUCCESS, GC_NOT_FOUND and GC_DUPLICATE and the moved link is
 * the one cleared; for an object whose finalizer resurrects it, the short
 * link is cleared and the long link (GC_register_long_link) is not, until
 * the object is really gone; a weak hash table (keys weak, values strong)
 * built on disappearing links keeps every entry of live keys over 1,000,000
 * inserts/removals with collections, and loses most entries of dropped
 * keys. */
#include "compat.h"

#include <gc.h>

#define N 1000

struct obj { uintptr_t id, check; };
#define MAGIC ((uintptr_t)0xa5a5f00d12345678ULL)

static NOINLINE struct obj *new_obj(uintptr_t id)
{
    struct obj *o = GC_MALLOC(sizeof *o);
    CHECK(o != NULL, "GC_MALLOC failed");
    o->id = id;
    o->check = id ^ MAGIC;
    return o;
}

static void **new_atomic_slots(size_t n)
{
    void **s = GC_MALLOC_ATOMIC(n * sizeof *s);
    CHECK(s != NULL, "GC_MALLOC_ATOMIC failed");
    memset(s, 0, n * sizeof *s);
    return s;
}

static unsigned count_null(void **slots, unsigned from, unsigned to, unsigned step)
{
    unsigned n = 0;
    for (unsigned i = from; i < to; i += step) n += slots[i] == NULL;
    return n;
}

/* ---- links in pointer-free memory, and hidden links ------------------------------- */

static void **slots;          /* the links: pointer-free, so they do not retain */
static struct obj **keep;     /* strong references to the even objects */

static NOINLINE void make_linked(void)
{
    for (unsigned i = 0; i < N; i++) {
        struct obj *o = new_obj(i);
        slots[i] = o;
        int r = GC_general_register_disappearing_link(&slots[i], o);
        CHECK(r == GC_SUCCESS, "registering link %u returned %d", i, r);
        if (i % 2 == 0) keep[i / 2] = o;
    }
    int r = GC_general_register_disappearing_link(&slots[0], keep[0]);
    CHECK(r == GC_DUPLICATE, "registering link 0 again returned %d, not GC_DUPLICATE", r);
}

static void test_atomic_links(void)
{
    slots = new_atomic_slots(N);
    keep = GC_MALLOC(N / 2 * sizeof *keep);
    CHECK(keep != NULL, "GC_MALLOC failed");
    make_linked();
    compat_collect(4);
    for (unsigned i = 0; i < N; i += 2) {
        CHECK(slots[i] == keep[i / 2], "link %u to a live object changed to %p", i, slots[i]);
        struct obj *o = slots[i];
        CHECK(o->id == i && o->check == (i ^ MAGIC), "live object %u damaged", i);
    }
    unsigned cleared = count_null(slots, 1, N, 2);
    printf("atomic links: %u of %u links to dead objects cleared, all %u to live ones kept\n",
           cleared, N / 2, N / 2);
    CHECK(AT_LEAST_PERCENT(cleared, N / 2, 90), "only %u of %u links to dead objects cleared",
          cleared, N / 2);
    /* The live objects' links stay registered: dropping them now clears them. */
    keep = NULL;
    compat_collect(4);
    cleared = count_null(slots, 0, N, 2);
    printf("atomic links: after dropping the others, %u of %u cleared\n", cleared, N / 2);
    CHECK(AT_LEAST_PERCENT(cleared, N / 2, 90), "only %u of %u links cleared after the objects "
          "were dropped", cleared, N / 2);
    slots = NULL;
}

/* A scanned node holding its object hidden: the classic weak reference. */
struct weak_ref { GC_hidden_pointer hidden; uintptr_t id; };

static struct weak_ref **refs;
static struct obj **keep_h;

static NOINLINE void make_hidden(void)
{
    for (unsigned i = 0; i < N; i++) {
        struct obj *o = new_obj(i);
        struct weak_ref *w = GC_MALLOC(sizeof *w);
        CHECK(w != NULL, "GC_MALLOC failed");
        w->hidden = GC_HIDE_POINTER(o);
        w->id = i;
        int r = GC_general_register_disappearing_link((void **)&w->hidden, o);
        CHECK(r == GC_SUCCESS, "registering hidden link %u returned %d", i, r);
        refs[i] = w;
        if (i % 2 == 0) keep_h[i / 2] = o;
    }
}

static void test_hidden_links(void)
{
    refs = GC_MALLOC(N * sizeof *refs);
    keep_h = GC_MALLOC(N / 2 * sizeof *keep_h);
    CHECK(refs != NULL && keep_h != NULL, "GC_MALLOC failed");
    make_hidden();
    compat_collect(4);
    unsigned cleared = 0;
    for (unsigned i = 0; i < N; i++) {
        CHECK(refs[i]->id == i, "weak reference %u damaged", i);
        if (i % 2 == 0) {
            CHECK(refs[i]->hidden == GC_HIDE_POINTER(keep_h[i / 2]),
                  "hidden link %u to a live object changed", i);
        } else {
            cleared += refs[i]->hidden == 0;
        }
    }
    printf("hidden links: %u of %u links to dead objects cleared\n", cleared, N / 2);
    CHECK(AT_LEAST_PERCENT(cleared, N / 2, 90), "only %u of %u hidden links cleared", cleared,
          N / 2);
    refs = NULL;
    keep_h = NULL;
}

/* ---- unregistering and moving ----------------------------------------------------- */

static NOINLINE void make_for_unregister(void)
{
    for (unsigned i = 0; i < N; i++) {
        struct obj *o = new_obj(i);
        slots[i] = o;
        CHECK(GC_general_register_disappearing_link(&slots[i], o) == GC_SUCCESS,
              "registering link %u failed", i);
    }
    for (unsigned i = 0; i < N; i += 2) {
        int r = GC_unregister_disappearing_link(&slots[i]);
        CHECK(r == 1, "unregistering registered link %u returned %d, not 1", i, r);
        r = GC_unregister_disappearing_link(&slots[i]);
        CHECK(r == 0, "unregistering link %u twice returned %d, not 0", i, r);
    }
    static void *never_registered;
    int r = GC_unregister_disappearing_link(&never_registered);
    CHECK(r == 0, "unregistering a link never registered returned %d, not 0", r);
}

static void test_unregister(void)
{
    slots = new_atomic_slots(N);
    make_for_unregister();
    compat_collect(4);
    unsigned kept = N / 2 - count_null(slots, 0, N, 2);
    unsigned cleared = count_null(slots, 1, N, 2);
    printf("unregister: %u of %u unregistered links left alone, %u of %u registered cleared\n",
           kept, N / 2, cleared, N / 2);
    CHECK(kept == N / 2, "%u unregistered links were cleared", N / 2 - kept);
    CHECK(AT_LEAST_PERCENT(cleared, N / 2, 90), "only %u of %u registered links cleared",
          cleared, N / 2);
    slots = NULL;
}

static void **from, **to, **other;
static struct obj **keep_m;

static NOINLINE void make_moved(void)
{
    for (unsigned i = 0; i < N; i++) {
        struct obj *o = new_obj(i);
        from[i] = o;
        CHECK(GC_general_register_disappearing_link(&from[i], o) == GC_SUCCESS,
              "registering link %u failed", i);
        int r = GC_move_disappearing_link(&from[i], &to[i]);
        CHECK(r == GC_SUCCESS, "moving link %u returned %d, not GC_SUCCESS", i, r);
        to[i] = o;
        r = GC_move_disappearing_link(&from[i], &to[i]);
        CHECK(r == GC_NOT_FOUND, "moving link %u from its old place returned %d, not "
              "GC_NOT_FOUND", i, r);
        r = GC_move_disappearing_link(&to[i], &to[i]);
        CHECK(r == GC_SUCCESS, "moving link %u onto itself returned %d, not GC_SUCCESS", i, r);
        other[i] = o;
        CHECK(GC_general_register_disappearing_link(&other[i], o) == GC_SUCCESS,
              "registering the other link %u failed", i);
        r = GC_move_disappearing_link(&to[i], &other[i]);
        CHECK(r == GC_DUPLICATE, "moving link %u onto a registered link returned %d, not "
              "GC_DUPLICATE", i, r);
        if (i % 2 == 0) keep_m[i / 2] = o;
    }
    static void *never_registered, *somewhere;
    int r = GC_move_disappearing_link(&never_registered, &somewhere);
    CHECK(r == GC_NOT_FOUND, "moving a link never registered returned %d, not GC_NOT_FOUND", r);
}

static void test_move(void)
{
    from = new_atomic_slots(N);
    to = new_atomic_slots(N);
    other = new_atomic_slots(N);
    keep_m = GC_MALLOC(N / 2 * sizeof *keep_m);
    CHECK(keep_m != NULL, "GC_MALLOC failed");
    make_moved();
    compat_collect(4);
    for (unsigned i = 0; i < N; i += 2)
        CHECK(to[i] == keep_m[i / 2] && other[i] == keep_m[i / 2],
              "a moved link to live object %u changed", i);
    unsigned from_cleared = count_null(from, 0, N, 1);
    unsigned to_cleared = count_null(to, 1, N, 2), other_cleared = count_null(other, 1, N, 2);
    printf("move: moved links cleared %u of %u, duplicate-target links %u of %u, old places "
           "%u\n", to_cleared, N / 2, other_cleared, N / 2, from_cleared);
    CHECK(from_cleared == 0, "%u links were cleared at the place they were moved away from",
          from_cleared);
    CHECK(AT_LEAST_PERCENT(to_cleared, N / 2, 90), "only %u of %u moved links cleared",
          to_cleared, N / 2);
    CHECK(AT_LEAST_PERCENT(other_cleared, N / 2, 90), "only %u of %u links cleared",
          other_cleared, N / 2);

    /* The long-link versions answer the same way. */
    void **l = new_atomic_slots(3);
    struct obj *o = new_obj(1);
    l[0] = o;
    CHECK(GC_register_long_link(&l[0], o) == GC_SUCCESS, "GC_register_long_link failed");
    CHECK(GC_register_long_link(&l[0], o) == GC_DUPLICATE,
          "registering a long link twice did not answer GC_DUPLICATE");
    CHECK(GC_move_long_link(&l[0], &l[1]) == GC_SUCCESS, "GC_move_long_link failed");
    CHECK(GC_move_long_link(&l[0], &l[2]) == GC_NOT_FOUND,
          "GC_move_long_link from an empty place did not answer GC_NOT_FOUND");
    CHECK(GC_register_long_link(&l[2], o) == GC_SUCCESS, "GC_register_long_link failed");
    CHECK(GC_move_long_link(&l[1], &l[2]) == GC_DUPLICATE,
          "GC_move_long_link onto a registered link did not answer GC_DUPLICATE");
    CHECK(GC_unregister_long_link(&l[1]) == 1, "GC_unregister_long_link did not answer 1");
    CHECK(GC_unregister_long_link(&l[1]) == 0, "GC_unregister_long_link twice did not answer 0");
    CHECK(GC_unregister_long_link(&l[2]) == 1, "GC_unregister_long_link did not answer 1");
    from = to = other = NULL;
    keep_m = NULL;
}

/* ---- short and long links of a resurrected object -------------------------------------- */

static void **short_links, **long_links;
static struct obj **resurrected;
static unsigned n_resurrected, bad_resurrected;
static unsigned char was_resurrected[N];

static void GC_CALLBACK resurrect(void *p, void *cd)
{
    struct obj *o = p;
    uintptr_t i = (uintptr_t)cd;
    if (i >= N || o->id != i || o->check != (i ^ MAGIC)) {
        bad_resurrected++;
        return;
    }
    /* Already cleared: the object was unreachable when this was queued. */
    if (short_links[i] != NULL) bad_resurrected++;
    was_resurrected[i] = 1;
    resurrected[n_resurrected++] = o;
}

static NOINLINE void make_resurrectable(void)
{
    for (unsigned i = 0; i < N; i++) {
        struct obj *o = new_obj(i);
        short_links[i] = long_links[i] = o;
        CHECK(GC_general_register_disappearing_link(&short_links[i], o) == GC_SUCCESS,
              "registering short link %u failed", i);
        CHECK(GC_register_long_link(&long_links[i], o) == GC_SUCCESS,
              "registering long link %u failed", i);
        GC_register_finalizer(o, resurrect, (void *)(uintptr_t)i, NULL, NULL);
    }
}

static void check_resurrected_links(const char *when)
{
    for (unsigned i = 0; i < N; i++) {
        if (!was_resurrected[i]) continue;
        struct obj *o = long_links[i];
        CHECK(short_links[i] == NULL, "%s: short link of resurrected object %u not cleared", when,
              i);
        CHECK(o != NULL, "%s: long link of resurrected object %u cleared", when, i);
        CHECK(o->id == i && o->check == (i ^ MAGIC), "%s: resurrected object %u damaged", when,
              i);
    }
}

static void test_long_links(void)
{
    short_links = new_atomic_slots(N);
    long_links = new_atomic_slots(N);
    resurrected = GC_MALLOC(N * sizeof *resurrected);
    CHECK(resurrected != NULL, "GC_MALLOC failed");
    make_resurrectable();
    compat_collect(3);
    GC_invoke_finalizers();
    CHECK(bad_resurrected == 0, "%u finalizers saw a damaged object or a short link not cleared",
          bad_resurrected);
    unsigned n = n_resurrected;
    printf("long links: %u of %u objects resurrected: short links cleared, long links kept\n", n,
           N);
    CHECK(AT_LEAST_PERCENT(n, N, 90), "only %u of %u objects resurrected", n, N);
    check_resurrected_links("after resurrection");
    compat_collect(3);
    check_resurrected_links("collections later");
    /* Now really gone: the long links go too. */
    resurrected = NULL;
    compat_collect(4);
    unsigned cleared = 0;
    for (unsigned i = 0; i < N; i++) cleared += was_resurrected[i] && long_links[i] == NULL;
    printf("long links: %u of %u cleared once the resurrected objects were dropped\n", cleared,
           n);
    CHECK(AT_LEAST_PERCENT(cleared, n, 90), "only %u of %u long links cleared after the "
          "resurrected objects were dropped", cleared, n);
    short_links = long_links = NULL;
}

/* ---- a weak hash table ------------------------------------------------------------------ */

/* Keys are held weakly (hidden in a scanned node, with a disappearing link
   on it), values strongly. A node whose link was cleared is dead and is
   unlinked the next time its bucket is touched. */
struct value { uintptr_t id, check; };
struct node { GC_hidden_pointer hkey; struct value *val; struct node *next; };

#define LOG_BUCKETS 12
#define NBUCKETS (1u << LOG_BUCKETS)
static struct node **buckets;   /* GC_MALLOC'd, a root through this global */

static size_t bucket_of(const void *key)
{
    return (size_t)(((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ULL >> (64 - LOG_BUCKETS));
}

static void prune(size_t b)
{
    for (struct node **p = &buckets[b]; *p;) {
        if ((*p)->hkey == 0) *p = (*p)->next;   /* the link went with its key */
        else p = &(*p)->next;
    }
}

static NOINLINE void table_insert(const void *key, struct value *val)
{
    size_t b = bucket_of(key);
    prune(b);
    struct node *n = GC_MALLOC(sizeof *n);
    CHECK(n != NULL, "GC_MALLOC failed");
    n->hkey = GC_HIDE_POINTER(key);
    n->val = val;
    n->next = buckets[b];
    int r = GC_general_register_disappearing_link((void **)&n->hkey, key);
    CHECK(r == GC_SUCCESS, "registering a table link returned %d", r);
    buckets[b] = n;
}

static struct value *table_lookup(const void *key)
{
    for (struct node *n = buckets[bucket_of(key)]; n; n = n->next)
        if (n->hkey == GC_HIDE_POINTER(key)) return n->val;
    return NULL;
}

static NOINLINE int table_remove(const void *key)
{
    for (struct node **p = &buckets[bucket_of(key)]; *p; p = &(*p)->next) {
        struct node *n = *p;
        if (n->hkey != GC_HIDE_POINTER(key)) continue;
        *p = n->next;
        int r = GC_unregister_disappearing_link((void **)&n->hkey);
        CHECK(r == 1, "unregistering the link of a removed entry returned %d", r);
        return 1;
    }
    return 0;
}

#define LIVE_KEYS 1000
#define CHURN 1000000
#define RING 64
#define FINAL_BATCH 1000
#define FINAL_BASE ((uintptr_t)1 << 40)

static struct obj **live_keys;   /* GC_MALLOC'd: these keys never die */
static struct obj **ring;        /* recent temporary keys, alive while here */
static unsigned long dropped, removed;

static struct value *new_value(uintptr_t id)
{
    struct value *v = GC_MALLOC(sizeof *v);
    CHECK(v != NULL, "GC_MALLOC failed");
    v->id = id;
    v->check = ~id;
    return v;
}

static void check_live_entries(const char *when)
{
    for (unsigned k = 0; k < LIVE_KEYS; k++) {
        struct value *v = table_lookup(live_keys[k]);
        CHECK(v != NULL, "%s: the entry of live key %u is gone", when, k);
        CHECK(v->id == live_keys[k]->id && v->check == ~v->id,
              "%s: the value of live key %u is wrong (id %lu)", when, k, (unsigned long)v->id);
    }
    for (unsigned r = 0; r < RING; r++) {
        if (!ring[r]) continue;
        struct value *v = table_lookup(ring[r]);
        CHECK(v != NULL && v->id == ring[r]->id,
              "%s: the entry of a temporary key still alive is gone", when);
    }
}

static NOINLINE void churn(void)
{
    uint64_t rng = 0x243F6A8885A308D3ULL;
    for (unsigned long i = 0; i < CHURN; i++) {
        struct obj **slot = &ring[i % RING];
        if (*slot) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            if (rng & 1) {
                CHECK(table_remove(*slot) == 1, "a temporary key still alive had no entry");
                CHECK(table_lookup(*slot) == NULL, "a removed entry is still found");
                removed++;
            } else {
                dropped++;   /* left to the collector */
            }
        }
        uintptr_t id = LIVE_KEYS + i;
        *slot = new_obj(id);
        table_insert(*slot, new_value(id));
        struct obj *lk = live_keys[i % LIVE_KEYS];
        struct value *v = table_lookup(lk);
        CHECK(v != NULL && v->id == lk->id, "after %lu operations the entry of live key %lu is "
              "gone or wrong", i, (unsigned long)(i % LIVE_KEYS));
        if (i % 100000 == 99999) {
            GC_gcollect();
            check_live_entries("churn");
        }
    }
}

static NOINLINE void insert_final_batch(void)
{
    for (unsigned i = 0; i < FINAL_BATCH; i++) {
        struct obj *k = new_obj(FINAL_BASE + i);
        table_insert(k, new_value(FINAL_BASE + i));
    }
    dropped += FINAL_BATCH;
}

static void test_weak_table(void)
{
    buckets = GC_MALLOC(NBUCKETS * sizeof *buckets);
    live_keys = GC_MALLOC(LIVE_KEYS * sizeof *live_keys);
    ring = GC_MALLOC(RING * sizeof *ring);
    CHECK(buckets && live_keys && ring, "GC_MALLOC failed");
    for (unsigned k = 0; k < LIVE_KEYS; k++) {
        live_keys[k] = new_obj(k);
        table_insert(live_keys[k], new_value(k));
    }
    GC_word gc_before = GC_get_gc_no();
    churn();
    check_live_entries("after the churn");
    for (unsigned r = 0; r < RING; r++) ring[r] = NULL;
    dropped += RING;
    insert_final_batch();
    compat_collect(4);
    check_live_entries("at the end");
    unsigned long stale = 0, final_stale = 0, live = 0;
    for (size_t b = 0; b < NBUCKETS; b++) {
        prune(b);
        for (struct node *n = buckets[b]; n; n = n->next) {
            if (n->val->id < LIVE_KEYS) live++;
            else stale++;
            if (n->val->id >= FINAL_BASE) final_stale++;
        }
    }
    printf("weak table: %d operations, %lu collections; %lu removed, %lu keys dropped, %lu "
           "entries of dropped keys left (%lu of the last %u)\n", CHURN,
           (unsigned long)(GC_get_gc_no() - gc_before), removed, dropped, stale, final_stale,
           FINAL_BATCH);
    CHECK(live == LIVE_KEYS, "%lu entries of live keys, expected %u", live, LIVE_KEYS);
    CHECK(stale * 10 <= dropped, "%lu of %lu entries of dropped keys still in the table", stale,
          dropped);
    CHECK(final_stale * 10 <= FINAL_BATCH, "%lu of the last %u dropped keys' entries left",
          final_stale, FINAL_BATCH);
    buckets = NULL;
    live_keys = ring = NULL;
}

int main(void)
{
    GC_INIT();
    test_atomic_links();
    test_hidden_links();
    test_unregister();
    test_move();
    test_long_links();
    test_weak_table();
    printf("links: all checks passed\n");
    return 0;
}
