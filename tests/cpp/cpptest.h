/* cpptest.h: helpers shared by the C++ interface tests (gc_cpp.h,
 * gc_allocator.h, libgccpp): the API tests' CHECK macros and stack
 * scrubber, a "collect and run finalizers" round, a set of weak references
 * that tells how many watched objects the collector has reclaimed, and
 * Node, a collected object that can tell whether it is still intact.
 * The same sources build against bibop and against stock libgc1 +
 * libgccpp (CPP_STOCK defined then). */
#ifndef BIBOP_TESTS_CPP_CPPTEST_H
#define BIBOP_TESTS_CPP_CPPTEST_H

#include "check.h"

#include <gc/gc_cpp.h>
#include <gc/gc_mark.h>        /* GC_get_kind_and_size */
#include <gc/gc_inline.h>      /* GC_I_PTRFREE, GC_I_NORMAL */

/* Registers and stack slots of finished calls must not pin the objects a
 * test expects to be reclaimed: scramble, scrub, collect, finalize. */
static NOINLINE uintptr_t scramble_registers(uintptr_t x)
{
    volatile uintptr_t a = x * 3 + 1, b = a ^ 0x5555, c = b + a, d = c * 7;
    return a + b + c + d;
}

static NOINLINE __attribute__((unused)) void collect_rounds(int n)
{
    for (int i = 0; i < n; i++) {
        scramble_registers((uintptr_t)i);
        clear_stack();
        GC_gcollect();
        GC_invoke_finalizers();
    }
}

#define AT_LEAST_PERCENT(count, total, pct) \
    ((unsigned long long)(count) * 100 >= (unsigned long long)(total) * (pct))

/* Weak references to up to `capacity` collected objects, in memory the
 * collector neither scans nor frees: a slot reads NULL once its object has
 * been reclaimed. */
class weak_set {
public:
    explicit weak_set(size_t capacity)
        : slots_(static_cast<void **>(
              GC_MALLOC_ATOMIC_UNCOLLECTABLE(capacity * sizeof(void *)))),
          used_(0), capacity_(capacity)
    {
        CHECK(slots_ != NULL);
        memset(slots_, 0, capacity * sizeof(void *));
    }
    ~weak_set()
    {
        for (size_t i = 0; i < used_; i++)
            if (slots_[i]) GC_unregister_disappearing_link(&slots_[i]);
        GC_FREE(slots_);
    }
    void watch(const void *obj)
    {
        CHECK(used_ < capacity_);
        void *base = GC_base(const_cast<void *>(obj));
        CHECKF(base != NULL, "watched object %p is not in the collected heap", obj);
        slots_[used_] = base;
        CHECK(GC_general_register_disappearing_link(&slots_[used_], base) == GC_SUCCESS);
        used_++;
    }
    size_t watched() const { return used_; }
    size_t alive() const
    {
        size_t n = 0;
        for (size_t i = 0; i < used_; i++)
            n += GC_call_with_alloc_lock(read_slot, &slots_[i]) != NULL;
        return n;
    }

private:
    /* Read under the lock: the collector clears slots concurrently. */
    static void *GC_CALLBACK read_slot(void *slot) { return *(void **)slot; }
    weak_set(const weak_set &);
    weak_set &operator=(const weak_set &);
    void **slots_;
    size_t used_, capacity_;
};

/* A collected object whose contents show whether its memory was reused. */
struct Node : public gc {
    uint64_t id, check;
    Node *next;
    explicit Node(uint64_t i) : id(i), check(mix64(i ^ 0xc0ffee)), next(NULL) {}
    bool intact(uint64_t expected_id) const
    {
        return id == expected_id && check == mix64(expected_id ^ 0xc0ffee);
    }
};

/* Garbage of Node's size, filled with a pattern, to make the allocator
 * reuse (and overwrite) any Node it has wrongly reclaimed. */
static NOINLINE __attribute__((unused)) void churn(size_t objects)
{
    for (size_t i = 0; i < objects; i++) {
        void *p = GC_MALLOC(sizeof(Node));
        CHECK(p != NULL);
        memset(p, 0xa5, sizeof(Node));
    }
}

/* The collector's kind of the object at p (GC_I_NORMAL, GC_I_PTRFREE...). */
static inline __attribute__((unused)) int kind_of(const void *p)
{
    size_t size = 0;
    return GC_get_kind_and_size(GC_base(const_cast<void *>(p)), &size);
}

#endif
