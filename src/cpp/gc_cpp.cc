/*
 * The global allocation operators of libgccpp.so.1: every plain `new` of a
 * program linked with it returns uncollectable memory in the collected heap
 * (so the collector scans it for pointers to collected objects, and never
 * frees it on its own), and every plain `delete` frees it.  Failure throws
 * std::bad_alloc.  The nothrow and aligned forms are not replaced, as in
 * bdwgc: libstdc++'s nothrow forms call these; its aligned forms use
 * aligned_alloc and free, which the collector does not scan.
 *
 * A delete of memory that did not come from the collector (a bug in the
 * program) is ignored with a warning by GC_free.
 */
#include <cstddef>
#include <new>

#include "gc/gc.h"
#include "gc/gc_cpp.h"

static inline void *uncollectable_or_throw(std::size_t size)
{
  void *obj = GC_malloc_uncollectable(size);
  if (obj == 0)
    GC_throw_bad_alloc();
  return obj;
}

void *operator new(std::size_t size) { return uncollectable_or_throw(size); }
void *operator new[](std::size_t size) { return uncollectable_or_throw(size); }

void operator delete(void *obj) noexcept { GC_free(obj); }
void operator delete[](void *obj) noexcept { GC_free(obj); }
/* C++14 sized deletes: the collector knows the size. */
void operator delete(void *obj, std::size_t) noexcept { GC_free(obj); }
void operator delete[](void *obj, std::size_t) noexcept { GC_free(obj); }
