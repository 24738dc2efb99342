/* fail.h: test_fail(fmt, ...), the failure exit shared by the test suites'
 * helper headers: prints "FAIL: <message>" to stderr with write(2) (safe
 * after a crash-like state, unbuffered) and exits 1 without running exit
 * handlers or finalizers. */
#ifndef BIBOP_TESTS_COMMON_FAIL_H
#define BIBOP_TESTS_COMMON_FAIL_H

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static void test_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2), unused));
static void test_fail(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 2, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    fflush(stdout);
    if (write(2, "FAIL: ", 6) < 0 || write(2, buf, (size_t)n) < 0) { /* nothing to do */ }
    _exit(1);
}

#endif
