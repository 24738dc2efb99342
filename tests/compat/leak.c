/* leak.c: leak detection with gc/leak_detector.h. A child process (this
 * program run again) turns leak finding on — with GC_set_find_leak(1) before
 * GC_INIT ("setter"), or through GC_FIND_LEAK=1 in the environment ("env",
 * which CTest sets) — allocates 5 objects with malloc (redirected to the
 * debug allocator) at distinct lines (a leaked and a freed one larger than
 * 4 KiB), frees 2, leaks 3 and calls CHECK_LEAKS() a few times. The leak
 * report on its stderr must name exactly the 3 leaked objects' allocation
 * lines and none of the freed ones; only the "leak.c:<line>" parts are
 * compared, since bdwgc and bibop print different text around them. Each
 * leak is reported once (a reported object is reclaimed). */
#include "compat.h"

#include <gc/leak_detector.h>   /* from here on malloc and free are the collector's */

/* Allocation sites: each function's malloc is on the line that its
   <name>_line constant holds (both come from the macro's line). */
#define SITE(name, size)                                          \
    static NOINLINE char *name(void) { return malloc(size); }    \
    enum { name##_line = __LINE__ };

SITE(site_leak_a, 24)
SITE(site_freed_a, 32)
SITE(site_leak_b, 40)
SITE(site_freed_b, 6000)
SITE(site_leak_c, 5000)

static const long leaked_lines[] = { site_leak_a_line, site_leak_b_line, site_leak_c_line };
static const long freed_lines[] = { site_freed_a_line, site_freed_b_line };

/* ---- the child: leak three objects ------------------------------------------------------ */

static NOINLINE void use(char *p, size_t n)
{
    memset(p, 0x5a, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

static NOINLINE void allocate_and_leak(void)
{
    char *p = site_leak_a();
    use(p, 24);
    char *q = site_freed_a();
    use(q, 32);
    p = site_leak_b();
    use(p, 40);
    free(q);
    q = site_freed_b();
    use(q, 6000);
    p = site_leak_c();
    use(p, 5000);
    free(q);
    p = q = NULL;
}

static int child(const char *mode)
{
    if (strcmp(mode, "setter") == 0) GC_set_find_leak(1);
    else if (strcmp(mode, "env") != 0) {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    GC_INIT();
    CHECK(GC_get_find_leak() == 1, "GC_get_find_leak() is %d in mode %s (GC_FIND_LEAK %s)",
          GC_get_find_leak(), mode, getenv("GC_FIND_LEAK") ? "set" : "not set");
    allocate_and_leak();
    for (int i = 0; i < 3; i++) {
        compat_scramble_registers((uintptr_t)i);
        compat_clear_stack();
        CHECK_LEAKS();
    }
    printf("child %s: done\n", mode);
    return 0;
}

/* ---- the parent: never touches the collector ---------------------------------------------- */

static int in_list(long line, const long *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == line) return 1;
    return 0;
}

static int parent(const char *mode)
{
    int status;
    char *err = compat_run_child(mode, NULL, &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the %s child did not exit 0 (status 0x%x); its stderr:\n%s", mode, status, err);
    long lines[16];
    size_t n = compat_lines_of(err, "leak.c", lines, 16);
    printf("%s: the leak report names %lu line(s):", mode, (unsigned long)n);
    for (size_t i = 0; i < n; i++) printf(" %ld", lines[i]);
    printf(" (leaked at %ld %ld %ld, freed at %ld %ld)\n", leaked_lines[0], leaked_lines[1],
           leaked_lines[2], freed_lines[0], freed_lines[1]);
    for (size_t i = 0; i < n; i++) {
        CHECK(!in_list(lines[i], freed_lines, 2),
              "the report names leak.c:%ld, where a freed object was allocated:\n%s", lines[i],
              err);
        CHECK(in_list(lines[i], leaked_lines, 3),
              "the report names leak.c:%ld, not an allocation site:\n%s", lines[i], err);
    }
    for (size_t k = 0; k < 3; k++) {
        CHECK(in_list(leaked_lines[k], lines, n),
              "the report does not name leak.c:%ld, where an object was leaked:\n%s",
              leaked_lines[k], err);
        /* A reported leak is reclaimed: later collections do not report it
           again. */
        char needle[32];
        snprintf(needle, sizeof needle, "leak.c:%ld", leaked_lines[k]);
        unsigned times = 0;
        for (const char *s = strstr(err, needle); s; s = strstr(s + 1, needle))
            times += s[strlen(needle)] < '0' || s[strlen(needle)] > '9';
        CHECK(times == 1, "the leak at leak.c:%ld was reported %u times:\n%s", leaked_lines[k],
              times, err);
    }
    compat_free(err);
    printf("leak (%s): all checks passed\n", mode);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--parent") == 0) return parent(argv[2]);
    if (argc == 2) return child(argv[1]);
    fprintf(stderr, "usage: %s --parent setter|env\n", argv[0]);
    return 2;
}
