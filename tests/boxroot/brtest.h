/* brtest.h: helpers shared by the boxroot tests (tests/boxroot/).
 *
 * Failure reporting that is safe from any thread (message, then _exit(1)),
 * a seeded hash, checksummed GC values (a short chain of GC_malloc'd nodes,
 * so that marking through a boxroot is transitive), garbage churn that
 * overwrites wrongly freed memory, disappearing-link counters kept in atomic
 * memory (so the counter itself retains nothing), a stack scrubber, and a
 * hang watchdog. The watchdog only turns a hang into a diagnosable failure;
 * no test asserts on time.
 *
 * The includer defines GC_THREADS (or not) and includes <gc.h> first. */
#ifndef BIBOP_BOXROOT_BRTEST_H
#define BIBOP_BOXROOT_BRTEST_H

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bibop.h>
#include <boxroot.h>

#include "../common/fail.h"
#define br_fail test_fail

#define BR_STR2(x) #x
#define BR_STR(x) BR_STR2(x)
#define BR_CHECK(cond, ...)                                                     \
    do {                                                                        \
        if (!(cond)) br_fail(__FILE__ ":" BR_STR(__LINE__) ": " __VA_ARGS__);   \
    } while (0)

static inline uint64_t br_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

typedef struct { uint64_t s; } br_rng;
static inline uint64_t br_next(br_rng *r) { return br_mix(r->s++); }
static inline size_t br_below(br_rng *r, size_t n) { return (size_t)(br_next(r) % n); }

/* ---- the hang watchdog ---------------------------------------------------- */

/* Generous: a hang is what it catches, never slowness on a loaded machine
   (ctest's TIMEOUT for these tests is a little longer). */
#define BR_WATCHDOG_SECONDS 100

static const char *volatile br_stage = "start";

static inline void br_on_alarm(int sig)
{
    (void)sig;
    const char *s = br_stage;
    static const char msg[] = "FAIL: watchdog: no progress (hang?) in stage: ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, s, strlen(s)) < 0 || write(2, "\n", 1) < 0) {
    }
    _exit(1);
}

static inline void br_watchdog(unsigned seconds)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = br_on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    alarm(seconds);
}

/* ---- checksummed values ----------------------------------------------------
 * A value for seed s is a chain of 1..3 nodes; node k has 2..9 payload words
 * derived from (s, k, i). A node that was freed and reused, overwritten, or a
 * broken link, is detected by br_value_check. Payload words keep their top
 * bit set so that they never look like heap addresses. */

typedef struct br_node {
    struct br_node *next;
    uint64_t seed;
    uint64_t k;
    uint64_t n;
    uint64_t w[];
} br_node;

static inline size_t br_chain_len(uint64_t s) { return 1 + (size_t)(br_mix(s ^ 0x51) % 3); }
static inline size_t br_node_words(uint64_t s, size_t k) { return 2 + (size_t)(br_mix(s * 7 + k) % 8); }
static inline uint64_t br_word(uint64_t s, size_t k, size_t i)
{
    return br_mix(s * 1000003u + k * 1009u + i) | (1ULL << 63);
}

static inline br_node *br_value_make(uint64_t s)
{
    br_node *head = NULL;
    for (size_t k = br_chain_len(s); k-- > 0;) {
        size_t n = br_node_words(s, k);
        br_node *p = (br_node *)GC_MALLOC(sizeof(br_node) + n * sizeof(uint64_t));
        if (!p) br_fail("GC_MALLOC returned NULL making a value");
        p->next = head;
        p->seed = s;
        p->k = k;
        p->n = n;
        for (size_t i = 0; i < n; i++) p->w[i] = br_word(s, k, i);
        head = p;
    }
    return head;
}

/* 0 if v is the intact value for seed s, else a code saying what is wrong. */
static inline int br_value_bad(const br_node *v, uint64_t s)
{
    size_t len = br_chain_len(s), k = 0;
    for (; v && k < len; v = v->next, k++) {
        size_t n = br_node_words(s, k);
        if (v->seed != s || v->k != k || v->n != n) return 1;
        for (size_t i = 0; i < n; i++)
            if (v->w[i] != br_word(s, k, i)) return 2;
    }
    if (k != len) return 3;
    if (v) return 4;
    return 0;
}

#define BR_VALUE_CHECK(v, s, ...)                                               \
    do {                                                                        \
        int br_bad_ = br_value_bad((const br_node *)(v), (s));                  \
        if (br_bad_)                                                            \
            br_fail(__FILE__ ":" BR_STR(__LINE__) ": value for seed %llu corrupted (code %d): %s", \
                    (unsigned long long)(s), br_bad_, __VA_ARGS__);             \
    } while (0)

/* Allocate and drop `count` objects of `bytes` filled with a pattern, so that
   wrongly freed memory gets reused and overwritten. */
static inline void br_churn(size_t count, size_t bytes)
{
    for (size_t i = 0; i < count; i++) {
        unsigned char *p = (unsigned char *)GC_MALLOC(bytes);
        if (!p) br_fail("GC_MALLOC returned NULL while churning");
        memset(p, 0xA5, bytes);
    }
}

/* Overwrite the dead part of the stack below the caller, so stale copies of
   pointers left by earlier calls do not retain objects. */
static __attribute__((noinline, unused)) void br_scrub_stack(void)
{
    volatile char pad[64 * 1024];
    memset((char *)pad, 0, sizeof pad);
    __asm__ volatile("" : : "r"(pad) : "memory");
}

/* ---- disappearing-link counters --------------------------------------------
 * n links in one GC_malloc_atomic block (never scanned), the block held from
 * a static pointer. br_links_watch(i, obj) makes slot i disappear when obj is
 * collected; br_links_cleared() counts disappeared slots among those set. */

static void **br_links;        /* static data: scanned, holds the block */
static size_t br_links_n;

static inline void br_links_init(size_t n)
{
    br_links = (void **)GC_MALLOC_ATOMIC(n * sizeof(void *));
    BR_CHECK(br_links != NULL, "GC_MALLOC_ATOMIC(%zu links)", n);
    memset(br_links, 0, n * sizeof(void *));
    br_links_n = n;
}

static inline void br_links_watch(size_t i, void *obj)
{
    br_links[i] = obj;
    int rc = GC_general_register_disappearing_link(&br_links[i], obj);
    BR_CHECK(rc == 0, "GC_general_register_disappearing_link returned %d for slot %zu", rc, i);
}

/* Slots in [lo, hi) that were set and have disappeared. */
static inline size_t br_links_cleared(size_t lo, size_t hi)
{
    size_t c = 0;
    for (size_t i = lo; i < hi; i++)
        if (br_links[i] == NULL) c++;
    return c;
}

static inline void br_stats(struct boxroot_stats *s)
{
    memset(s, 0xff, sizeof *s);
    boxroot_get_stats(s);
}

#endif
