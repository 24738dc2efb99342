/* placement.cc: what each placement means.
 *   new T (T derived from gc), new (UseGC)  collected when unreachable,
 *                                           scanned: what it points to lives;
 *   new (NoGC)                              never collected, even with no
 *                                           reference anywhere, scanned;
 *                                           delete frees it;
 *   new (PointerFreeGC)                     collected, never scanned: what
 *                                           it points to is not retained;
 *   new (PointerFreeNoGC)                   never collected, never scanned
 *                                           (with GC_ATOMIC_UNCOLLECTABLE).
 * Uncollectable objects are checked through pointers hidden from the
 * collector, after heavy reuse of freed memory. */
#define GC_ATOMIC_UNCOLLECTABLE 1
#include "cpptest.h"

static const int N = 1000;

/* A gc class holding pointers to collected Nodes. */
struct Box : public gc {
    uint64_t id, check;
    Node *children[4];
};

static NOINLINE Box *make_box(GCPlacement where, uint64_t id, weak_set *children)
{
    Box *b = new (where) Box;
    b->id = id;
    b->check = mix64(id);
    for (int k = 0; k < 4; k++) {
        b->children[k] = new Node(id * 4 + (uint64_t)k);
        if (children) children->watch(b->children[k]);
    }
    return b;
}

static bool box_intact(const Box *b, uint64_t id, bool with_children)
{
    if (b->id != id || b->check != mix64(id)) return false;
    for (int k = 0; with_children && k < 4; k++)
        if (!b->children[k]->intact(id * 4 + (uint64_t)k)) return false;
    return true;
}

static void churn_rounds(int n)
{
    for (int r = 0; r < n; r++) {
        churn(20000);
        collect_rounds(1);
    }
}

static uintptr_t g_hidden[N];     /* HIDE()'d pointers: not references */
/* test_retention's `kind` for uncollectable placements: any kind but the
 * two collected ones. */
static const int UNCOLLECTABLE_KIND = -1;

static NOINLINE void make_hidden(GCPlacement where, weak_set *boxes, weak_set *children)
{
    for (int i = 0; i < N; i++) {
        Box *b = make_box(where, (uint64_t)i, children);
        if (boxes) boxes->watch(b);
        g_hidden[i] = HIDE(b);
    }
}

static NOINLINE void test_nogc(void)
{
    weak_set children(4 * N);
    make_hidden(NoGC, NULL, &children);
    churn_rounds(8);
    CHECK_EQ(children.alive(), 4 * N);
    for (int i = 0; i < N; i++) {
        Box *b = static_cast<Box *>(UNHIDE(g_hidden[i]));
        CHECKF(box_intact(b, (uint64_t)i, true), "NoGC box %d or its children reclaimed", i);
        CHECK(GC_base(b) != NULL);
    }
    /* Non-class types through the global placement operators. */
    uintptr_t ints = HIDE(new (NoGC) int[1000]);
    for (int i = 0; i < 1000; i++) static_cast<int *>(UNHIDE(ints))[i] = i * 3;
    churn_rounds(2);
    for (int i = 0; i < 1000; i++) CHECK_EQ(static_cast<int *>(UNHIDE(ints))[i], i * 3);
    delete[] static_cast<int *>(UNHIDE(ints));
    for (int i = 0; i < N; i++) delete static_cast<Box *>(UNHIDE(g_hidden[i]));
    collect_rounds(4);
    size_t left = children.alive();
    CHECKF(left * 10 <= 4 * (size_t)N, "%zu of %d children of deleted NoGC boxes still alive",
           left, 4 * N);
    printf("ok: NoGC objects never collected, scanned; deleted ones release their children\n");
}

static NOINLINE void test_collected(GCPlacement where, const char *name)
{
    weak_set boxes(N), children(4 * N);
    make_hidden(where, &boxes, &children);
    collect_rounds(4);
    size_t b = boxes.alive(), c = children.alive();
    CHECKF(b * 10 <= (size_t)N, "%s: %zu of %d unreachable boxes alive", name, b, N);
    CHECKF(c * 10 <= 4 * (size_t)N, "%s: %zu of %d children alive", name, c, 4 * N);
    printf("ok: %s objects collected when unreachable (%zu/%d left)\n", name, b, N);
}

/* Reachable boxes: UseGC ones keep their children, PointerFreeGC and
 * PointerFreeNoGC ones do not. */
static NOINLINE void test_retention(GCPlacement where, const char *name, bool retains, int kind)
{
    static Box *kept[N];
    weak_set children(4 * N);
    for (int i = 0; i < N; i++) kept[i] = make_box(where, (uint64_t)i, &children);
    for (int i = 0; i < N; i++) {
        int k = kind_of(kept[i]);
        CHECKF(kind < 0 ? k != GC_I_NORMAL && k != GC_I_PTRFREE : k == kind,
               "%s box %d has kind %d", name, i, k);
    }
    churn_rounds(4);
    size_t c = children.alive();
    if (retains) {
        CHECKF(c == 4 * (size_t)N, "%s: only %zu of %d children alive", name, c, 4 * N);
        for (int i = 0; i < N; i++) CHECK(box_intact(kept[i], (uint64_t)i, true));
    } else {
        CHECKF(c * 10 <= 4 * (size_t)N, "%s: %zu of %d children retained", name, c, 4 * N);
        for (int i = 0; i < N; i++) CHECK(box_intact(kept[i], (uint64_t)i, false));
    }
    for (int i = 0; i < N; i++) kept[i] = NULL;
    printf("ok: reachable %s objects %s what they point to (%zu/%d alive)\n", name,
           retains ? "retain" : "do not retain", c, 4 * N);
}

static NOINLINE void test_pointer_free_nogc(void)
{
    make_hidden(PointerFreeNoGC, NULL, NULL);
    churn_rounds(4);
    for (int i = 0; i < N; i++)
        CHECKF(box_intact(static_cast<Box *>(UNHIDE(g_hidden[i])), (uint64_t)i, false),
               "PointerFreeNoGC box %d reclaimed", i);
    for (int i = 0; i < N; i++) delete static_cast<Box *>(UNHIDE(g_hidden[i]));
    test_retention(PointerFreeNoGC, "PointerFreeNoGC", false, UNCOLLECTABLE_KIND);
    printf("ok: PointerFreeNoGC objects never collected\n");
}

/* The plain `new` of a class derived from gc is UseGC. */
static NOINLINE void test_default_new(void)
{
    weak_set boxes(N);
    for (int i = 0; i < N; i++) boxes.watch(new Box);
    CHECK_EQ(kind_of(new Box), GC_I_NORMAL);
    collect_rounds(4);
    size_t b = boxes.alive();
    CHECKF(b * 10 <= (size_t)N, "%zu of %d dropped `new Box` alive", b, N);
    printf("ok: new of a gc class is collected (%zu/%d left)\n", b, N);
}

int main(void)
{
    GC_INIT();
    test_nogc();
    test_retention(NoGC, "NoGC", true, UNCOLLECTABLE_KIND);
    test_collected(UseGC, "UseGC");
    test_collected(PointerFreeGC, "PointerFreeGC");
    test_retention(UseGC, "UseGC", true, GC_I_NORMAL);
    test_retention(PointerFreeGC, "PointerFreeGC", false, GC_I_PTRFREE);
    test_pointer_free_nogc();
    test_default_new();
    CHECK(GC == UseGC);
    printf("PASS placement\n");
    return 0;
}
