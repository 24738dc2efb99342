/*
 * bibop: standard-library allocators backed by the collector (bdwgc 8.2
 * gc_allocator.h compatible).
 *
 *   gc_allocator<T>                  collected memory: a container using it
 *                                    must itself be reachable (a static, a
 *                                    stack variable or a collected object);
 *                                    element types declared pointer-free
 *                                    (GC_DECLARE_PTRFREE) are never scanned.
 *   gc_allocator_ignore_off_page<T>  the same, for large arrays the program
 *                                    always points to near their start.
 *   traceable_allocator<T>           uncollectable memory that is scanned:
 *                                    for explicitly managed containers that
 *                                    hold pointers to collected objects.
 *
 * deallocate frees at once in all three.  Allocation failure throws
 * std::bad_alloc (GC_abort_on_oom with GC_NEW_ABORTS_ON_OOM).  All
 * instances of one allocator template compare equal.
 */

#ifndef GC_ALLOCATOR_H
#define GC_ALLOCATOR_H

#include "gc.h"
#include <new>

#if defined(GC_NEW_ABORTS_ON_OOM) || defined(_LIBCPP_NO_EXCEPTIONS)
# define GC_ALLOCATOR_THROW_OR_ABORT() GC_abort_on_oom()
#else
# define GC_ALLOCATOR_THROW_OR_ABORT() throw std::bad_alloc()
#endif

/* Pointer-freedom of element types, dispatched on at compile time: the   */
/* member GC_is_ptr_free is a GC_true_type for types declared with        */
/* GC_DECLARE_PTRFREE (the arithmetic types below; clients may add more). */
struct GC_true_type {};
struct GC_false_type {};

template <class GC_tp>
struct GC_type_traits {
  GC_false_type GC_is_ptr_free;
};

#define GC_DECLARE_PTRFREE(T) \
template<> struct GC_type_traits<T> { GC_true_type GC_is_ptr_free; }

GC_DECLARE_PTRFREE(char);
GC_DECLARE_PTRFREE(signed char);
GC_DECLARE_PTRFREE(unsigned char);
GC_DECLARE_PTRFREE(signed short);
GC_DECLARE_PTRFREE(unsigned short);
GC_DECLARE_PTRFREE(signed int);
GC_DECLARE_PTRFREE(unsigned int);
GC_DECLARE_PTRFREE(signed long);
GC_DECLARE_PTRFREE(unsigned long);
GC_DECLARE_PTRFREE(float);
GC_DECLARE_PTRFREE(double);
GC_DECLARE_PTRFREE(long double);

/* Not part of the interface: what the three allocators share. */
namespace gc_allocator_detail
{
  inline void *checked(void *obj)
  {
    if (obj == 0)
      GC_ALLOCATOR_THROW_OR_ABORT();
    return obj;
  }

  template <class GC_Tp>
  class common {
  public:
    typedef size_t       size_type;
    typedef ptrdiff_t    difference_type;
    typedef GC_Tp*       pointer;
    typedef const GC_Tp* const_pointer;
    typedef GC_Tp&       reference;
    typedef const GC_Tp& const_reference;
    typedef GC_Tp        value_type;

    pointer address(reference GC_x) const { return &GC_x; }
    const_pointer address(const_reference GC_x) const { return &GC_x; }

    void deallocate(pointer GC_p, size_type) GC_NOEXCEPT { GC_FREE(GC_p); }

    size_type max_size() const GC_NOEXCEPT
      { return size_t(-1) / sizeof(GC_Tp); }

    void construct(pointer GC_p, const GC_Tp& GC_val)
      { new(GC_p) GC_Tp(GC_val); }
    void destroy(pointer GC_p) { GC_p->~GC_Tp(); }

  protected:
    /* Bytes for n elements; a count whose size does not fit in size_t */
    /* fails like an allocation rather than wrapping around.            */
    static size_t bytes_for(size_type GC_n)
    {
      if (GC_n > size_t(-1) / sizeof(GC_Tp))
        GC_ALLOCATOR_THROW_OR_ABORT();
      return GC_n * sizeof(GC_Tp);
    }
  };

  class void_common {
  public:
    typedef size_t      size_type;
    typedef ptrdiff_t   difference_type;
    typedef void*       pointer;
    typedef const void* const_pointer;
    typedef void        value_type;
  };
}

/* n bytes of collected memory: scanned unless GC_Tp is GC_true_type. */
template <class GC_Tp>
inline void *GC_selective_alloc(size_t n, GC_Tp, bool ignore_off_page)
{
  return gc_allocator_detail::checked(ignore_off_page
                                      ? GC_MALLOC_IGNORE_OFF_PAGE(n)
                                      : GC_MALLOC(n));
}

template <>
inline void *GC_selective_alloc<GC_true_type>(size_t n, GC_true_type,
                                              bool ignore_off_page)
{
  return gc_allocator_detail::checked(ignore_off_page
                                      ? GC_MALLOC_ATOMIC_IGNORE_OFF_PAGE(n)
                                      : GC_MALLOC_ATOMIC(n));
}

template <class GC_Tp>
class gc_allocator : public gc_allocator_detail::common<GC_Tp> {
public:
  template <class GC_Tp1> struct rebind {
    typedef gc_allocator<GC_Tp1> other;
  };

  gc_allocator() GC_NOEXCEPT {}
  gc_allocator(const gc_allocator&) GC_NOEXCEPT {}
  template <class GC_Tp1> GC_ATTR_EXPLICIT
  gc_allocator(const gc_allocator<GC_Tp1>&) GC_NOEXCEPT {}
  gc_allocator& operator=(const gc_allocator&) GC_NOEXCEPT { return *this; }
  ~gc_allocator() GC_NOEXCEPT {}

  /* GC_n may be 0; the hint is ignored. */
  GC_Tp* allocate(size_t GC_n, const void* = 0)
  {
    GC_type_traits<GC_Tp> traits;
    return static_cast<GC_Tp*>(GC_selective_alloc(this->bytes_for(GC_n),
                                                  traits.GC_is_ptr_free,
                                                  false));
  }
};

template <>
class gc_allocator<void> : public gc_allocator_detail::void_common {
public:
  template <class GC_Tp1> struct rebind {
    typedef gc_allocator<GC_Tp1> other;
  };
};

template <class GC_Tp>
class gc_allocator_ignore_off_page
  : public gc_allocator_detail::common<GC_Tp> {
public:
  template <class GC_Tp1> struct rebind {
    typedef gc_allocator_ignore_off_page<GC_Tp1> other;
  };

  gc_allocator_ignore_off_page() GC_NOEXCEPT {}
  gc_allocator_ignore_off_page(const gc_allocator_ignore_off_page&)
    GC_NOEXCEPT {}
  template <class GC_Tp1> GC_ATTR_EXPLICIT
  gc_allocator_ignore_off_page(const gc_allocator_ignore_off_page<GC_Tp1>&)
    GC_NOEXCEPT {}
  gc_allocator_ignore_off_page&
  operator=(const gc_allocator_ignore_off_page&) GC_NOEXCEPT { return *this; }
  ~gc_allocator_ignore_off_page() GC_NOEXCEPT {}

  GC_Tp* allocate(size_t GC_n, const void* = 0)
  {
    GC_type_traits<GC_Tp> traits;
    return static_cast<GC_Tp*>(GC_selective_alloc(this->bytes_for(GC_n),
                                                  traits.GC_is_ptr_free,
                                                  true));
  }
};

template <>
class gc_allocator_ignore_off_page<void>
  : public gc_allocator_detail::void_common {
public:
  template <class GC_Tp1> struct rebind {
    typedef gc_allocator_ignore_off_page<GC_Tp1> other;
  };
};

/* Always scanned, whatever GC_Tp: a pointer-free traceable container */
/* would just be a malloc'd one.                                      */
template <class GC_Tp>
class traceable_allocator : public gc_allocator_detail::common<GC_Tp> {
public:
  template <class GC_Tp1> struct rebind {
    typedef traceable_allocator<GC_Tp1> other;
  };

  traceable_allocator() GC_NOEXCEPT {}
  traceable_allocator(const traceable_allocator&) GC_NOEXCEPT {}
  template <class GC_Tp1> GC_ATTR_EXPLICIT
  traceable_allocator(const traceable_allocator<GC_Tp1>&) GC_NOEXCEPT {}
  traceable_allocator& operator=(const traceable_allocator&) GC_NOEXCEPT
    { return *this; }
  ~traceable_allocator() GC_NOEXCEPT {}

  GC_Tp* allocate(size_t GC_n, const void* = 0)
  {
    void *obj = GC_MALLOC_UNCOLLECTABLE(this->bytes_for(GC_n));
    return static_cast<GC_Tp*>(gc_allocator_detail::checked(obj));
  }
};

template <>
class traceable_allocator<void> : public gc_allocator_detail::void_common {
public:
  template <class GC_Tp1> struct rebind {
    typedef traceable_allocator<GC_Tp1> other;
  };
};

/* Memory from one instance may be freed through any other. */
template <class GC_T1, class GC_T2>
inline bool operator==(const gc_allocator<GC_T1>&,
                       const gc_allocator<GC_T2>&) GC_NOEXCEPT { return true; }
template <class GC_T1, class GC_T2>
inline bool operator!=(const gc_allocator<GC_T1>&,
                       const gc_allocator<GC_T2>&) GC_NOEXCEPT { return false; }

template <class GC_T1, class GC_T2>
inline bool operator==(const gc_allocator_ignore_off_page<GC_T1>&,
                       const gc_allocator_ignore_off_page<GC_T2>&) GC_NOEXCEPT
  { return true; }
template <class GC_T1, class GC_T2>
inline bool operator!=(const gc_allocator_ignore_off_page<GC_T1>&,
                       const gc_allocator_ignore_off_page<GC_T2>&) GC_NOEXCEPT
  { return false; }

template <class GC_T1, class GC_T2>
inline bool operator==(const traceable_allocator<GC_T1>&,
                       const traceable_allocator<GC_T2>&) GC_NOEXCEPT
  { return true; }
template <class GC_T1, class GC_T2>
inline bool operator!=(const traceable_allocator<GC_T1>&,
                       const traceable_allocator<GC_T2>&) GC_NOEXCEPT
  { return false; }

#endif /* GC_ALLOCATOR_H */
