/* compat.h: helpers shared by the compatibility tests (include it first, before
 * any system or collector header): failure reporting, a stack scrubber and a
 * "collect a few times" helper against conservative retention, and a runner
 * that re-executes the test binary in a child mode and captures its stderr
 * (for the debug-allocator and leak reports, which go to stderr). The same
 * sources build against bibop and against stock libgc1 (COMPAT_STOCK defined
 * by CMake then). */
#ifndef BIBOP_TESTS_COMPAT_H
#define BIBOP_TESTS_COMPAT_H

#define _GNU_SOURCE 1

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define UNUSED __attribute__((unused))

/* Line-buffer stdout so that progress lines interleave with stderr. */
__attribute__((constructor)) static void compat_line_buffered_(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
}

/* CHECK(condition, printf-style explanation with the values). */
#define CHECK(c, ...)                                                        \
    do {                                                                     \
        if (!(c)) {                                                          \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #c);  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
            fflush(stderr);                                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* The value as an integer, to store a heap address where the collector must
 * not see a pointer (in the bitmaps' non-pointer words it is still visible
 * as a bit pattern: that is the point of those tests). */
#define ADDR(p) ((uintptr_t)(p))

/* Overwrite a good part of the stack below the caller with zeros, so that
 * pointers left behind by finished calls do not act as roots. */
static NOINLINE UNUSED void compat_clear_stack(void)
{
    volatile char buf[32 * 1024];
    memset((char *)buf, 0, sizeof buf);
    __asm__ __volatile__("" : : "r"(buf) : "memory");
}

/* A call that clobbers the caller-saved registers with unrelated values. */
static NOINLINE UNUSED uintptr_t compat_scramble_registers(uintptr_t x)
{
    volatile uintptr_t a = x * 3 + 1, b = a ^ 0x5555, c = b + a, d = c * 7;
    return a + b + c + d;
}

/* Scrub, then n full collections (finalizers are run by GC_gcollect unless
 * GC_finalize_on_demand is set). */
#define compat_collect(n) compat_collect_((n), GC_gcollect)
static NOINLINE UNUSED void compat_collect_(int n, void (*collect)(void))
{
    for (int i = 0; i < n; i++) {
        compat_scramble_registers((uintptr_t)i);
        compat_clear_stack();
        collect();
    }
}

/* Percentage helpers for the statistical checks. */
#define AT_LEAST_PERCENT(count, total, pct) \
    ((unsigned long long)(count) * 100 >= (unsigned long long)(total) * (pct))

/* Run this program again as `self mode` (argv[1] = mode) with stdout
 * inherited and stderr captured. Returns the captured text (malloc'd, NUL
 * terminated) and stores the wait status. extra_env: NULL or
 * "NAME=value" strings to add to the child's environment. */
static UNUSED char *compat_run_child(const char *mode, const char *const *extra_env,
                                     int *status)
{
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(1);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], 2) < 0) _exit(126);
        close(fds[1]);
        for (const char *const *e = extra_env; e && *e; e++) putenv((char *)*e);
        char self[64];
        snprintf(self, sizeof self, "/proc/%ld/exe", (long)getpid());
        char *args[] = { (char *)"compat-child", (char *)mode, NULL };
        execv(self, args);
        _exit(127);
    }
    close(fds[1]);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 1024 > cap) buf = realloc(buf, cap *= 2);
        if (!buf) {
            fprintf(stderr, "out of memory reading the child's stderr\n");
            exit(1);
        }
        ssize_t n = read(fds[0], buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    close(fds[0]);
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR) {
            perror("waitpid");
            exit(1);
        }
    return buf;
}

/* The C library's free, for text from compat_run_child in a file that
 * redirects free to the collector afterwards (gc/leak_detector.h). */
static UNUSED void compat_free(void *p)
{
    free(p);
}

/* Collect the numbers N of every "<name>:N" in text (e.g. name "leak.c"),
 * into lines[] (at most max), distinct, in order of first appearance. */
static UNUSED size_t compat_lines_of(const char *text, const char *name, long *lines, size_t max)
{
    size_t n = 0, namelen = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        const char *q = p + namelen;
        if (*q != ':' || q[1] < '0' || q[1] > '9') continue;
        /* the name must not be the tail of a longer file name (xleak.c) */
        if (p > text && (p[-1] != '/' && p[-1] != '(' && p[-1] != ' ' && p[-1] != '\t'
                         && p[-1] != '\n'))
            continue;
        long line = strtol(q + 1, NULL, 10);
        size_t i = 0;
        while (i < n && lines[i] != line) i++;
        if (i == n && n < max) lines[n++] = line;
    }
    return n;
}

#endif
