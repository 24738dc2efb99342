/* cleanup.cc: destructors of gc_cleanup objects run when, and only when,
 * the objects are unreachable.  Reachable ones (from a static table, or
 * from another unreachable gc_cleanup object not yet destroyed) are never
 * destroyed; unreachable ones are destroyed exactly once, the referring
 * object before the one it refers to; a pointer to itself does not keep an
 * object alive; `delete` destroys at once and cancels the collector's
 * call; the whole object is destroyed when gc_cleanup is not its first
 * base, and a gc_cleanup member's destructor runs when its enclosing gc
 * object dies; `new (UseGC, fn, data)` calls fn(obj, data) instead; a
 * gc_cleanup object outside the heap is an ordinary object. */
#include "cpptest.h"

static const int N = 2000;
static int g_destroyed[N];
static int g_destroy_order[N];      /* destruction sequence number, 0 = not yet */
static int g_sequence;
static bool g_peer_was_alive[N];     /* peer not yet destroyed when we were */
static class Tracked *g_keep[N];

class Tracked : public gc_cleanup {
public:
    Tracked(int id, Tracked *peer) : id_(id), peer_(peer) {}
    void set_peer(Tracked *peer) { peer_ = peer; }
    ~Tracked()
    {
        g_destroyed[id_]++;
        g_destroy_order[id_] = ++g_sequence;
        if (peer_ && peer_ != this) g_peer_was_alive[id_] = g_destroyed[peer_->id_] == 0;
    }
private:
    int id_;
    Tracked *peer_;
};

static NOINLINE void make_tracked(void)
{
    /* 0..N/2-1: kept in g_keep.  N/2..: pairs (a -> b) and self-referring
     * objects, all dropped. */
    for (int i = 0; i < N / 2; i++) g_keep[i] = new Tracked(i, NULL);
    for (int i = N / 2; i < N - 200; i += 2) {
        Tracked *b = new Tracked(i + 1, NULL);
        (void)new Tracked(i, b);
    }
    for (int i = N - 200; i < N; i++) {
        Tracked *t = new Tracked(i, NULL);
        t->set_peer(t);
    }
}

static NOINLINE void test_reachability(void)
{
    make_tracked();
    collect_rounds(6);

    int dropped = 0, destroyed = 0;
    for (int i = 0; i < N; i++) {
        if (i < N / 2) {
            CHECKF(g_destroyed[i] == 0, "reachable object %d destroyed %d times", i, g_destroyed[i]);
            continue;
        }
        CHECKF(g_destroyed[i] <= 1, "object %d destroyed %d times", i, g_destroyed[i]);
        dropped++;
        destroyed += g_destroyed[i];
    }
    CHECKF(AT_LEAST_PERCENT(destroyed, dropped, 90), "only %d of %d unreachable objects destroyed",
           destroyed, dropped);
    int self_destroyed = 0;
    for (int i = N - 200; i < N; i++) self_destroyed += g_destroyed[i];
    CHECKF(AT_LEAST_PERCENT(self_destroyed, 200, 90),
           "only %d of 200 self-referring objects destroyed", self_destroyed);
    for (int i = N / 2; i < N - 200; i += 2) {
        if (!g_destroyed[i]) continue;
        CHECKF(g_peer_was_alive[i], "object %d destroyed after the object %d it refers to", i, i + 1);
        CHECKF(!g_destroyed[i + 1] || g_destroy_order[i + 1] > g_destroy_order[i],
               "pair %d: referred object destroyed first", i);
    }
    printf("ok: %d reachable objects kept, %d of %d unreachable destroyed once, referrers first\n",
           N / 2, destroyed, dropped);

    /* delete: destroyed at once, and never again by the collector. */
    for (int i = 0; i < 100; i++) {
        delete g_keep[i];
        g_keep[i] = NULL;
        CHECK_EQ(g_destroyed[i], 1);
    }
    collect_rounds(3);
    for (int i = 0; i < 100; i++) CHECKF(g_destroyed[i] == 1, "deleted %d destroyed again", i);
    for (int i = 100; i < N / 2; i++) CHECK_EQ(g_destroyed[i], 0);
    printf("ok: delete destroys once\n");
}

/* gc_cleanup not at offset 0: the complete object must be destroyed. */
static int g_multi_destroyed, g_payload_destroyed;
struct Payload {
    uint64_t words[3];
    virtual ~Payload() { g_payload_destroyed++; }
};
struct Multi : public Payload, public gc_cleanup {
    ~Multi() { g_multi_destroyed++; }
};

/* A gc_cleanup member inside an ordinary gc object. */
static int g_member_destroyed;
struct Member : public gc_cleanup {
    ~Member() { g_member_destroyed++; }
};
struct Holder : public gc {
    uint64_t before[2];
    Member member;
};

/* An explicit cleanup function for a type that knows nothing of gc. */
struct Plain { uint64_t words[4]; };
static void GC_CALLBACK count_cleanup(void *obj, void *data)
{
    CHECK(GC_base(obj) != NULL);
    ++*static_cast<int *>(data);
}

static NOINLINE void make_others(int n, int *plain_cleanups, int *array_cleanups)
{
    for (int i = 0; i < n; i++) {
        (void)new Multi;
        (void)new Holder;
        (void)new (UseGC, count_cleanup, plain_cleanups) Plain;
        (void)new (UseGC, count_cleanup, array_cleanups) Plain[3];
    }
}

static NOINLINE void test_layouts(void)
{
    const int n = 300;
    static int plain_cleanups, array_cleanups;
    make_others(n, &plain_cleanups, &array_cleanups);
    collect_rounds(6);
    CHECKF(AT_LEAST_PERCENT(g_multi_destroyed, n, 90), "%d of %d Multi destroyed",
           g_multi_destroyed, n);
    CHECKF(g_payload_destroyed == g_multi_destroyed, "Payload destroyed %d times, Multi %d",
           g_payload_destroyed, g_multi_destroyed);
    CHECKF(AT_LEAST_PERCENT(g_member_destroyed, n, 90), "%d of %d members destroyed",
           g_member_destroyed, n);
    CHECKF(g_member_destroyed <= n, "%d members destroyed", g_member_destroyed);
    CHECKF(AT_LEAST_PERCENT(plain_cleanups, n, 90) && plain_cleanups <= n,
           "%d cleanups for %d plain objects", plain_cleanups, n);
    CHECKF(AT_LEAST_PERCENT(array_cleanups, n, 90) && array_cleanups <= n,
           "%d cleanups for %d arrays", array_cleanups, n);
    printf("ok: second-base gc_cleanup (%d), member (%d), explicit cleanup (%d, arrays %d)\n",
           g_multi_destroyed, g_member_destroyed, plain_cleanups, array_cleanups);
}

static NOINLINE void test_not_in_heap(void)
{
    int before = g_multi_destroyed;
    {
        Multi on_stack;
        CHECK(GC_base(static_cast<gc_cleanup *>(&on_stack)) == NULL);
    }
    CHECK_EQ(g_multi_destroyed, before + 1);
    collect_rounds(2);
    CHECK_EQ(g_multi_destroyed, before + 1);
    printf("ok: automatic gc_cleanup object\n");
}

int main(void)
{
    GC_INIT();
    test_reachability();
    test_layouts();
    test_not_in_heap();
    printf("PASS cleanup\n");
    return 0;
}
