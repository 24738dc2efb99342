/*
 * diag.c: how the library speaks — warnings (through the client's warn
 * procedure), aborts (through GC_on_abort, then abort()), the statistics
 * log, bdwgc's GC_printf family, and the default out-of-memory and abort
 * functions. At the bottom of the house with state.c: any layer may warn or
 * abort without calling up. Everything is written straight to the file
 * descriptor (bdwgc's GC_err_printf), whatever buffering the client gave
 * stdio, so a message printed just before an abort is never lost.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Warnings, like aborts below, go straight to the descriptor (bdwgc's
   GC_err_printf), whatever buffering the client gave stderr. */
void gc_default_warn_proc(char *msg, GC_word arg) {
  dprintf(STDERR_FILENO, msg, arg);
}

void *gc_default_oom_fn(size_t bytes) {
  (void)bytes;
  return NULL;
}

void gc_warn(const char *msg, GC_word arg) {
  GC_warn_proc proc = gc.warn_proc ? gc.warn_proc : gc_default_warn_proc;
  proc((char *)msg, arg);
}

/* bdwgc's default abort function: the message (if any) straight to the
   stderr descriptor, so no buffer can hold it back from the abort() that
   follows. */
void gc_default_abort_func(const char *msg) {
  if (msg) dprintf(STDERR_FILENO, "%s\n", msg);
}

_Noreturn void gc_abort(const char *msg) {
  GC_abort_func on_abort = GC_on_abort;   /* a client may have stored NULL */
  (on_abort ? on_abort : gc_default_abort_func)(msg);
  if (gc.loop_on_abort)
    for (;;) pause();   /* GC_LOOP_ON_ABORT: wait for a debugger */
  abort();
}

FILE *gc_log(void) { return gc.log ? gc.log : stderr; }

/* ---- printing -------------------------------------------------------------------- */

/* Unbuffered, as bdwgc's: each message is out when the call returns (to the
   descriptor itself, past any stdio buffer the client's own output sits
   in), so what is printed just before an abort or a crash is never lost. */
GC_API void GC_printf(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vdprintf(STDOUT_FILENO, format, ap);
  va_end(ap);
}

GC_API void GC_err_printf(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vdprintf(STDERR_FILENO, format, ap);
  va_end(ap);
}

GC_API void GC_log_printf(const char *format, ...) {
  FILE *log = gc_log();
  va_list ap;
  va_start(ap, format);
  vfprintf(log, format, ap);
  va_end(ap);
  fflush(log);
}
