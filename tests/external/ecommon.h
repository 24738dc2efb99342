/*
 * ecommon.h: helpers of the external-memory tests: failure reporting with
 * values (the test exits 1), and the external statistics.
 */
#ifndef EXTERNAL_ECOMMON_H
#define EXTERNAL_ECOMMON_H

#include <gc.h>
#include <bibop.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int e_failures;

static void e_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "FAIL %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  e_failures++;
}

/* CHECK(cond, fmt, ...): record a failure with a message; continue. */
#define CHECK(cond, ...) \
  do { if (!(cond)) e_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)
/* REQUIRE: the same, then exit at once. */
#define REQUIRE(cond, ...) \
  do { if (!(cond)) { e_fail(__FILE__, __LINE__, __VA_ARGS__); exit(1); } } while (0)

static inline size_t ext_live(void) {
  struct bibop_external_stats s;
  bibop_get_external_stats(&s);
  return s.live_bytes;
}

static inline struct bibop_external_stats ext_stats(void) {
  struct bibop_external_stats s;
  bibop_get_external_stats(&s);
  return s;
}

static int e_finish(const char *name) {
  if (e_failures) {
    fprintf(stderr, "%s: %d failure(s)\n", name, e_failures);
    return 1;
  }
  printf("%s: ok\n", name);
  return 0;
}

#endif
