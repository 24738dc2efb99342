/* abort_print.c: the abort function and the collector's printing (issue #15,
 * item 4). Each check runs in a child process whose stdout and stderr go to
 * one pipe, fully buffered on the stdio side as a program writing to a pipe
 * or a file would have them; the parent reads what came out and how the
 * child ended.
 *
 *   default_handler  GC_on_abort (exported data, in no header) and
 *                    GC_get_abort_func() are non-NULL before and after
 *                    GC_INIT and are the same function; calling it prints
 *                    the message (bdwgc's default writes it to stderr).
 *   custom_handler   a handler set with GC_set_abort_func is called when the
 *                    collector gives up (GC_abort_on_oom: bdwgc calls it
 *                    with NULL before exit(1), bibop with a message before
 *                    abort()), and the child does not exit 0.
 *   print_then_abort GC_printf, GC_err_printf and GC_log_printf lines
 *                    printed just before abort() are in the output: the
 *                    collector's printing is unbuffered, as bdwgc's.
 *
 * Also builds against stock libgc1 (BIBOP_TESTS_AGAINST_STOCK). */
#define _GNU_SOURCE 1
#include "check.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gc.h>

/* Exported by bdwgc's library but declared in none of its public headers. */
extern GC_abort_func GC_on_abort;
extern void GC_printf(const char *format, ...);
extern void GC_err_printf(const char *format, ...);
extern void GC_log_printf(const char *format, ...);

#define DEFAULT_MESSAGE "abort_print: the default handler prints this"
#define GETTER_MESSAGE "abort_print: and the getter's function prints this"
#define CUSTOM_MARKER "abort_print: custom handler called"
#define PRINTF_LINE "abort_print: GC_printf before abort"
#define ERR_PRINTF_LINE "abort_print: GC_err_printf before abort"
#define LOG_PRINTF_LINE "abort_print: GC_log_printf before abort"

static void full_buffering(void)
{
    static char out_buf[8192], err_buf[8192];
    setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    setvbuf(stderr, err_buf, _IOFBF, sizeof err_buf);
}

static int default_handler(void)
{
    CHECK(GC_on_abort != NULL);
    CHECK(GC_get_abort_func() != NULL);
    GC_INIT();
    CHECK(GC_on_abort != NULL);
    CHECK(GC_get_abort_func() == GC_on_abort);
    GC_on_abort(DEFAULT_MESSAGE);
    GC_get_abort_func()(GETTER_MESSAGE);
    return 0;
}

static void GC_CALLBACK custom(const char *msg)
{
    char line[512];
    int n = snprintf(line, sizeof line, "%s: %s\n", CUSTOM_MARKER, msg ? msg : "(null)");
    if (n > 0 && write(2, line, (size_t)n) < 0) _exit(3);
}

static int custom_handler(void)
{
    GC_INIT();
    GC_set_abort_func(custom);
    CHECK(GC_get_abort_func() == custom);
    GC_abort_on_oom();
    return 0;   /* not reached: the collector exits or aborts */
}

static int print_then_abort(void)
{
    GC_INIT();
    GC_printf("%s\n", PRINTF_LINE);
    GC_err_printf("%s\n", ERR_PRINTF_LINE);
    GC_log_printf("%s\n", LOG_PRINTF_LINE);
    abort();
}

/* Run mode in a child; return its output (malloc'd) and its wait status. */
static char *run_child(int (*mode)(void), int *status)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0) _exit(126);
        close(fds[1]);
        signal(SIGABRT, SIG_DFL);
        full_buffering();
        exit(mode());
    }
    close(fds[1]);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    CHECK(buf != NULL);
    for (;;) {
        ssize_t n = read(fds[0], buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        len += (size_t)n;
        if (len + 1 == cap) break;
    }
    buf[len] = '\0';
    close(fds[0]);
    while (waitpid(pid, status, 0) < 0) CHECK(errno == EINTR);
    return buf;
}

int main(void)
{
    int status;
    char *out = run_child(default_handler, &status);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "default_handler: status 0x%x, output:\n%s", status, out);
    CHECKF(strstr(out, DEFAULT_MESSAGE) != NULL, "GC_on_abort(msg) printed nothing:\n%s", out);
    CHECKF(strstr(out, GETTER_MESSAGE) != NULL,
           "GC_get_abort_func()(msg) printed nothing:\n%s", out);
    printf("default_handler: GC_on_abort is set and prints the message\n");
    free(out);

    out = run_child(custom_handler, &status);
    CHECKF(!(WIFEXITED(status) && WEXITSTATUS(status) == 0),
           "custom_handler: the child went on after GC_abort_on_oom; output:\n%s", out);
    CHECKF(strstr(out, CUSTOM_MARKER) != NULL,
           "the custom abort handler was not called (status 0x%x); output:\n%s", status, out);
    printf("custom_handler: called on a collector abort (status 0x%x)\n", status);
    free(out);

    out = run_child(print_then_abort, &status);
    CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
           "print_then_abort: status 0x%x, output:\n%s", status, out);
    CHECKF(strstr(out, PRINTF_LINE) != NULL, "GC_printf's line lost at abort:\n%s", out);
    CHECKF(strstr(out, ERR_PRINTF_LINE) != NULL, "GC_err_printf's line lost at abort:\n%s", out);
    CHECKF(strstr(out, LOG_PRINTF_LINE) != NULL, "GC_log_printf's line lost at abort:\n%s", out);
    printf("print_then_abort: all three lines printed before abort() are there\n");
    free(out);
    printf("abort_print: all checks passed\n");
    return 0;
}
