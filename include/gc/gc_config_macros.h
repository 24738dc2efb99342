/*
 * bibop: configuration macros behind gc.h (bdwgc 8.2 compatible): thread
 * selection (GC_THREADS -> GC_PTHREADS), export and attribute macros, and
 * the debug-allocation caller convention.  Linux with gcc or clang only.
 * Included by gc.h only.
 */

#if defined(GC_H)

/* True if the compiler claims at least GCC version major.minor. */
#if defined(__GNUC__) && defined(__GNUC_MINOR__)
# define GC_GNUC_PREREQ(major, minor) \
        ((__GNUC__ << 16) + __GNUC_MINOR__ >= ((major) << 16) + (minor))
#else
# define GC_GNUC_PREREQ(major, minor) 0
#endif

/* Old spellings of the thread-selection macros. */
#if defined(LINUX_THREADS) && !defined(GC_LINUX_THREADS)
# define GC_LINUX_THREADS
#endif
#if defined(USE_LD_WRAP) && !defined(GC_USE_LD_WRAP)
# define GC_USE_LD_WRAP
#endif

/* GC_THREADS is the one switch; on Linux it means POSIX threads. */
#if defined(GC_LINUX_THREADS) && !defined(GC_THREADS)
# define GC_THREADS
#endif
#if defined(GC_THREADS) && defined(__linux__) && !defined(GC_LINUX_THREADS)
# define GC_LINUX_THREADS
#endif

#undef GC_PTHREADS
#ifdef GC_THREADS
# define GC_PTHREADS
# ifndef _REENTRANT
#   define _REENTRANT 1
# endif
#endif

#define __GC
#include <stddef.h>

/* Exported entry points keep default visibility even when the library is */
/* built with -fvisibility=hidden.                                         */
#ifndef GC_API
# define GC_API extern __attribute__((__visibility__("default")))
#endif
#ifndef GC_CALL
# define GC_CALL
#endif
#ifndef GC_CALLBACK
# define GC_CALLBACK GC_CALL
#endif

/* Allocation results alias nothing, unless a custom oom handler says so. */
#ifndef GC_ATTR_MALLOC
# ifdef GC_OOM_FUNC_RETURNS_ALIAS
#   define GC_ATTR_MALLOC
# else
#   define GC_ATTR_MALLOC __attribute__((__malloc__))
# endif
#endif

#ifndef GC_ATTR_ALLOC_SIZE
# undef GC_ATTR_CALLOC_SIZE
# define GC_ATTR_ALLOC_SIZE(argnum) __attribute__((__alloc_size__(argnum)))
# define GC_ATTR_CALLOC_SIZE(n, s) __attribute__((__alloc_size__(n, s)))
#endif
#ifndef GC_ATTR_CALLOC_SIZE
# define GC_ATTR_CALLOC_SIZE(n, s)
#endif

#ifndef GC_ATTR_NONNULL
# define GC_ATTR_NONNULL(argnum) __attribute__((__nonnull__(argnum)))
#endif

#ifndef GC_ATTR_CONST
# define GC_ATTR_CONST __attribute__((__const__))
#endif

/* Direct use of the old public variables is deprecated (not when the */
/* library itself is compiled).                                       */
#ifndef GC_ATTR_DEPRECATED
# ifdef GC_BUILD
#   define GC_ATTR_DEPRECATED
# else
#   define GC_ATTR_DEPRECATED __attribute__((__deprecated__))
# endif
#endif

/* glibc has backtrace(), so debug allocations take (file, line) only; */
/* without it they also take the caller's return address.              */
#include <features.h>
#if defined(__GLIBC__) && !defined(GC_MISSING_EXECINFO_H) \
    && !defined(GC_HAVE_BUILTIN_BACKTRACE)
# define GC_HAVE_BUILTIN_BACKTRACE
#endif
#if (defined(GC_HAVE_BUILTIN_BACKTRACE) || defined(__x86_64__) \
     || defined(__i386__)) && !defined(GC_CAN_SAVE_CALL_STACKS)
# define GC_CAN_SAVE_CALL_STACKS
#endif
#ifndef GC_CAN_SAVE_CALL_STACKS
# define GC_ADD_CALLER
# define GC_RETURN_ADDR (GC_word)__builtin_return_address(0)
#endif

/* pthread_exit is intercepted too (so pthread_cancel is as well). */
#if defined(GC_PTHREADS) && !defined(GC_HAVE_PTHREAD_EXIT)
# define GC_HAVE_PTHREAD_EXIT
# define GC_PTHREAD_EXIT_ATTRIBUTE __attribute__((__noreturn__))
#endif

#ifdef __cplusplus
# ifndef GC_ATTR_EXPLICIT
#   if __cplusplus >= 201103L && !defined(__clang__)
#     define GC_ATTR_EXPLICIT explicit
#   else
#     define GC_ATTR_EXPLICIT
#   endif
# endif
# ifndef GC_NOEXCEPT
#   if __cplusplus >= 201103L
#     define GC_NOEXCEPT noexcept
#   else
#     define GC_NOEXCEPT throw()
#   endif
# endif
#endif /* __cplusplus */

#endif /* GC_H */
