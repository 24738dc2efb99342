/*
 * bibop: extras for Java-like runtimes (bdwgc 8.2 javaxfc.h compatible):
 * run every pending finalizer at exit, and suspend/resume single threads.
 */

#ifndef GC_JAVAXFC_H
#define GC_JAVAXFC_H

#ifndef GC_H
# include "gc.h"
#endif

#ifdef __cplusplus
  extern "C" {
#endif

/* Run the finalizers of all finalizable objects, reachable or not. */
GC_API void GC_CALL GC_finalize_all(void);

#ifdef GC_THREADS
  /* Suspend / resume a registered thread (no nesting count), and query. */
# ifndef GC_SUSPEND_THREAD_ID
#   define GC_SUSPEND_THREAD_ID void*
# endif
  GC_API void GC_CALL GC_suspend_thread(GC_SUSPEND_THREAD_ID);
  GC_API void GC_CALL GC_resume_thread(GC_SUSPEND_THREAD_ID);
  GC_API int GC_CALL GC_is_thread_suspended(GC_SUSPEND_THREAD_ID);
#endif

#ifdef __cplusplus
  } /* extern "C" */
#endif

#endif /* GC_JAVAXFC_H */
