/* basics.c: the everyday bdwgc API on its own: GC_INIT and the collection
 * count, zeroed allocation of every size 0..5000 and some large ones (also
 * after the memory was dirtied and reused), GC_size with interior pointers
 * (the extra byte), GC_base and GC_is_heap_ptr for heap and non-heap
 * addresses, atomic allocation, strdup/strndup, realloc, GC_free and reuse,
 * GC_malloc_many, version, heap statistics, GC_disable/GC_enable, and the
 * warn/oom/interior-pointer setters and getters. */
#include <gc.h>

#include "check.h"

static int static_var[16];

static size_t first_nonzero(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return i;
    return (size_t)-1;
}

static void check_zeroed(const void *p, size_t n, const char *what)
{
    size_t off = first_nonzero(p, n);
    CHECKF(off == (size_t)-1, "%s: %zu-byte object %p has byte %zu = 0x%02x",
           what, n, p, off, off == (size_t)-1 ? 0 : ((const unsigned char *)p)[off]);
}

static void check_base_of(void *p, size_t n)
{
    size_t offs[] = { 0, 1, 7, 8, n / 2, n ? n - 1 : 0, n };
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        void *b = GC_base((char *)p + offs[i]);
        CHECKF(b == p, "GC_base(%p + %zu) = %p for %zu-byte object at %p",
               p, offs[i], b, n, p);
    }
    CHECKF(GC_is_heap_ptr((char *)p + n / 2), "GC_is_heap_ptr(%p + %zu) = 0",
           p, n / 2);
}

static void GC_CALLBACK my_warn(char *msg, GC_word arg) { (void)msg; (void)arg; }
static void *GC_CALLBACK my_oom(size_t n) { (void)n; return NULL; }

static void test_zeroed_and_sizes(void)
{
    /* Every small size, straight from a fresh heap. */
    for (size_t s = 0; s <= 5000; s++) {
        unsigned char *p = GC_malloc(s);
        CHECKF(p != NULL, "GC_malloc(%zu) returned NULL", s);
        check_zeroed(p, s, "fresh GC_malloc");
        size_t sz = GC_size(p);
        CHECKF(sz >= s + 1, "GC_size(GC_malloc(%zu)) = %zu, want >= %zu "
               "(one extra byte with interior pointers)", s, sz, s + 1);
        CHECKF(GC_base(p) == p, "GC_base(GC_malloc(%zu))=%p, p=%p", s,
               GC_base(p), (void *)p);
        memset(p, 0xA5, sz);  /* writable over the whole reported size */
        if (s % 97 == 0) check_base_of(p, s);
    }
    CHECK_EQ(GC_size(GC_malloc(16)), 32);

    /* Dirty memory, give it back with GC_free, allocate again: the memory
     * handed out a second time must be zero again. */
    for (size_t s = 0; s <= 5000; s += (s < 300 ? 1 : 37)) {
        void *keep[8];
        for (int i = 0; i < 8; i++) {
            keep[i] = GC_malloc(s);
            CHECK(keep[i] != NULL);
            memset(keep[i], 0xFF, GC_size(keep[i]));
        }
        for (int i = 0; i < 8; i++) GC_free(keep[i]);
        for (int i = 0; i < 8; i++) {
            void *p = GC_malloc(s);
            CHECK(p != NULL);
            check_zeroed(p, s, "GC_malloc after GC_free of dirty objects");
        }
    }

    /* Dirty memory, drop it, collect: reclaimed memory must come back zeroed. */
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 20000; i++) {
            size_t s = (size_t)(i * 7919 % 4000);
            void *p = GC_malloc(s);
            CHECK(p != NULL);
            memset(p, 0xEE, GC_size(p));
        }
        clear_stack();
        GC_gcollect();
        for (int i = 0; i < 20000; i++) {
            size_t s = (size_t)(i * 7919 % 4000);
            void *p = GC_malloc(s);
            CHECK(p != NULL);
            check_zeroed(p, s, "GC_malloc after collecting dirty garbage");
            memset(p, 0xEE, GC_size(p));
        }
    }

    /* Large sizes. */
    size_t large[] = { 64 << 10, 1 << 20, 16 << 20 };
    for (int i = 0; i < 3; i++) {
        size_t s = large[i];
        unsigned char *p = GC_malloc(s);
        CHECKF(p != NULL, "GC_malloc(%zu) returned NULL", s);
        check_zeroed(p, s, "fresh large GC_malloc");
        CHECKF(GC_size(p) >= s + 1, "GC_size(GC_malloc(%zu)) = %zu", s, GC_size(p));
        check_base_of(p, s);
        CHECK_PTR_EQ(GC_base(p + s - 4096 - 3), p);
        memset(p, 0x5A, s);
        GC_free(p);
        p = GC_malloc(s);
        CHECK(p != NULL);
        check_zeroed(p, s, "large GC_malloc after GC_free of a dirty object");
    }
}

static void test_base_and_heap_ptr(void)
{
    int local = 0;
    void *m = malloc(64);
    CHECK(m != NULL);
    CHECK_PTR_EQ(GC_base(&local), NULL);
    CHECK_PTR_EQ(GC_base(&static_var[3]), NULL);
    CHECK_PTR_EQ(GC_base(m), NULL);
    CHECK_PTR_EQ(GC_base((void *)&test_base_and_heap_ptr), NULL);
    CHECK_PTR_EQ(GC_base(NULL), NULL);
    CHECK_EQ(GC_is_heap_ptr(&local), 0);
    CHECK_EQ(GC_is_heap_ptr(&static_var[3]), 0);
    CHECK_EQ(GC_is_heap_ptr(m), 0);
    CHECK_EQ(GC_is_heap_ptr(NULL), 0);
    free(m);

    void *small = GC_malloc(100), *big = GC_malloc(300000);
    CHECK(small && big);
    CHECK(GC_is_heap_ptr(small) != 0);
    CHECK(GC_is_heap_ptr(big) != 0);
    CHECK(GC_is_heap_ptr((char *)big + 250000) != 0);
    check_base_of(small, 100);
    check_base_of(big, 300000);
    /* The byte one past the requested end belongs to the object; a pointer
     * past the object's reported size does not. */
    CHECK_PTR_EQ(GC_base((char *)small + 100), small);
    CHECK(GC_base((char *)small + GC_size(small)) != small);
}

static void test_atomic(void)
{
    for (size_t s = 0; s <= 5000; s += 13) {
        unsigned char *p = GC_malloc_atomic(s);
        CHECKF(p != NULL, "GC_malloc_atomic(%zu) = NULL", s);
        size_t sz = GC_size(p);
        CHECKF(sz >= s + 1, "GC_size(GC_malloc_atomic(%zu)) = %zu", s, sz);
        memset(p, 0xC3, sz);
        CHECK_PTR_EQ(GC_base(p + sz - 1), p);
    }
    unsigned char *p = GC_malloc_atomic(1 << 20);
    CHECK(p != NULL);
    memset(p, 0x3C, GC_size(p));
    CHECK_PTR_EQ(GC_base(p + 777777), p);
    /* Contents of an atomic object survive collections while it is live. */
    fill_pattern(p, 1 << 20, 42);
    GC_gcollect();
    CHECK_EQ(pattern_mismatch(p, 1 << 20, 42), (size_t)-1);
}

static void test_strings(void)
{
    const char *s = "the quick brown fox";
    char *d = GC_strdup(s);
    CHECK(d != NULL);
    CHECK(strcmp(d, s) == 0);
    CHECK(d != s);
    CHECK_PTR_EQ(GC_base(d), d);
    CHECK_GE(GC_size(d), strlen(s) + 1);

    char *n = GC_strndup(s, 9);
    CHECK(n != NULL);
    CHECKF(strcmp(n, "the quick") == 0, "GC_strndup(s, 9) = \"%s\"", n);
    CHECK_PTR_EQ(GC_base(n), n);
    n = GC_strndup(s, 1000);
    CHECK(n != NULL && strcmp(n, s) == 0);
    n = GC_strndup(s, 0);
    CHECK(n != NULL && n[0] == '\0');
    char *e = GC_strdup("");
    CHECK(e != NULL && e[0] == '\0');

    /* Long strings. */
    char *big = malloc(100001);
    CHECK(big != NULL);
    for (int i = 0; i < 100000; i++) big[i] = (char)('a' + i % 26);
    big[100000] = 0;
    d = GC_strdup(big);
    CHECK(d != NULL && strcmp(d, big) == 0);
    n = GC_strndup(big, 54321);
    CHECK(n != NULL && strlen(n) == 54321 && memcmp(n, big, 54321) == 0);
    free(big);
}

static void test_realloc(void)
{
    /* Grow small -> small -> large -> larger, shrink back, contents kept. */
    size_t sizes[] = { 10, 100, 1000, 5000, 70000, 1 << 20, 3 << 20, 300000, 2000, 33, 1 };
    unsigned char *p = GC_malloc(10);
    CHECK(p != NULL);
    fill_pattern(p, 10, 7);
    size_t cur = 10;
    for (size_t i = 1; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t ns = sizes[i];
        unsigned char *q = GC_realloc(p, ns);
        CHECKF(q != NULL, "GC_realloc(%p, %zu) = NULL", (void *)p, ns);
        size_t keep = cur < ns ? cur : ns;
        size_t bad = pattern_mismatch(q, keep, 7);
        CHECKF(bad == (size_t)-1, "realloc %zu -> %zu lost byte %zu", cur, ns, bad);
        CHECKF(GC_size(q) >= ns, "GC_size after realloc to %zu: %zu", ns, GC_size(q));
        CHECK_PTR_EQ(GC_base(q), q);
        if (ns > cur) /* collectable kind: the grown part is zero */
            check_zeroed(q + cur, ns - cur, "grown part after GC_realloc");
        fill_pattern(q, ns, 7);
        p = q;
        cur = ns;
        GC_gcollect(); /* p is live on the stack; contents must survive */
        CHECK_EQ(pattern_mismatch(p, cur, 7), (size_t)-1);
    }

    /* Atomic objects keep their contents too. */
    unsigned char *a = GC_malloc_atomic(500);
    CHECK(a != NULL);
    fill_pattern(a, 500, 99);
    a = GC_realloc(a, 50000);
    CHECK(a != NULL);
    CHECK_EQ(pattern_mismatch(a, 500, 99), (size_t)-1);
    a = GC_realloc(a, 64);
    CHECK(a != NULL);
    CHECK_EQ(pattern_mismatch(a, 64, 99), (size_t)-1);

    /* realloc(NULL, n) is malloc(n); realloc(p, 0) frees and returns NULL. */
    unsigned char *r = GC_realloc(NULL, 200);
    CHECK(r != NULL);
    check_zeroed(r, 200, "GC_realloc(NULL, 200)");
    CHECK_GE(GC_size(r), 200);
    CHECK_PTR_EQ(GC_base(r), r);
    CHECK_PTR_EQ(GC_realloc(r, 0), NULL);
}

static int contains(void *const *set, size_t n, const void *p)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == p) return 1;
    return 0;
}

static void test_free_reuse(void)
{
    enum { N = 1000 };
    void **addrs = malloc(N * sizeof *addrs); /* not scanned by the GC */
    CHECK(addrs != NULL);
    GC_free(NULL); /* no-op */
    size_t sizes[] = { 24, 64, 500, 3000 };
    for (int k = 0; k < 4; k++) {
        size_t s = sizes[k];
        /* No collection from here to the checks: addrs is not scanned, so
           one would free the objects before GC_free does (and hand them out
           again), and reuse must come from GC_free, not from a collection. */
        GC_disable();
        for (int i = 0; i < N; i++) {
            addrs[i] = GC_malloc(s);
            CHECK(addrs[i] != NULL);
        }
        for (int i = 0; i < N; i++) GC_free(addrs[i]);
        size_t reused = 0;
        for (int i = 0; i < 2 * N; i++) {
            void *p = GC_malloc(s);
            CHECK(p != NULL);
            reused += contains(addrs, N, p);
        }
        GC_enable();
        CHECKF(reused >= N * 9 / 10, "only %zu of %d freed %zu-byte objects "
               "were reused by the next %d allocations", reused, N, s, 2 * N);

        /* allocate/free pairs with collection disabled: no heap growth */
        size_t h = GC_get_heap_size();
        GC_disable();
        for (size_t done = 0; done < ((size_t)256 << 20); done += s) {
            void *p = GC_malloc(s);
            CHECK(p != NULL);
            GC_free(p);
        }
        GC_enable();
        CHECKF(GC_get_heap_size() <= h + (4 << 20), "heap grew from %zu to %zu "
               "over 256 MB of GC_malloc(%zu)/GC_free pairs", h,
               GC_get_heap_size(), s);
    }
    /* A freed large object is reused without growing the heap. */
    for (int i = 0; i < 20; i++) {
        void *p = GC_malloc(4 << 20);
        CHECK(p != NULL);
        GC_free(p);
    }
    size_t h = GC_get_heap_size();
    GC_disable();
    for (int i = 0; i < 50; i++) {
        void *p = GC_malloc(4 << 20);
        CHECK(p != NULL);
        GC_free(p);
    }
    GC_enable();
    CHECKF(GC_get_heap_size() <= h + (8 << 20), "heap grew from %zu to %zu "
           "allocating and freeing 4 MiB objects", h, GC_get_heap_size());
    free(addrs);
}

static void test_malloc_many(void)
{
    size_t sizes[] = { 1, 8, 16, 24, 48, 100, 512, 1000, 2000, 3000, 10000 };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t lb = sizes[k];
        void *list = GC_malloc_many(lb);
        CHECKF(list != NULL, "GC_malloc_many(%zu) = NULL", lb);
        size_t n = 0;
        for (void *q = list; q != NULL; q = GC_NEXT(q)) {
            n++;
            CHECKF(GC_size(q) >= lb && GC_size(q) >= sizeof(void *),
                   "GC_malloc_many(%zu) element %zu has GC_size %zu", lb, n,
                   GC_size(q));
            CHECK_PTR_EQ(GC_base(q), q);
            /* All but the link word are zero (collectable kind). */
            if (GC_size(q) > sizeof(void *))
                check_zeroed((char *)q + sizeof(void *),
                             (lb > sizeof(void *) ? lb : sizeof(void *)) - sizeof(void *),
                             "GC_malloc_many element");
            CHECKF(n < 1000000, "GC_malloc_many(%zu): list does not end", lb);
        }
        /* Elements must not overlap: stamp each one fully, then re-check. */
        size_t i = 0;
        void *q = list;
        void **elems = malloc(n * sizeof *elems);
        CHECK(elems != NULL);
        for (; q != NULL; q = GC_NEXT(q)) elems[i++] = q;
        for (i = 0; i < n; i++) {
            size_t sz = GC_size(elems[i]);
            memset((char *)elems[i] + sizeof(void *), (int)(i & 0xff), sz - sizeof(void *));
        }
        for (i = 0; i < n; i++) {
            const unsigned char *b = elems[i];
            size_t sz = GC_size(elems[i]);
            for (size_t j = sizeof(void *); j < sz; j++)
                CHECKF(b[j] == (unsigned char)(i & 0xff), "GC_malloc_many(%zu): "
                       "element %zu overlaps another (byte %zu = %u)", lb, i, j, b[j]);
        }
        /* The list (held through `list` on the stack) survives a collection. */
        GC_gcollect();
        i = 0;
        for (q = list; q != NULL; q = GC_NEXT(q), i++)
            CHECK_PTR_EQ(q, elems[i]);
        CHECK_EQ(i, n);
        free(elems);
    }
}

static void test_stats(void)
{
    GC_word hs, fb, ub, bs, tb;
    size_t h = GC_get_heap_size(), f = GC_get_free_bytes();
    CHECK_GT(h, 0);
    CHECKF(f <= h, "free bytes %zu > heap size %zu", f, h);
    GC_get_heap_usage_safe(&hs, &fb, &ub, &bs, &tb);
    CHECK_EQ(hs, GC_get_heap_size());
    CHECK_EQ(fb, GC_get_free_bytes());
    CHECK_EQ(ub, GC_get_unmapped_bytes());
    CHECK_EQ(bs, GC_get_bytes_since_gc());
    CHECK_EQ(tb, GC_get_total_bytes());
    GC_get_heap_usage_safe(NULL, NULL, NULL, NULL, NULL); /* NULL allowed */
    GC_get_heap_usage_safe(NULL, &fb, NULL, NULL, NULL);
    CHECK_LE(fb, GC_get_heap_size());

    /* total bytes increases by at least what is allocated */
    size_t sizes[] = { 16, 100, 1000, 5000, 100000 };
    void *volatile keep = NULL;
    for (int k = 0; k < 5; k++) {
        size_t t0 = GC_get_total_bytes(), alloc = 0;
        while (alloc < (8u << 20)) {
            void **p = GC_malloc(sizes[k]);
            CHECK(p != NULL);
            p[0] = keep;
            keep = p;
            alloc += sizes[k];
            if (alloc % (1 << 20) < sizes[k]) keep = NULL;
        }
        size_t t1 = GC_get_total_bytes();
        CHECKF(t1 - t0 >= alloc, "GC_get_total_bytes grew by %zu after "
               "allocating %zu bytes in %zu-byte objects", t1 - t0, alloc, sizes[k]);
        size_t hh = GC_get_heap_size(), ff = GC_get_free_bytes();
        CHECKF(ff <= hh, "free %zu > heap %zu", ff, hh);
    }
    keep = NULL;
    /* The heap holds what is live: 20 MiB kept alive means heap >= 20 MiB. */
    void **arr = GC_malloc(2000 * sizeof(void *));
    CHECK(arr != NULL);
    for (int i = 0; i < 2000; i++) {
        arr[i] = GC_malloc(10000);
        CHECK(arr[i] != NULL);
    }
    GC_gcollect();
    CHECKF(GC_get_heap_size() >= 20000000, "heap %zu with 20 MB live",
           GC_get_heap_size());
    CHECKF(GC_get_heap_size() - GC_get_free_bytes() >= 20000000,
           "heap %zu - free %zu < 20 MB live", GC_get_heap_size(),
           GC_get_free_bytes());
    for (int i = 0; i < 2000; i++) CHECK_PTR_EQ(GC_base(arr[i]), arr[i]);
}

static void test_disable(void)
{
    CHECK_EQ(GC_is_disabled(), 0);
    GC_disable();
    CHECK(GC_is_disabled() != 0);
    GC_disable(); /* nests */
    GC_word before = GC_get_gc_no();
    for (int i = 0; i < 200000; i++) /* ~200 MB of garbage */
        CHECK(GC_malloc(1000) != NULL);
    GC_gcollect(); /* ineffective while disabled */
    CHECKF(GC_get_gc_no() == before, "gc_no went from %lu to %lu while "
           "disabled", (unsigned long)before, (unsigned long)GC_get_gc_no());
    GC_enable();
    CHECK(GC_is_disabled() != 0);
    for (int i = 0; i < 50000; i++)
        CHECK(GC_malloc(1000) != NULL);
    CHECK_EQ(GC_get_gc_no(), before);
    GC_enable();
    CHECK_EQ(GC_is_disabled(), 0);
    GC_gcollect();
    CHECKF(GC_get_gc_no() > before, "GC_gcollect after GC_enable: gc_no %lu, "
           "was %lu", (unsigned long)GC_get_gc_no(), (unsigned long)before);
    /* Implicit collections are back: allocate three times the heap size
     * in garbage (the free heap alone cannot hold it). */
    before = GC_get_gc_no();
    size_t heap = GC_get_heap_size(), n = 3 * heap / 1000 + 100000;
    for (size_t i = 0; i < n; i++)
        CHECK(GC_malloc(1000) != NULL);
    CHECKF(GC_get_gc_no() > before, "no implicit collection during %zu MB "
           "of allocation, heap %zu MB (gc_no %lu)", n / 1000000,
           heap >> 20, (unsigned long)before);
}

static void test_setters(void)
{
    GC_warn_proc w0 = GC_get_warn_proc();
    CHECK(w0 != NULL);
    GC_set_warn_proc(my_warn);
    CHECK(GC_get_warn_proc() == my_warn);
    GC_set_warn_proc(GC_ignore_warn_proc);
    CHECK(GC_get_warn_proc() == GC_ignore_warn_proc);
    GC_set_warn_proc(w0);
    CHECK(GC_get_warn_proc() == w0);

    GC_oom_func o0 = GC_get_oom_fn();
    CHECK(o0 != NULL);
    GC_set_oom_fn(my_oom);
    CHECK(GC_get_oom_fn() == my_oom);
    GC_set_oom_fn(o0);
    CHECK(GC_get_oom_fn() == o0);

    CHECK_EQ(GC_get_all_interior_pointers(), 1);
    GC_set_all_interior_pointers(1);
    CHECK_EQ(GC_get_all_interior_pointers(), 1);
}

int main(void)
{
    /* Getters and setters that work before initialisation. */
    CHECK_EQ(GC_get_all_interior_pointers(), 1); /* the default */
    GC_set_all_interior_pointers(1);
    CHECK_EQ(GC_get_all_interior_pointers(), 1);
    CHECK_EQ(GC_get_version(), (8u << 16) | (2u << 8) | 2u);

    GC_INIT();
    CHECK_EQ(GC_get_gc_no(), 1);
    CHECK_EQ(GC_get_version(), (8u << 16) | (2u << 8) | 2u);

    test_zeroed_and_sizes();
    test_base_and_heap_ptr();
    test_atomic();
    test_strings();
    test_realloc();
    test_free_reuse();
    test_malloc_many();
    test_stats();
    test_disable();
    test_setters();
    printf("basics: ok (%lu collections)\n", (unsigned long)GC_get_gc_no());
    return 0;
}
