/* debug_underrun.c (built with -DGC_DEBUG): damage before a debug object
 * (issue #15, item 10). bdwgc takes any pointer one debug header above its
 * object's start for a debug object; when its start guard or size field
 * was overwritten, GC_FREE reports a smashed object and frees it all the
 * same. bibop said "called on pointer ... without debugging info" and kept
 * the object. Each mode runs in a child process, stderr captured:
 *
 *   underrun_guard  the byte just before the object (the start guard) is
 *                   overwritten, then GC_FREE: a smash report, no "debugging
 *                   info" complaint, no crash;
 *   underrun_size   the size field is overwritten with a huge value: same;
 *   underrun_collect  the start guard of a live object is overwritten: the
 *                   collections report a smashed object;
 *   rounds          2400 rounds: three of four allocate an uncollectable
 *                   32 KiB debug object and damage it in one way (start
 *                   guard, size field, one byte past the end) before
 *                   GC_FREE, the fourth frees a small object twice: every
 *                   round is reported by GC_debug_free and the heap stays
 *                   bounded (the damaged objects were freed: uncollectable
 *                   objects are never reclaimed otherwise). A double free
 *                   of an uncollectable object is not tried: stock aborts
 *                   ("Invalid pointer passed to free()") when its block is
 *                   gone.
 * Passes on stock libgc1. The damage goes through a pointer the compiler
 * cannot follow, so that it does not warn about the writes out of bounds. */
#include "compat.h"

#include <gc.h>

#ifndef GC_DEBUG
#error "debug_underrun.c must be built with -DGC_DEBUG"
#endif

#define ROUNDS 2400
#define ROUND_BYTES (32 * 1024)
#define HEAP_BOUND ((size_t)24 << 20)   /* leaking every object would take 56 MiB */

static char *volatile live_object;   /* a root */

static char *opaque(char *p)
{
    __asm__("" : "+r"(p));
    return p;
}

static void smash_guard(char *p) { opaque(p)[-1] = 'X'; }   /* the start guard's last byte */

static void smash_size(char *p)
{
    GC_word huge = (GC_word)1 << 40;
    memcpy(opaque(p) - 2 * sizeof(GC_word), &huge, sizeof huge);   /* the size field */
}

static int child(const char *mode)
{
    GC_INIT();
    if (strcmp(mode, "underrun_guard") == 0 || strcmp(mode, "underrun_size") == 0) {
        char *p = GC_MALLOC(24);
        CHECK(p != NULL, "GC_MALLOC failed");
        memset(p, 'a', 24);
        if (mode[9] == 'g') smash_guard(p);
        else smash_size(p);
        GC_FREE(p);
        GC_gcollect();
    } else if (strcmp(mode, "underrun_collect") == 0) {
        char *p = GC_MALLOC(24);
        CHECK(p != NULL, "GC_MALLOC failed");
        live_object = p;
        smash_guard(p);
        p = NULL;
        GC_gcollect();
        GC_gcollect();
        /* stock prints what a collection found from a later allocation */
        for (int i = 0; i < 1000; i++) (void)GC_MALLOC_ATOMIC(64);
        GC_gcollect();
    } else if (strcmp(mode, "rounds") == 0) {
        for (int i = 0; i < ROUNDS; i++) {
            if (i % 4 == 3) {
                char *p = GC_MALLOC(64);
                CHECK(p != NULL, "GC_MALLOC failed in round %d", i);
                GC_FREE(p);
                GC_FREE(p);
                continue;
            }
            char *p = GC_MALLOC_UNCOLLECTABLE(ROUND_BYTES);
            CHECK(p != NULL, "GC_MALLOC_UNCOLLECTABLE failed in round %d", i);
            memset(p, 'r', ROUND_BYTES);
            switch (i % 4) {
                case 0: smash_guard(p); break;
                case 1: smash_size(p); break;
                case 2: opaque(p)[ROUND_BYTES] = 'X'; break;
            }
            GC_FREE(p);
        }
        size_t heap = GC_get_heap_size();
        if (heap > HEAP_BOUND) {
            fprintf(stderr, "rounds: heap %lu bytes after %d rounds: damaged objects were not "
                    "freed\n", (unsigned long)heap, ROUNDS);
            return 3;
        }
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    printf("child %s: done\n", mode);
    return 0;
}

static unsigned occurrences(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *s = strstr(text, needle); s; s = strstr(s + 1, needle)) n++;
    return n;
}

/* The child exits 0, reports at least `reports` times with `needle`, and
   never takes the object for one without debugging information. */
static void expect(const char *mode, const char *needle, unsigned reports)
{
    int status;
    char *err = compat_run_child(mode, NULL, &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "child %s did not exit 0 (status 0x%x); its stderr:\n%.4000s", mode, status, err);
    CHECK(!strstr(err, "debugging info"), "child %s: a damaged debug object was taken for one "
          "without debugging information; its stderr:\n%.4000s", mode, err);
    unsigned n = occurrences(err, needle);
    CHECK(n >= reports, "child %s: %u reports with \"%s\", not %u; its stderr:\n%.4000s", mode,
          n, needle, reports, err);
    printf("%s: %u reports with \"%s\"\n", mode, n, needle);
    free(err);
}

int main(int argc, char **argv)
{
    if (argc > 1) return child(argv[1]);
    expect("underrun_guard", "smashed", 1);
    expect("underrun_size", "smashed", 1);
    expect("underrun_collect", "smashed", 1);
    expect("rounds", "GC_debug_free", ROUNDS);
    printf("debug_underrun: all checks passed\n");
    return 0;
}
