/* svector.bad_input: every bad input of the structure-vector API.
 *
 * Returning calls:
 *   bibop_struct_type_new with 0 fields, or more than 2^20     -> NULL
 *   bibop_struct_new(NULL), bibop_svector_new(NULL, n)         -> NULL
 *   bibop_svector_new(t, n) with n x size overflowing (n*k, or
 *     (2 + n*k) words in bytes, wrapping) or beyond the address
 *     space                                                    -> NULL
 *   bibop_svector_ref(v, i), i >= length                        -> NULL
 *   bibop_svector_set(v, i, vals), i >= length or vals NULL     -> -1, vector unchanged
 *   ref / set / length / is_svector on what is not a vector
 *     (NULL, static, stack, malloc'd, GC_MALLOC'd, atomic, large
 *     objects, structures, element references other than element
 *     0, misaligned and header addresses)                       -> NULL / -1 / 0 / 0
 *   bibop_type_of / bibop_is_instance on non-structures         -> NULL / 0
 * Aborting calls (each in a child process -- this program run with
 * "child <case>" -- whose exit status must be death by SIGABRT and whose
 * stderr must name the call): bibop_field_get / bibop_field_set with the
 * field index out of range (= field count, SIZE_MAX), on a structure, an
 * element, and on things that are not structure references (NULL, static,
 * stack, malloc'd, GC_MALLOC'd, atomic, misaligned, the vector's length
 * word, one element past the end). A valid call in a child must exit 0.
 *
 * selfcheck-no-abort runs the valid call as if it had to abort: it must
 * FAIL with "did not abort". */
#define _GNU_SOURCE
#include <gc.h>
#include <bibop.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "svcommon.h"

static const bibop_struct_type *T2, *T3;
static unsigned long a_static[8];

/* ---- the children ----------------------------------------------------- */

static const char *const abort_cases[] = {
    "get-struct-k-eq-n", "get-struct-k-max", "get-element-k-eq-n", "get-element-k-max",
    "get-null", "get-static", "get-stack", "get-malloc", "get-gc-object", "get-gc-interior",
    "get-atomic", "get-large-gc-object", "get-misaligned-element",
    "get-length-word", "get-past-end", "get-struct-header",
    "set-struct-k-eq-n", "set-struct-k-max", "set-element-k-eq-n", "set-element-k-max",
    "set-null", "set-static", "set-stack", "set-malloc", "set-gc-object", "set-gc-interior",
    "set-atomic", "set-large-gc-object", "set-misaligned-element",
    "set-length-word", "set-past-end", "set-struct-header",
};
#define NABORT (sizeof abort_cases / sizeof abort_cases[0])

/* Known bug (registered only with -DBIBOP_SVECTOR_KNOWN_BUGS=ON, as
   svector.known_bug.field-non-reference): field_get/field_set accept two
   kinds of addresses that are not structure references, and read or write
   there instead of aborting:
   - one byte past an element or a structure: an unaligned word straddling
     two fields is read or written. src/svector.c:157 computes the offset as
     a GC_word pointer difference, which truncates the misalignment (and is
     undefined behaviour for a misaligned pointer);
   - k words past an individually allocated structure of k fields, while
     that is still inside its object (the granule's slack: a 3-field
     structure is a 48-byte object): src/svector.c:158 accepts any offset
     that is a multiple of the field count, and the bound on the element
     index (line 159) is applied to vectors only.
   See tests/svector/known_bugs.c for the fix. */
static const char *const non_reference_cases[] = {
    "get-byte-misaligned", "set-byte-misaligned", "get-byte-misaligned-struct",
    "set-byte-misaligned-struct", "get-struct-past-end", "set-struct-past-end",
};

/* The address and field index a case calls field_get/field_set with. */
static void case_target(const char *what, void **ref, size_t *k, unsigned long *stack_words)
{
    unsigned long *s = bibop_struct_new(T3);
    unsigned long *v = bibop_svector_new(T3, 5);   /* 17 words: slack after element 4 */
    unsigned long *e = bibop_svector_ref(v, 3);
    SV_CHECK(s && v && e, "child: allocation failed");
    *k = 0;
    if (!strcmp(what, "struct-k-eq-n")) { *ref = s; *k = 3; }
    else if (!strcmp(what, "struct-k-max")) { *ref = s; *k = SIZE_MAX; }
    else if (!strcmp(what, "element-k-eq-n")) { *ref = e; *k = 3; }
    else if (!strcmp(what, "element-k-max")) { *ref = e; *k = SIZE_MAX; }
    else if (!strcmp(what, "null")) *ref = NULL;
    else if (!strcmp(what, "static")) *ref = a_static;
    else if (!strcmp(what, "stack")) *ref = stack_words;
    else if (!strcmp(what, "malloc")) *ref = malloc(64);
    else if (!strcmp(what, "gc-object")) *ref = GC_MALLOC(64);
    else if (!strcmp(what, "gc-interior")) *ref = (char *)GC_MALLOC(64) + 16;
    else if (!strcmp(what, "atomic")) *ref = GC_MALLOC_ATOMIC(64);
    else if (!strcmp(what, "large-gc-object")) *ref = (char *)GC_MALLOC(100000) + 50000;
    else if (!strcmp(what, "misaligned-element")) *ref = e + 1;
    else if (!strcmp(what, "byte-misaligned")) *ref = (char *)e + 1;
    else if (!strcmp(what, "byte-misaligned-struct")) *ref = (char *)s + 1;
    else if (!strcmp(what, "struct-past-end")) {
        *ref = s + 3;   /* "structure 1" of a 3-field structure: in the 48-byte object */
        SV_CHECK(GC_base(*ref) == (void *)(s - 1), "child: struct-past-end is not in the object");
    }
    else if (!strcmp(what, "length-word")) *ref = v - 1;
    else if (!strcmp(what, "past-end")) {
        *ref = v + 5 * 3;   /* element 5 of 5: inside the object's slack */
        SV_CHECK(GC_base(*ref) == (void *)(v - 2), "child: past-end is not in the object");
    } else if (!strcmp(what, "struct-header")) *ref = s - 1;
    else if (!strcmp(what, "valid")) { *ref = e; *k = 2; }
    else sv_fail("child: unknown case %s", what);
}

static int run_child_case(const char *c)
{
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);   /* an abort must not leave core files */
    int set = strncmp(c, "set-", 4) == 0;
    if (!set && strncmp(c, "get-", 4) != 0) sv_fail("child: bad case %s", c);
    void *ref;
    size_t k;
    unsigned long stack_words[4] = { 0 };
    case_target(c + 4, &ref, &k, stack_words);
    fprintf(stderr, "child %s: calling %s(%p, %zu)\n", c, set ? "bibop_field_set" : "bibop_field_get",
            ref, k);
    fflush(stderr);
    if (set) {
        bibop_field_set(ref, k, 42);
    } else {
        volatile unsigned long x = bibop_field_get(ref, k);
        (void)x;
    }
    fprintf(stderr, "child %s: the call returned\n", c);
    __asm__ volatile("" : : "r"(stack_words) : "memory");
    return 3;
}

/* ---- the parent: run a child, collect exit status and stderr ---------- */

struct outcome {
    int status;
    char err[4096];
};

static struct outcome run_child(const char *c)
{
    struct outcome o;
    memset(&o, 0, sizeof o);
    int fds[2];
    SV_CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    SV_CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        char *args[] = { (char *)"svector_bad_input", (char *)"child", (char *)c, NULL };
        execv("/proc/self/exe", args);
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fds[0], o.err + len, sizeof o.err - 1 - len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        len += (size_t)r;
        if (len == sizeof o.err - 1) break;
    }
    o.err[len] = 0;
    close(fds[0]);
    while (waitpid(pid, &o.status, 0) < 0)
        SV_CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
    return o;
}

static void expect_abort(const char *c)
{
    struct outcome o = run_child(c);
    const char *call = strncmp(c, "set-", 4) == 0 ? "bibop_field_set" : "bibop_field_get";
    char *after = strstr(o.err, "calling");
    after = after ? strchr(after, '\n') : NULL;
    SV_CHECK(WIFSIGNALED(o.status) && WTERMSIG(o.status) == SIGABRT,
             "case %s did not abort: %s %d; stderr:\n%s", c,
             WIFSIGNALED(o.status) ? "killed by signal" : "exit status",
             WIFSIGNALED(o.status) ? WTERMSIG(o.status) : WEXITSTATUS(o.status), o.err);
    SV_CHECK(after && strstr(after, call), "case %s: the abort message does not name %s; stderr:\n%s",
             c, call, o.err);
}

/* ---- returning calls -------------------------------------------------- */

static void check_not_vector(const char *what, void *x)
{
    unsigned long vals[3] = { 1, 2, 3 };
    SV_CHECK(bibop_svector_ref(x, 0) == NULL, "ref(%s %p, 0) is not NULL", what, x);
    SV_CHECK(bibop_svector_ref(x, 1) == NULL, "ref(%s %p, 1) is not NULL", what, x);
    SV_CHECK(bibop_svector_length(x) == 0, "length(%s %p) = %zu", what, x, bibop_svector_length(x));
    SV_CHECK(!bibop_is_svector(x), "is_svector(%s %p) is 1", what, x);
    SV_CHECK(bibop_svector_set(x, 0, vals) == -1, "set(%s %p, 0) is not -1", what, x);
}

static void check_not_struct(const char *what, const void *x)
{
    SV_CHECK(bibop_type_of(x) == NULL, "type_of(%s %p) = %p, want NULL", what, x,
             (void *)bibop_type_of(x));
    SV_CHECK(!bibop_is_instance(x, T2) && !bibop_is_instance(x, T3),
             "is_instance(%s %p) is 1", what, x);
}

static void GC_CALLBACK quiet_warn(char *msg, GC_word arg)
{
    (void)msg;
    (void)arg;
}

static void returning_calls(void)
{
    /* Types. */
    unsigned long bm[1] = { 1 };
    SV_CHECK(bibop_struct_type_new("zero", 0, NULL) == NULL, "type with 0 fields not NULL");
    SV_CHECK(bibop_struct_type_new("zero", 0, bm) == NULL, "type with 0 fields (bitmap) not NULL");
    SV_CHECK(bibop_struct_type_new("huge", ((size_t)1 << 20) + 1, NULL) == NULL,
             "type with 2^20 + 1 fields not NULL");
    SV_CHECK(bibop_struct_type_new("huge", SIZE_MAX, NULL) == NULL, "type with SIZE_MAX fields");
    const bibop_struct_type *tmax = bibop_struct_type_new("max", (size_t)1 << 20, NULL);
    SV_CHECK(tmax != NULL && bibop_struct_type_fields(tmax) == (size_t)1 << 20,
             "type with 2^20 fields refused");
    SV_CHECK(bibop_struct_type_name(NULL) == NULL && bibop_struct_type_fields(NULL) == 0,
             "name/fields of NULL type");
    SV_CHECK(bibop_struct_new(NULL) == NULL, "struct_new(NULL) not NULL");
    SV_CHECK(bibop_svector_new(NULL, 5) == NULL, "svector_new(NULL, 5) not NULL");
    SV_CHECK(bibop_svector_new(NULL, 0) == NULL, "svector_new(NULL, 0) not NULL");

    /* Overflowing n x size: the element count times the field count, or
       the object's bytes, wrap around; and sizes beyond the address space
       (those print bdwgc's "Out of Memory" warning: silenced here). */
    GC_warn_proc old_warn = GC_get_warn_proc();
    GC_set_warn_proc(quiet_warn);
    const bibop_struct_type *ks[5];
    const size_t kn[5] = { 1, 2, 3, 20, (size_t)1 << 20 };
    for (int i = 0; i < 5; i++) {
        ks[i] = i == 4 ? tmax : bibop_struct_type_new("k", kn[i], NULL);
        SV_CHECK(ks[i] != NULL, "type k=%zu", kn[i]);
        size_t k = kn[i];
        size_t bad[] = {
            SIZE_MAX, SIZE_MAX / 2 + 1,
            k > 1 ? SIZE_MAX / k + 1 : SIZE_MAX - 1,               /* n*k wraps */
            (SIZE_MAX / 8) / k + 1,                                /* n*k*8 wraps */
            ((size_t)1 << 61) / k,                                 /* n*k*8 = 2^64 for k = 2^j */
            (SIZE_MAX / 8 - 2) / k + 1,                            /* (2 + n*k)*8 wraps */
            ((size_t)1 << 62) / k + 1,
            ((size_t)1 << 49) / k,                                 /* > 2^48 bytes: no memory */
        };
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
            void *v = bibop_svector_new(ks[i], bad[j]);
            SV_CHECK(v == NULL, "svector_new(k=%zu, n=%zu) = %p, want NULL (n x size overflows or "
                     "exceeds the address space)", k, bad[j], v);
        }
    }
    GC_set_warn_proc(old_warn);
    /* The heap still works. */
    void *ok = bibop_svector_new(T2, 10);
    SV_CHECK(ok != NULL && bibop_svector_length(ok) == 10, "svector_new after the bad ones");

    /* Out-of-range indices, for small, large and multi-chunk vectors. */
    const size_t ns[] = { 1, 2, 256, 5000, (size_t)3 << 17 };
    for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
        size_t n = ns[s];
        unsigned long *v = bibop_svector_new(T2, n);
        SV_CHECK(v != NULL, "svector_new(%zu)", n);
        for (size_t i = 0; i < 2 * n; i++) v[i] = sv_value(s, i, 0);
        SV_CHECK(bibop_svector_ref(v, n - 1) == v + 2 * (n - 1), "ref(n - 1) of %zu", n);
        const size_t bad[] = { n, n + 1, 2 * n, SIZE_MAX / 2, SIZE_MAX / 2 + 1, SIZE_MAX,
                               SIZE_MAX / 2 + n / 2 };
        unsigned long vals[2] = { 7, 7 };
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
            SV_CHECK(bibop_svector_ref(v, bad[j]) == NULL, "ref(v of %zu, %zu) is not NULL", n,
                     bad[j]);
            SV_CHECK(bibop_svector_set(v, bad[j], vals) == -1, "set(v of %zu, %zu) is not -1", n,
                     bad[j]);
        }
        SV_CHECK(bibop_svector_set(v, 0, NULL) == -1, "set(v, 0, NULL) is not -1");
        for (size_t i = 0; i < 2 * n; i++)
            SV_CHECK(v[i] == sv_value(s, i, 0), "vector of %zu: word %zu changed by a failed set",
                     n, i);
        /* Unused words after the last element (the object's slack) are
           untouched too. */
        unsigned long *base = GC_base(v);
        size_t words = GC_size(base) / sizeof(unsigned long);
        for (size_t w = 2 + 2 * n; w < words; w++)
            SV_CHECK(base[w] == 0, "vector of %zu: slack word %zu = %#lx", n, w, base[w]);
    }

    /* Things that are not vectors. */
    unsigned long on_stack[4] = { 0 };
    void *m = malloc(64);
    unsigned long *gco = GC_MALLOC(64), *atom = GC_MALLOC_ATOMIC(64), *big = GC_MALLOC(100000);
    unsigned long *s = bibop_struct_new(T2), *v = bibop_svector_new(T2, 10);
    SV_CHECK(m && gco && atom && big && s && v, "allocations");
    check_not_vector("NULL", NULL);
    check_not_vector("static", a_static);
    check_not_vector("stack", on_stack);
    check_not_vector("malloc'd", m);
    check_not_vector("GC_MALLOC'd", gco);
    check_not_vector("GC_MALLOC'd interior", gco + 2);
    check_not_vector("atomic", atom);
    check_not_vector("large", big);
    check_not_vector("large interior", big + 5000);
    check_not_vector("structure", s);
    check_not_vector("structure header", s - 1);
    check_not_vector("element 1", v + 2);
    check_not_vector("element 9", v + 18);
    check_not_vector("misaligned element 0", v + 1);
    check_not_vector("byte-misaligned", (char *)v + 1);
    check_not_vector("length word", v - 1);
    check_not_vector("vector header", v - 2);
    check_not_vector("one past the end", v + 20);
    SV_CHECK(bibop_svector_length(v) == 10 && bibop_is_svector(v), "the real vector");
    /* Things that are not structures. */
    check_not_struct("NULL", NULL);
    check_not_struct("static", a_static);
    check_not_struct("stack", on_stack);
    check_not_struct("malloc'd", m);
    check_not_struct("GC_MALLOC'd", gco);
    check_not_struct("GC_MALLOC'd interior", gco + 2);
    check_not_struct("atomic", atom);
    check_not_struct("large", big + 5000);
    SV_CHECK(!bibop_is_instance(s, NULL) && !bibop_is_instance(v + 2, NULL), "instance of NULL");
    SV_CHECK(bibop_is_instance(s, T2) && !bibop_is_instance(s, T3), "structure instance test");
    free(m);
    __asm__ volatile("" : : "r"(on_stack) : "memory");
}

int main(int argc, char **argv)
{
    GC_INIT();
    T2 = bibop_struct_type_new("t2", 2, NULL);
    T3 = bibop_struct_type_new("t3", 3, NULL);
    SV_CHECK(T2 && T3, "types");
    if (argc == 3 && strcmp(argv[1], "child") == 0) return run_child_case(argv[2]);
    int no_abort = argc > 1 && strcmp(argv[1], "selfcheck-no-abort") == 0;
    if (argc > 1 && strcmp(argv[1], "known-bug-non-reference") == 0) {
        for (size_t i = 0; i < sizeof non_reference_cases / sizeof non_reference_cases[0]; i++)
            expect_abort(non_reference_cases[i]);
        printf("svector.known_bug.field-non-reference: passes (fixed)\n");
        return 0;
    }
    if (argc > 1 && !no_abort) {
        fprintf(stderr, "usage: %s [selfcheck-no-abort | known-bug-non-reference | child CASE]\n",
                argv[0]);
        return 2;
    }
    if (no_abort) {
        expect_abort("get-valid");   /* must fail: a valid call does not abort */
        return 0;
    }

    returning_calls();
    printf("returning calls: ok\n");

    /* The harness tells a valid call from an aborting one. */
    struct outcome o = run_child("get-valid");
    SV_CHECK(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 3,
             "valid child: status %#x, want exit 3 (the call returned); stderr:\n%s", o.status,
             o.err);
    o = run_child("set-valid");
    SV_CHECK(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 3,
             "valid child (set): status %#x, want exit 3; stderr:\n%s", o.status, o.err);
    for (size_t i = 0; i < NABORT; i++) expect_abort(abort_cases[i]);
    printf("%zu aborting cases: ok\n", (size_t)NABORT);
    printf("svector.bad_input: ok\n");
    return 0;
}
