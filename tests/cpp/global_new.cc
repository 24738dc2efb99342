/* global_new.cc: libgccpp's global operator new/delete.  A plain `new`
 * (scalar, array, and through std::allocator in standard containers)
 * returns uncollectable memory in the collected heap: never reclaimed
 * while the program holds it only where the collector cannot see, and
 * scanned, so the collected objects it points to live; `delete` (plain,
 * array and C++14 sized) frees it so that what it pointed to can go.
 * Registered std::threads allocate and free through the same operators
 * while the main thread collects. */
#define GC_THREADS 1             /* the registration API */
#define GC_NO_THREAD_REDIRECTS 1 /* std::thread uses the real pthread_create */
#include "cpptest.h"

#include <map>
#include <string>
#include <thread>
#include <vector>

static const int N = 2000;

/* Not derived from gc: a plain new gives it uncollectable memory. */
struct Plain {
    uint64_t id, check;
    Node *child;
};

static uintptr_t g_hidden[N];

static NOINLINE void make_plain(weak_set &children)
{
    for (int i = 0; i < N; i++) {
        Plain *p = new Plain;
        p->id = (uint64_t)i;
        p->check = mix64((uint64_t)i);
        p->child = new Node((uint64_t)i);
        children.watch(p->child);
        g_hidden[i] = HIDE(p);
    }
}

static NOINLINE void test_plain_new(void)
{
    weak_set children(N);
    make_plain(children);
    for (int r = 0; r < 6; r++) {
        churn(20000);
        collect_rounds(1);
    }
    CHECK_EQ(children.alive(), N);
    for (int i = 0; i < N; i++) {
        Plain *p = static_cast<Plain *>(UNHIDE(g_hidden[i]));
        CHECK(GC_base(p) == p);
        CHECKF(p->id == (uint64_t)i && p->check == mix64((uint64_t)i) && p->child->intact((uint64_t)i),
               "plain-new object %d damaged", i);
    }
    for (int i = 0; i < N; i++) {
        Plain *p = static_cast<Plain *>(UNHIDE(g_hidden[i]));
        if (i % 2) delete p;
        else ::operator delete(p, sizeof *p);       /* the C++14 sized form */
    }
    collect_rounds(4);
    size_t left = children.alive();
    CHECKF(left * 10 <= (size_t)N, "%zu of %d children of deleted objects alive", left, N);
    printf("ok: plain new is uncollectable and scanned; delete releases (%zu/%d left)\n", left, N);
}

static NOINLINE void test_arrays_and_std(void)
{
    uintptr_t arr = HIDE(new uint64_t[5000]);
    uint64_t *a = static_cast<uint64_t *>(UNHIDE(arr));
    for (int i = 0; i < 5000; i++) a[i] = mix64((uint64_t)i);
    CHECK(GC_base(a) != NULL);
    a = NULL;

    /* Default-allocator containers: their memory is uncollectable too. */
    std::vector<std::string> strings;
    std::map<int, std::string> texts;
    for (int i = 0; i < 3000; i++) {
        strings.push_back(std::string(40 + i % 50, (char)('a' + i % 26)));
        texts[i] = strings.back() + "!";
    }
    CHECK(GC_base(&strings[0]) != NULL);
    for (int r = 0; r < 4; r++) {
        churn(20000);
        collect_rounds(1);
    }
    a = static_cast<uint64_t *>(UNHIDE(arr));
    for (int i = 0; i < 5000; i++) CHECKF(a[i] == mix64((uint64_t)i), "array word %d damaged", i);
    delete[] a;
    for (int i = 0; i < 3000; i++) {
        CHECK(strings[i] == std::string(40 + i % 50, (char)('a' + i % 26)));
        CHECK(texts[i] == strings[i] + "!");
    }
    printf("ok: new[]/delete[] and std containers on the default allocator\n");
}

/* Threads registered with the collector allocate through the operators. */
static void worker(int id, uint64_t *sum)
{
    struct GC_stack_base sb;
    CHECK(GC_get_stack_base(&sb) == GC_SUCCESS);
    int reg = GC_register_my_thread(&sb);
    CHECK(reg == GC_SUCCESS || reg == GC_DUPLICATE);
    uint64_t s = 0;
    for (int i = 0; i < 20000; i++) {
        std::vector<int> *v = new std::vector<int>(16, id + i);
        std::string text(64, (char)('a' + i % 26));
        s += (uint64_t)(*v)[15] + (uint64_t)text.size();
        delete v;
    }
    *sum = s;
    GC_unregister_my_thread();
}

static NOINLINE void test_threads(void)
{
    GC_allow_register_threads();
    const int T = 2;
    uint64_t sums[T] = { 0, 0 };
    std::vector<std::thread> threads;
    for (int t = 0; t < T; t++) threads.push_back(std::thread(worker, t, &sums[t]));
    for (int r = 0; r < 20; r++) GC_gcollect();
    for (int t = 0; t < T; t++) threads[t].join();
    for (int t = 0; t < T; t++) {
        uint64_t expected = 0;
        for (int i = 0; i < 20000; i++) expected += (uint64_t)(t + i) + 64;
        CHECK_EQ(sums[t], expected);
    }
    printf("ok: registered std::threads allocate with new/delete during collections\n");
}

int main(void)
{
    GC_INIT();
    test_plain_new();
    test_arrays_and_std();
    test_threads();
    printf("PASS global_new\n");
    return 0;
}
