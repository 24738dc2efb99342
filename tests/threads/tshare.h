/* tshare.h (bibop-only thread tests): collect until the markers other than
 * the collecting thread's take a share. A marker joins a collection only
 * once it gets a CPU, which a loaded machine may deny for a while, so the
 * tests collect until one collection shows the share rather than expect
 * it of any given one. Include after tcommon.h, gc.h and bibop.h. */
#ifndef TSHARE_H
#define TSHARE_H

/* Collect until bibop_get_marked_share reports that the other markers
   marked at least a tenth of the objects, at most max_collections times;
   every collection must mark at least min_objects, and after each one
   check (if not NULL) verifies the caller's data. Fails the test if no
   collection reaches the tenth; returns the collections done. */
static int t_collect_until_shared(unsigned long long min_objects, int max_collections,
                                  void (*check)(void))
{
    struct bibop_marked_share s = { 0, 0, 0 };
    unsigned long long best_others = 0, best_objects = 1;
    int n = 0;
    for (; n < max_collections; n++) {
        GC_gcollect();
        bibop_get_marked_share(&s);
        TCHECK(s.objects >= min_objects,
               "collection %lu marked %llu objects, fewer than the lists hold", s.gc_no, s.objects);
        TCHECK(s.by_others <= s.objects, "others marked %llu of %llu", s.by_others, s.objects);
        if (check) check();
        if (n == 0 || s.by_others * best_objects > best_others * s.objects) {
            best_others = s.by_others;
            best_objects = s.objects;
        }
        if (s.by_others * 10 >= s.objects) break;
    }
    printf("%d collections; best share of the other markers: %llu of %llu objects\n", n + 1,
           best_others, best_objects);
    TCHECK(n < max_collections, "in %d collections the other markers never marked a tenth "
           "(best %llu of %llu objects)", max_collections, best_others, best_objects);
    return n + 1;
}

#endif /* TSHARE_H */
