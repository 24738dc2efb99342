/* freed_not_counted.c: bytes the program frees explicitly do not count
 * toward the next collection (bdwgc's GC_adj_bytes_allocd: allocated less
 * explicitly freed, but at least an eighth of the allocation). A program
 * whose live data grows while it frees most of what it allocates (a C++
 * program whose containers GC_free their old storage: asy) must not
 * collect more often than one that only grows. A 64 MiB chain of 1 KiB
 * objects is built twice: alone, then with 8 objects allocated and freed
 * at once per kept one; the second build may take at most 1.5 times the
 * first one's collections (plus two). The chains are checked intact.
 */
#include <gc.h>

#include "check.h"

#define KEPT_BYTES ((size_t)64 << 20)
#define OBJ 1024
#define CHURN 8

struct obj { struct obj *next; size_t tag; };

static struct obj *volatile chain;

static NOINLINE GC_word build(int churn)
{
    GC_word before = GC_get_gc_no();
    chain = NULL;
    for (size_t i = 0; i < KEPT_BYTES / OBJ; i++) {
        struct obj *o = GC_MALLOC(OBJ);
        CHECK(o != NULL);
        o->tag = i;
        o->next = chain;
        chain = o;
        for (int k = 0; churn && k < CHURN; k++) {
            char *p = GC_MALLOC(OBJ);
            CHECK(p != NULL);
            p[0] = 1;
            GC_FREE(p);
        }
    }
    GC_word n = GC_get_gc_no() - before;
    size_t i = KEPT_BYTES / OBJ;
    for (struct obj *o = chain; o; o = o->next) CHECK(o->tag == --i);
    CHECK(i == 0);
    return n;
}

int main(void)
{
    GC_INIT();
    GC_word alone = build(0);
    chain = NULL;
    GC_gcollect();
    GC_gcollect();
    GC_word with_freed = build(1);
    printf("freed_not_counted: %lu collections growing alone, %lu with freed churn\n",
           (unsigned long)alone, (unsigned long)with_freed);
    CHECKF(2 * with_freed <= 3 * alone + 4, "%lu collections with freed churn, %lu without",
           (unsigned long)with_freed, (unsigned long)alone);
    return 0;
}
