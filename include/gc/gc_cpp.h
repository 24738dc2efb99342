/*
 * bibop: the C++ interface of bdwgc 8.2 (gc_cpp.h compatible).
 *
 * Objects of classes derived from `gc` live in the collected heap; `new
 * (UseGC)`, `new (NoGC)`, `new (PointerFreeGC)` choose collected, explicitly
 * managed or collected-but-never-scanned memory for any type; classes
 * derived from `gc_cleanup` have their destructor run by the collector when
 * they become unreachable.  `delete` works on every placement and runs the
 * destructor at once.  The plain global `::operator new` is untouched here:
 * linking libgccpp routes it to uncollectable memory.
 *
 * Out of memory: std::bad_alloc, thrown by GC_throw_bad_alloc (libgctba or
 * libgccpp) unless the client defines GC_INCLUDE_NEW (thrown inline) or
 * GC_NEW_ABORTS_ON_OOM (GC_abort_on_oom).  GC_NAMESPACE puts the names in
 * namespace boehmgc; GC_NAME_CONFLICT drops the `GC` alias of `UseGC`;
 * GC_ATOMIC_UNCOLLECTABLE adds `PointerFreeNoGC`; GC_NO_FINALIZATION makes
 * gc_cleanup register nothing.
 */

#ifndef GC_CPP_H
#define GC_CPP_H

#include "gc.h"

#ifdef GC_NAMESPACE
# define GC_NS_QUALIFY(T) boehmgc::T
#else
# define GC_NS_QUALIFY(T) T
#endif

/* Calling convention of the cleanup callback (only ever GC_CALLBACK here). */
#define GC_cdecl GC_CALLBACK

/* Array forms of the class operators exist unless the client opts out;    */
/* placement delete (called when a constructor throws) always exists.      */
#if !defined(GC_NO_OPERATOR_NEW_ARRAY) && !defined(GC_OPERATOR_NEW_ARRAY)
# define GC_OPERATOR_NEW_ARRAY
#endif
#define GC_PLACEMENT_DELETE

#if defined(GC_NEW_ABORTS_ON_OOM) || defined(_LIBCPP_NO_EXCEPTIONS)
# define GC_OP_NEW_OOM_CHECK(obj) \
                do { if (!(obj)) GC_abort_on_oom(); } while (0)
#elif defined(GC_INCLUDE_NEW)
# include <new>
# define GC_OP_NEW_OOM_CHECK(obj) if (obj) {} else throw std::bad_alloc()
#else
  /* Throws std::bad_alloc; defined in libgctba and libgccpp, so that    */
  /* this header need not include <new>.  C++ linkage, as in bdwgc.      */
  GC_API void GC_CALL GC_throw_bad_alloc();
# define GC_OP_NEW_OOM_CHECK(obj) if (obj) {} else GC_throw_bad_alloc()
#endif

#ifdef GC_NAMESPACE
namespace boehmgc
{
#endif

/* Where `new (placement)` puts an object.  The values are bdwgc's. */
enum GCPlacement
{
  UseGC,                        /* collected, scanned */
# ifndef GC_NAME_CONFLICT
    GC = UseGC,
# endif
  NoGC,                         /* uncollectable (delete it), scanned */
  PointerFreeGC                 /* collected, never scanned */
# ifdef GC_ATOMIC_UNCOLLECTABLE
    , PointerFreeNoGC           /* uncollectable, never scanned */
# endif
};

/* Instances of classes derived from gc are collected unless allocated */
/* with new (NoGC).  The placement form `new (p) T` is kept visible.   */
class gc
{
public:
  inline void *operator new(size_t size);
  inline void *operator new(size_t size, GCPlacement gcp);
  inline void *operator new(size_t size, void *p) GC_NOEXCEPT;
  inline void operator delete(void *obj) GC_NOEXCEPT;
  /* Called when a constructor throws. */
  inline void operator delete(void *obj, GCPlacement) GC_NOEXCEPT;
  inline void operator delete(void *, void *) GC_NOEXCEPT;

# ifdef GC_OPERATOR_NEW_ARRAY
    inline void *operator new[](size_t size);
    inline void *operator new[](size_t size, GCPlacement gcp);
    inline void *operator new[](size_t size, void *p) GC_NOEXCEPT;
    inline void operator delete[](void *obj) GC_NOEXCEPT;
    inline void operator delete[](void *obj, GCPlacement) GC_NOEXCEPT;
    inline void operator delete[](void *, void *) GC_NOEXCEPT;
# endif
};

/* A collected object derived from gc_cleanup (or holding a member that  */
/* is) has its destructors run by the collector once it is unreachable; */
/* pointers from the object to itself do not keep it alive.  Deleting   */
/* it explicitly runs the destructors once, and cancels the cleanup.    */
class gc_cleanup: virtual public gc
{
public:
  inline gc_cleanup();
  inline virtual ~gc_cleanup();

private:
  /* The finalizer: obj is the heap object, clientData the offset of the */
  /* gc_cleanup subobject inside it.                                     */
  inline static void GC_cdecl cleanup(void *obj, void *clientData);
};

extern "C" {
  typedef void (GC_CALLBACK * GCCleanUpFunc)(void *obj, void *clientData);
}

/* Not part of the interface: the allocation that each placement means. */
namespace gc_cpp_detail
{
  inline void *allocate(size_t size, GCPlacement gcp)
  {
    void *obj;
    if (gcp == UseGC)
      obj = GC_MALLOC(size);
    else if (gcp == PointerFreeGC)
      obj = GC_MALLOC_ATOMIC(size);
#   ifdef GC_ATOMIC_UNCOLLECTABLE
      else if (gcp == PointerFreeNoGC)
        obj = GC_MALLOC_ATOMIC_UNCOLLECTABLE(size);
#   endif
    else                        /* NoGC, and any other value */
      obj = GC_MALLOC_UNCOLLECTABLE(size);
    GC_OP_NEW_OOM_CHECK(obj);
    return obj;
  }
}

#ifdef GC_NAMESPACE
}
#endif

/* new (gcp, cleanup, clientData) T: like gc's placement new, for any    */
/* type.  For UseGC a non-null cleanup is registered as the object's     */
/* finalizer (ignoring self-pointers) and called as cleanup(obj,         */
/* clientData) instead of any destructor; such an object must not be     */
/* deleted.  cleanup is ignored with the other placements, and must not  */
/* be given for gc_cleanup classes.                                      */
inline void *operator new(size_t size, GC_NS_QUALIFY(GCPlacement) gcp,
                          GC_NS_QUALIFY(GCCleanUpFunc) cleanup = 0,
                          void *clientData = 0);
inline void operator delete(void *obj, GC_NS_QUALIFY(GCPlacement),
                            GC_NS_QUALIFY(GCCleanUpFunc), void *) GC_NOEXCEPT;
#ifdef GC_OPERATOR_NEW_ARRAY
  inline void *operator new[](size_t size, GC_NS_QUALIFY(GCPlacement) gcp,
                              GC_NS_QUALIFY(GCCleanUpFunc) cleanup = 0,
                              void *clientData = 0);
#endif

/* Definitions. */

#ifdef GC_NAMESPACE
namespace boehmgc
{
#endif

inline void *gc::operator new(size_t size)
{
  return gc_cpp_detail::allocate(size, UseGC);
}

inline void *gc::operator new(size_t size, GCPlacement gcp)
{
  return gc_cpp_detail::allocate(size, gcp);
}

inline void *gc::operator new(size_t, void *p) GC_NOEXCEPT { return p; }

/* Any placement's memory may be freed at once (GC_free accepts all). */
inline void gc::operator delete(void *obj) GC_NOEXCEPT { GC_FREE(obj); }
inline void gc::operator delete(void *obj, GCPlacement) GC_NOEXCEPT
{
  GC_FREE(obj);
}
inline void gc::operator delete(void *, void *) GC_NOEXCEPT {}

#ifdef GC_OPERATOR_NEW_ARRAY
  inline void *gc::operator new[](size_t size)
  {
    return gc_cpp_detail::allocate(size, UseGC);
  }
  inline void *gc::operator new[](size_t size, GCPlacement gcp)
  {
    return gc_cpp_detail::allocate(size, gcp);
  }
  inline void *gc::operator new[](size_t, void *p) GC_NOEXCEPT { return p; }
  inline void gc::operator delete[](void *obj) GC_NOEXCEPT { GC_FREE(obj); }
  inline void gc::operator delete[](void *obj, GCPlacement) GC_NOEXCEPT
  {
    GC_FREE(obj);
  }
  inline void gc::operator delete[](void *, void *) GC_NOEXCEPT {}
#endif

/* The first gc_cleanup subobject constructed in a heap object owns the  */
/* finalizer: it is the outermost one (bases are built before members),  */
/* and its virtual destructor destroys the whole object.  Later ones put */
/* the existing registration back.  Not in the heap (static, automatic,  */
/* or inside malloc'd memory): nothing to register.                      */
inline gc_cleanup::gc_cleanup()
{
# ifndef GC_NO_FINALIZATION
    void *base = GC_base(static_cast<void *>(this));
    if (base != 0) {
      GC_finalization_proc previous = 0;
      void *previous_data = 0;
      void *offset = reinterpret_cast<void *>(
          reinterpret_cast<char *>(this) - static_cast<char *>(base));
      /* The real base is given, so the non-debug call is the right one. */
      GC_register_finalizer_ignore_self(base, cleanup, offset,
                                        &previous, &previous_data);
      if (previous != 0)
        GC_register_finalizer_ignore_self(base, previous, previous_data,
                                          0, 0);
    }
# endif
}

/* Destroyed by delete or by its owner: the collector must not run the */
/* destructor a second time.                                           */
inline gc_cleanup::~gc_cleanup()
{
# ifndef GC_NO_FINALIZATION
    void *base = GC_base(static_cast<void *>(this));
    if (base != 0)
      GC_register_finalizer_ignore_self(base, 0, 0, 0, 0);
# endif
}

inline void GC_CALLBACK gc_cleanup::cleanup(void *obj, void *clientData)
{
  char *subobject = static_cast<char *>(obj)
                    + reinterpret_cast<ptrdiff_t>(clientData);
  reinterpret_cast<gc_cleanup *>(subobject)->~gc_cleanup();
}

#ifdef GC_NAMESPACE
}
#endif

inline void *operator new(size_t size, GC_NS_QUALIFY(GCPlacement) gcp,
                          GC_NS_QUALIFY(GCCleanUpFunc) cleanup,
                          void *clientData)
{
  void *obj = GC_NS_QUALIFY(gc_cpp_detail::allocate)(size, gcp);
# ifndef GC_NO_FINALIZATION
    if (gcp == GC_NS_QUALIFY(UseGC) && cleanup != 0)
      GC_REGISTER_FINALIZER_IGNORE_SELF(obj, cleanup, clientData, 0, 0);
# else
    (void)cleanup;
    (void)clientData;
# endif
  return obj;
}

inline void operator delete(void *obj, GC_NS_QUALIFY(GCPlacement),
                            GC_NS_QUALIFY(GCCleanUpFunc), void *) GC_NOEXCEPT
{
  GC_FREE(obj);
}

#ifdef GC_OPERATOR_NEW_ARRAY
  inline void *operator new[](size_t size, GC_NS_QUALIFY(GCPlacement) gcp,
                              GC_NS_QUALIFY(GCCleanUpFunc) cleanup,
                              void *clientData)
  {
    return ::operator new(size, gcp, cleanup, clientData);
  }
#endif

#endif /* GC_CPP_H */
