/*
 * GC_throw_bad_alloc: the out-of-line throw that gc_cpp.h's allocation
 * operators call when the collector returns NULL, so that the header need
 * not include <new>.  The whole of libgctba.so.1, and part of libgccpp.so.1
 * (both export it, as bdwgc's do).  C++ linkage, as gc_cpp.h declares it.
 */
#include <new>

#include "gc/gc_cpp.h"

void GC_CALL GC_throw_bad_alloc()
{
  throw std::bad_alloc();
}
