/* oom.cc: a failing allocation throws std::bad_alloc, through every C++
 * path: gc's operator new and new[], the UseGC / NoGC / PointerFreeGC
 * placements (with and without a cleanup), the three allocators,
 * libgccpp's global operator new and new[], GC_throw_bad_alloc itself, and
 * a container growing until the heap limit (GC_set_max_heap_size) is
 * reached.  Afterwards, with the garbage dropped, allocation works again. */
#include "cpptest.h"

#include <gc/gc_allocator.h>

#include <new>
#include <vector>

static const size_t LIMIT = (size_t)48 << 20;
static const size_t TOO_BIG = (size_t)1 << 30;

struct Huge : public gc {
    char bytes[TOO_BIG];
};

static int g_thrown, g_expected;

/* Runs the allocation and requires it to throw std::bad_alloc. */
#define EXPECT_BAD_ALLOC(what, expr)                                        \
    do {                                                                    \
        g_expected++;                                                       \
        try {                                                               \
            void *volatile result_ = (void *)(expr);                        \
            CHECKF(0, "%s returned %p instead of throwing", what,           \
                   (void *)result_);                                        \
        } catch (const std::bad_alloc &) {                                  \
            g_thrown++;                                                     \
        }                                                                   \
    } while (0)

static void GC_CALLBACK no_cleanup(void *, void *) {}

static NOINLINE void test_every_path(void)
{
    EXPECT_BAD_ALLOC("new Huge", new Huge);
    EXPECT_BAD_ALLOC("new Huge[1]", new Huge[1]);
    EXPECT_BAD_ALLOC("new (NoGC) Huge", new (NoGC) Huge);
    EXPECT_BAD_ALLOC("new (PointerFreeGC) Huge", new (PointerFreeGC) Huge);
    EXPECT_BAD_ALLOC("new (UseGC) char[]", new (UseGC) char[TOO_BIG]);
    EXPECT_BAD_ALLOC("new (NoGC) char[]", new (NoGC) char[TOO_BIG]);
    EXPECT_BAD_ALLOC("new (PointerFreeGC) char[]", new (PointerFreeGC) char[TOO_BIG]);
    EXPECT_BAD_ALLOC("new (UseGC, cleanup) char[]", new (UseGC, no_cleanup, NULL) char[TOO_BIG]);
    EXPECT_BAD_ALLOC("gc_allocator<char>", gc_allocator<char>().allocate(TOO_BIG));
    EXPECT_BAD_ALLOC("gc_allocator<Node *>", gc_allocator<Node *>().allocate(TOO_BIG / 8));
    EXPECT_BAD_ALLOC("gc_allocator_ignore_off_page<int>",
                     gc_allocator_ignore_off_page<int>().allocate(TOO_BIG / 4));
    EXPECT_BAD_ALLOC("traceable_allocator<Node *>",
                     traceable_allocator<Node *>().allocate(TOO_BIG / 8));
    EXPECT_BAD_ALLOC("::operator new", ::operator new(TOO_BIG));
    EXPECT_BAD_ALLOC("::operator new[]", ::operator new[](TOO_BIG));
    EXPECT_BAD_ALLOC("GC_throw_bad_alloc", (GC_throw_bad_alloc(), (void *)NULL));
#ifndef CPP_STOCK
    /* bibop: a count whose byte size overflows size_t fails too (bdwgc's
     * allocators multiply without checking, and allocate a wrapped size). */
    EXPECT_BAD_ALLOC("gc_allocator<Node *> overflow",
                     gc_allocator<Node *>().allocate(((size_t)-1 / 8) + 2));
#endif
    CHECK_EQ(g_thrown, g_expected);
    printf("ok: %d allocation paths throw std::bad_alloc\n", g_thrown);
}

/* Grow a container of collected Nodes until the limit stops it. */
static NOINLINE size_t grow_until_bad_alloc(void)
{
    std::vector<Node *, gc_allocator<Node *> > v;
    size_t n = 0;
    try {
        for (;;) {
            v.push_back(new Node(n));
            n++;
            CHECKF(n < ((size_t)1 << 28), "no bad_alloc after %zu nodes", n);
        }
    } catch (const std::bad_alloc &) {
    }
    for (size_t i = 0; i < v.size(); i++) CHECKF(v[i]->intact(i), "node %zu damaged", i);
    return n;
}

int main(void)
{
    GC_INIT();
    GC_set_max_heap_size(LIMIT);
    test_every_path();

    size_t n = grow_until_bad_alloc();
    CHECKF(n * sizeof(Node) >= LIMIT / 8, "bad_alloc after only %zu nodes", n);
    printf("ok: a growing vector stops with bad_alloc after %zu nodes\n", n);
    collect_rounds(2);
    /* Everything is garbage again: the same growth must get as far. */
    std::vector<Node *, gc_allocator<Node *> > again;
    for (size_t i = 0; i < n / 4; i++) again.push_back(new Node(i));
    for (size_t i = 0; i < again.size(); i++) CHECK(again[i]->intact(i));
    printf("ok: allocation works again after the limit was hit\n");
    printf("PASS oom\n");
    return 0;
}
