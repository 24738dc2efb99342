/* debug_known.c (built with -DGC_DEBUG): two debug-allocator behaviours of
 * bdwgc 8.2 that bibop once got wrong (the file keeps its old name); run
 * one per registration:
 *
 *   realloc_plain  GC_REALLOC (GC_debug_realloc) of an object that has no
 *                  debug header (allocated with plain GC_malloc, e.g. by a
 *                  library built without GC_DEBUG) prints a warning and
 *                  falls back to GC_realloc: the result is a usable object
 *                  holding the old contents.
 *
 *   free_reported_once  a one-byte overrun of a 16-byte object (which stock's
 *                  word-aligned guard catches too) is reported at GC_FREE
 *                  with its allocation site, and not again by the
 *                  collections that follow (nothing was written after the
 *                  free). Checked in a child process, stderr captured.
 *
 * Both are registered with CTest, against bibop and against stock. */
#include "compat.h"

#include <gc.h>

#ifndef GC_DEBUG
#error "debug_known.c must be built with -DGC_DEBUG"
#endif

/* The allocation site, on the line its constant names. */
static NOINLINE char *alloc_site(void) { return GC_MALLOC(16); } enum { alloc_site_line = __LINE__ };

static int realloc_plain(void)
{
    GC_INIT();
    char *p = GC_malloc(100);   /* the function, not the macro: no debug header */
    CHECK(p != NULL, "GC_malloc failed");
    for (int i = 0; i < 100; i++) p[i] = (char)(i * 3 + 1);
    char *q = GC_REALLOC(p, 1000);
    CHECK(q != NULL, "GC_REALLOC of an object without debug information returned NULL "
          "(bdwgc falls back to GC_realloc)");
    for (int i = 0; i < 100; i++)
        CHECK(q[i] == (char)(i * 3 + 1), "byte %d changed by GC_REALLOC", i);
    memset(q, 0x11, 1000);   /* all of it is usable */
    GC_gcollect();
    printf("realloc_plain: GC_REALLOC of a plain object kept its contents\n");
    return 0;
}

static int child_overrun_then_free(void)
{
    GC_INIT();
    char *p = alloc_site();
    memset(p, 'a', 16);
    p[16] = 'X';   /* one byte past the end */
    GC_FREE(p);
    p = NULL;
    for (int i = 0; i < 3; i++) {
        compat_clear_stack();
        GC_gcollect();
    }
    return 0;
}

static int free_reported_once(void)
{
    int status;
    char *err = compat_run_child("child_overrun_then_free", NULL, &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child did not exit 0 (status 0x%x); its stderr:\n%s", status, err);
    char needle[64];
    snprintf(needle, sizeof needle, "debug_known.c:%d", (int)alloc_site_line);
    unsigned reports = 0;
    for (const char *s = strstr(err, needle); s; s = strstr(s + 1, needle)) reports++;
    CHECK(reports == 1, "the overrun was reported %u times, not once at GC_FREE; stderr:\n%s",
          reports, err);
    free(err);
    printf("free_reported_once: reported once, at GC_FREE\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "realloc_plain") == 0) return realloc_plain();
    if (argc == 2 && strcmp(argv[1], "free_reported_once") == 0) return free_reported_once();
    if (argc == 2 && strcmp(argv[1], "child_overrun_then_free") == 0)
        return child_overrun_then_free();
    fprintf(stderr, "usage: %s realloc_plain|free_reported_once\n", argv[0]);
    return 2;
}
